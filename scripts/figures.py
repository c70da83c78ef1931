"""Regenerate the README's and the docs' figure from the demo's results.

Usage: ``bash demo.sh && python scripts/figures.py [demo/results]`` writes
docs/images/demo-by_type.png (the README shows the same file); the items per system and type go
into the PNG, where tests/evaluate/report/test_readme_figure.py checks them against the demo.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ud_agree.evaluate import load_results  # noqa: E402
from ud_agree.evaluate.report.figures import draw, figure_table, get_spec  # noqa: E402
from ud_agree.evaluate.report.legibility import save_png  # noqa: E402

FIGURE = ROOT / "docs" / "images" / "demo-by_type.png"
COUNTS = "ud-agree items per system and type"


def counts(table: pl.DataFrame) -> dict[str, dict[str, int]]:
    """Items per system and agreement type, as the figure's ticks and bars count them."""
    out: dict[str, dict[str, int]] = {}
    for system, kind, n in table.select("system", "type", "n").sort("system", "type").iter_rows():
        out.setdefault(system, {})[kind] = n
    return out


def write_figure(results: Path, out: Path = FIGURE) -> dict[str, dict[str, int]]:
    """The demo's accuracy-per-type figure from `results`, with its counts inside; the counts."""
    table = figure_table(load_results(results), get_spec("by_type"))
    found = counts(table)
    save_png(draw(table, get_spec("by_type")), out, {COUNTS: json.dumps(found, sort_keys=True)})
    return found


def main(argv: list[str]) -> int:
    results = Path(argv[0] if argv else ROOT / "demo" / "results")
    if not results.is_dir():
        print(f"error: {results}: no results; run `bash demo.sh` first", file=sys.stderr)
        return 2
    write_figure(results)
    print(FIGURE.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
