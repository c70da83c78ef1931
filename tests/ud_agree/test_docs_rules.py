"""The scoring-rules pages: the rules table names every rule once, and the reproducing recipe runs
as written on the embedded sample, its figures being the pair reading's rule columns as the
summary reports them (DESIGN §5.1)."""

from __future__ import annotations

import re

import polars as pl
import pytest

from tests.docs import DOCS, run_page
from tests.paths import MODELS

PAGE = "reproducing.md"


def test_the_rules_table_names_every_rule_once():
    from ud_agree.schemas.results import RULE_NAMES

    text = (DOCS / "evaluating" / "scoring-rules.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \|", text, flags=re.M)
    assert tuple(rows) == RULE_NAMES


def test_the_rules_recipe_reproduces_the_lm_eval_metrics_columns(tmp_path):
    pytest.importorskip("torch")
    if not (MODELS / "tiny-fr-ud-gpt2").is_dir():
        pytest.skip("shared tiny-fr-ud-gpt2 not present")
    run = run_page(DOCS / PAGE, tmp_path)
    figures = run.namespace["figures"]
    rows = pl.read_parquet(next((tmp_path / "results-rules").rglob("results-*.parquet")).parent
                           / "results-*.parquet")  # fmt: skip
    assert figures["type"].to_list() == sorted(set(rows["type"]))
    for row in figures.iter_rows(named=True):
        part = rows.filter(pl.col("type") == row["type"])
        assert row["lm-eval acc"] == part["right_sum"].mean()
        assert row["lm-eval acc_norm"] == part["right_chars"].mean()
        assert row["lm-eval acc_bytes"] == part["right_bytes"].mean()
        assert row["minicons (MultiBLiMP)"] == part["right_minicons"].mean()
    assert rows["right_minicons"].null_count() == 0  # --rules minicons ran its forward
    summary = pl.read_csv(next((tmp_path / "results-rules").rglob("summary.csv")))
    by_rule = summary.filter(pl.col("breakdown") == "rule")
    assert by_rule["group"].to_list() == [
        "sum",
        "minicons",
        "mean",
        "chars",
        "bytes",
        "word",
        "slor",
    ]
    overall = dict(by_rule.select("group", "accuracy").iter_rows())
    assert overall["chars"] == pytest.approx(rows["right_chars"].mean())
