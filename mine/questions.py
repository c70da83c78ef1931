"""A question that recurs over many rows (a word asked about, a configuration) is decided once:
each row is numbered by the row of its question's first occurrence, a window over the question's
columns, which costs less than finding the distinct questions and joining them back."""

from __future__ import annotations

import polars as pl


def numbered(frame: pl.DataFrame, name: str, question: list[str]) -> pl.DataFrame:
    """`frame` with column `name`: the row of the first row asking the same `question`."""
    return frame.with_row_index(name).with_columns(pl.first(name).over(question))


def first_asking(name: str) -> pl.Expr:
    """Over a frame as `numbered` gave it (neither filtered nor sorted since): whether the row is
    the first to ask its question."""
    return pl.col(name) == pl.int_range(pl.len(), dtype=pl.UInt32)
