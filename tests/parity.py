"""The peer-parity matrix of DESIGN §5.2: per model family (a tiny random model on the family's real
tokenizer) and per peer (lm-eval, minicons, MultiBLiMP's scorer), the peer's per-sentence scores
and decisions beside the ud-agree column that claims to equal them, pair by pair.

`python -m tests.parity` prints the matrix (pairs compared, largest |Δ score|, decisions
differing, peer ties); `--docs` prints the table the docs carry (tests/evaluate/test_parity.py
checks both pages against it)."""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import json
import lzma
import math
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from tests.evaluate.faults import record_fingerprint
from tests.paths import MODELS, UD

TOKENIZERS = MODELS / "tokenizers"
KEY = ["lang", "sent_id", "target_id", "controller_id", "feature", "bad_value", "variant"]
MULTIBLIMP_ENGLISH = MODELS.parent / "data" / "suites" / "multiblimp" / "eng.data.tsv.xz"
TREEBANKS = ("UD_French-PUD", "UD_English-PUD")
# Pairs per language (causal families) and in all (masked families, whose PLL costs a forward per
# token), and rows of MultiBLiMP's own English file: a few hundred pairs, CI's 2 cores in mind.
PAIRS_PER_LANGUAGE = 60
MASKED_PAIRS = 16
MULTIBLIMP_ROWS = 50
MULTIBLIMP_EXPORTED = 20  # of the corpus's pairs, French first (accents, apostrophes)
SHORT = 90  # characters: the longest sentence taken (the tiny models' cost grows with it)


@dataclass(frozen=True)
class Family:
    """A model family: the folder of its real tokenizer, masked or causal, and whether its
    tokenizer puts BOS first itself."""

    name: str
    folder: Path
    masked: bool = False
    adds_bos: bool = False


FAMILIES = (
    Family("GPT-2", MODELS / "tiny-fr-ud-gpt2"),
    Family("Qwen2.5", TOKENIZERS / "qwen2.5"),
    Family("Pythia", TOKENIZERS / "pythia"),
    Family("OLMo-2", TOKENIZERS / "olmo2"),
    Family("Llama-3", TOKENIZERS / "llama3", adds_bos=True),
    Family("Llama-2", TOKENIZERS / "llama2", adds_bos=True),
    Family("Mistral v0.3", MODELS / "mistral-v0.3-tokenizer", adds_bos=True),
    Family("mBERT", MODELS / "bert-base-multilingual-cased", masked=True),
    Family("CamemBERT", MODELS / "camembert-base", masked=True),
    Family("XLM-R", MODELS / "xlm-roberta-base", masked=True),
)
BY_NAME = {f.name: f for f in FAMILIES}


@dataclass(frozen=True)
class Peer:
    """A peer's way of scoring, and the ud-agree column that claims its decisions (§5.2)."""

    name: str
    column: str  # the ud-agree column, as the docs name it
    applies: Callable[[Family], bool]
    also_sum: bool = False  # where the tokenizer adds BOS, `right_sum` equals it too (tested)

    def claim(self, family: Family) -> str:
        """The docs' cell: the column, and `right_sum` where it equals it for this family."""
        if (family.name, self.name) not in CELLS:
            return "—"
        return self.column + (", `right_sum`" if self.also_sum and family.adds_bos else "")


PEERS = (
    Peer("lm-eval acc (export)", "`right_sum`", lambda f: not f.masked),
    Peer("lm-eval acc_norm (export)", "`right_chars`", lambda f: not f.masked),
    Peer("lm-eval acc_bytes (export)", "`right_bytes`", lambda f: not f.masked),
    Peer(
        'lm-eval blimp (delimiter " ")', "`right_sum` (`--leading-space`)", lambda f: not f.masked
    ),
    Peer("minicons sum", "`right_minicons`", lambda f: not f.masked, also_sum=True),
    Peer("minicons mean", "`right_mean`", lambda f: f.adds_bos),
    Peer(
        "MultiBLiMP score.py",
        "`right_minicons` (`evaluate.suite`)",
        lambda f: not f.masked,
        also_sum=True,
    ),
    Peer(
        "minicons within_word_l2r",
        "`right_sum` (`evaluate.suite`, `--pll sentence`)",
        lambda f: f.masked,
    ),
)
PEER_BY_NAME = {p.name: p for p in PEERS}
CELLS = [(f.name, p.name) for f in FAMILIES for p in PEERS if p.applies(f)]


@dataclass
class Cell:
    """One cell's outcome: pairs compared, the largest |Δ score| of a sentence, the decisions that
    differ other than at a peer's exact tie (listed), the peer's ties and the tolerance misses."""

    family: str
    peer: str
    pairs: int
    largest_delta: float
    differing: list[str] = field(default_factory=list)
    ties: int = 0
    off_tolerance: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return self.pairs > 0 and not self.differing and not self.off_tolerance

    def failure(self) -> str:
        """What a failed cell prints: every sentence off tolerance, every decision differing."""
        lines = [f"{self.family} × {self.peer}: {self.pairs} pairs"]
        lines += [f"  score off tolerance: {x}" for x in self.off_tolerance[:20]]
        lines += [f"  decision differs: {x}" for x in self.differing]
        return "\n".join(lines)


def tolerance(score: float) -> float:
    """§5.2: per-sentence scores equal within 1e-4 + 1e-6 × |score|."""
    return 1e-4 + 1e-6 * abs(score)


def compare(family: str, peer: str, ours: pl.DataFrame, theirs: pl.DataFrame) -> Cell:
    """Both sides as `id`, `good`, `bad` (a sentence's value under the rule) and `right` (the
    decision): joined on `id`; a peer's exact tie (good == bad in its float32) is counted, never a
    difference."""
    joined = ours.join(theirs, on="id", how="full", suffix="_peer", coalesce=True)
    missing = joined.filter(pl.any_horizontal(pl.all().is_null()))
    cell = Cell(family, peer, joined.height, 0.0)
    cell.differing += [f"{row['id']}: on one side only" for row in missing.iter_rows(named=True)]
    for row in joined.drop_nulls().iter_rows(named=True):
        for side in ("good", "bad"):
            delta = abs(row[side] - row[f"{side}_peer"])
            cell.largest_delta = max(cell.largest_delta, delta)
            if not delta <= tolerance(row[side]):
                cell.off_tolerance.append(
                    f"{row['id']} {side}: {row[side]!r} vs {row[f'{side}_peer']!r}"
                )
        tie = row["good_peer"] == row["bad_peer"]
        cell.ties += tie
        if row["right"] != row["right_peer"] and not tie:
            cell.differing.append(
                f"{row['id']}: ours {row['good']:.6f} vs {row['bad']:.6f} ({row['right']}), "
                f"peer {row['good_peer']:.6f} vs {row['bad_peer']:.6f} ({row['right_peer']})"
            )
    return cell


# --- the pairs -------------------------------------------------------------------------------


def pick(pairs: pl.DataFrame, n: int) -> pl.DataFrame:
    """`n` short pairs, the hard cases first: the varied word first in the sentence (a leading
    capital), digits, apostrophes, accents; then the rest in the table's order."""
    short = pairs.filter(
        (pl.col("variant") == "original") & (pl.col("sentence_good").str.len_chars() <= SHORT)
    ).with_row_index("order")
    kinds = [
        pl.col("start") == 0,
        pl.col("sentence_good").str.contains(r"\d"),
        pl.col("sentence_good").str.contains("['’]"),
        pl.col("sentence_good").str.contains(r"[^\x00-\x7f]"),
    ]
    taken: list[int] = []
    for kind in kinds:
        ids = short.filter(kind & ~pl.col("order").is_in(taken))["order"].to_list()
        taken += ids[: n // (len(kinds) + 1)]
    rest = short.filter(~pl.col("order").is_in(taken))["order"].to_list()
    taken += rest[: n - len(taken)]
    return short.filter(pl.col("order").is_in(taken)).drop("order")


def mine_corpus(work: Path) -> Path:
    """French-PUD and English-PUD mined (`--all-types`), and a corpus of a few hundred of their
    pairs (`pick`): the folder of the latter."""
    from ud_agree.mine.plan import Options
    from ud_agree.mine.run import mine_languages

    (work / "ud").mkdir(parents=True)
    for name in TREEBANKS:
        (work / "ud" / name).symlink_to(UD / name)
    options = Options(ud_dir=work / "ud", out=work / "mined", unimorph_dirs=[work / "no-unimorph"],
                      all_types=True, progress=False)  # fmt: skip
    mine_languages(options)
    corpus = work / "corpus"
    for lang_folder in sorted((work / "mined").iterdir()):
        if not lang_folder.is_dir():
            continue
        folder = corpus / lang_folder.name
        folder.mkdir(parents=True)
        for table in lang_folder.iterdir():
            if table.name == "manifest.json":  # copied: it records the smaller pairs table
                (folder / table.name).write_bytes(table.read_bytes())
            elif table.name != "pairs.parquet":
                (folder / table.name).symlink_to(table)
        pairs = pl.read_parquet(lang_folder / "pairs.parquet")
        pick(pairs, PAIRS_PER_LANGUAGE).write_parquet(folder / "pairs.parquet")
        record_fingerprint(folder / "pairs.parquet")
    return corpus


def pair_id() -> pl.Expr:
    """One string naming a pair of the corpus (its key)."""
    return pl.concat_str([pl.col(c).cast(pl.String) for c in KEY], separator="/").alias("id")


def multiblimp_file(work: Path, corpus: Path) -> Path:
    """A suite in MultiBLiMP's TSV layout: the first rows of MultiBLiMP's own English file, then
    the first of the corpus's French pairs as `mine.export --format multiblimp` writes them."""
    from ud_agree.mine.export import export

    with lzma.open(MULTIBLIMP_ENGLISH, "rt", encoding="utf-8") as stream:
        lines = stream.read().splitlines()
    own = work / "multiblimp-eng.tsv"
    own.write_text("\n".join(lines[: MULTIBLIMP_ROWS + 1]) + "\n", encoding="utf-8")
    real = pl.read_csv(own, separator="\t", infer_schema=False)
    exported = work / "multiblimp-fr.tsv"
    export(corpus / "fr" / "pairs.parquet", "multiblimp", exported)
    ours = pl.read_csv(exported, separator="\t", infer_schema=False).head(MULTIBLIMP_EXPORTED)
    ours = ours.select(c for c in real.columns if c in ours.columns)
    suite = work / "data.tsv"
    pl.concat([real, ours], how="diagonal").select(real.columns).write_csv(suite, separator="\t")
    return suite


# --- the families' tiny models ---------------------------------------------------------------


def shim_batch_encode_plus(tokenizer: Any) -> Any:
    """minicons 0.3 calls `batch_encode_plus`, gone in transformers 5: the tokenizer's own
    `__call__` does the same (kept here, in the tests)."""
    if not hasattr(tokenizer, "batch_encode_plus"):
        tokenizer.batch_encode_plus = lambda texts, **kw: tokenizer(texts, **kw)
    return tokenizer


def build_model(family: Family, folder: Path) -> tuple[Any, Any]:
    """A tiny random model of `family` (2 layers, hidden size 32, the real vocabulary) saved with
    its tokenizer in `folder`; heads sharpened so that sentences differ by whole nats."""
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(family.folder)
    config = transformers.AutoConfig.from_pretrained(family.folder)
    sizes = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=512, tie_word_embeddings=False,
                 vocab_size=max(config.vocab_size, len(tokenizer)))  # fmt: skip
    if hasattr(config, "num_key_value_heads"):
        sizes["num_key_value_heads"] = 2
    if getattr(config, "layer_types", None):
        sizes["layer_types"] = config.layer_types[:2]
    if family.masked:
        sizes["type_vocab_size"] = max(getattr(config, "type_vocab_size", 1), 1)
    config.update(sizes)
    torch.manual_seed(0)
    auto = transformers.AutoModelForMaskedLM if family.masked else transformers.AutoModelForCausalLM
    model = auto.from_config(config, dtype=torch.float32).eval()
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(20.0)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return model, tokenizer


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """torch on one thread while a cell runs: tiny models gain nothing from more, and two test
    workers on two cores each spinning two threads ran 30× slower (measured)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# --- the matrix ------------------------------------------------------------------------------


class Matrix:
    """Every cell's two sides, computed on demand in `work` and kept (each model built once,
    each run once)."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.models: dict[str, tuple[Any, Any]] = {}
        self.runs: dict[tuple[str, str], Any] = {}

    @functools.cached_property
    def corpus(self) -> Path:
        return mine_corpus(self.work / "pud")

    @functools.cached_property
    def pairs(self) -> pl.DataFrame:
        frames = [pl.read_parquet(p / "pairs.parquet") for p in sorted(self.corpus.iterdir())]
        return pl.concat(frames).with_columns(pair_id())

    @functools.cached_property
    def multiblimp(self) -> Path:
        (self.work / "multiblimp").mkdir(parents=True)
        return multiblimp_file(self.work / "multiblimp", self.corpus)

    @functools.cached_property
    def masked_suite(self) -> Path:
        """The masked families' pairs: the shortest of the suite's, as one MultiBLiMP TSV."""
        rows = pl.read_csv(self.multiblimp, separator="\t", infer_schema=False)
        rows = rows.with_columns(pl.col("sen").str.len_chars().alias("length"))
        short = rows.sort("length", maintain_order=True).head(MASKED_PAIRS).drop("length")
        path = self.work / "masked" / "data.tsv"
        path.parent.mkdir(parents=True)
        short.write_csv(path, separator="\t")
        return path

    def model(self, family: Family) -> tuple[Any, Any]:
        if family.name not in self.models:
            folder = self.work / "models" / family.folder.name
            self.models[family.name] = build_model(family, folder)
        return self.models[family.name]

    def folder(self, family: Family) -> Path:
        self.model(family)
        return self.work / "models" / family.folder.name

    def once(self, family: Family, what: str, run: Callable[[], Any]) -> Any:
        if (family.name, what) not in self.runs:
            self.runs[family.name, what] = run()
        return self.runs[family.name, what]

    def cell(self, family_name: str, peer_name: str) -> Cell:
        """Both sides of one cell, compared."""
        family, peer = BY_NAME[family_name], PEER_BY_NAME[peer_name]
        with one_thread():
            ours, theirs = SIDES[peer.name](self, family)
        return compare(family.name, peer.name, ours, theirs)

    # ud-agree's side.

    def evaluated(self, family: Family, leading_space: bool = False) -> pl.DataFrame:
        """ud-agree's pair reading of the corpus, every language, with the `minicons` rule."""
        from ud_agree.evaluate.options import Options
        from ud_agree.evaluate.output.results import load_results
        from ud_agree.evaluate.run import evaluate

        def run() -> pl.DataFrame:
            out = (
                self.work / "results" / family.folder.name / ("space" if leading_space else "plain")
            )
            frames = []
            for lang in sorted(p.name for p in self.corpus.iterdir()):
                extra: dict[str, Any] = (
                    {"leading_space": True} if leading_space else {"rules": ("minicons",)}
                )
                done = evaluate(Options(lang=lang, corpus=str(self.corpus), model=str(self.folder(family)),
                                        reading="pair", out=str(out), progress=False, device="cpu",
                                        **extra))  # fmt: skip
                frames.append(load_results(done.out_dir).collect())
            return pl.concat(frames, how="diagonal_relaxed").with_columns(pair_id())

        return self.once(family, f"evaluate {leading_space}", run)

    def suite_run(self, family: Family, suite: Path) -> pl.DataFrame:
        """`python -m evaluate.suite` on a MultiBLiMP TSV (causal: `--rule minicons`)."""
        from ud_agree.evaluate.options import suite_run
        from ud_agree.evaluate.output.results import load_suite_results
        from ud_agree.evaluate.run import run_suites

        def run() -> pl.DataFrame:
            out = self.work / "suites" / family.folder.name / suite.parent.name
            extra: dict[str, Any] = {} if family.masked else {"rule": "minicons"}
            run_suites(suite_run(files=[str(suite)], model=str(self.folder(family)), out=str(out),
                                    format="multiblimp", progress=False, device="cpu", **extra),
                       warn=lambda message: None)  # fmt: skip
            rows = load_suite_results(out).collect()
            return rows.with_columns(pl.col("line").cast(pl.String).alias("id"))

        return self.once(family, f"suite {suite}", run)

    # The peers' side.

    def lm_eval_samples(self, family: Family, tasks: list[Any], include: Path | None) -> list[dict]:
        """lm-eval 0.4 run in this process on the family's model (float32, as ud-agree's):
        every sample it logged."""
        import lm_eval
        from lm_eval.models.huggingface import HFLM
        from lm_eval.tasks import TaskManager

        model, tokenizer = self.model(family)
        lm = HFLM(pretrained=model, tokenizer=copy.deepcopy(tokenizer), batch_size=16,
                  max_length=512)  # fmt: skip
        manager = TaskManager(
            include_path=str(include) if include else None, include_defaults=False
        )
        out = lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=manager, log_samples=True,
                                      bootstrap_iters=0, verbosity="ERROR")  # fmt: skip
        assert out is not None
        return [sample for samples in out["samples"].values() for sample in samples]

    def lm_eval_export(self, family: Family) -> pl.DataFrame:
        """lm-eval on ud-agree's lm-eval export of the corpus: each pair's two log-likelihoods."""
        from ud_agree.mine.export import main as export_main

        def run() -> pl.DataFrame:
            tasks = self.work / "lm-eval-tasks"
            if not tasks.is_dir():
                assert (
                    export_main([str(self.corpus), "--format", "lm-eval", "--out", str(tasks)]) == 0
                )
            langs = sorted(p.name for p in self.corpus.iterdir())
            samples = self.lm_eval_samples(family, [f"ud_agree_{lang}" for lang in langs], tasks)
            return loglikelihoods(samples)

        return self.once(family, "lm-eval export", run)

    def lm_eval_blimp(self, family: Family) -> pl.DataFrame:
        """lm-eval's own `blimp` task template (its default delimiter, " ") on the corpus's pairs
        exported as BLiMP JSON lines."""
        import yaml
        from lm_eval import tasks as lm_eval_tasks
        from ud_agree.mine.export import export

        def run() -> pl.DataFrame:
            folder = self.work / "blimp"
            folder.mkdir(exist_ok=True)
            files = []
            for lang in sorted(p.name for p in self.corpus.iterdir()):
                files.append(folder / f"{lang}.jsonl")
                if not files[-1].is_file():
                    export(self.corpus / lang / "pairs.parquet", "blimp", files[-1])
            template = Path(lm_eval_tasks.__file__).parent / "blimp" / "_template_yaml"
            config = yaml.safe_load(template.read_text(encoding="utf-8"))
            assert "target_delimiter" not in config  # lm-eval's default, " ", applies
            config.pop("dataset_name", None)
            config.update(task="ud_agree_parity_blimp", dataset_path="json",
                          dataset_kwargs={"data_files": {"train": [str(f) for f in files]}})  # fmt: skip
            return loglikelihoods(self.lm_eval_samples(family, [config], None))

        return self.once(family, "lm-eval blimp", run)

    def minicons(self, family: Family) -> Callable[[list[str]], list[Any]]:
        """minicons' per-token scores of a batch of sentences (`IncrementalLMScorer.sequence_score`,
        `bos_token=False`, no reduction) or, masked, `MaskedLMScorer`'s `within_word_l2r`; the
        scorer made once per family, on a copy of the tokenizer (minicons changes it)."""
        from minicons import scorer

        def make() -> Callable[[list[str]], list[Any]]:
            model, tokenizer = self.model(family)
            tokenizer = shim_batch_encode_plus(copy.deepcopy(tokenizer))
            if family.masked:
                lm: Any = scorer.MaskedLMScorer(model, "cpu", tokenizer=tokenizer)
                # minicons 0.3 reads the metric from sequence_score's keywords: its constructor's
                # `PLL_metric` does not reach it (prepare_text's default, "original", wins).
                return functools.partial(lm.sequence_score, reduction=lambda x: x,
                                         PLL_metric="within_word_l2r")  # fmt: skip
            lm = scorer.IncrementalLMScorer(model, "cpu", tokenizer=tokenizer)
            return functools.partial(lm.sequence_score, reduction=lambda x: x, bos_token=False)

        return self.once(family, "minicons scorer", make)

    def minicons_scores(self, family: Family, sentences: list[str]) -> list[list[float]]:
        """minicons' per-token scores of each sentence, in batches of 16."""
        score = self.minicons(family)
        out: list[list[float]] = []
        for start in range(0, len(sentences), 16):
            out += [t.tolist() for t in score(sentences[start : start + 16])]
        return out

    def minicons_pairs(
        self, family: Family
    ) -> tuple[pl.DataFrame, list[list[float]], list[list[float]]]:
        """minicons on the corpus's pairs: per-token scores of each good and bad sentence."""

        def run() -> tuple[pl.DataFrame, list[list[float]], list[list[float]]]:
            pairs = self.pairs
            good = self.minicons_scores(family, pairs["sentence_good"].to_list())
            bad = self.minicons_scores(family, pairs["sentence_bad"].to_list())
            return pairs.select("id"), good, bad

        return self.once(family, "minicons", run)

    def multiblimp_scorer(self, family: Family, suite: Path) -> pl.DataFrame:
        """MultiBLiMP's `src/lm_eval/score.py` logic: the file read with pandas, each row's two
        sentences scored together by minicons (no reduction), each summed; right: delta > 0, delta
        being the bad sentence's negative log-likelihood less the good one's."""
        import pandas as pd

        def run() -> pl.DataFrame:
            table = pd.read_csv(suite, sep="\t")
            rows = []
            for index, row in table.iterrows():
                good, bad = self.minicons_scores(family, [row.sen, row.wrong_sen])
                good_nll, bad_nll = -sum(good), -sum(bad)
                rows.append({"id": str(int(index) + 2), "good": -good_nll, "bad": -bad_nll,
                             "right": bad_nll - good_nll > 0})  # fmt: skip
            return pl.DataFrame(rows)

        return self.once(family, f"multiblimp {suite}", run)


def loglikelihoods(samples: list[dict]) -> pl.DataFrame:
    """lm-eval's logged samples as the pair's key, the good and bad sentence's log-likelihoods
    (its float32) and its `acc`, `acc_norm` and `acc_bytes` (absent metrics: null)."""
    rows = []
    for sample in samples:
        (good, _), (bad, _) = sample["filtered_resps"]  # (log-likelihood, is greedy) per choice
        doc = sample["doc"]
        rows.append({**{k: doc[k] for k in KEY}, "good": float(good), "bad": float(bad),
                     **{m: bool(sample[m]) if m in sample else None
                        for m in ("acc", "acc_norm", "acc_bytes")}})  # fmt: skip
    return pl.DataFrame(rows).with_columns(pair_id())


def per_length(frame: pl.DataFrame, length: str) -> pl.DataFrame:
    """Each side's value divided by its sentence's length in `length` units (lm-eval's own:
    characters, UTF-8 bytes)."""
    return frame.with_columns(
        pl.col("good") / pl.col(f"{length}_good"), pl.col("bad") / pl.col(f"{length}_bad")
    )


# --- each peer's two sides ---------------------------------------------------------------------


def ours(rows: pl.DataFrame, good: str, bad: str, right: str) -> pl.DataFrame:
    return rows.select(
        "id", pl.col(good).alias("good"), pl.col(bad).alias("bad"), pl.col(right).alias("right")
    )


def lm_eval_side(
    matrix: Matrix, family: Family, metric: str, unit: str | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = matrix.evaluated(family)
    theirs = matrix.lm_eval_export(family)
    if unit is None:
        mine = ours(rows, "lp_sum_good", "lp_sum_bad", "right_sum")
        return mine, theirs.select("id", "good", "bad", pl.col(metric).alias("right"))
    lengths = matrix.pairs.select(
        "id",
        *(pl.col(f"sentence_{s}").str.len_chars().alias(f"chars_{s}") for s in ("good", "bad")),
        *(pl.col(f"sentence_{s}").str.len_bytes().alias(f"bytes_{s}") for s in ("good", "bad")),
    )
    rule = "chars" if unit == "chars" else "bytes"
    mine = rows.select("id", (pl.col("lp_sum_good") / pl.col(f"n_{unit}_good")).alias("good"),
                       (pl.col("lp_sum_bad") / pl.col(f"n_{unit}_bad")).alias("bad"),
                       pl.col(f"right_{rule}").alias("right"))  # fmt: skip
    peer = per_length(theirs.join(lengths, on="id"), unit).select(
        "id", "good", "bad", pl.col(metric).alias("right")
    )
    return mine, peer


def blimp_side(matrix: Matrix, family: Family) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = matrix.evaluated(family, leading_space=True)
    theirs = matrix.lm_eval_blimp(family)
    return ours(rows, "lp_sum_good", "lp_sum_bad", "right_sum"), theirs.select(
        "id", "good", "bad", pl.col("acc").alias("right")
    )


def minicons_side(matrix: Matrix, family: Family, mean: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = matrix.evaluated(family)
    ids, good, bad = matrix.minicons_pairs(family)
    reduce = (lambda t: sum(t) / len(t)) if mean else sum
    theirs = ids.with_columns(pl.Series("good", [float(reduce(t)) for t in good]),
                              pl.Series("bad", [float(reduce(t)) for t in bad]))  # fmt: skip
    theirs = theirs.with_columns((pl.col("good") > pl.col("bad")).alias("right"))
    if mean:
        mine = rows.select("id", (pl.col("lp_sum_good") / pl.col("n_tokens_good")).alias("good"),
                           (pl.col("lp_sum_bad") / pl.col("n_tokens_bad")).alias("bad"),
                           pl.col("right_mean").alias("right"))  # fmt: skip
    else:
        mine = with_sum(
            ours(rows, "lp_native_good", "lp_native_bad", "right_minicons"), rows, family
        )
    return mine, theirs


def with_sum(mine: pl.DataFrame, rows: pl.DataFrame, family: Family) -> pl.DataFrame:
    """Where the tokenizer adds BOS, `lp_native` is `lp_sum` and `right_minicons` `right_sum`
    (§5.1): a row where they part is marked null, which the comparison reports."""
    if not family.adds_bos:
        return mine
    same = rows.select(
        "id",
        ((pl.col("lp_sum_good") == pl.col("lp_native_good")) & (pl.col("lp_sum_bad") == pl.col("lp_native_bad"))
         & (pl.col("right_sum") == pl.col("right_minicons"))).alias("same"),
    )  # fmt: skip
    return (
        mine.join(same, on="id")
        .with_columns(pl.when(pl.col("same")).then(pl.col("right")).alias("right"))
        .drop("same")
    )


def multiblimp_side(matrix: Matrix, family: Family) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = matrix.suite_run(family, matrix.multiblimp)
    mine = with_sum(ours(rows, "lp_native_good", "lp_native_bad", "right_minicons"), rows, family)
    return mine, matrix.multiblimp_scorer(family, matrix.multiblimp)


def masked_side(matrix: Matrix, family: Family) -> tuple[pl.DataFrame, pl.DataFrame]:
    suite = matrix.masked_suite
    rows = matrix.suite_run(family, suite)
    table = pl.read_csv(suite, separator="\t", infer_schema=False)
    good = matrix.minicons_scores(family, table["sen"].to_list())
    bad = matrix.minicons_scores(family, table["wrong_sen"].to_list())
    theirs = pl.DataFrame({"id": [str(i + 2) for i in range(table.height)],
                           "good": [float(sum(t)) for t in good], "bad": [float(sum(t)) for t in bad]})  # fmt: skip
    theirs = theirs.with_columns((pl.col("good") > pl.col("bad")).alias("right"))
    return ours(rows, "lp_sum_good", "lp_sum_bad", "right_sum"), theirs


SIDES: dict[str, Callable[[Matrix, Family], tuple[pl.DataFrame, pl.DataFrame]]] = {
    "lm-eval acc (export)": lambda m, f: lm_eval_side(m, f, "acc", None),
    "lm-eval acc_norm (export)": lambda m, f: lm_eval_side(m, f, "acc_norm", "chars"),
    "lm-eval acc_bytes (export)": lambda m, f: lm_eval_side(m, f, "acc_bytes", "bytes"),
    'lm-eval blimp (delimiter " ")': blimp_side,
    "minicons sum": lambda m, f: minicons_side(m, f, mean=False),
    "minicons mean": lambda m, f: minicons_side(m, f, mean=True),
    "MultiBLiMP score.py": multiblimp_side,
    "minicons within_word_l2r": masked_side,
}


# --- tables ----------------------------------------------------------------------------------


def docs_table() -> str:
    """The docs' table: per family, the ud-agree column that equals each peer pair by pair (a
    cell of the matrix), or — where nothing is claimed."""
    header = ["family", *(p.name for p in PEERS)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for family in FAMILIES:
        cells = [p.claim(family) for p in PEERS]
        lines.append("| " + " | ".join([family.name, *cells]) + " |")
    return "\n".join(lines)


def figure_table(cells: list[Cell]) -> str:
    """The matrix as measured: pairs compared, largest |Δ score|, decisions differing, ties."""
    lines = ["| family | peer | pairs | largest \\|Δ score\\| | decisions differing | peer ties |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for c in cells:
        lines.append(
            f"| {c.family} | {c.peer} | {c.pairs} | {c.largest_delta:.2e} | {len(c.differing)} | {c.ties} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.parity", description=__doc__)
    parser.add_argument("--docs", action="store_true", help="print the docs' table only")
    parser.add_argument("--family", action="append", help="only these families")
    args = parser.parse_args(argv)
    if args.docs:
        print(docs_table())
        return 0
    with tempfile.TemporaryDirectory(prefix="parity-") as work:
        matrix = Matrix(Path(work))
        cells = [matrix.cell(f, p) for f, p in CELLS if not args.family or f in args.family]
    print(figure_table(cells))
    failed = [c for c in cells if not c.holds]
    for cell in failed:
        print(cell.failure())
    print(json.dumps({"cells": len(cells), "failed": len(failed)}))
    return 1 if failed or any(math.isnan(c.largest_delta) for c in cells) else 0


if __name__ == "__main__":
    raise SystemExit(main())
