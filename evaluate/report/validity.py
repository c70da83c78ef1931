"""Judged validity of the pairs (DESIGN.md §4.1) beside the report's language × type rows."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ud_agree.errors import UserError
from ud_agree.schemas.validity import VALIDITY

# The columns added to each language × type row; `validity` is the judged share of valid pairs.
COLUMNS = ("validity", "validity_low", "validity_high", "validity_n")


def read_validity(path: str | Path) -> pl.DataFrame:
    """The language × type cells of a validity.parquet written by `python -m mine.validate score`."""
    try:
        table = pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as error:
        raise UserError(f"{path}: not a readable validity table ({type(error).__name__})") from None
    missing = [c for c in VALIDITY.names if c not in table.columns]
    if missing:
        raise UserError(
            f"{path}: no column {', '.join(missing)} (not written by python -m mine.validate score)"
        )
    return table.filter(pl.col("cell") == "type").select(
        "lang",
        "type",
        pl.col("share").alias("validity"),
        pl.col("low").alias("validity_low"),
        pl.col("high").alias("validity_high"),
        pl.col("n").alias("validity_n"),
    )


def with_validity(table: pl.DataFrame, validity: pl.DataFrame) -> pl.DataFrame:
    """Per language × type rows with the judged validity of their pairs (null where unjudged)."""
    return table.join(validity, on=["lang", "type"], how="left", maintain_order="left")
