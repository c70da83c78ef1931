"""§5.1 in the summaries: undecided rows are left out of every figure and counted; ties are
counted per rule (hand-built rows whose answers are known)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from ud_agree.evaluate.readings.scoring_rules import RULES
from ud_agree.evaluate.report.analysis import paired_difference, rules_table, systems_of
from ud_agree.evaluate.summary.stats import accuracy_table
from ud_agree.evaluate.summary.tables import format_table, markdown_table, summarize

from ud_agree.schemas.results import RESULTS


def verdicts(right: int, wrong: int, undecided: int, value: str = "Number=Sing") -> list[dict]:
    """Items each in a sentence of its own: `right` right, `wrong` wrong, `undecided` null."""
    outcomes = [True] * right + [False] * wrong + [None] * undecided
    return [
        {"lang": "fr", "treebank": "t", "sent_id": f"{value}/{i}", "value": value, "right": r}
        for i, r in enumerate(outcomes)
    ]


def test_undecided_items_are_left_out_of_accuracy_and_its_interval_and_counted():
    with_nulls = pl.DataFrame(verdicts(30, 10, 7), schema_overrides={"right": pl.Boolean})
    decided = with_nulls.filter(pl.col("right").is_not_null())
    row = accuracy_table(with_nulls).row(0, named=True)
    assert (row["n"], row["accuracy"], row["undecided"]) == (40, 0.75, 7)
    alone = accuracy_table(decided).row(0, named=True)
    assert (row["ci_low"], row["ci_high"]) == (alone["ci_low"], alone["ci_high"])
    assert alone["undecided"] == 0


def test_undecided_items_are_left_out_of_balanced_accuracy():
    rows = verdicts(20, 0, 15, "Number=Sing") + verdicts(10, 10, 30, "Number=Plur")
    frame = pl.DataFrame(rows, schema_overrides={"right": pl.Boolean}).with_columns(
        pl.lit("Number").alias("feature")
    )
    row = accuracy_table(frame).row(0, named=True)
    # Sing 20/20, Plur 10/20: mean 75%; counted as wrong the nulls would leave Sing at 20/35.
    assert (row["n"], row["undecided"]) == (40, 45)
    assert row["balanced_accuracy"] == pytest.approx(0.75)
    assert row["ba_left_out"] == 0


def test_a_group_whose_every_item_is_undecided_keeps_its_row_with_n_zero():
    rows = [{**r, "type": "determiner"} for r in verdicts(3, 1, 0)]
    rows += [
        {**r, "type": "predicative", "sent_id": f"p{i}"} for i, r in enumerate(verdicts(0, 0, 4))
    ]
    table = accuracy_table(pl.DataFrame(rows, schema_overrides={"right": pl.Boolean}), by=["type"])
    assert table.select("type", "n", "undecided").rows() == [
        ("determiner", 4, 0),
        ("predicative", 0, 4),
    ]
    assert table["accuracy"][1] is None
    alone = accuracy_table(pl.DataFrame(verdicts(0, 0, 3), schema_overrides={"right": pl.Boolean}))
    assert alone.select("n", "undecided").row(0) == (0, 3)


def pair(i: int, **values: Any) -> dict[str, Any]:
    """A pair row of a causal run; `values` sets ingredients and verdicts."""
    return {
        "lang": "fr",
        "treebank": "t",
        "sent_id": f"s{i}",
        "type": "subject-verb",
        "target_id": 2,
        "controller_id": 1,
        "varied": "target",
        "agreeing": ["Number"],
        "distance": 1,
        "model": "m",
        "method": "causal",
        "reading": "pair",
        "feature": "Number",
        "value": "Number=Sing",
        "variant": "original",
        "bad_value": "Plur",
        "rule": "sum",
        "n_tokens_good": 4,
        "n_tokens_bad": 4,
        **values,
    }


def built_pairs() -> pl.DataFrame:
    """Four pairs, the answers known: (1) a `sum` tie (−10 = −10) that `chars` decides, (2) a
    `chars` tie (−10/5 = −8/4) that `sum` decides wrong, (3) right under both, (4) its bad
    sentence unscored: undecided under both."""
    rows = [
        pair(1, lp_sum_good=-10.0, lp_sum_bad=-10.0, n_chars_good=5, n_chars_bad=4,
             right=False, right_sum=False, right_chars=True),
        pair(2, lp_sum_good=-10.0, lp_sum_bad=-8.0, n_chars_good=5, n_chars_bad=4,
             right=False, right_sum=False, right_chars=False),
        pair(3, lp_sum_good=-5.0, lp_sum_bad=-9.0, n_chars_good=5, n_chars_bad=4,
             right=True, right_sum=True, right_chars=True),
        pair(4, lp_sum_good=-5.0, lp_sum_bad=None, n_chars_good=5, n_chars_bad=4,
             right=None, right_sum=None, right_chars=None),
    ]  # fmt: skip
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))  # type: ignore[return-value]


def test_summary_rows_count_undecided_and_each_rules_ties():
    summary = summarize(built_pairs(), n_boot=50)
    everything = summary.filter(pl.col("breakdown") == "all").row(0, named=True)
    assert (everything["n"], everything["accuracy"], everything["undecided"]) == (3, 1 / 3, 1)
    assert (everything["ties"], everything["ties_sum"], everything["ties_chars"]) == (1, 1, 1)
    rules = {
        r["group"]: r for r in summary.filter(pl.col("breakdown") == "rule").iter_rows(named=True)
    }
    assert set(rules) == {"sum", "chars"}
    assert (rules["sum"]["n"], rules["sum"]["accuracy"], rules["sum"]["ties"]) == (3, 1 / 3, 1)
    assert (rules["chars"]["n"], rules["chars"]["accuracy"]) == (3, 2 / 3)
    assert (rules["chars"]["ties"], rules["chars"]["undecided"], rules["chars"]["differs"]) == (
        1,
        1,
        1,
    )
    # Every breakdown row carries both counts: the type row is the whole run here.
    by_type = summary.filter(pl.col("breakdown") == "type").row(0, named=True)
    assert (by_type["undecided"], by_type["ties"]) == (1, 1)
    for line in (format_table(summary), markdown_table(summary)):
        assert "undecided" in line and "ties" in line


def test_a_run_under_another_rule_counts_that_rules_ties_as_its_own():
    chars = built_pairs().with_columns(
        pl.lit("chars").alias("rule"), pl.col("right_chars").alias("right")
    )
    everything = summarize(chars, n_boot=50).filter(pl.col("breakdown") == "all").row(0, named=True)
    assert (everything["n"], everything["accuracy"], everything["ties"]) == (3, 2 / 3, 1)


def test_the_frequency_baselines_equal_counts_are_a_tie_under_every_rule():
    rows = [
        pair(1, method="frequency", score_good=3.0, score_bad=3.0, right=False),
        pair(2, method="frequency", score_good=5.0, score_bad=3.0, right=True),
    ]
    rows = [{**r, **{f"right_{rule}": r["right"] for rule in RULES}} for r in rows]
    frame = pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))
    everything = summarize(frame, n_boot=50).filter(pl.col("breakdown") == "all").row(0, named=True)
    assert everything["ties"] == 1
    assert all(everything[f"ties_{rule}"] == 1 for rule in RULES)


def test_class_average_ties_are_equal_means():
    rows = [
        {**pair(i, p_correct=p, p_incorrect=0.2, right=p > 0.2), "reading": "class-average",
         "method": "context", "masked": "target", "varied": None, "rule": None, "feature": None}
        for i, p in enumerate([0.2, 0.5, 0.1])
    ]  # fmt: skip
    frame = pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))
    everything = summarize(frame, n_boot=50).filter(pl.col("breakdown") == "all").row(0, named=True)
    assert (everything["n"], everything["ties"], everything["undecided"]) == (3, 1, 0)
    assert everything["ties_sum"] is None  # no rule decides a class-average item


def test_the_reports_rules_table_counts_ties_and_undecided():
    frame = systems_of(built_pairs())
    table = {r["rule"]: r for r in rules_table(frame).iter_rows(named=True)}
    assert (table["sum"]["n"], table["sum"]["ties"], table["sum"]["undecided"]) == (3, 1, 1)
    assert (table["chars"]["accuracy"], table["chars"]["differs"]) == (pytest.approx(2 / 3), 1)


def test_the_reports_differences_leave_undecided_items_out():
    decided = pl.DataFrame(verdicts(3, 1, 0), schema_overrides={"right": pl.Boolean})
    with_nulls = pl.DataFrame(verdicts(3, 1, 5), schema_overrides={"right": pl.Boolean})
    wrong = decided.with_columns(pl.lit(False).alias("right"))
    assert paired_difference(with_nulls, wrong, n_boot=50)[0] == pytest.approx(0.75)
