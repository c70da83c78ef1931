"""How the report's tables read: shares in percent as the CLI prints them, each interval beside its
value (`93.8% [87.5, 100]`), and headers in words with the results' column names in a tooltip."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

# A value column and the columns of its 95% interval: shown as one cell.
INTERVALS: dict[str, tuple[str, str]] = {
    "accuracy": ("ci_low", "ci_high"),
    "balanced_accuracy": ("ba_ci_low", "ba_ci_high"),
    "difference": ("diff_low", "diff_high"),
    "incongruent": ("incongruent_low", "incongruent_high"),
    "validity": ("validity_low", "validity_high"),
}

# Differences of two shares: percentage points with a sign, not percents.
DIFFERENCES = frozenset({"difference", "vs_frequency", "context_adds", "original_minus_nonce"})

# Column name → (header a reader understands, what it holds).
LABELS: dict[str, tuple[str, str]] = {
    "system": ("model", "the model and method (a control or baseline in brackets)"),
    "model": ("model", "the model and method"),
    "lang": ("language", "UD language code"),
    "type": ("agreement type", "determiner, attributive, predicative, subject-verb, numeral, …"),
    "reading": ("reading", "class-average (cloze) or pair (minimal pairs)"),
    "rule": ("scoring rule", "how the pair reading compares the two sentences"),
    "n": ("items", "items scored (undecided items left out)"),
    "accuracy": ("accuracy [95% CI]", "share of items right, 95% interval resampling sentences"),
    "balanced_accuracy": (
        "balanced accuracy [95% CI]",
        "accuracy balanced over the values of each agreeing feature, 95% interval",
    ),
    "ba_left_out": ("items not balanced", "items in groups or values too small to balance"),
    "balanced_note": ("balanced accuracy: note", "the share of items it covers, or why none"),
    "undecided": ("undecided", "items the rule cannot decide, left out of items and accuracy"),
    "ties": ("ties", "pairs whose two scores are exactly equal (counted wrong)"),
    "differs": ("decisions unlike the headline rule", "pairs this rule decides differently"),
    "frequency_congruent": ("frequency right", "share of items the frequency heuristic gets right"),
    "incongruent_n": ("frequency wrong (items)", "items where the frequency heuristic is wrong"),
    "n_incongruent": ("frequency wrong (items)", "items where the frequency heuristic is wrong"),
    "incongruent": (
        "accuracy where frequency is wrong [95% CI]",
        "accuracy on the items the frequency heuristic gets wrong",
    ),
    "n_shared": ("items both scored", "the items (or relations) both sides scored"),
    "difference": ("difference, points [95% CI]", "first minus second, in percentage points"),
    "vs_frequency": ("minus frequency baseline, points", "accuracy minus the baseline's"),
    "context_adds": ("context adds, points", "accuracy in context minus without"),
    "original_minus_nonce": ("original minus nonce, points", "original pairs minus nonce variants"),
    "pair": ("pair reading", "accuracy in the pair reading"),
    "class_average": ("class-average reading", "accuracy in the class-average reading"),
    "context": ("in context", "accuracy with the sentence"),
    "no_context": ("without context", "accuracy with every other word masked"),
    "model_accuracy": ("model", "the model's accuracy"),
    "baseline_accuracy": ("frequency baseline", "the frequency baseline's accuracy"),
    "original": ("original pairs", "accuracy on original pairs"),
    "nonce": ("nonce variants", "accuracy on their nonce variants"),
    "n_original": ("original pairs", "original pairs that have a nonce variant"),
    "n_nonce": ("nonce variants", "their nonce variants"),
    "a": ("model a", "first model"),
    "b": ("model b", "second model"),
    "accuracy_a": ("accuracy of a", "model a's accuracy on the shared items"),
    "accuracy_b": ("accuracy of b", "model b's accuracy on the shared items"),
    "validity": ("judged valid [95% CI]", "share of judged pairs valid, Wilson interval"),
    "validity_n": ("pairs judged", "pairs people judged"),
}


def bound(value: float | None) -> str:
    """An interval end in percent, as short as it reads: `87.5`, `100`, `–` where unknown."""
    if value is None or math.isnan(value):
        return "–"
    text = f"{100 * value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def share_text(value: float | None) -> str:
    """A share as the CLI prints it: `93.8%`, `–` where unknown."""
    return "–" if value is None or math.isnan(value) else f"{100 * value:.1f}%"


def points_text(value: float | None) -> str:
    """A difference of two shares in percentage points with its sign: `+12.5`, `−3.0`."""
    if value is None or math.isnan(value):
        return "–"
    return f"{100 * value:+.1f}".replace("-", "−")


def interval_text(
    value: float | None, low: float | None, high: float | None, points: bool = False
) -> str:
    """A value with its 95% interval: `93.8% [87.5, 100]` (`+12.5 [3.1, 20]` for a difference);
    `75.0% [75, 75] (degenerate)` where the interval has no width."""
    shown = points_text(value) if points else share_text(value)
    if shown == "–":
        return shown
    text = f"{shown} [{bound(low)}, {bound(high)}]".replace("-", "−")
    return f"{text} {DEGENERATE}" if degenerate(low, high) else text


# An interval of no width: every resample gave the same value (one sentence, or items all alike).
DEGENERATE = "(degenerate)"


def degenerate(low: float | None, high: float | None) -> bool:
    """Whether an interval's ends are known and meet."""
    known = low is not None and high is not None and not (math.isnan(low) or math.isnan(high))
    return known and low == high


def plain_text(value: Any, points: bool = False) -> str:
    """Any other cell: floats as shares (or points), ints with thousands separators."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return points_text(value) if points else share_text(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


@dataclass(frozen=True)
class Column:
    """One column as shown: its header, its tooltip, and how a row's cell reads."""

    label: str
    title: str
    text: Callable[[Mapping[str, Any]], str]
    numeric: bool


def _interval_cell(row: Mapping[str, Any], name: str, low: str, high: str, points: bool) -> str:
    return interval_text(row.get(name), row.get(low), row.get(high), points)


def _plain_cell(row: Mapping[str, Any], name: str, points: bool) -> str:
    return plain_text(row.get(name), points)


def _sample(rows: Sequence[Mapping[str, Any]], name: str) -> Any:
    return next((row[name] for row in rows if row.get(name) is not None), None)


def display_columns(columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> list[Column]:
    """The columns as a reader sees them: an interval folded into its value's cell, headers in
    words, the results' names in the tooltip."""
    present = set(columns)
    folded = {
        end
        for name, ends in INTERVALS.items()
        if name in present and set(ends) <= present
        for end in ends
    }
    shown = []
    for name in columns:
        if name in folded:
            continue
        label, meaning = LABELS.get(name, (name.replace("_", " "), ""))
        points = name in DIFFERENCES
        ends = INTERVALS.get(name)
        if ends is not None and set(ends) <= present:
            sources: tuple[str, ...] = (name, *ends)
            low, high = ends
            text: Callable[[Mapping[str, Any]], str] = partial(
                _interval_cell, name=name, low=low, high=high, points=points
            )
        else:
            sources = (name,)
            label = label.replace(" [95% CI]", "")
            text = partial(_plain_cell, name=name, points=points)
        value = _sample(rows, name)
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        column_names = ", ".join(sources)
        title = f"{meaning} (column {column_names})" if meaning else f"column {column_names}"
        shown.append(Column(label, title, text, numeric))
    return shown
