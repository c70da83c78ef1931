"""Accuracy of a suite with 95% bootstrap intervals: over pairs, or for SyntaxGym over items."""

from __future__ import annotations

import polars as pl

from ud_agree.schemas.results import RULE_NAMES

from ..report.stats import accuracy_table

SUMMARY_COLUMNS = ("suite", "breakdown", "group", "n", "accuracy", "ci_low", "ci_high")


def summarize_suite(results: pl.DataFrame | pl.LazyFrame, n_boot: int = 1000) -> pl.DataFrame:
    """Rows `all` (pairs; SyntaxGym: items whose every prediction holds), then by condition or prediction."""
    lazy = results.lazy()
    present = set(lazy.collect_schema().names())
    rules = [f"right_{r}" for r in RULE_NAMES if f"right_{r}" in present]
    columns = ("suite", "pair_id", "condition", "prediction", "formula", "right", *rules)
    frame = lazy.select(columns).collect()
    if frame.is_empty():
        return empty_summary()
    suite = frame["suite"][0]
    # Each pair (each item) is its own cluster: the interval resamples pairs (items).
    cluster = ("pair_id",)
    if frame["prediction"].null_count() == frame.height:
        tables = [_labelled(accuracy_table(frame, cluster=cluster, n_boot=n_boot), "all", "all")]
        conditions = frame["condition"].drop_nulls().unique()
        if len(conditions) > 1:
            by = accuracy_table(frame, by=["condition"], cluster=cluster, n_boot=n_boot)
            tables.append(
                by.rename({"condition": "group"}).with_columns(breakdown=pl.lit("condition"))
            )
        # §5.1: each rule's accuracy over the pairs it decides.
        for rule in rules:
            decided = frame.filter(pl.col(rule).is_not_null())
            if decided.height:
                table = accuracy_table(decided, verdict=rule, cluster=cluster, n_boot=n_boot)
                tables.append(_labelled(table, "rule", rule.removeprefix("right_")))
    else:
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
        [t.with_columns(suite=pl.lit(suite)).select(SUMMARY_COLUMNS) for t in tables],
        how="vertical_relaxed",
    )


def _labelled(table: pl.DataFrame, breakdown: str, group: str) -> pl.DataFrame:
    return table.with_columns(breakdown=pl.lit(breakdown), group=pl.lit(group))


def empty_summary() -> pl.DataFrame:
    """A summary with no rows (a suite with nothing scored)."""
    strings = dict.fromkeys(SUMMARY_COLUMNS[:3], pl.String)
    numbers = {"n": pl.Int64, "accuracy": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}
    return pl.DataFrame(schema={**strings, **numbers})


def format_suite_table(summary: pl.DataFrame) -> str:
    """Plain-text table: accuracy in percent with its 95% interval, one line per row."""
    lines = [f"{'suite':<24} {'breakdown':<10} {'group':<32} {'n':>7}  accuracy  95% CI"]
    for suite, breakdown, group, n, acc, lo, hi in summary.select(SUMMARY_COLUMNS).iter_rows():
        group = group if len(group) <= 32 else group[:31] + "…"
        lines.append(
            f"{suite:<24} {breakdown:<10} {group:<32} {n:>7}  {100 * acc:7.1f}%  "
            f"[{100 * lo:5.1f}, {100 * hi:5.1f}]"
        )
    return "\n".join(lines)
