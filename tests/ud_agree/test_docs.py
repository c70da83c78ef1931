"""The README's column tables are the schemas' own descriptions (one definition of each column)."""

from __future__ import annotations

from tests.paths import ROOT
from ud_agree.docs import MARKER, render, schemas


def test_readme_column_tables_are_generated_from_the_schemas():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = {m.group(2) for m in MARKER.finditer(readme)}
    assert documented == set(schemas()), "every table is documented once"
    assert render(readme) == readme, "run `python -m ud_agree.docs` to regenerate the tables"


def test_every_column_has_a_description():
    from ud_agree.schemas.corpus import description

    for name, schema in schemas().items():
        assert all(description(f) for f in schema), name
