"""The report's table of suite runs (`python -m evaluate.suite`): one row per suite and model,
its accuracy over the whole suite with undecided pairs and ties, as the suite's summary counts
them (DESIGN.md §7)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from ..output.results import is_suite_chunk, load_suite_results, suite_rule
from ..output.store import manifest_file
from ..summary.suites import summarize_suite


def suite_rows(files: Sequence[Path], root: Path) -> list[dict[str, Any]]:
    """One row per suite run among the checked result `files`: suite, format, model, method,
    rule, pairs (SyntaxGym: items), accuracy with its interval, undecided, ties, skipped."""
    rows = []
    for folder in sorted({f.parent for f in files if is_suite_chunk(f)}):
        rule = suite_rule(folder) or "sum"
        results = load_suite_results(folder)
        first = results.select("format", "model", "method").head(1).collect().row(0)
        overall = summarize_suite(results, rule=rule).row(0, named=True)
        gym = first[0] == "syntaxgym"
        rows.append(
            {
                "suite": overall["suite"],
                "format": first[0],
                "model": first[1],
                "method": first[2],
                "rule": "–" if gym else rule,
                "n": overall["n"],
                "accuracy": overall["accuracy"],
                "ci_low": overall["ci_low"],
                "ci_high": overall["ci_high"],
                "undecided": overall["undecided"],
                "ties": overall["ties"],
                "skipped": _skipped(folder),
                "run": str(folder.relative_to(root)) if folder != root else ".",
            }
        )
    return rows


def _skipped(folder: Path) -> str:
    """The manifest's skip counts (`identical 1, too-long 2`) and malformed lines, in one cell."""
    manifest = manifest_file(folder)
    if manifest is None:
        return "–"
    counts = manifest.get("counts")
    counts = counts if isinstance(counts, dict) else {}
    skipped = counts.get("skipped")
    skipped = skipped if isinstance(skipped, dict) else {}
    parts = [f"{reason} {n}" for reason, n in sorted(skipped.items()) if n]
    if counts.get("malformed"):
        parts.append(f"malformed lines {counts['malformed']}")
    return ", ".join(parts) or "none"


def suite_note(rows: Sequence[dict[str, Any]]) -> str:
    """What the suites' table counts, under its heading."""
    return (
        "<p>Peers' suites scored with <code>python -m evaluate.suite</code>: accuracy over each "
        "suite's pairs (SyntaxGym: items whose every prediction holds) under the run's rule, "
        "with its 95% interval resampling pairs; undecided pairs are left out of n, ties counted "
        f"wrong. {len(rows)} suite run{'s' if len(rows) != 1 else ''}.</p>"
    )


def suite_frame(rows: Sequence[dict[str, Any]]) -> pl.DataFrame:
    """The rows as a table (empty without a suite run)."""
    return pl.DataFrame(list(rows)) if rows else pl.DataFrame()
