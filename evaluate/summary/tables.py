"""Accuracy and balanced accuracy breakdowns with 95% sentence-bootstrap intervals
(stats.accuracy_table), as CSV, Markdown and text."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ud_agree.atomic import write_csv, write_text

from ..readings.class_decisions import CONGRUENCE
from ..readings.scoring_rules import INGREDIENTS, RULES, rule_values
from .bins import COUNT_EDGES, DISTANCE_EDGES, UNKNOWN, bin_label, bin_labels
from .stats import MIN_VALUE_ITEMS, N_BOOT, accuracy_table

# name → (grouping expression, order of its groups or None for sorted)
BREAKDOWNS: dict[str, tuple[pl.Expr, list[str] | None]] = {
    "all": (pl.lit("all"), None),
    "type": (pl.col("type"), None),
    # The role masked (class-average) or varied (pair): one breakdown for both readings.
    "masked": (pl.coalesce("masked", "varied"), None),
    "agreeing": (pl.col("agreeing").list.join("+"), None),
    "value": (pl.col("value"), None),
    "frequency": (pl.col("frequency"), list(CONGRUENCE)),
    # §9: original pairs against their nonce variants, all K together.
    "variant": (
        pl.when(pl.col("variant").str.starts_with("nonce"))
        .then(pl.lit("nonce"))
        .otherwise(pl.col("variant")),
        ["original", "nonce"],
    ),
    "distance": (bin_label("distance", DISTANCE_EDGES), bin_labels(DISTANCE_EDGES)),
    "distance_tokens": (bin_label("distance_tokens", DISTANCE_EDGES), bin_labels(DISTANCE_EDGES)),
    "distractors": (bin_label("distractors", COUNT_EDGES), bin_labels(COUNT_EDGES)),
    "attractors": (bin_label("attractors", COUNT_EDGES), bin_labels(COUNT_EDGES)),
}
COLUMNS = [
    "breakdown",
    "group",
    "n",
    "accuracy",
    "ci_low",
    "ci_high",
    "balanced_accuracy",
    "ba_ci_low",
    "ba_ci_high",
    "values",
    "ba_left_out",
    "frequency_congruent",
    "incongruent_n",
    "differs",
    "undecided",
    "ties",
    *(f"ties_{rule}" for rule in RULES),
]
# What summarize reads of the results, and the columns a tie is read from where present.
SUMMARY_INPUTS = ("lang", "treebank", "sent_id", "type", "masked", "varied", "agreeing",
                  "feature", "value", "distance", "distance_tokens", "distractors", "attractors",
                  "frequency", "variant", "right", "right_logit")  # fmt: skip
TIE_INPUTS = ("reading", "method", "rule", "score_good", "score_bad", "p_correct", "p_incorrect",
              *(f"{name}_{side}" for name in INGREDIENTS for side in ("good", "bad")))  # fmt: skip


def summarize(results: pl.LazyFrame | pl.DataFrame, n_boot: int = 1000) -> pl.DataFrame:
    """Long table: breakdown, group, n, accuracy and balanced accuracy with their intervals,
    `undecided` and `ties` (the class-average reading adds the logit decision overall)."""
    lazy = results.lazy() if isinstance(results, pl.DataFrame) else results
    present = set(lazy.collect_schema().names())
    frame = with_ties(
        lazy.select(
            *SUMMARY_INPUTS,
            *(c for c in TIE_INPUTS if c in present),
            *(f"right_{r}" for r in RULES if f"right_{r}" in present),
        ).collect()
    )
    tallies = tie_tallies("tie")
    tables = []
    for name, (expr, order) in BREAKDOWNS.items():
        # Null in older results, or in the other reading.
        optional = name in ("distance_tokens", "frequency", "variant")
        if optional and frame[name].null_count() == frame.height:
            continue
        grouped = frame.with_columns(expr.cast(pl.String).fill_null(UNKNOWN).alias("group"))
        table = accuracy_table(grouped, by=["group"], n_boot=n_boot, tallies=tallies)
        if order is not None:
            rank = {label: i for i, label in enumerate(order)}
            table = table.sort(pl.col("group").replace_strict(rank, default=len(rank)))
        tables.append(table.with_columns(pl.lit(name).alias("breakdown")))
    if frame["right_logit"].null_count() < frame.height:
        logit = accuracy_table(
            frame.filter(pl.col("right_logit").is_not_null()), verdict="right_logit", n_boot=n_boot
        )
        tables.append(
            logit.with_columns(
                pl.lit("all").alias("group"), pl.lit("all (logit decision)").alias("breakdown")
            )
        )
    rules_breakdown = rule_accuracy(frame, n_boot=n_boot)
    if rules_breakdown.height:
        tables.append(
            rules_breakdown.with_columns(
                pl.lit("rule").alias("breakdown"), pl.col("rule").alias("group")
            )
        )
    return pl.concat([_with_columns(t).select(COLUMNS) for t in tables], how="vertical")


def with_ties(frame: pl.DataFrame) -> pl.DataFrame:
    """The rows with `tie_<rule>` for each rule (§5.1, pair rows: value(good) == value(bad)
    exactly, from the ingredients; the frequency baseline's one rule compares its counts) and
    `tie`, the verdict's own (pair: the row's `rule`; class-average: p_correct == p_incorrect)."""
    columns = set(frame.columns)
    pair = pl.col("reading") == "pair" if "reading" in columns else pl.lit(False)
    counts = pl.lit(False)
    if {"method", "score_good", "score_bad"} <= columns:
        counts = (pl.col("method") == "frequency") & (pl.col("score_good") == pl.col("score_bad"))

    def side(name: str, which: str) -> np.ndarray:
        column = f"{name}_{which}"
        if column not in columns:
            return np.full(frame.height, np.nan)
        return frame[column].cast(pl.Float64).fill_null(np.nan).to_numpy()

    good = {name: side(name, "good") for name in INGREDIENTS}
    bad = {name: side(name, "bad") for name in INGREDIENTS}
    ties = {}
    for rule in RULES:
        g, b = rule_values(good, rule), rule_values(bad, rule)
        values = pl.Series(np.isfinite(g) & np.isfinite(b) & (g == b))
        ties[f"tie_{rule}"] = pl.when(pair).then(pl.lit(values) | counts)
    frame = frame.with_columns(**ties)
    # Results written before the `rule` column were decided by `sum`.
    headline = pl.col("rule").fill_null("sum") if "rule" in columns else pl.lit("sum")
    chosen: Any = pl.lit(None, dtype=pl.Boolean)
    for rule in RULES:
        chosen = pl.when(headline == rule).then(pl.col(f"tie_{rule}")).otherwise(chosen)
    average = pl.lit(None, dtype=pl.Boolean)
    if {"p_correct", "p_incorrect"} <= columns:
        average = pl.col("p_correct") == pl.col("p_incorrect")
    return frame.with_columns(pl.when(pair).then(chosen).otherwise(average).alias("tie"))


def tie_tallies(headline: str) -> dict[str, str]:
    """accuracy_table's tallies of a summary row: `ties` from the column `headline`, and
    `ties_<rule>` for every rule."""
    return {"ties": headline, **{f"ties_{rule}": f"tie_{rule}" for rule in RULES}}


def rule_accuracy(
    frame: pl.DataFrame, by: Sequence[str] = (), n_boot: int = N_BOOT
) -> pl.DataFrame:
    """§5.1 per rule (and per `by`) over `frame` (with_ties'): each rule's accuracy and balanced
    accuracy over the items it decides, `undecided`, `ties` and `differs`, its decisions that
    differ from the headline `right`; columns by…, rule, accuracy_table's, differs (no rows for a
    rule that decides no item)."""
    by = list(by)
    rows = frame.filter(pl.col("reading") == "pair") if "reading" in frame.columns else frame
    tables = []
    for rule in RULES:
        verdict = f"right_{rule}"
        if verdict not in rows.columns or rows[verdict].null_count() == rows.height:
            continue
        tallies = tie_tallies(f"tie_{rule}") if f"tie_{rule}" in frame.columns else None
        table = accuracy_table(rows, by=by, verdict=verdict, n_boot=n_boot, tallies=tallies)
        mismatch = (pl.col(verdict) != pl.col("right")).sum().cast(pl.Int64).alias("differs")
        if by:
            table = table.join(rows.group_by(by).agg(mismatch), on=by, nulls_equal=True)
        else:
            table = table.hstack(rows.select(mismatch))
        tables.append(table.with_columns(pl.lit(rule).alias("rule")))
    if not tables:
        return pl.DataFrame()
    return pl.concat(tables, how="vertical")


def _with_columns(table: pl.DataFrame) -> pl.DataFrame:
    """Every summary column, null where the results cannot give it (no `frequency` labels)."""
    absent = {"frequency_congruent": pl.Float64, "incongruent_n": pl.Int64, "differs": pl.Int64}
    absent |= {c: pl.Int64 for c in COLUMNS if c == "ties" or c.startswith("ties_")}
    return table.with_columns(
        pl.lit(None, dtype=dtype).alias(name)
        for name, dtype in absent.items()
        if name not in table.columns
    )


def percent(value: float | None, sign: str = "") -> str:
    """A share in percent with one decimal (`61.2`, `sign` after it), `–` where it is unknown."""
    return "–" if value is None or value != value else f"{100 * value:.1f}{sign}"


# §6: a balanced figure over less than half of a row's items is shown with the share it covers.
COVERS_LITTLE = pl.col("ba_left_out") > pl.col("n") / 2
NO_FIGURE = f"fewer than {MIN_VALUE_ITEMS} items a value"


def balanced_share(n: int | None, left_out: int | None) -> float | None:
    """The share of a row's items its balanced accuracy covers (None: nothing to cover)."""
    return None if not n or left_out is None else (n - left_out) / n


def _share(share: float) -> str:
    return "<1%" if 0 < share < 0.005 else f"{100 * share:.0f}%"


def balanced_text(balanced: float | None, n: int | None, left_out: int | None) -> str:
    """A row's balanced accuracy as printed (§6): `73.4%`; `100.0% on 17% of items` where it covers
    less than half of them; `– (fewer than 20 items a value)` where there is no figure."""
    if balanced is None or balanced != balanced:
        return f"– ({NO_FIGURE})" if n else "–"
    share = balanced_share(n, left_out)
    if share is not None and share < 0.5:
        return f"{100 * balanced:.1f}% on {_share(share)} of items"
    return f"{100 * balanced:.1f}%"


def coverage_sentence(share: float) -> str:
    """§6's sentence for a row whose balanced accuracy covers less than half of its items."""
    return (
        f"balanced accuracy here covers only {_share(share)} of the items (groups or values with "
        f"fewer than {MIN_VALUE_ITEMS} items are left out)"
    )


def balanced_note(row: Mapping[str, Any]) -> str:
    """What a summary row's balanced figure needs said beside it: its share of the items where
    that is under half, why there is none where there is none, else nothing."""
    balanced, n, left_out = row.get("balanced_accuracy"), row.get("n"), row.get("ba_left_out")
    if n and (balanced is None or balanced != balanced):
        return f"no figure: {NO_FIGURE}"
    share = balanced_share(n, left_out)
    return balanced_text(balanced, n, left_out) if share is not None and share < 0.5 else ""


def _count(value: int | None) -> str:
    return "–" if value is None else str(value)


# The widest a printed table may be: a terminal of 120 columns shows it whole.
WIDTH = 120
# The notes said once under a table, for the marks its cells carry.
NO_FIGURE_NOTE = f"balanced –: no figure, fewer than {MIN_VALUE_ITEMS} items a value"
LITTLE_NOTE = (
    "balanced *: over less than half of the row's items (the others are in groups or values "
    f"with fewer than {MIN_VALUE_ITEMS} items)"
)


def text_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[bool],
    width: int = WIDTH,
    flexible: int = 0,
) -> list[str]:
    """Rows of cells as aligned lines at most `width` wide: column `flexible` (a label, a model's
    name) takes what the others leave, and a cell too long for it is written whole on a line of
    its own above its row, whose cell is then left blank."""
    columns = list(zip(header, *rows, strict=True))
    widths = [max(len(cell) for cell in column) for column in columns]
    rest = sum(widths) - widths[flexible] + 2 * (len(widths) - 1)
    widths[flexible] = max(1, min(widths[flexible], width - rest))

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(w) if r else cell.ljust(w)
            for cell, w, r in zip(cells, widths, right, strict=True)
        ]
        return "  ".join(parts).rstrip()

    lines = []
    for cells in [header, *rows]:
        if len(cells[flexible]) > widths[flexible]:
            before = line([*cells[:flexible], ""] + [""] * (len(cells) - flexible - 1))
            lines.append(before.ljust(sum(widths[:flexible]) + 2 * flexible) + cells[flexible])
            cells = [*cells[:flexible], "", *cells[flexible + 1 :]]
        lines.append(line(cells))
    return lines


def balanced_cell(row: Mapping[str, Any]) -> str:
    """A row's balanced accuracy in a printed table: `58.9%`, `–` where there is no figure,
    `100.0%*` where it covers less than half of the row's items (the notes say what marks mean)."""
    text = percent(row.get("balanced_accuracy"), "%")
    share = balanced_share(row.get("n"), row.get("ba_left_out"))
    return text + "*" if text != "–" and share is not None and share < 0.5 else text


def interval(low: float | None, high: float | None) -> str:
    """A 95% interval as printed: `45.1–79.3`, `–` where it is unknown."""
    return "–" if low is None or low != low else f"{percent(low)}–{percent(high)}"


def table_notes(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The notes for a table's marked balanced cells, each once."""
    cells = [balanced_cell(row) for row in rows]
    return [
        note
        for note, used in (
            (
                NO_FIGURE_NOTE,
                any(c == "–" and row.get("n") for c, row in zip(cells, rows, strict=True)),
            ),
            (LITTLE_NOTE, any(c.endswith("*") for c in cells)),
        )
        if used
    ]


def format_table(summary: pl.DataFrame) -> str:
    """Plain-text table, at most 120 columns: each breakdown a heading over its groups, accuracy
    and balanced accuracy in percent with their 95% intervals, then the notes its cells need."""
    header = ["", "n", "accuracy", "95% CI", "balanced", "95% CI", "left out", "freq-cong",
              "incong", "undecided", "ties"]  # fmt: skip
    rows: list[list[str]] = []
    records = list(summary.iter_rows(named=True))
    heading = None
    for row in records:
        label = row["breakdown"]
        if row["group"] != "all":
            if row["breakdown"] != heading:
                rows.append([row["breakdown"]] + [""] * (len(header) - 1))
            label = f"  {row['group'] or ''}"
        heading = row["breakdown"]
        rows.append(
            [
                label,
                str(row["n"]),
                percent(row["accuracy"], "%"),
                interval(row["ci_low"], row["ci_high"]),
                balanced_cell(row),
                interval(row["ba_ci_low"], row["ba_ci_high"]),
                _count(row.get("ba_left_out")),
                percent(row.get("frequency_congruent"), "%"),
                _count(row.get("incongruent_n")),
                _count(row.get("undecided")),
                _count(row.get("ties")),
            ]
        )
    right = [False] + [True] * (len(header) - 1)
    return "\n".join(text_table(header, rows, right) + table_notes(records))


def markdown_table(summary: pl.DataFrame) -> str:
    """The same table as Markdown."""
    lines = [
        "| breakdown | group | n | accuracy | 95% CI | balanced accuracy | 95% CI | left out "
        "| frequency-congruent | incongruent n | undecided | ties |",
        "|---|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in summary.iter_rows(named=True):
        lines.append(
            f"| {row['breakdown']} | {row['group']} | {row['n']} | {percent(row['accuracy'], '%')} "
            f"| {percent(row['ci_low'])}–{percent(row['ci_high'])} "
            f"| {balanced_text(row['balanced_accuracy'], row['n'], row.get('ba_left_out'))} "
            f"| {percent(row['ba_ci_low'])}–{percent(row['ba_ci_high'])} "
            f"| {_count(row.get('ba_left_out'))} "
            f"| {percent(row.get('frequency_congruent'), '%')} "
            f"| {_count(row.get('incongruent_n'))} | {_count(row.get('undecided'))} "
            f"| {_count(row.get('ties'))} |"
        )
    return "\n".join(lines)


# What the summary's columns mean, said once above the table (short lines: a terminal shows them).
LEGEND = textwrap.wrap(
    "balanced accuracy: per group (class-average: each agreeing feature balanced over its values "
    f"with {MIN_VALUE_ITEMS} items or more, the weakest feature's figure; pair: the varied "
    "feature over its values), groups weighted by their items; 'left out': the items not "
    "balanced. freq-cong: the share of items the frequency heuristic alone gets right; incong: "
    "the items where it fails. undecided: items the rule cannot decide, left out of n and every "
    "figure; ties: items whose two values are exactly equal (counted wrong). See "
    "docs/evaluating/balanced-accuracy.md and docs/evaluating/frequency-flags.md.",
    width=100,
)


def header_lines(manifest: Mapping[str, Any]) -> list[str]:
    """What was evaluated, and a plain warning when the weights are random."""
    reading = manifest.get("reading", "class-average")
    lines = [
        f"model: {manifest['model']}  method: {manifest['method']}  reading: {reading}  "
        f"lang: {manifest['options']['lang']}",
        *LEGEND,
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


def write_summary(summary: pl.DataFrame, folder: Path, manifest: Mapping[str, Any]) -> None:
    """summary.csv and summary.md in `folder`, each written atomically."""
    write_csv(summary, folder / "summary.csv")
    text = "\n\n".join(["\n".join(header_lines(manifest)), markdown_table(summary)]) + "\n"
    write_text(text, folder / "summary.md")
