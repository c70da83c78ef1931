"""Accuracy of a suite with 95% bootstrap intervals: over pairs, or for SyntaxGym over items."""

from __future__ import annotations

import polars as pl

from ud_agree.schemas.results import RULE_NAMES

from ..summary.stats import accuracy_table
from ..summary.tables import TIE_INPUTS, percent, tie_tallies, with_ties

TALLIES = ("undecided", "ties", *(f"ties_{rule}" for rule in RULE_NAMES))
SUMMARY_COLUMNS = ("suite", "breakdown", "group", "n", "accuracy", "ci_low", "ci_high", *TALLIES)


def summarize_suite(
    results: pl.DataFrame | pl.LazyFrame, n_boot: int = 1000, rule: str = "sum"
) -> pl.DataFrame:
    """Rows `all` (pairs; SyntaxGym: items whose every prediction holds), then by condition or
    prediction; pairs also per rule. `undecided`, `ties` (of `rule`, the run's --rule) and
    `ties_<rule>` as corpus runs' summaries count them (§5.1, §7)."""
    lazy = results.lazy()
    present = set(lazy.collect_schema().names())
    rules = [f"right_{r}" for r in RULE_NAMES if f"right_{r}" in present]
    inputs = [c for c in TIE_INPUTS if c in present and c not in ("reading", "rule")]
    columns = ("suite", "pair_id", "condition", "prediction", "formula", "right", *rules, *inputs)
    frame = lazy.select(list(dict.fromkeys(columns))).collect()
    if frame.is_empty():
        return empty_summary()
    suite = frame["suite"][0]
    # Each pair (each item) is its own cluster: the interval resamples pairs (items).
    cluster = ("pair_id",)
    if frame["prediction"].null_count() == frame.height:
        frame = with_ties(frame.with_columns(reading=pl.lit("pair"), rule=pl.lit(rule)))
        tallies = tie_tallies("tie")
        tables = [
            _labelled(
                accuracy_table(frame, cluster=cluster, n_boot=n_boot, tallies=tallies),
                "all",
                "all",
            )
        ]
        conditions = frame["condition"].drop_nulls().unique()
        if len(conditions) > 1:
            by = accuracy_table(
                frame, by=["condition"], cluster=cluster, n_boot=n_boot, tallies=tallies
            )
            tables.append(
                by.rename({"condition": "group"}).with_columns(breakdown=pl.lit("condition"))
            )
        # §5.1: each rule's accuracy over the pairs it decides (its undecided counted apart).
        for verdict in rules:
            if frame[verdict].null_count() < frame.height:
                name = verdict.removeprefix("right_")
                table = accuracy_table(
                    frame,
                    verdict=verdict,
                    cluster=cluster,
                    n_boot=n_boot,
                    tallies=tie_tallies(f"tie_{name}"),
                )
                tables.append(_labelled(table, "rule", name))
    else:
        # A SyntaxGym prediction compares region surprisals: no pair, so no tie to count.
        items = frame.group_by("pair_id").agg(pl.col("right").all())
        tables = [
            _labelled(
                accuracy_table(items, cluster=cluster, n_boot=n_boot), "all", "all predictions"
            )
        ]
        labelled = frame.with_columns(
            pl.format("{}: {}", pl.col("prediction"), pl.col("formula")).alias("group")
        )
        by = accuracy_table(labelled, by=["prediction", "group"], cluster=cluster, n_boot=n_boot)
        tables.append(by.drop("prediction").with_columns(breakdown=pl.lit("prediction")))
    return pl.concat(
        [_tallied(t).with_columns(suite=pl.lit(suite)).select(SUMMARY_COLUMNS) for t in tables],
        how="vertical_relaxed",
    )


def _tallied(table: pl.DataFrame) -> pl.DataFrame:
    """Every tally column, null where the suite cannot give it (SyntaxGym's ties)."""
    return table.with_columns(
        pl.lit(None, dtype=pl.Int64).alias(name) for name in TALLIES if name not in table.columns
    )


def _labelled(table: pl.DataFrame, breakdown: str, group: str) -> pl.DataFrame:
    return table.with_columns(breakdown=pl.lit(breakdown), group=pl.lit(group))


def empty_summary() -> pl.DataFrame:
    """A summary with no rows (a suite with nothing scored)."""
    strings = dict.fromkeys(SUMMARY_COLUMNS[:3], pl.String)
    numbers = {"n": pl.Int64, "accuracy": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}
    return pl.DataFrame(schema={**strings, **numbers, **dict.fromkeys(TALLIES, pl.Int64)})


def format_suite_table(summary: pl.DataFrame) -> str:
    """Plain-text table: accuracy in percent with its 95% interval, undecided and ties (of the
    run's rule), one line per row."""
    lines = [
        f"{'suite':<20} {'breakdown':<10} {'group':<30} {'n':>7}  accuracy  95% CI"
        "           undecided   ties"
    ]
    for row in summary.iter_rows(named=True):
        suite, group = _cut(row["suite"], 20), _cut(row["group"], 30)
        lines.append(
            f"{suite:<20} {row['breakdown']:<10} {group:<30} {row['n']:>7}  "
            f"{percent(row['accuracy'], '%'):>7}  [{percent(row['ci_low']):>5}, "
            f"{percent(row['ci_high']):>5}]  {_count(row.get('undecided')):>9}  "
            f"{_count(row.get('ties')):>5}"
        )
    return "\n".join(lines)


def _cut(text: str, width: int) -> str:
    """`text` in at most `width` characters (an ellipsis where cut), so lines fit 120 columns."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _count(value: int | None) -> str:
    return "–" if value is None else str(value)
