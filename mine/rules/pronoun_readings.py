"""A determiner's bad form that, after its noun, is also a personal pronoun: Greek puts the
demonstrative *αυτός* after its noun (*η πρόταση αυτή* 'this proposal'), where formal Greek also
puts the genitive of the pronoun *αυτός* as a possessive (*η πρόταση αυτής* 'her proposal'), so
a pair to *αυτής* claims no violation. The forms are data (`mine/data/pronoun_readings.tsv`, each
with its grammar)."""

from __future__ import annotations

from functools import cache

import polars as pl

from ..languages import load_pronoun_readings
from .listed import listed_bad_form


@cache
def pronoun_readings() -> pl.DataFrame:
    """(lang, lemma, form) of each determiner form that also reads as a personal pronoun."""
    schema = {"lang": pl.String, "lemma": pl.String, "_pronoun": pl.String}
    return pl.DataFrame(list(load_pronoun_readings()), schema=schema, orient="row")


def pronoun_reading(tries: pl.DataFrame) -> pl.Series:
    """Per try (`lang`, `type`, `varied`, `order`, the word's `lemma` and bad form `bad_key`):
    whether a determiner after its noun is varied to a listed form of its lemma."""
    after_noun = (
        (pl.col("type") == "determiner")
        & (pl.col("varied") == "target")
        & (pl.col("order") == "controller-first")
    )
    listed = listed_bad_form(tries, pronoun_readings(), "pronoun_reading")
    return tries.select(after_noun).to_series() & listed
