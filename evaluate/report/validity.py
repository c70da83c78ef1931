"""Judged validity of the pairs beside the report's language × type rows: one or more tables
written by `python -m mine.validate score`, each cell judged in one of them only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from ud_agree.errors import UserError
from ud_agree.schemas.validity import VALIDITY

# The columns added to each language × type row; `validity` is the judged share of valid pairs.
COLUMNS = ("validity", "validity_low", "validity_high", "validity_n")
_WRITER = "python -m mine.validate score"
# Columns a table may leave all null (so Parquet may store them as nulls only).
_MAY_BE_NULL = ("rule", "share", "low", "high", "judges")


def read_validity(paths: str | Path | Sequence[str | Path]) -> pl.DataFrame:
    """The language × type cells of validity tables (with `source`, the file each is from); a
    table that is not one, or a cell judged twice (in one file or in two), is an error."""
    tables: list[pl.DataFrame] = []
    for path in [paths] if isinstance(paths, (str, Path)) else paths:
        table = _read_one(Path(path))
        for earlier in tables:
            both = table.join(earlier, on=["lang", "type"], how="semi")
            if both.height:
                raise UserError(
                    f"{path}: {_cells(both)} also in {earlier['source'][0]}; give each language "
                    "× type in one --validity only"
                )
        tables.append(table)
    return pl.concat(tables)


def _read_one(path: Path) -> pl.DataFrame:
    """One validity table's language × type cells, its columns and their types checked."""
    try:
        table = pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as error:
        raise UserError(f"{path}: not a readable validity table ({type(error).__name__})") from None
    missing = [c for c in VALIDITY.names if c not in table.columns]
    if missing:
        raise UserError(f"{path}: no column {', '.join(missing)} (not written by {_WRITER})")
    wanted = pl.DataFrame(VALIDITY.empty_table()).schema
    for name, dtype in wanted.items():
        have = table.schema[name]
        if have != dtype and not (have == pl.Null and name in _MAY_BE_NULL):
            raise UserError(
                f"{path}: column {name} holds {have}, not {dtype} (not written by {_WRITER})"
            )
    cells = table.filter(pl.col("cell") == "type")
    if cells.select(pl.any_horizontal(pl.col("lang", "type").is_null()).any()).item():
        raise UserError(f"{path}: a cell by type without its lang or type")
    twice = cells.filter(pl.struct("lang", "type").is_duplicated())
    if twice.height:
        judges = ", ".join(sorted({str(j) for j in twice.get_column("judges")}))
        raise UserError(
            f"{path}: {_cells(twice.unique(['lang', 'type']))} twice (judges: {judges}); score "
            "each judge's sheets into a file of its own and give one"
        )
    return cells.select(
        "lang",
        "type",
        pl.col("share").alias("validity"),
        pl.col("low").alias("validity_low"),
        pl.col("high").alias("validity_high"),
        pl.col("n").alias("validity_n"),
        pl.lit(str(path)).alias("source"),
    )


def _cells(table: pl.DataFrame, most: int = 3) -> str:
    """`fr × determiner, de × attributive, …`."""
    names = [f"{lang} × {type_}" for lang, type_ in table.select("lang", "type").iter_rows()]
    return ", ".join(names[:most]) + (", …" if len(names) > most else "")


def with_validity(table: pl.DataFrame, validity: pl.DataFrame) -> pl.DataFrame:
    """Per language × type rows with the judged validity of their pairs (null where unjudged);
    `report.judged` names the judged cells no pair row shows."""
    return table.join(
        validity.drop("source"), on=["lang", "type"], how="left", maintain_order="left"
    )
