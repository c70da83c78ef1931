"""A table read back checked against the schema it was written with: every column named, of the
schema's kind (text, integer, list of text…), integers of any width cast to the schema's; what
does not conform is one line naming the file and the column."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import polars as pl
import pyarrow as pa

from ud_agree.errors import UserError


class TableError(UserError):
    """A table whose columns are not those its schema gives: exit 2, naming file and column."""


def _kind(dtype: pl.DataType) -> str:
    """What a column holds, in words, whatever its width: integers, text, lists of text…"""
    if dtype.is_integer():
        return "integers"
    if dtype.is_float():
        return "numbers"
    if dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum):
        return "text"
    if dtype == pl.Boolean:
        return "true/false"
    if isinstance(dtype, pl.List | pl.Array):
        return f"lists of {_kind(dtype.inner)}"  # type: ignore[arg-type]
    return str(dtype)


def _fits(have: pl.DataType, want: pl.DataType) -> bool:
    """A column of `have` holds what the schema's `want` does: the same kind at any width; only
    nulls (or lists of nothing but nulls, `[]` as polars reads it) fit any."""
    if have == pl.Null:
        return True
    if isinstance(have, pl.List | pl.Array) and isinstance(want, pl.List | pl.Array):
        return _fits(have.inner, want.inner)  # type: ignore[arg-type]
    return _kind(have) == _kind(want)


def conformed(
    frame: pl.DataFrame, schema: pa.Schema, path: str | Path, required: Iterable[str] | None = None
) -> pl.DataFrame:
    """`frame` (read from `path`) with the columns of `schema` it holds cast to the schema's types;
    a column of `required` (default: all of the schema's) missing, one of another kind, or an
    integer that does not fit the schema's width is refused (TableError)."""
    wanted = pl.DataFrame(schema.empty_table()).schema
    for name in schema.names if required is None else required:
        if name not in frame.columns:
            raise TableError(f"{path}: no column {name}; mine the corpus again")
    for name, dtype in wanted.items():
        if name not in frame.columns or frame.schema[name] == dtype:
            continue
        if not _fits(frame.schema[name], dtype):
            have, want = _kind(frame.schema[name]), _kind(dtype)
            raise TableError(f"{path}: column {name} holds {have}, not {want}")
        try:
            frame = frame.with_columns(pl.col(name).cast(dtype, strict=True))
        except pl.exceptions.PolarsError:  # an integer wider than the schema's
            raise TableError(
                f"{path}: column {name} holds integers that do not fit {dtype}"
            ) from None
    return frame
