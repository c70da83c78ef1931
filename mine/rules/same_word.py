"""The word's own series under a lemma of two words (§4.3): UD lemmatises Czech *stát se*
'happen' (*stal*, *stala*, *stalo*) and *stát* 'stand' (*stál*, *stála*, *stálo*) as one *stát*,
so the wanted cell's commonest form may be the other verb's (*co se stalo* → *stála*)."""

from __future__ import annotations

import polars as pl

from ..paradigms import CELL_COLUMNS


def common_prefix(left: pl.Expr, right: pl.Expr, longest: int) -> pl.Expr:
    """How many first characters two strings share (up to `longest`)."""
    shared = [
        (left.str.slice(0, n) == right.str.slice(0, n)) & (left.str.len_chars() >= n)
        for n in range(1, longest + 1)
    ]
    return pl.sum_horizontal(shared) if shared else pl.lit(0)


def other_series_spellings(
    own_cells: pl.DataFrame, spellings: pl.DataFrame, forms: pl.DataFrame
) -> pl.DataFrame:
    """The spellings (`qid`, `bad_key`) of another word's series: per question's own cell
    (`own_cells`: `qid`, the word `key` and CELL_COLUMNS) and candidate spelling of its wanted
    cell (`spellings`), where the word's own cell (`forms`, by cell) holds another form that
    shares a longer beginning with the spelling than the word does (*stálo* beside *stalo*:
    *stála* is *stálo*'s series), and another spelling of the cell is the word's own: it shares
    a longer beginning with the word than with each other form of its cell (*stala*), whether
    or not that one is usable. Where no spelling is the word's own, none is refused (*is* →
    *are* beside *ai* of *ain't*; *nouveau* → *nouvelle* beside *nouvel*)."""
    siblings = forms.select(*CELL_COLUMNS, pl.col("bad_key").alias("sibling")).unique()
    mixed = (
        own_cells.join(siblings, on=CELL_COLUMNS)
        .filter(pl.col("sibling") != pl.col("key"))
        .select("qid", "key", "sibling")
        .unique()
    )
    asked = mixed.join(spellings.select("qid", "bad_key"), on="qid")
    if asked.height == 0:
        return asked.select("qid", "bad_key")
    longest = int(asked.select(pl.col("bad_key").str.len_chars().max()).item())
    spelling = pl.col("bad_key")
    to_word = common_prefix(pl.col("key"), spelling, longest)
    to_sibling = common_prefix(pl.col("sibling"), spelling, longest)
    series = asked.group_by("qid", "bad_key").agg(
        (to_sibling > to_word).any().alias("other"), (to_word > to_sibling).all().alias("own")
    )
    owned = series.filter("own").select("qid").unique()
    return series.filter("other").join(owned, on="qid", how="semi").select("qid", "bad_key")
