"""The report's building blocks in HTML: its style sheet, tables, and links to the docs."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from .cells import display_columns
from .figures import BASELINE

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 1200px;
       color: #222; }
/* A wide table scrolls sideways inside its own box (a phone), not the whole page. */
.table-scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.baseline { background: #f0f0f0; font-style: italic; }
.warning { background: #fff3cd; border: 1px solid #e0c060; padding: 0.5em 1em; }
figure { margin: 1em 0 2em; }
/* Figures at their natural size (labels stay readable); a wide one scrolls sideways. */
.scroll { overflow-x: auto; max-width: 100%; }
.scroll img { max-width: none; display: block; }
.headline { font-size: 1.1em; }
details { margin: 0.5em 0 1em; } summary { cursor: pointer; color: #335; }
pre { background: #f7f7f7; padding: 0.5em; font-size: 0.8em; overflow-x: auto; }
"""


def html_table(table: pl.DataFrame) -> str:
    """A DataFrame as an HTML table; rows of the frequency baseline get class `baseline`."""
    return html_rows(table.columns, list(table.iter_rows(named=True)))


def html_rows(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """Rows (dicts) as an HTML table: shares in percent with their intervals, headers in words
    (the results' column names in each header's tooltip); baseline rows get class `baseline`."""
    shown = display_columns(columns, rows)
    head = "".join(f'<th title="{html.escape(c.title)}">{html.escape(c.label)}</th>' for c in shown)
    body = []
    for row in rows:
        labels = (str(row.get("system") or ""), str(row.get("model") or ""))
        css = ' class="baseline"' if any(label.startswith(BASELINE) for label in labels) else ""
        cells = "".join(
            ("<td class='num'>" if c.numeric else "<td>") + html.escape(c.text(row)) + "</td>"
            for c in shown
        )
        body.append(f"<tr{css}>{cells}</tr>")
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f"<div class='table-scroll'>{table}</div>"


# The docs pages the report points to, by what they explain.
DOCS_PAGES = {
    "balanced": ("Balanced accuracy", "evaluating/balanced-accuracy.md"),
    "frequency": ("Where frequency alone decides", "evaluating/frequency-flags.md"),
    "rules": ("Scoring rules", "evaluating/scoring-rules.md"),
    "controls": ("Controls", "evaluating/controls.md"),
    "reports": ("Reports and polars recipes", "evaluating/reports.md"),
}
DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"


# The page's head: a phone lays it out at its own width, not a desktop's shrunk.
HEAD = (
    "<!doctype html><html><head><meta charset='utf-8'>"
    "<meta name='viewport' content='width=device-width, initial-scale=1'>"
    "<title>ud-agree report</title>"
)


def docs_href(out: Path) -> str | None:
    """The checkout's docs/ folder relative to the report's folder `out` (the page then links it
    wherever the checkout lies); None where no docs lie beside the code or no relative path
    reaches them."""
    if not DOCS_DIR.is_dir():
        return None
    try:
        return Path(os.path.relpath(DOCS_DIR, out.resolve())).as_posix()
    except ValueError:  # another drive (Windows)
        return None


def docs_link(page: str, docs: str | None) -> str:
    """A link to a docs page under `docs` (relative to the report), else its name and path only."""
    title, path = DOCS_PAGES[page]
    name = f"{html.escape(title)} (<code>docs/{path}</code>)"
    return name if docs is None else f"<a href='{html.escape(f'{docs}/{path}')}'>{name}</a>"
