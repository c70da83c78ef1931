"""Names read from input (a language key, a treebank's) that become part of a path: checked in
one place, so that no input can make a tool write outside its `--out` (`..`, `/`, `~`)."""

from __future__ import annotations

import re

from .errors import UserError

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
RULE = "letters, digits, '-' and '_', not starting with '-' or '_'"


def path_name(value: str, where: str) -> str:
    """`value` if it can be one folder or file name under `--out`; else a UserError (exit 2)
    naming `where` it came from."""
    if SAFE_NAME.fullmatch(value):
        return value
    raise UserError(
        f"{where}: {value!r} cannot name a folder ({RULE}); nothing is written outside --out"
    )
