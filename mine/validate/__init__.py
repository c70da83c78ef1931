"""`python -m mine.validate sample|score`: draw minimal pairs for people to judge, and measure how
many hold (docs/validity.md).

`sample` draws a seeded sample of a corpus's original pairs stratified by language × type × rule
(the pair's `derived` values, `plain` where it has none) and writes one CSV sheet and one HTML page
per language, a README with the instructions, and `key.csv` (every item drawn; in a blind sample,
which sentence is the bad one). `score` reads judged sheets against their key and writes validity
per cell with Wilson 95% intervals (`validity.parquet`).
"""

from __future__ import annotations

from .cli import main, parser
from .common import KEY, README, ValidateError
from .draw import draw, draw_uniform, item_ids, read_language, rules_of
from .score import Judgment, printed, read_judged, read_key, read_sheet, score, validity, wilson
from .sheets import marked, page, readme, sample, sheet_rows

__all__ = [
    "KEY",
    "README",
    "Judgment",
    "ValidateError",
    "draw",
    "draw_uniform",
    "item_ids",
    "main",
    "marked",
    "page",
    "parser",
    "printed",
    "read_judged",
    "read_key",
    "read_language",
    "read_sheet",
    "readme",
    "rules_of",
    "sample",
    "score",
    "sheet_rows",
    "validity",
    "wilson",
]
