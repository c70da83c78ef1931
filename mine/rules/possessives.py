"""§1.7 possessive: the bad forms a varied possessive may not take: no possessive of the
language, or another possessor's (where the feminine is optional, the masculine is
`rules.optional_feminine`'s)."""

from __future__ import annotations

import polars as pl

from ..questions import and_rows


def not_possessive(tries: pl.DataFrame, possessives: pl.Series) -> pl.Series:
    """§1.7 possessive: a varied possessive whose bad form is no possessive of the language (its
    form, lower-cased, is no possessive candidate's target): Hindi-PUD lemmatises *uske* 'his'
    and *unheṁ* 'them' alike, with the same FEATS, so the lexicon alone would offer the latter."""
    return and_rows(
        tries,
        _varied_possessive(),
        ~pl.col("bad_key").str.to_lowercase().is_in(possessives.implode()),
    )


def other_possessor(tries: pl.DataFrame) -> pl.Series:
    """§1.7 possessive: a varied possessive whose bad form does not begin as the word does, all
    but its last two letters (at least the first): the agreement is the ending, the possessor the
    stem, so Hindi *uskā* → *unkī* ('his' → 'their') and *iskā* → *inke* change the possessor."""
    good, bad = pl.col("form").str.to_lowercase(), pl.col("bad_key").str.to_lowercase()
    stem = (good.str.len_chars().cast(pl.Int64) - 2).clip(lower_bound=1)
    return and_rows(tries, _varied_possessive(), bad.str.slice(0, stem) != good.str.slice(0, stem))


def _varied_possessive() -> pl.Expr:
    """Whether the try varies a possessive target (the rules above read no other row)."""
    return (pl.col("type") == "possessive") & (pl.col("varied") == "target")
