"""Reading ud-agree's `pairs.parquet` to write it in a peer's layout (DESIGN.md §3)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ud_agree.atomic import edited_message
from ud_agree.errors import UserError
from ud_agree.names import path_name
from ud_agree.schemas.conform import conformed
from ud_agree.schemas.corpus import PAIRS, TYPES

# The `pairs` table's columns (DESIGN.md §3).
PAIR_COLUMNS = tuple(PAIRS.names)
# ud-agree's columns written beside a layout's own (the sentences are the layout's columns).
ID_COLUMNS = tuple(c for c in PAIR_COLUMNS if c not in ("sentence_good", "sentence_bad"))


def flat(value: object) -> object:
    """A pairs cell as a flat layout (JSON lines, TSV) writes it: a list (`also`, `derived`)
    `|`-joined, so that every row of a column has one type (Hugging Face `datasets` infers
    a column's type from its first rows)."""
    return "|".join(value) if isinstance(value, list) else value


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
    missing = [c for c in PAIR_COLUMNS if c not in pairs.columns and c not in LATER_COLUMNS]
    if missing:
        raise ExportError(f"{path}: not a pairs table (no column {missing[0]!r})")
    # A column of another type, a null where every pair has a value, or a type the miner
    # never writes would be exported as it is, for a peer's script to trip over or count.
    pairs = conformed(completed(pairs), PAIRS, path, required=())
    for name in NEVER_NULL:
        nulls = pairs.get_column(name).is_null()
        if nulls.any():
            raise ExportError(f"{path}: column {name} is null in row {(nulls.arg_max() or 0) + 1}")
    unknown = pairs.filter(~pl.col("type").is_in(TYPES)).get_column("type")
    if unknown.len():
        raise ExportError(
            f"{path}: column type holds {unknown[0]!r}, not one of {', '.join(TYPES)}"
        )
    return pairs


# What every pair has: its key, its contrast and its two sentences.
NEVER_NULL = (
    *("lang", "treebank", "sent_id", "type", "target_id", "controller_id", "varied"),
    *("feature", "good_value", "bad_value", "sentence_good", "sentence_bad", "variant"),
)


# Columns a pairs table mined by an earlier version lacks, with what such a table means.
LATER_COLUMNS = {
    "variant": pl.lit("original"),  # before nonce variants (§9): original pairs only
    "also": pl.lit([], pl.List(pl.String)),  # before one row per bad sentence (§4.1)
    "derived": pl.lit([], pl.List(pl.String)),  # unrecorded: read as the plain rule
}


def completed(pairs: pl.DataFrame) -> pl.DataFrame:
    """A pairs table with the columns that earlier versions lacked (LATER_COLUMNS) filled."""
    absent = [value.alias(name) for name, value in LATER_COLUMNS.items() if name not in pairs]
    return pairs.with_columns(absent) if absent else pairs


def pairs_by_language(path: str | Path) -> dict[str, pl.DataFrame]:
    """The pairs of a corpus folder (`<lang>/pairs.parquet` each) or of one pairs table."""
    path = Path(path)
    if path.is_dir():
        tables = sorted(path.glob("*/pairs.parquet"))
        if not tables:
            raise ExportError(f"{path} holds no <lang>/pairs.parquet: mine it with pairs")
    else:
        tables = [path]
    found: dict[str, pl.DataFrame] = {}
    read_from: dict[str, Path] = {}
    for table in tables:
        if table.name == "pairs.parquet":  # a corpus's table: as it was mined, or refused
            edited = edited_message(table.parent, [table.name])
            if edited:
                raise ExportError(f"{edited}; mine the corpus again")
        frame = read_pairs(table)
        for (lang,), part in frame.partition_by("lang", as_dict=True, maintain_order=True).items():
            key = path_name(str(lang), f"{table}: lang")  # a folder or file name
            if key in found:  # two tables of one language: neither may replace the other
                raise ExportError(f"{table}: pairs of {key}, as {read_from[key]} holds")
            found[key], read_from[key] = part, table
    return found
