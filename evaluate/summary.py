"""Accuracy breakdowns with 95% sentence-bootstrap intervals (stats.accuracy_table), as CSV, Markdown and text."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from evaluate.stats import accuracy_table

DISTANCE_BINS = ((1, "1"), (2, "2"), (3, "3-4"), (5, "5-8"), (9, "9+"))
COUNT_BINS = ((0, "0"), (1, "1"), (2, "2"), (3, "3+"))


def _binned(column: str, bins: tuple[tuple[int, str], ...]) -> pl.Expr:
    """Label of the last bin whose lower bound the value reaches."""
    expr = pl.lit(bins[0][1])
    for low, label in bins[1:]:
        expr = pl.when(pl.col(column) >= low).then(pl.lit(label)).otherwise(expr)
    return expr


BREAKDOWNS: dict[str, tuple[pl.Expr, list[str] | None]] = {
    "all": (pl.lit("all"), None),
    "type": (pl.col("type"), None),
    "masked": (pl.col("masked"), None),
    "agreeing": (pl.col("agreeing").list.join("+"), None),
    "distance": (_binned("distance", DISTANCE_BINS), [b[1] for b in DISTANCE_BINS]),
    "distance_tokens": (_binned("distance_tokens", DISTANCE_BINS), [b[1] for b in DISTANCE_BINS]),
    "distractors": (_binned("distractors", COUNT_BINS), [b[1] for b in COUNT_BINS]),
    "attractors": (_binned("attractors", COUNT_BINS), [b[1] for b in COUNT_BINS]),
}


def summarize(results: pl.LazyFrame | pl.DataFrame, n_boot: int = 1000) -> pl.DataFrame:
    """Long table: breakdown, group, n, accuracy, ci_low, ci_high (plus the logit decision overall)."""
    frame = results.lazy() if isinstance(results, pl.DataFrame) else results
    frame = frame.select(
        "lang",
        "treebank",
        "sent_id",
        "type",
        "masked",
        "agreeing",
        "distance",
        "distance_tokens",
        "distractors",
        "attractors",
        "right",
        "right_logit",
    ).collect()
    tables = []
    for name, (expr, order) in BREAKDOWNS.items():
        if name == "distance_tokens" and frame["distance_tokens"].null_count() == frame.height:
            continue
        grouped = frame.with_columns(expr.cast(pl.String).alias("group"))
        table = accuracy_table(grouped, by=["group"], n_boot=n_boot)
        if order is not None:
            rank = {label: i for i, label in enumerate(order)}
            table = table.sort(pl.col("group").replace_strict(rank, default=len(rank)))
        tables.append(table.with_columns(pl.lit(name).alias("breakdown")))
    logit = accuracy_table(frame, value="right_logit", n_boot=n_boot)
    tables.append(
        logit.with_columns(
            pl.lit("all").alias("group"), pl.lit("all (logit decision)").alias("breakdown")
        )
    )
    columns = ["breakdown", "group", "n", "accuracy", "ci_low", "ci_high"]
    return pl.concat([t.select(columns) for t in tables], how="vertical")


def format_table(summary: pl.DataFrame) -> str:
    """Plain-text table: accuracy in percent with its 95% interval."""
    lines = [f"{'breakdown':<22} {'group':<24} {'n':>8}  accuracy  95% CI"]
    for b, g, n, acc, lo, hi in summary.iter_rows():
        lines.append(
            f"{b:<22} {g:<24} {n:>8}  {100 * acc:7.1f}%  [{100 * lo:5.1f}, {100 * hi:5.1f}]"
        )
    return "\n".join(lines)


def markdown_table(summary: pl.DataFrame) -> str:
    """The same table as Markdown."""
    lines = ["| breakdown | group | n | accuracy | 95% CI |", "|---|---|---:|---:|---|"]
    for b, g, n, acc, lo, hi in summary.iter_rows():
        lines.append(f"| {b} | {g} | {n} | {100 * acc:.1f}% | {100 * lo:.1f}–{100 * hi:.1f} |")
    return "\n".join(lines)


def header_lines(manifest: dict) -> list[str]:
    """What was evaluated, and a plain warning when the weights are random."""
    lines = [
        f"model: {manifest['model']}  method: {manifest['method']}  lang: {manifest['options']['lang']}"
    ]
    if manifest.get("random_weights"):
        lines.append(
            "WARNING: this model has RANDOM (untrained) weights: its accuracy is meaningless, "
            "expect chance level."
        )
    if manifest.get("space_after_missing"):
        lines.append(
            "WARNING: the corpus has no space_after column (not made by python -m mine): "
            "masked sentences join every word with a space."
        )
    return lines


def write_summary(summary: pl.DataFrame, folder: Path, manifest: dict) -> None:
    """summary.csv and summary.md in `folder`, each through a temp file."""
    for name, write in (
        ("summary.csv", lambda p: summary.write_csv(p)),
        (
            "summary.md",
            lambda p: Path(p).write_text(
                "\n\n".join(["\n".join(header_lines(manifest)), markdown_table(summary)]) + "\n"
            ),
        ),
    ):
        tmp = folder / f".{name}.tmp-{os.getpid()}"
        write(tmp)
        os.replace(tmp, folder / name)
