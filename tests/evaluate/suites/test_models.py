"""Peers' suites scored by real models: every layout equals one-pair-at-a-time loops (causal and
masked), and ud-agree's own pairs make the round trip export → suite with the pair reading's
decisions."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

torch = pytest.importorskip("torch")

from ud_agree.evaluate.backends import load_scorer  # noqa: E402
from ud_agree.evaluate.options import Options, suite_run  # noqa: E402
from ud_agree.evaluate.run import evaluate, run_suites  # noqa: E402
from ud_agree.mine.export import export  # noqa: E402
from ud_agree.mine.plan import Options as MineOptions  # noqa: E402
from ud_agree.mine.run import mine_languages  # noqa: E402

from tests.evaluate.test_backends import loop_log_probability, loop_pll  # noqa: E402
from tests.paths import SAMPLE, TINY_BERT, TINY_GPT2, needs_tiny_models  # noqa: E402
from tests.suite_stubs import SUITES, write  # noqa: E402
from ud_agree import load_suite_results  # noqa: E402

pytestmark = needs_tiny_models


@pytest.fixture(scope="module")
def scorers():
    return {
        "causal": load_scorer(str(TINY_GPT2), device="cpu", batch_size=4),
        "masked": load_scorer(str(TINY_BERT), pll="sentence", device="cpu", batch_size=4),
    }


def loop(kind: str, scorer, text: str) -> float:
    if kind == "causal":
        return loop_log_probability(scorer.model, scorer.tokenizer, text)
    return loop_pll(scorer.model, scorer.tokenizer, text, None)


@pytest.mark.parametrize("kind", ["causal", "masked"])
@pytest.mark.parametrize("layout", ["blimp", "clams", "multiblimp", "table"])
def test_pair_layouts_equal_a_one_pair_at_a_time_loop(tmp_path, scorers, kind, layout):
    name, text, _, extra = SUITES[layout]
    path = write(tmp_path, name, text)
    options = suite_run(
        files=[str(path)], model=kind, out=str(tmp_path / "out"), progress=False, **extra
    )
    run_suites(options, lambda *a, **k: scorers[kind])
    results = load_suite_results(tmp_path / "out").collect()
    assert results.height > 0
    for row in results.iter_rows(named=True):
        good = loop(kind, scorers[kind], row["sentence_good"])
        bad = loop(kind, scorers[kind], row["sentence_bad"])
        assert row["score_good"] == pytest.approx(good, abs=1e-4)
        assert row["score_bad"] == pytest.approx(bad, abs=1e-4)
        assert row["right"] == (good > bad)


@pytest.mark.parametrize("kind", ["causal", "masked"])
def test_syntaxgym_surprisals_equal_a_loop_over_tokens(tmp_path, scorers, kind):
    from ud_agree.evaluate.sources.files import read_suite
    from ud_agree.evaluate.tasks.syntaxgym import region_surprisals

    name, text, _, _ = SUITES["syntaxgym"]
    suite = read_suite(write(tmp_path, name, text))
    scorer = scorers[kind]
    checked = 0
    for item in suite.items:
        for condition in item.conditions.values():
            sentence, _ = condition.layout()
            bits = region_surprisals(condition, scorer.token_scores([sentence])[0])
            # Every token falls in one region: the regions add up to the sentence, in bits.
            expected = -loop(kind, scorer, sentence) / math.log(2)
            assert sum(bits.values()) == pytest.approx(expected, abs=1e-3)
            checked += 1
    assert checked >= 4


def test_exported_pairs_score_like_the_pair_reading(tmp_path, scorers):
    corpus = tmp_path / "corpus"
    mine_languages(
        MineOptions(
            ud_dir=SAMPLE / "ud",
            out=corpus,
            unimorph_dirs=[SAMPLE / "unimorph"],
            all_types=True,
            progress=False,
            langs=["fr"],
        )
    )
    options = Options(
        lang="fr", corpus=str(corpus), model=str(TINY_GPT2), reading="pair",
        out=str(tmp_path / "pair"), progress=False, device="cpu",
    )  # fmt: skip
    reading = pl.read_parquet(evaluate(options).out_dir / "results-*.parquet")
    for layout, name in (("blimp", "fr.jsonl"), ("clams", "fr.txt"), ("multiblimp", "fr.tsv")):
        path = tmp_path / name
        export(corpus / "fr" / "pairs.parquet", layout, path)
        out = tmp_path / f"suite-{layout}"
        suite = suite_run(files=[str(path)], model="gpt2", out=str(out), progress=False)
        run_suites(suite, lambda *a, **k: scorers["causal"])
        scored = load_suite_results(out).collect()
        decisions = dict(
            zip(
                zip(scored["sentence_good"], scored["sentence_bad"], strict=True),
                scored["right"],
                strict=True,
            )
        )
        expected = dict(
            zip(
                zip(reading["sentence_good"], reading["sentence_bad"], strict=True)
                if "sentence_good" in reading.columns
                else _sentences(corpus, reading),
                reading["right"],
                strict=True,
            )
        )
        assert decisions == expected, layout
        assert scored["score_good"].is_finite().all()


def _sentences(corpus: Path, results: pl.DataFrame) -> list[tuple[str, str]]:
    """The good and bad sentence of each pair-reading result row."""
    pairs = pl.read_parquet(corpus / "fr" / "pairs.parquet")
    key = ["sent_id", "target_id", "controller_id", "varied", "feature", "bad_value"]
    joined = results.select(key).join(pairs, on=key, how="left", maintain_order="left")
    return list(zip(joined["sentence_good"], joined["sentence_bad"], strict=True))
