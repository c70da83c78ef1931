"""The data tables shipped inside the package (`mine/data/*.tsv`), read with importlib.resources."""

from __future__ import annotations

import csv
import io
from functools import cache
from importlib import resources

from ud_agree.errors import UserError


class BrokenInstallation(UserError):
    """A data table of the installed package is missing or unreadable."""


@cache
def read_rows(name: str) -> tuple[dict[str, str], ...]:
    """Rows of the packaged table `name` (TAB-separated, header line) as dicts."""
    try:
        text = (
            resources.files(__package__ or "ud_agree.mine")
            .joinpath("data")
            .joinpath(name)
            .read_text(encoding="utf-8")
        )
    except (OSError, UnicodeDecodeError) as error:
        raise BrokenInstallation(
            f"the installed package lacks a readable mine/data/{name} "
            f"({type(error).__name__}); reinstall ud-agree"
        ) from None
    rows = tuple(csv.DictReader(io.StringIO(text, newline=""), delimiter="\t"))
    if not rows:
        raise BrokenInstallation(f"mine/data/{name} of the installed package is empty; reinstall")
    return rows
