"""Reading a `pairs.parquet` to export it (DESIGN.md §3), for every layout and folder."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ud_agree.errors import UserError
from ud_agree.schemas.corpus import PAIRS

# The `pairs` table's columns (DESIGN.md §3).
PAIR_COLUMNS = tuple(PAIRS.names)


class ExportError(UserError):
    """A pairs table that cannot be exported."""


def read_pairs(path: str | Path) -> pl.DataFrame:
    """The miner's `pairs.parquet`, checked for the columns of DESIGN.md §3."""
    path = Path(path)
    if not path.is_file():
        raise ExportError(f"no such pairs table: {path}")
    try:
        pairs = pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as error:
        raise ExportError(f"{path}: not a readable Parquet file ({error})") from None
    missing = [c for c in PAIR_COLUMNS if c not in pairs.columns and c != "variant"]
    if missing:
        raise ExportError(f"{path}: not a pairs table (no column {missing[0]!r})")
    if "variant" not in pairs.columns:  # mined before nonce variants (§9): original pairs only
        pairs = pairs.with_columns(pl.lit("original").alias("variant"))
    return pairs
