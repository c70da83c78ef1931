"""Where the feminine is optional (Norwegian Bokmål): a feminine noun may take the masculine's
agreement, so a word agreeing with it varied from feminine into masculine is no violation."""

from __future__ import annotations

import polars as pl

# The types whose target agrees with a noun's gender in the noun phrase: *kona di* / *kona din*,
# *ei bok* / *en bok*, *ei lita bok* / *en liten bok* (Faarlund, Lie & Vannebo 1997).
TYPES = ("possessive", "determiner", "attributive")


def optional_feminine(tries: pl.DataFrame, treebanks: frozenset[str]) -> pl.Series:
    """A possessive, determiner or attributive of a feminine noun varied into the masculine, in
    the `treebanks` (names) whose feminine is optional (empty: every treebank of the language):
    Bokmål, not Nynorsk, which shares the code and whose feminine is obligatory."""
    where = pl.col("treebank").is_in(sorted(treebanks)) if treebanks else pl.lit(True)
    return tries.select(
        pl.col("type").is_in(TYPES)
        & (pl.col("varied") == "target")
        & (pl.col("feature") == "Gender")
        & (pl.col("k_o_values") == "Fem")
        & (pl.col("bad_value") == "Masc")
        & where
    ).to_series()
