"""The documentation's column tables are the schemas' own descriptions (one definition of each
column), each table documented once."""

from __future__ import annotations

from tests.docs import pages
from ud_agree.docs import MARKER, render, schemas


def test_column_tables_are_generated_from_the_schemas():
    documented: list[str] = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        documented += [m.group(2) for m in MARKER.finditer(text)]
        assert render(text) == text, f"{page}: run `python -m ud_agree.docs` to regenerate"
    assert sorted(documented) == sorted(schemas()), "every table is documented once"


def test_every_column_has_a_description():
    from ud_agree.schemas.corpus import description

    for name, schema in schemas().items():
        assert all(description(f) for f in schema), name
