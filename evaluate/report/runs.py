"""One line per run and one table of many runs' overall accuracy (python -m evaluate with several
languages, models or readings)."""

from __future__ import annotations

import textwrap
from typing import Any

import polars as pl

from ..summary.tables import (
    WIDTH,
    balanced_cell,
    balanced_text,
    interval,
    percent,
    table_notes,
    text_table,
)

OVERALL = ("n", "accuracy", "ci_low", "ci_high", "balanced_accuracy", "ba_ci_low", "ba_ci_high",
           "ba_left_out", "undecided")  # fmt: skip


def overall(summary: pl.DataFrame | None) -> dict[str, Any]:
    """The `all` row of a run's summary (nulls when the run scored nothing)."""
    if summary is not None:
        row = summary.filter((pl.col("breakdown") == "all") & (pl.col("group") == "all"))
        if row.height:
            return {k: row[k][0] if k in row.columns else None for k in OVERALL}
    return {**dict.fromkeys(OVERALL), "n": 0}


def run_line(row: dict[str, Any]) -> str:
    """`412 items, accuracy 61.2% [57.0, 65.3], balanced 58.9%` (`balanced
    100.0% on 17% of items` where it covers less than half; `balanced –` where there is no
    figure, which the table's note under every run says once)."""
    undecided = row.get("undecided")
    balanced = balanced_text(row["balanced_accuracy"], row["n"], row.get("ba_left_out"))
    return (
        f"{row['n']} items"
        + (f" ({undecided} undecided, left out)" if undecided else "")
        + f", accuracy {percent(row['accuracy'])}% "
        f"[{percent(row['ci_low'])}, {percent(row['ci_high'])}], balanced "
        + balanced.split(" (", 1)[0]
        + (" (RANDOM weights: chance level)" if row.get("random_weights") else "")
    )


def progress_lines(where: str, said: str, folder: str, width: int = 120) -> str:
    """A run's progress: `where: said` (`said` on its own line where that would pass `width`),
    then its results folder on a line of its own, the one line that may be longer."""
    head = f"{where}: {said}"
    if len(head) > width:
        head = f"{where}:\n    {said}"
    return f"{head}\n    → {folder}"


def runs_table(rows: list[dict[str, Any]]) -> str:
    """Plain-text table, one line per run, at most 120 columns: accuracy and balanced accuracy in
    percent with 95% CIs; the notes its cells need, then where runs score different item sets."""
    header = ["lang", "model", "reading", "method", "n", "accuracy", "95% CI", "balanced",
              "95% CI"]  # fmt: skip
    cells = [
        [
            r["lang"],
            str(r["model"]),
            r["reading"],
            r["method"],
            str(r["n"]),
            percent(r["accuracy"], "%"),
            interval(r["ci_low"], r["ci_high"]),
            balanced_cell(r),
            interval(r["ba_ci_low"], r["ba_ci_high"]),
        ]
        for r in rows
    ]
    right = [False] * 4 + [True] * 5  # the model's name takes the width the figures leave
    notes = [
        wrapped
        for note in table_notes(rows) + item_set_notes(rows)
        for wrapped in textwrap.wrap(note, WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    ]
    return "\n".join(text_table(header, cells, right, flexible=1) + notes)


def item_set_notes(rows: list[dict[str, Any]]) -> list[str]:
    """A line for each language and reading whose runs scored different numbers of items: their
    accuracies are over different item sets (a causal LM skips items with no left context, the
    frequency baseline those with too few candidates…), not a like-for-like comparison."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["lang"], row["reading"]), []).append(row)
    return [
        f"note: {lang} {reading}: these runs score different item sets ("
        + ", ".join(f"{r['model']} n = {r['n']}" for r in group)
        + "), so their accuracies are not over the same items; each run's manifest.json counts "
        "what it skipped and why"
        for (lang, reading), group in groups.items()
        if len({r["n"] for r in group}) > 1
    ]
