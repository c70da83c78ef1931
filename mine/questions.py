"""A question that recurs over many rows (a word asked about, a configuration) is decided once:
each row is numbered by the row of its question's first occurrence, a window over the question's
columns, which costs less than finding the distinct questions and joining them back. And a rule
that concerns few rows is read on those rows only (`when_rows`, `and_rows`, `joined`), and
rows that few rules mark are split off without a copy where none is marked (`parted`)."""

from __future__ import annotations

import polars as pl


def numbered(frame: pl.DataFrame, name: str, question: list[str]) -> pl.DataFrame:
    """`frame` with column `name`: the row of the first row asking the same `question`."""
    return frame.with_row_index(name).with_columns(pl.first(name).over(question))


def first_asking(name: str) -> pl.Expr:
    """Over a frame as `numbered` gave it (neither filtered nor sorted since): whether the row is
    the first to ask its question."""
    return pl.col(name) == pl.int_range(pl.len(), dtype=pl.UInt32)


# A rule read only on the rows it concerns: an elementwise expression evaluated on the rows a
# cheap test picks, the others given without it (most words are no article, no possessive...).
def when_rows(frame: pl.DataFrame, which: pl.Expr, then: pl.Expr, otherwise: pl.Expr) -> pl.Series:
    """`pl.when(which).then(then).otherwise(otherwise)` over `frame` (elementwise expressions),
    `then` read only on the rows where `which` holds."""
    picked = frame.with_columns(which.alias("_which"), otherwise.alias("_value"))
    rows = picked.get_column("_which").arg_true()
    value = picked.get_column("_value")
    names = list(dict.fromkeys(then.meta.root_names()))
    if not names:  # a literal: nothing to save
        return frame.select(pl.when(which).then(then).otherwise(otherwise)).to_series()
    if rows.len():
        chosen = frame.select(pl.col(names).gather(rows)).select(then)
        value = value.scatter(rows, chosen.to_series().cast(value.dtype))
    return value


def and_rows(frame: pl.DataFrame, which: pl.Expr, rule: pl.Expr) -> pl.Series:
    """`which & rule` over `frame` (elementwise expressions), `rule` read only on the rows where
    `which` holds (everywhere where `which` is null: Kleene's and needs `rule` there)."""
    guard = frame.with_columns(which.alias("_which")).get_column("_which")
    if guard.null_count():
        return frame.with_columns((which & rule).alias("_which")).get_column("_which")
    return when_rows(frame, which, rule, pl.lit(False))


def joined(frame: pl.DataFrame, values: pl.Expr) -> pl.Series:
    """`values.list.join(",")` over `frame`, joined only where a list has two values or more
    (most hold one: the join costs several times what taking it does)."""
    lists = frame.select(values.alias("_values"))
    one = pl.col("_values").list.first().fill_null("")  # [] and [null] join as ""
    return when_rows(
        lists,
        pl.col("_values").list.len() > 1,
        pl.col("_values").list.join(","),
        pl.when(pl.col("_values").is_not_null()).then(one),
    )


def parted(frame: pl.DataFrame, which: pl.Series) -> tuple[pl.DataFrame, pl.DataFrame]:
    """`frame` without the rows `which` marks, and those rows (a null mark: in neither)."""
    if which.null_count() == 0 and not which.any():  # mostly none: no copy
        return frame, frame.clear()
    return frame.filter(~which), frame.filter(which)
