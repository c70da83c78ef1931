"""The instrumental predicate (§4.1): where an adjective predicate of 'be' may stand in the
instrumental (Czech *víno bylo dobrým*, Russian *был первым*), a predicative pair whose bad
Case is Ins is grammatical. The languages are data (`mine/data/
instrumental_predicate_languages.tsv`, each with its grammar): the treebanks tag too few such
predicates for §4.1's rate to see them (Czech FicTree: 1 of 143)."""

from __future__ import annotations

import polars as pl

from ..languages import language_codes

INSTRUMENTAL = "Ins"


def load_instrumental_predicate_languages() -> frozenset[str]:
    """UD codes of the languages whose adjective predicates may be instrumental."""
    return language_codes("instrumental_predicate_languages.tsv")


def instrumental_predicate(tries: pl.DataFrame) -> pl.Series:
    """Per try (a varied member's `type`, `varied`, `feature`, `bad_value`): whether it turns a
    predicative target's Case into the instrumental."""
    return tries.select(
        (pl.col("type") == "predicative")
        & (pl.col("varied") == "target")
        & (pl.col("feature") == "Case")
        & (pl.col("bad_value") == INSTRUMENTAL)
    ).to_series()
