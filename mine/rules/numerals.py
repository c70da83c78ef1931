"""§1.7 numeral: a varied numeral's bad form that reads as an adverb."""

from __future__ import annotations

import polars as pl


def adverb_reading(tries: pl.DataFrame, multiplicatives: pl.Series) -> pl.Series:
    """§1.7 numeral: a varied numeral whose bad form is also a multiplicative adverb of the
    language (Czech *jedna* → *jednou*, also 'once': *odpověděla jednou stará žena* is Czech)."""
    return tries.select(
        (pl.col("type") == "numeral")
        & (pl.col("varied") == "target")
        & pl.col("bad_key").str.to_lowercase().is_in(multiplicatives.implode())
    ).to_series()
