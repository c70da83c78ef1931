"""The Hugging Face dataset card links nothing that does not exist (issue 34): the project names no
repository URL and is not on PyPI, so the card names ud-agree without a link."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from ud_agree.formats import hf
from ud_agree.schemas.corpus import PAIRS


def test_the_card_names_ud_agree_without_a_link_to_a_page_that_does_not_exist(tmp_path: Path):
    empty = pl.DataFrame(PAIRS.empty_table())
    assert hf.write({"fr": empty}, tmp_path) == 0
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "pypi.org" not in card
    assert re.findall(r"\]\((https?://[^)]*)\)", card) == []
    assert "by\nud-agree (`python -m mine`" in card
