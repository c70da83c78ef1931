"""The documentation's column tables generated from the schemas' descriptions: one definition of
each column.

`python -m ud_agree.docs [PAGE …]` rewrites every table between `<!-- columns:NAME -->` and
`<!-- /columns -->` in the given pages (default: every page under `docs/`); a test checks that the
pages are current.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pyarrow as pa

MARKER = re.compile(r"(<!-- columns:(\w+) -->\n)(.*?)(<!-- /columns -->)", re.S)


def schemas() -> dict[str, pa.Schema]:
    """The documented tables by name."""
    from .schemas.corpus import (
        AGREEMENT,
        DROPS,
        LEXICON,
        PAIR_SKIPS,
        PAIRS,
        RELATIONS,
        SENTENCES,
    )
    from .schemas.results import RESULTS

    return {
        "relations": RELATIONS,
        "sentences": SENTENCES,
        "lexicon": LEXICON,
        "pairs": PAIRS,
        "pair_skips": PAIR_SKIPS,
        "drops": DROPS,
        "agreement": AGREEMENT,
        "results": RESULTS,
    }


def type_name(kind: pa.DataType) -> str:
    """A short, polars-like name of an Arrow type."""
    if pa.types.is_list(kind):
        return f"list[{type_name(kind.value_type)}]"
    names = {"string": "str", "int32": "i32", "int64": "i64", "double": "f64", "bool": "bool"}
    return names.get(str(kind), str(kind))


def markdown_table(schema: pa.Schema) -> str:
    """One row per column: name, type and the description the field carries."""
    from .schemas.corpus import description

    rows = ["| column | type | meaning |", "|---|---|---|"]
    for field in schema:
        text = description(field).replace("|", "\\|")
        rows.append(f"| `{field.name}` | {type_name(field.type)} | {text} |")
    return "\n".join(rows) + "\n"


def render(page: str) -> str:
    """The page with every marked table regenerated."""
    tables = schemas()
    return MARKER.sub(lambda m: m.group(1) + markdown_table(tables[m.group(2)]) + m.group(4), page)


def main() -> int:
    """Rewrite the column tables of the given pages (default: docs/**/*.md) in place."""
    paths = [Path(a) for a in sys.argv[1:]] or sorted(Path("docs").rglob("*.md"))
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if MARKER.search(text):
            path.write_text(render(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
