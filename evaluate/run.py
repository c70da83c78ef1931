"""The evaluation run: items, batching, chunked atomic writing, resume, manifest and summary."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from evaluate.candidates import CandidateSet, build_candidates, coverage
from evaluate.items import ROLES, encode, expand_roles, masked_text
from evaluate.schema import RESULTS
from evaluate.score import Splits, build_splits, decide, split_key
from mine.schema import LEXICON as LEXICON_SCHEMA
from mine.schema import RELATIONS as RELATIONS_SCHEMA

FREQUENCY = "frequency"
TINY_RANDOM = "tiny-random"
ITEM_KEY = ("treebank", "sent_id", "type", "target_id", "controller_id", "masked")
TOOL_VERSION = "0.1.0"


class UsageError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


@dataclass
class Options:
    """Everything one run depends on; the CLI fills it, tests build it directly."""

    lang: str
    corpus: str = "corpus"
    model: str = "bert-base-multilingual-cased"
    mask: str = "controller"  # controller | target | both
    match: str = "agreement"  # agreement | exact
    case: str = "fold"  # fold | exact
    min_candidates: int = 10
    device: str = "auto"
    batch_size: int = 32
    limit: int | None = None
    out: str = "results"
    resume: bool = False
    control: str = "context"  # context | no-context
    vocab_of: str | None = None  # frequency baseline: restrict to this model's whole words
    chunk_size: int = 4096
    progress: bool = True
    seed: int = 0

    @property
    def roles(self) -> tuple[str, ...]:
        """Masked roles asked for."""
        return ROLES if self.mask == "both" else (self.mask,)

    @property
    def method(self) -> str:
        """`frequency`, `no-context` or `context` (results column `method`)."""
        if self.model == FREQUENCY:
            return "frequency"
        return self.control


@dataclass
class Outcome:
    """What a run did: where it wrote, and the manifest it wrote."""

    out_dir: Path
    manifest: dict
    summary: pl.DataFrame | None = None
    counts: dict = field(default_factory=dict)


def safe_name(name: str) -> str:
    """A model name or local folder made safe for a path (`org/name` → `org--name`)."""
    path = Path(name)
    if path.is_dir():
        name = path.resolve().name
    name = name.replace("/", "--")
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", name).strip("-") or "model"


def model_label(options: Options) -> str:
    """The `model` column: hub name as given, a local directory's folder name, or `frequency-baseline`."""
    if options.model == FREQUENCY:
        # Runs with and without --vocab-of score other item sets: their labels must differ.
        if options.vocab_of:
            return f"frequency-baseline ({_name_of(options.vocab_of)} vocabulary)"
        return "frequency-baseline"
    return _name_of(options.model)


def _name_of(model: str) -> str:
    path = Path(model)
    return path.resolve().name if path.is_dir() else model


def out_dir(options: Options) -> Path:
    """`<out>/<lang>/<model-safe-name>[__no-context]`; non-default match/case/mask get a suffix too."""
    name = "frequency-baseline" if options.model == FREQUENCY else safe_name(options.model)
    if options.model == FREQUENCY and options.vocab_of:
        name += f"__vocab-{safe_name(options.vocab_of)}"
    if options.method == "no-context":
        name += "__no-context"
    if options.match != "agreement":
        name += f"__match-{options.match}"
    if options.case != "fold":
        name += f"__case-{options.case}"
    if options.mask != "controller":
        name += f"__mask-{options.mask}"
    return Path(options.out) / options.lang / name


# ---------------------------------------------------------------- corpus


# Columns the evaluator reads (mine/schema.py); `space_after` is optional: DESIGN.md §3 lacks it.
_REQUIRED = {
    "relations": RELATIONS_SCHEMA.names,
    "sentences": ["lang", "treebank", "sent_id", "words"],
    "lexicon": LEXICON_SCHEMA.names,
}


@dataclass
class Corpus:
    """The miner's tables for one language."""

    relations: pl.DataFrame
    sentences: pl.DataFrame
    lexicon: pl.DataFrame
    manifest_sha256: str | None


def read_corpus(corpus: str, lang: str) -> Corpus:
    """Read `<corpus>/<lang>/{relations,sentences,lexicon}.parquet`; missing pieces are UsageErrors."""
    root = Path(corpus)
    if not root.is_dir():
        raise UsageError(
            f"corpus folder '{corpus}' not found; mine one with `python -m mine --out {corpus}` "
            "or pass --corpus"
        )
    folder = root / lang
    if not folder.is_dir():
        have = sorted(p.name for p in root.iterdir() if (p / "relations.parquet").exists())
        raise UsageError(
            f"language '{lang}' not in corpus '{corpus}' (languages there: {', '.join(have) or 'none'})"
        )
    tables = {}
    for name in ("relations", "sentences", "lexicon"):
        path = folder / f"{name}.parquet"
        if not path.exists():
            raise UsageError(f"corpus table {path} is missing; re-run the miner")
        try:
            tables[name] = pl.read_parquet(path)
        except (pl.exceptions.PolarsError, OSError) as error:
            raise UsageError(
                f"corpus table {path} is unreadable ({type(error).__name__}); re-run the miner"
            ) from None
        missing = [c for c in _REQUIRED[name] if c not in tables[name].columns]
        if missing:
            raise UsageError(
                f"corpus table {path} lacks column(s) {', '.join(missing)}; re-run the miner"
            )
    manifest = folder / "manifest.json"
    try:
        digest = hashlib.sha256(manifest.read_bytes()).hexdigest() if manifest.exists() else None
    except OSError as error:
        raise UsageError(f"corpus manifest {manifest} is unreadable: {error.strerror}") from None
    return Corpus(tables["relations"], tables["sentences"], tables["lexicon"], digest)


# ---------------------------------------------------------------- items


def build_items(corpus: Corpus, roles: Sequence[str]) -> tuple[pl.DataFrame, dict[str, int]]:
    """Items joined to their sentence's words; same-surface-word and sentence-less ones counted out."""
    counts: dict[str, int] = {"relations": corpus.relations.height}
    items = expand_roles(corpus.relations, roles).with_row_index("item")
    counts["items_built"] = items.height
    same = pl.col("target_surface") == pl.col("controller_surface")
    counts["same-surface-word"] = items.filter(same).height
    items = items.filter(~same)
    sentence_cols = ["lang", "treebank", "sent_id", "words"]
    if "space_after" in corpus.sentences.columns:
        sentence_cols.append("space_after")
    sentences = corpus.sentences.select(sentence_cols).unique(["lang", "treebank", "sent_id"])
    joined = items.join(sentences, on=["lang", "treebank", "sent_id"], how="left")
    missing = joined["words"].is_null()
    counts["missing-sentence"] = int(missing.sum())
    joined = joined.filter(~missing).sort("item")
    if "space_after" not in joined.columns:
        joined = joined.with_columns(pl.lit(None, dtype=pl.List(pl.Boolean)).alias("space_after"))
    return joined, counts


def item_keys(items: pl.DataFrame, match: str) -> list:
    """Split key of every item (upos, compared features, masked word's values)."""
    rows = items.select("upos", "m_number", "m_gender", "m_case", "m_person", "agreeing").rows()
    return [
        split_key(upos, tuple(frozenset(v or ()) for v in (n, g, c, p)), agreeing or (), match)
        for upos, n, g, c, p, agreeing in rows
    ]


def attach_splits(
    items: pl.DataFrame, candidates: CandidateSet, match: str
) -> tuple[pl.DataFrame, Splits]:
    """Add `key_index`, `n_correct`, `n_incorrect` columns; splits computed once per distinct key."""
    keys = item_keys(items, match)
    distinct = sorted(set(keys), key=repr)
    position = {k: i for i, k in enumerate(distinct)}
    splits = build_splits(distinct, candidates, match)
    index = np.asarray([position[k] for k in keys], dtype=np.int64)
    items = items.with_columns(
        pl.Series("key_index", index),
        pl.Series("n_correct", splits.n_correct[index].astype(np.int32)),
        pl.Series("n_incorrect", splits.n_incorrect[index].astype(np.int32)),
    )
    return items, splits


# ---------------------------------------------------------------- results files


def chunk_paths(folder: Path) -> list[Path]:
    """Existing result chunks, in order."""
    return sorted(folder.glob("results-*.parquet"))


def write_atomic(table: pa.Table, path: Path) -> None:
    """Write Parquet to a temp file in the same folder, then rename (no half-written chunk)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def write_json_atomic(data: dict, path: Path) -> None:
    """JSON written through a temp file and os.replace."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)


RESUME_OPTIONS = (
    "lang",
    "model",
    "mask",
    "match",
    "case",
    "min_candidates",
    "control",
    "vocab_of",
    "limit",
)


def prepare_folder(folder: Path, options: Options, corpus_sha: str | None) -> pl.DataFrame | None:
    """Make the folder; without --resume old chunks go; with it, check options and return done keys."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot make results folder {folder}: {error.strerror}") from None
    if not options.resume:
        for path in [*chunk_paths(folder), folder / "summary.csv", folder / "summary.md"]:
            path.unlink(missing_ok=True)
        return None
    manifest_path = folder / "manifest.json"
    if manifest_path.exists():
        try:
            old = json.loads(manifest_path.read_text())
        except (OSError, ValueError):
            raise UsageError(
                f"--resume: {manifest_path} is unreadable; run without --resume"
            ) from None
        before = old.get("options", {})
        changed = [k for k in RESUME_OPTIONS if k in before and before[k] != getattr(options, k)]
        if changed:
            raise UsageError(
                f"--resume: results in {folder} were made with other options ({', '.join(changed)}); "
                "use another --out or run without --resume"
            )
        if corpus_sha and old.get("corpus_manifest_sha256") not in (None, corpus_sha):
            raise UsageError(f"--resume: the corpus changed since the results in {folder}")
    paths = chunk_paths(folder)
    if not paths:
        return None
    try:
        return pl.scan_parquet(paths).select(ITEM_KEY).collect()
    except (pl.exceptions.PolarsError, OSError):
        raise UsageError(
            f"--resume: a results chunk in {folder} is unreadable; delete it and resume, or run without --resume"
        ) from None


def next_chunk_number(folder: Path) -> int:
    """One past the highest existing chunk number."""
    numbers = [int(p.stem.split("-")[1]) for p in chunk_paths(folder)]
    return max(numbers, default=-1) + 1


RESULT_COLUMNS = [f.name for f in RESULTS]


def result_table(items: pl.DataFrame, scores: dict[str, np.ndarray], options: Options) -> pa.Table:
    """Rows of RESULTS for these items and their score columns."""
    frame = items.select(
        "lang",
        "treebank",
        "sent_id",
        "type",
        "target_id",
        "controller_id",
        "masked",
        "form",
        "lemma",
        "upos",
        "agreeing",
        "distance",
        "distance_tokens",
        "distractors",
        "attractors",
        "order",
        "in_mwt",
        "n_correct",
        "n_incorrect",
    ).with_columns(
        *(pl.Series(name, values) for name, values in scores.items()),
        pl.lit(model_label(options)).alias("model"),
        pl.lit(options.match).alias("match"),
        pl.lit(options.case).alias("case"),
        pl.lit(options.method).alias("method"),
    )
    return frame.select(RESULT_COLUMNS).to_arrow().cast(RESULTS)


# ---------------------------------------------------------------- scoring back-ends


def lm_candidates(options: Options, corpus: Corpus, tokenizer) -> CandidateSet:
    """Candidates of a model: lexicon forms that are whole-word tokens of its vocabulary."""
    from evaluate.candidates import whole_word_vocab

    return build_candidates(corpus.lexicon, whole_word_vocab(tokenizer), options.case == "fold")


def encode_items(items: pl.DataFrame, tokenizer, window_limit: int, control: str):
    """Encode masked sentences (context or no-context); distance in tokens from the context text."""
    mask = tokenizer.mask_token
    context, no_context, masked_spans, other_spans, ordinals, nc_spans = [], [], [], [], [], []
    for words, space_after, m, o in items.select(
        "words", "space_after", "masked_surface", "other_surface"
    ).iter_rows():
        text, spans = masked_text(words, space_after, [m], mask)
        context.append(text)
        masked_spans.append(spans[m])
        other_spans.append(spans[o])
        if control == "no-context":
            text, spans = masked_text(words, space_after, range(len(words)), mask)
            no_context.append(text)
            nc_spans.append(spans[m])
            ordinals.append(m)
    encoded = encode(
        tokenizer, context, masked_spans, other_spans, [0] * len(context), window_limit
    )
    if control != "no-context":
        return encoded
    blind = encode(tokenizer, no_context, nc_spans, nc_spans, ordinals, window_limit)
    return type(encoded)(
        blind.input_ids, blind.mask_position, encoded.distance_tokens, blind.windowed
    )


def subset(encoded, keep: np.ndarray):
    """The encoded items where `keep` is true."""
    ids = [x for x, k in zip(encoded.input_ids, keep, strict=True) if k]
    return type(encoded)(
        ids, encoded.mask_position[keep], encoded.distance_tokens[keep], encoded.windowed[keep]
    )


def _empty_scores() -> dict[str, list]:
    return {
        k: []
        for k in (
            "p_correct",
            "p_incorrect",
            "logit_correct",
            "logit_incorrect",
            "right",
            "right_logit",
        )
    }


def _append(scores: dict[str, list], decisions) -> None:
    scores["p_correct"].append(decisions.p_correct)
    scores["p_incorrect"].append(decisions.p_incorrect)
    scores["logit_correct"].append(decisions.logit_correct)
    scores["logit_incorrect"].append(decisions.logit_incorrect)
    scores["right"].append(decisions.right)
    scores["right_logit"].append(decisions.right_logit)


class ChunkWriter:
    """Buffers scored items and writes `results-NNNNN.parquet` chunks atomically."""

    def __init__(self, folder: Path, options: Options):
        self.folder, self.options = folder, options
        self.number = next_chunk_number(folder)
        self.rows: list[np.ndarray] = []
        self.scores = _empty_scores()
        self.pending = 0
        self.written = 0

    def add(self, rows: np.ndarray, decisions, items: pl.DataFrame) -> None:
        """Queue a batch; flush once the chunk is full."""
        self.rows.append(rows)
        _append(self.scores, decisions)
        self.pending += len(rows)
        if self.pending >= self.options.chunk_size:
            self.flush(items)

    def flush(self, items: pl.DataFrame) -> None:
        """Write what is queued as one chunk."""
        if not self.pending:
            return
        rows = np.concatenate(self.rows)
        scores = {k: np.concatenate(v) for k, v in self.scores.items()}
        table = result_table(items[rows], scores, self.options)
        write_atomic(table, self.folder / f"results-{self.number:05d}.parquet")
        self.number += 1
        self.written += len(rows)
        self.rows, self.scores, self.pending = [], _empty_scores(), 0


def length_batches(lengths: np.ndarray, batch_size: int) -> list[np.ndarray]:
    """Indices sorted by length (stable), cut into batches: little padding per batch."""
    order = np.argsort(lengths, kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def score_lm(items, encoded, splits, loaded, candidates, writer, options) -> None:
    """Batched forward passes at the mask, per-form values, vectorised decision, chunked writing."""
    import torch
    from tqdm import tqdm

    from evaluate.models import FormIndex, mask_logits

    device = loaded.device
    forms = FormIndex(candidates, device)
    correct = torch.from_numpy(splits.correct).to(device)
    incorrect = torch.from_numpy(splits.incorrect).to(device)
    key_index = torch.from_numpy(items["key_index"].to_numpy().copy()).to(device)
    lengths = np.asarray([len(ids) for ids in encoded.input_ids])
    pad = loaded.tokenizer.pad_token_id or 0
    bar = tqdm(total=len(lengths), unit="item", disable=not options.progress, smoothing=0.1)
    with torch.inference_mode():
        for batch in length_batches(lengths, options.batch_size):
            width = int(lengths[batch].max())
            ids = torch.full((len(batch), width), pad, dtype=torch.long)
            attention = torch.zeros((len(batch), width), dtype=torch.long)
            for row, i in enumerate(batch):
                seq = encoded.input_ids[i]
                ids[row, : len(seq)] = torch.tensor(seq)
                attention[row, : len(seq)] = 1
            positions = torch.from_numpy(encoded.mask_position[batch])
            logits = mask_logits(
                loaded.model, ids.to(device), attention.to(device), positions.to(device)
            )
            prob, logit = forms.values(logits)
            keys = key_index[torch.from_numpy(batch).to(device)]
            writer.add(batch, decide(prob, logit, correct[keys], incorrect[keys]), items)
            bar.update(len(batch))
    bar.close()
    writer.flush(items)


def score_frequency(items, splits, candidates, writer, options) -> None:
    """The frequency baseline: a form's 'probability' is its lexicon count share, whatever the context."""
    total = candidates.counts.sum() or 1.0
    prob = (candidates.counts / total)[None, :]
    with np.errstate(divide="ignore"):
        logit = np.log(candidates.counts)[None, :]
    keys = items["key_index"].to_numpy()
    for start in range(0, items.height, options.chunk_size):
        rows = np.arange(start, min(start + options.chunk_size, items.height))
        k = keys[rows]
        writer.add(rows, decide(prob, logit, splits.correct[k], splits.incorrect[k]), items)
    writer.flush(items)


# ---------------------------------------------------------------- the run


def evaluate(options: Options) -> Outcome:
    """Run one evaluation end to end and write results, manifest and summary."""
    from evaluate.summary import summarize, write_summary

    started = time.time()
    corpus = read_corpus(options.corpus, options.lang)
    items, counts = build_items(corpus, options.roles)
    loaded, tokenizer, random_weights, pending = None, None, False, None
    if options.model == FREQUENCY:
        words = None
        if options.vocab_of:
            from evaluate.candidates import whole_word_vocab
            from evaluate.models import load_tokenizer

            tokenizer = load_tokenizer(options.vocab_of)
            words = whole_word_vocab(tokenizer)
        candidates = build_candidates(corpus.lexicon, words, options.case == "fold", min_count=1)
    else:
        from evaluate.models import load_model, load_tokenizer, tiny_random_model

        if options.model == TINY_RANDOM:
            loaded = tiny_random_model(
                corpus.sentences, corpus.lexicon, options.device, options.seed
            )
            tokenizer = loaded.tokenizer
        else:
            tokenizer = load_tokenizer(options.model)
            # The weights load in a thread while candidates and splits are built: reading and
            # torch release the GIL, and start-up is most of a short run's overhead.
            pool = ThreadPoolExecutor(max_workers=1)
            pending = pool.submit(load_model, options.model, options.device, tokenizer=tokenizer)
        candidates = lm_candidates(options, corpus, tokenizer)
    cover = coverage(
        corpus.lexicon, candidates, items.select("upos", "form").iter_rows(), options.case == "fold"
    )
    items, splits = attach_splits(items, candidates, options.match)
    enough = (pl.col("n_correct") >= options.min_candidates) & (
        pl.col("n_incorrect") >= options.min_candidates
    )
    counts["too-few-candidates"] = items.filter(~enough).height
    items = items.filter(enough)
    if options.limit is not None:
        items = items.head(options.limit)
    counts["items_eligible"] = items.height
    if pending is not None:
        try:
            loaded = pending.result()
        finally:
            pool.shutdown()
        tokenizer, random_weights = loaded.tokenizer, loaded.random_weights
    elif loaded is not None:
        random_weights = loaded.random_weights

    folder = out_dir(options)
    done = prepare_folder(folder, options, corpus.manifest_sha256)
    base = {
        "tool": "ud-agree evaluate",
        "tool_version": TOOL_VERSION,
        "options": {k: v for k, v in asdict(options).items() if k not in ("progress",)},
        "method": options.method,
        "model": model_label(options),
        "random_weights": random_weights,
        "corpus": str(Path(options.corpus).resolve() / options.lang),
        "corpus_manifest_sha256": corpus.manifest_sha256,
        "model_path": str(Path(options.model).resolve()) if Path(options.model).is_dir() else None,
    }
    # Written before scoring so that --resume after an interruption can check the options.
    write_json_atomic({**base, "complete": False}, folder / "manifest.json")

    if tokenizer is not None and items.height:
        window = loaded.window if loaded is not None else 10**9
        encoded = encode_items(items, tokenizer, window, options.method if loaded else "context")
        items = items.with_columns(
            pl.Series("distance_tokens", encoded.distance_tokens.astype(np.int32))
        )
        counts["windowed"] = int(encoded.windowed.sum()) if loaded is not None else 0
    else:
        encoded = None
        items = items.with_columns(pl.lit(None, dtype=pl.Int32).alias("distance_tokens"))
        counts["windowed"] = 0

    counts["resumed_already_done"] = 0
    if done is not None and done.height:
        remaining = items.join(done.unique(), on=list(ITEM_KEY), how="anti")["item"]
        keep = items["item"].is_in(remaining.implode()).to_numpy()
        counts["resumed_already_done"] = int((~keep).sum())
        items = items.filter(pl.Series(keep))
        if encoded is not None:
            encoded = subset(encoded, keep)

    writer = ChunkWriter(folder, options)
    if items.height:
        if loaded is not None:
            score_lm(items, encoded, splits, loaded, candidates, writer, options)
        else:
            score_frequency(items, splits, candidates, writer, options)
    counts["items_scored_now"] = writer.written
    elapsed = time.time() - started

    results = pl.scan_parquet(chunk_paths(folder)) if chunk_paths(folder) else None
    counts["items_in_results"] = 0 if results is None else results.select(pl.len()).collect().item()
    manifest = {
        **base,
        "complete": True,
        "model_family": None if tokenizer is None else type(tokenizer).__name__,
        "window_tokens": None if loaded is None else loaded.window,
        "device": None if loaded is None else str(loaded.device),
        "counts": counts,
        # Without the miner's space_after column words are joined by spaces (l' armoire).
        "space_after_missing": "space_after" not in corpus.sentences.columns,
        "coverage": cover.as_dict(),
        "candidates": len(candidates),
        "seconds": round(elapsed, 3),
        "items_per_second": round(writer.written / elapsed, 3)
        if elapsed and writer.written
        else None,
    }
    summary = None
    if results is not None:
        summary = summarize(results)
        write_summary(summary, folder, manifest)
    write_json_atomic(manifest, folder / "manifest.json")
    return Outcome(folder, manifest, summary, counts)
