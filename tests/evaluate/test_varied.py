"""The pair reading's varied word is `varied` in results (`masked` is the class-average
reading's); folders written before the column are read (filled from `masked`) but not resumed."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.cli import main
from ud_agree.evaluate.output.results import load_results
from ud_agree.evaluate.run import evaluate
from ud_agree.evaluate.summary.tables import summarize

from tests.sharding import mine_sample, sample_options


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return mine_sample(tmp_path_factory.mktemp("varied"))


def test_each_reading_fills_its_own_role_column(corpus, tmp_path):
    pair = evaluate(sample_options(corpus, tmp_path, reading="pair"))
    rows = load_results(pair.out_dir).collect()
    pairs = pl.read_parquet(corpus / "fr" / "pairs.parquet")
    assert rows["masked"].null_count() == rows.height
    assert sorted(rows["varied"].to_list()) == sorted(pairs["varied"].to_list())
    cloze = evaluate(sample_options(corpus, tmp_path))  # --mask both
    rows = load_results(cloze.out_dir).collect()
    assert rows["varied"].null_count() == rows.height
    assert set(rows["masked"]) == {"controller", "target"}


def test_an_old_pair_folder_is_read_with_varied_filled_and_refused_on_resume(
    corpus, tmp_path, capsys
):
    pair = evaluate(sample_options(corpus, tmp_path, reading="pair"))
    now = load_results(pair.out_dir).collect()
    # Rewrite the chunks as ud-agree 0.2.0 wrote them: the varied role under `masked`.
    for path in pair.out_dir.glob("results-*.parquet"):
        frame = pl.read_parquet(path)
        frame.with_columns(pl.col("varied").alias("masked")).drop("varied").write_parquet(path)
    old = load_results(pair.out_dir).collect()
    assert old.equals(now)
    assert summarize(old, n_boot=50).equals(summarize(now, n_boot=50))
    # A finished old run is skipped by --resume; an unfinished one would mix two layouts in one
    # folder: one line naming the version.
    manifest = pair.out_dir / "manifest.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "complete": False}))
    argv = ["--lang", "fr", "--corpus", str(corpus), "--out", str(tmp_path), "--model", "frequency"]
    argv += ["--reading", "pair", "--mask", "both", "--min-candidates", "2", "--batch-size", "1"]
    assert main([*argv, "--no-progress", "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ud-agree 0.2.0 or earlier" in err


def test_pair_items_keep_the_varied_role_from_the_corpus_to_the_results(corpus):
    from ud_agree.evaluate.corpus import read_corpus
    from ud_agree.evaluate.readings.items import expand_roles
    from ud_agree.evaluate.sources.corpus import build_pair_items

    read = read_corpus(str(corpus), "fr", pairs=True)
    # The relations' roles are laid out under the pairs' own name: no `masked` on the way.
    roles = expand_roles(read.relations, ("target", "controller"), "varied")
    assert "masked" not in roles.columns
    assert (
        roles["varied"].value_counts().sort("varied")["count"].to_list()
        == [read.relations.height] * 2
    )
    items, counts = build_pair_items(read)
    assert "masked" not in items.columns and counts["pairs_without_relation"] == 0
    assert sorted(items["varied"].to_list()) == sorted(read.pairs["varied"].to_list())
