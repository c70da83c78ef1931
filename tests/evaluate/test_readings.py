"""The readings (DESIGN.md §5) end to end: pair reading and causal class-average with oracle stubs,
the frequency baseline's counts, the shared tiny models on French-PUD, and the class-average
reading unchanged by the lexicon's lemmas."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ud_agree.evaluate import load_results  # noqa: E402
from ud_agree.evaluate.backends.api import TokenScores  # noqa: E402
from ud_agree.evaluate.options import Options  # noqa: E402
from ud_agree.evaluate.run import evaluate  # noqa: E402
from ud_agree.mine.plan import Options as MineOptions  # noqa: E402
from ud_agree.mine.run import mine_languages  # noqa: E402

from tests.paths import (  # noqa: E402
    ROOT,
    SAMPLE,
    TINY_BERT,
    TINY_GPT2,
    needs_pud_models,
    needs_tiny_models,
)


@pytest.fixture(scope="module")
def sample_corpus(tmp_path_factory) -> Path:
    """The embedded sample mined with its UniMorph files, pairs of both members."""
    out = tmp_path_factory.mktemp("sample") / "corpus"
    options = MineOptions(
        ud_dir=SAMPLE / "ud",
        out=out,
        unimorph_dirs=[SAMPLE / "unimorph"],
        all_types=True,
        progress=False,
        vary="both",
    )
    mine_languages(options)
    return out


@dataclass
class OracleScorer:
    """Scores a text 1 when it is a good sentence of the corpus, 0 otherwise (or the reverse)."""

    good: set[str]
    reverse: bool = False
    name: str = "oracle"
    method: str = "causal"
    calls: list[set[str]] = field(default_factory=list)
    tokenizer: None = None  # no tokenizer: null token distances
    forwards: int = 0

    def token_scores(self, texts, words=None) -> list[TokenScores]:
        # One token per text: 0 for a good sentence, -1 for any other (reversed: the other way).
        self.calls.append(set(texts))
        good = [(t in self.good) != self.reverse for t in texts]
        return [
            TokenScores([(0, len(t))], np.array([0.0 if g else -1.0]))
            for t, g in zip(texts, good, strict=True)
        ]

    def facts(self) -> dict:
        return {"random_weights": False, "bos_token": None}


def run_pairs(corpus: Path, tmp_path: Path, scorer=None, **options) -> tuple[pl.DataFrame, dict]:
    opts = Options(
        lang="fr", corpus=str(corpus), model=options.pop("model", "oracle"), reading="pair",
        out=str(tmp_path / "out"), progress=False, **options,
    )  # fmt: skip
    outcome = evaluate(opts, scorer=scorer)
    return pl.read_parquet(outcome.out_dir / "results-*.parquet"), outcome.manifest


def test_pair_oracle_scores_100_percent_and_the_reversed_one_0(sample_corpus, tmp_path):
    pairs = pl.read_parquet(sample_corpus / "fr" / "pairs.parquet")
    good = set(pairs["sentence_good"])
    assert not good & set(pairs["sentence_bad"])
    oracle = OracleScorer(good)
    results, _manifest = run_pairs(sample_corpus, tmp_path / "a", oracle, chunk_size=4)
    assert results.height == pairs.height and results["right"].all()
    assert set(results["reading"]) == {"pair"} and set(results["method"]) == {"causal"}
    assert results["n_correct"].is_null().all() and results["match"].is_null().all()
    # Chunks never split a sentence's pairs: no sentence is sent to the scorer twice.
    assert len(oracle.calls) > 1
    assert sum(map(len, oracle.calls)) == len(set().union(*oracle.calls))
    reverse = OracleScorer(good, reverse=True)
    results, _ = run_pairs(sample_corpus, tmp_path / "b", reverse, chunk_size=4)
    assert not results["right"].any()


def test_pair_results_carry_the_pair_and_its_relation(sample_corpus, tmp_path):
    pairs = pl.read_parquet(sample_corpus / "fr" / "pairs.parquet")
    results, manifest = run_pairs(
        sample_corpus, tmp_path, OracleScorer(set(pairs["sentence_good"]))
    )
    joined = results.join(
        pairs, on=["sent_id", "target_id", "controller_id", "varied", "feature", "bad_value"]
    )
    assert joined.height == pairs.height
    # The varied word's role is `varied`; `masked` belongs to the class-average reading.
    assert results["masked"].null_count() == results.height
    assert set(results["varied"]) == {"target", "controller"} & set(pairs["varied"])
    assert (joined["form"] == joined["good_form"]).all()
    assert (joined["bad_form"] == joined["bad_form_right"]).all()
    # (The sample's 20 French subject-verb candidates, 2 disagreeing, leave Number uncertain,
    # §4.1: its subject-verb pairs vary Person.)
    row = results.filter(pl.col("bad_form") == "sommes").row(0, named=True)
    assert row["value"] == "Person=3" and row["type"] == "subject-verb"
    assert manifest["counts"]["pairs"] == pairs.height
    # load_results exposes the reading and the value (§6).
    loaded = load_results(tmp_path / "out").collect()
    assert {"reading", "value", "score_good", "bad_form"} <= set(loaded.columns)


def test_frequency_baseline_of_pairs_compares_lexicon_counts(sample_corpus, tmp_path):
    results, _ = run_pairs(sample_corpus, tmp_path, model="frequency")
    lexicon = pl.read_parquet(sample_corpus / "fr" / "lexicon.parquet")

    def count(form: str, upos: str, number: str) -> float:
        rows = lexicon.filter(
            (pl.col("form").str.to_lowercase() == form)
            & (pl.col("upos") == upos)
            & (pl.col("number") == [number])
        )
        return float(rows["count"].sum())

    row = results.filter(pl.col("bad_form") == "sommes").row(0, named=True)  # sont → sommes
    assert row["score_good"] == count("sont", "AUX", "Plur")
    assert row["score_bad"] == count("sommes", "AUX", "Plur")
    assert (results["right"] == (results["score_good"] > results["score_bad"])).all()
    assert set(results["method"]) == {"frequency"}


class OracleCausal(torch.nn.Module):
    """Stand-in causal LM: after a known prefix, high logits on chosen token ids."""

    def __init__(self, vocab_size: int, table: dict[tuple[int, ...], set[int]]):
        super().__init__()
        self.config = transformers.PretrainedConfig(vocab_size=vocab_size)
        self.table, self.vocab_size = table, vocab_size

    def get_output_embeddings(self):
        return None  # no head to apply alone: the full-logits path

    def forward(self, input_ids, attention_mask, position_ids):
        logits = torch.zeros((*input_ids.shape, self.vocab_size))
        # Causal, as a real LM: the output at each position depends on the tokens up to it only.
        for row in range(input_ids.shape[0]):
            real = (attention_mask[row] == 1).nonzero().flatten().tolist()
            ids = input_ids[row].tolist()
            for k, position in enumerate(real):
                prefix = tuple(ids[p] for p in real[: k + 1])
                for token in self.table.get(prefix, ()):
                    logits[row, position, token] = 20.0
        return type("Out", (), {"logits": logits})()


def causal_oracle_run(monkeypatch, corpus: Path, tmp_path: Path, favour: str):
    """Class-average reading with a causal oracle favouring the correct or incorrect forms."""
    import ud_agree.evaluate.backends.causal as causal
    from ud_agree.evaluate.backends.models import LoadedModel
    from ud_agree.evaluate.corpus import read_corpus
    from ud_agree.evaluate.readings.candidates import build_candidates, whole_word_vocab
    from ud_agree.evaluate.readings.class_decisions import attach_splits
    from ud_agree.evaluate.tasks.class_average import build_items

    from ud_agree.surface import surface_text

    tokenizer = transformers.AutoTokenizer.from_pretrained(TINY_GPT2)
    data = read_corpus(str(corpus), "fr")
    items, _ = build_items(data, ("controller", "target"))
    candidates = build_candidates(data.lexicon, whole_word_vocab(tokenizer), True)
    items, splits = attach_splits(items, candidates, "agreement")
    items = items.filter(pl.col("other_surface") < pl.col("masked_surface"))
    table: dict[tuple[int, ...], set[int]] = {}
    shared: set[tuple[int, ...]] = set()  # prefixes of two items with other splits: no oracle
    for words, space, m, key in items.select(
        "words", "space_after", "masked_surface", "key_index"
    ).iter_rows():
        text, spans = surface_text(words, space)
        prefix = [tokenizer.eos_token_id] + tokenizer(
            text[: spans[m][0]].rstrip(" "), add_special_tokens=False
        )["input_ids"]
        chosen = splits.correct[key] if favour == "correct" else splits.incorrect[key]
        ids = {i for f in np.flatnonzero(chosen) for i in candidates.token_ids[f]}
        if table.get(tuple(prefix), ids) != ids:
            shared.add(tuple(prefix))
        table[tuple(prefix)] = ids
    oracle = OracleCausal(len(tokenizer), {k: v for k, v in table.items() if k not in shared})

    def fake_load(name, device="auto", tokenizer=None, kind="causal", **_):
        return LoadedModel(name, oracle, tokenizer, False, 128, torch.device("cpu"))

    monkeypatch.setattr(causal, "load_model", fake_load)
    options = Options(
        lang="fr", corpus=str(corpus), model=str(TINY_GPT2), kind="causal", mask="both",
        min_candidates=1, out=str(tmp_path / favour), progress=False, batch_size=3,
    )  # fmt: skip
    outcome = evaluate(options)
    results = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    # The oracle knows every item but those few whose prefix another item shares.
    assert len(shared) <= 2
    return outcome, results.filter(pl.col("p_correct") != pl.col("p_incorrect"))


@needs_tiny_models
def test_causal_class_average_oracle_scores_100_percent_and_reversed_0(
    monkeypatch, sample_corpus, tmp_path
):
    outcome, results = causal_oracle_run(monkeypatch, sample_corpus, tmp_path, "correct")
    assert results.height > 20 and results["right"].all()
    counts = outcome.counts
    # Only items whose other member comes first can be read left to right.
    assert counts["no-left-context"] > 0
    assert (results["masked"] == "target").sum() + (
        results["masked"] == "controller"
    ).sum() == results.height
    ordered = results.with_columns(
        first=pl.when(pl.col("masked") == "target")
        .then(pl.col("order") == "controller-first")
        .otherwise(pl.col("order") == "target-first")
    )
    assert ordered["first"].all()
    _, reverse = causal_oracle_run(monkeypatch, sample_corpus, tmp_path, "incorrect")
    assert not reverse["right"].any()


@needs_pud_models
def test_tiny_gpt2_pairs_on_french_pud_are_well_above_chance(pud_corpus, tmp_path):
    results, manifest = run_pairs(
        pud_corpus, tmp_path, model=str(TINY_GPT2), device="cpu", batch_size=32, limit=1500
    )
    assert manifest["scorer"]["bos_token"] == "<|endoftext|>"
    by_type = dict(results.group_by("type").agg(pl.col("right").mean()).iter_rows())
    assert by_type["determiner"] > 0.8 and by_type["subject-verb"] > 0.7


@needs_pud_models
def test_class_average_reading_keeps_the_items_and_decisions_of_version_0_1(pud_corpus, tmp_path):
    """Pinned from ud-agree 0.1 (lexicon without lemmas): the same items, candidate counts and
    decisions; only subject-verb and predicative relations may differ (§1.1 was corrected), and
    the types added since bring new items."""
    before = pl.read_parquet(ROOT / "tests" / "data" / "french_pud_tiny_bert_v0.1.parquet")
    options = Options(
        lang="fr", corpus=str(pud_corpus), model="frequency", vocab_of=str(TINY_BERT),
        mask="both", out=str(tmp_path / "out"), progress=False,
    )  # fmt: skip
    outcome = evaluate(options)
    now = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    key = ["treebank", "sent_id", "type", "target_id", "controller_id", "masked"]
    joined = before.join(now, on=key, how="full", coalesce=True, suffix="_now")
    changed = joined.filter(pl.col("right").is_null() | pl.col("right_now").is_null())
    # Types added since 0.1 bring items of their own, and only new ones.
    added = {"numeral", "subject-participle", "object-verb"}
    assert changed.filter(pl.col("type").is_in(added))["right"].is_null().all()
    assert set(changed["type"]) <= {"subject-verb", "predicative", *added}
    both = joined.filter(pl.col("right").is_not_null() & pl.col("right_now").is_not_null())
    assert both.height > 10_000
    assert (both["n_correct"] == both["n_correct_now"]).all()
    assert (both["n_incorrect"] == both["n_incorrect_now"]).all()
    # The model's decisions: tiny-fr-ud-bert on the first items.
    options = Options(
        lang="fr", corpus=str(pud_corpus), model=str(TINY_BERT), mask="both", limit=1500,
        out=str(tmp_path / "bert"), progress=False, device="cpu", batch_size=64,
    )  # fmt: skip
    outcome = evaluate(options)
    model = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    same = both.select(*key, "right", "right_logit").join(model, on=key, suffix="_now")
    assert same.height > 1000
    assert (same["right"] == same["right_now"]).all()
    assert (same["right_logit"] == same["right_logit_now"]).all()
