"""scripts/results.py's pure parts, on the embedded sample mined with nonce variants and the
frequency model (no GGUF here): the seeded draw per language × type, the sampled corpus the
evaluator accepts, and the table of the results page against oracles computed here."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.paths import ROOT, SAMPLE

PER_CELL = 5


def _script():
    spec = importlib.util.spec_from_file_location("results_script", ROOT / "scripts" / "results.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


results_script = _script()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The embedded sample mined with one nonce variant per pair."""
    from ud_agree.mine.cli import main as mine_main

    out = tmp_path_factory.mktemp("corpus")
    argv = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph"),
            "--out", str(out), "--nonce", "1", "--quiet", "--jobs", "1"]  # fmt: skip
    assert mine_main(argv) == 0
    return out


@pytest.fixture(scope="module")
def sampled(corpus, tmp_path_factory) -> tuple[Path, pl.DataFrame]:
    """The sampled corpus and the frequency baseline's results on it (run by the CLI)."""
    work = tmp_path_factory.mktemp("work")
    results_script.sample_corpus(corpus, work / "sample", PER_CELL, 0)
    done = subprocess.run(
        [sys.executable, "-m", "evaluate", "--lang", "de", "en", "fr", "--corpus",
         str(work / "sample"), "--reading", "pair", "--model", "frequency", "--out",
         str(work / "runs"), "--no-progress"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return work / "sample", results_script.load_results(work / "runs").collect()


def _pairs(corpus: Path) -> pl.DataFrame:
    return pl.concat([pl.read_parquet(p) for p in sorted(corpus.glob("*/pairs.parquet"))])


def test_each_cell_gets_its_n_originals_or_all_it_has_with_their_nonce_variants(corpus):
    pairs = _pairs(corpus)
    drawn = results_script.sample_pairs(pairs, PER_CELL, 0)
    key = list(results_script.PAIR_KEY)
    have = pairs.filter(pl.col("variant") == "original").group_by("lang", "type").len()
    got = drawn.filter(pl.col("variant") == "original").group_by("lang", "type").len()
    joined = have.join(got, on=["lang", "type"], how="left", suffix="_drawn")
    assert joined.height >= 6
    for row in joined.iter_rows(named=True):
        assert row["len_drawn"] == min(PER_CELL, row["len"]), row
    # German determiners have more pairs than a cell takes: the sample is a real draw.
    assert (
        have.filter((pl.col("lang") == "de") & (pl.col("type") == "determiner"))["len"][0]
        > PER_CELL
    )
    # Every nonce variant of a drawn pair is drawn, and none of a pair left out.
    originals = drawn.filter(pl.col("variant") == "original").select(key)
    variants = pairs.filter(pl.col("variant") != "original").join(
        originals, on=key, how="semi", nulls_equal=True
    )
    assert variants.height > 0
    assert drawn.filter(pl.col("variant") != "original").height == variants.height


def test_the_draw_depends_on_the_seed_not_the_row_order(corpus):
    pairs = _pairs(corpus)
    key = [*results_script.PAIR_KEY, "variant"]
    first = results_script.sample_pairs(pairs, PER_CELL, 0).select(key)
    shuffled = results_script.sample_pairs(
        pairs.sample(fraction=1.0, shuffle=True, seed=7), PER_CELL, 0
    )
    assert shuffled.select(key).equals(first)
    other = results_script.sample_pairs(pairs, PER_CELL, 1).select(key)
    assert not other.equals(first)


def test_the_sampled_corpus_is_one_the_evaluator_reads_and_records_its_draw(sampled):
    sample, results = sampled
    import json

    manifest = json.loads((sample / "de" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["sample"]["per_cell"] == PER_CELL and manifest["sample"]["seed"] == 0
    assert results.height == _pairs(sample).height


def _stub(results: pl.DataFrame) -> pl.DataFrame:
    """A model right exactly on determiner pairs (originals and nonce variants alike)."""
    return results.with_columns(
        pl.lit("stub").alias("model"), (pl.col("type") == "determiner").alias("right")
    )


def test_the_table_gives_each_cell_its_figures(sampled):
    _, results = sampled
    both = pl.concat([results, _stub(results)])
    validity = pl.DataFrame(
        {"lang": ["de"], "type": ["determiner"], "validity_n": [25], "validity": [0.96],
         "validity_low": [0.8], "validity_high": [0.99]}
    )  # fmt: skip
    table = results_script.cell_table(both, "stub", validity)
    originals = results.filter(pl.col("variant") == "original")
    assert (
        table.select("lang", "type")
        .sort(["lang", "type"])
        .equals(originals.select("lang", "type").unique().sort(["lang", "type"]))
    )
    for row in table.iter_rows(named=True):
        cell = originals.filter((pl.col("lang") == row["lang"]) & (pl.col("type") == row["type"]))
        assert row["n"] == cell.height
        assert row["accuracy"] == (1.0 if row["type"] == "determiner" else 0.0)
        # The baseline's figures are its own on the same pairs (its ties left out).
        decided = cell.filter(pl.col("right").is_not_null())
        assert row["baseline_n"] == decided.height
        if decided.height:
            assert row["baseline_accuracy"] == pytest.approx(decided["right"].mean())
        nonce = results.filter(
            (pl.col("lang") == row["lang"]) & (pl.col("type") == row["type"])
            & (pl.col("variant") != "original")
        )  # fmt: skip
        assert (row["nonce_n"] or 0) == nonce.height
        incongruent = cell.filter(pl.col("frequency") == "incongruent").height
        assert (row["incongruent_n"] or 0) == incongruent
        judged = (row["lang"], row["type"]) == ("de", "determiner")
        assert (row["validity"] == 0.96) if judged else row["validity"] is None
    page = results_script.markdown_figures(table, ["lang", "type"])
    assert len(page.splitlines()) == table.height + 2
    assert "| 96.0 [80.0, 99.0] (25) |" in page


def test_the_language_table_ends_with_every_language_pooled(sampled):
    _, results = sampled
    table = results_script.language_table(_stub(results), "stub")
    assert table["lang"].to_list() == ["de", "en", "fr", "all"]
    originals = results.filter(pl.col("variant") == "original")
    pooled = table.row(3, named=True)
    assert pooled["n"] == originals.height
    assert pooled["accuracy"] == pytest.approx((originals["type"] == "determiner").mean())


def test_the_page_keeps_its_prose_and_replaces_only_the_generated_blocks():
    page = "# Results\n\nProse.\n\n<!-- results:cells -->\nold\n<!-- /results -->\n\nMore prose.\n"
    filled = results_script.fill(page, {"cells": "| new |"})
    assert filled == page.replace("old", "| new |")
    assert results_script.fill(page, {}) == page


def test_a_sample_of_named_languages_holds_only_them(corpus, tmp_path):
    counts = results_script.sample_corpus(corpus, tmp_path / "en", 50, 0, ["en"])
    assert list(counts) == ["en"]
    assert sorted(p.name for p in (tmp_path / "en").iterdir()) == ["en"]
    # 50 a cell is more than English has: every pair is drawn.
    assert counts["en"] == pl.read_parquet(corpus / "en" / "pairs.parquet").height
