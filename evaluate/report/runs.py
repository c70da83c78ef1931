"""One line per run and one table of many runs' overall accuracy (python -m evaluate with several
languages, models or readings)."""

from __future__ import annotations

from typing import Any

import polars as pl

from ..summary.tables import balanced_note, balanced_text, percent

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
    """`412 items, accuracy 61.2% [57.0, 65.3], balanced 58.9% → results/fr/…` (§6: `balanced
    100.0% on 17% of items` where it covers less than half)."""
    undecided = row.get("undecided")
    return (
        f"{row['n']} items"
        + (f" ({undecided} undecided, left out)" if undecided else "")
        + f", accuracy {percent(row['accuracy'])}% "
        f"[{percent(row['ci_low'])}, {percent(row['ci_high'])}], balanced "
        f"{balanced_text(row['balanced_accuracy'], row['n'], row.get('ba_left_out'))}"
        + (" (RANDOM weights: chance level)" if row.get("random_weights") else "")
        + f" → {row['folder']}"
    )


def runs_table(rows: list[dict[str, Any]]) -> str:
    """Plain-text table, one line per run: accuracy and balanced accuracy in percent, 95% CIs."""
    width = max([len(str(r["model"])) for r in rows] + [5])
    lines = [
        f"{'lang':<6} {'model':<{width}} {'reading':<13} {'method':<12} {'n':>8}  "
        "accuracy  95% CI          balanced  95% CI"
    ]
    for r in rows:
        acc = f"{percent(r['accuracy'], '%'):>8}  [{percent(r['ci_low']):>5}, {percent(r['ci_high']):>5}]"
        bal = f"{percent(r['balanced_accuracy'], '%'):>8}  [{percent(r['ba_ci_low']):>5}, {percent(r['ba_ci_high']):>5}]"
        note = balanced_note(r)
        lines.append(
            f"{r['lang']:<6} {r['model']:<{width}} {r['reading']:<13} {r['method']:<12} "
            f"{r['n']:>8}  {acc}  {bal}" + (f"  balanced: {note}" if note else "")
        )
    return "\n".join(lines + item_set_notes(rows))


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
