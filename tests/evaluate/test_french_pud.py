"""Integration: tiny-fr-ud-bert (trained on French UD, PUD held out) on mined French-PUD."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

pytest.importorskip("torch")

from ud_agree.evaluate.options import Options
from ud_agree.evaluate.run import evaluate

from tests.paths import PUD, needs_pud_models
from tests.paths import TINY_BERT as MODEL

pytestmark = [pytest.mark.slow, needs_pud_models]


@pytest.fixture(scope="module")
def pud_results(tmp_path_factory):
    """French-PUD mined by the project's miner, evaluated with controllers masked."""
    work = tmp_path_factory.mktemp("pud")
    (work / "ud").mkdir()
    (work / "ud" / "UD_French-PUD").symlink_to(PUD)
    subprocess.run(
        [sys.executable, "-m", "mine", "--ud-dir", str(work / "ud"), "--lang", "fr",
         "--out", str(work / "corpus"), "--quiet", "--jobs", "1"],
        check=True,
    )  # fmt: skip
    options = Options(
        lang="fr", corpus=str(work / "corpus"), model=str(MODEL), out=str(work / "out"),
        device="cpu", batch_size=64, progress=False,
    )  # fmt: skip
    outcome = evaluate(options)
    results = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    relations = pl.read_parquet(work / "corpus" / "fr" / "relations.parquet")
    return outcome, results, relations


def test_determiner_agreement_is_well_above_chance_for_both_numbers(pud_results):
    outcome, results, relations = pud_results
    assert outcome.manifest["random_weights"] is False
    det = results.filter(pl.col("type") == "determiner").join(
        relations.select("sent_id", "target_id", "controller_id", "controller_number"),
        on=["sent_id", "target_id", "controller_id"],
    )
    assert det.height > 2000
    # Per class, so that always answering "singular" cannot pass (the model card's warning).
    per_number = det.group_by(pl.col("controller_number").list.join(",")).agg(
        pl.col("right").mean()
    )
    accuracy = dict(per_number.iter_rows())
    assert accuracy["Sing"] > 0.9 and accuracy["Plur"] > 0.9


def test_every_relation_becomes_a_result_or_a_counted_skip(pud_results):
    outcome, results, relations = pud_results
    counts = outcome.counts
    skipped = (
        counts["same-surface-word"] + counts["too-few-candidates"] + counts["missing-sentence"]
    )
    assert results.height + skipped == relations.height
    assert results.select("sent_id", "target_id", "controller_id").is_duplicated().sum() == 0
    assert (results["distance_tokens"] >= results["distance"]).mean() > 0.95
