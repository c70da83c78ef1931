"""A predicative adjective's bad form that is also an adverb the copula takes: Greek *ψηλός*'s
neuter plural *ψηλά* is also 'high up', so *οι τιμές είναι ψηλά* ('prices are high') is Greek
beside *οι τιμές είναι ψηλές*. The adjectives are data (`mine/data/predicate_adverbs.tsv`, each
with its grammar): a language's adverbs are not tagged ADV often enough in its treebanks to be
found there, and most adverbs a treebank tags are no predicate (French *fort*, Danish *sikkert*)."""

from __future__ import annotations

from functools import cache

import polars as pl

from ..languages import load_predicate_adverbs


@cache
def predicate_adverbs() -> pl.DataFrame:
    """(lang, lemma, bad form) of each adjective's form that is also a predicate adverb."""
    schema = {"lang": pl.String, "lemma": pl.String, "_adverb": pl.String}
    return pl.DataFrame(list(load_predicate_adverbs()), schema=schema, orient="row")


def adverb_predicate(tries: pl.DataFrame) -> pl.Series:
    """Per try (`lang`, `type`, `varied`, the word's `lemma` and bad form `bad_key`): whether a
    predicative target's bad form is the listed adverb of its lemma."""
    table = predicate_adverbs()
    if not tries.get_column("lang").is_in(table.get_column("lang").implode()).any():
        return pl.Series("adverb_predicate", [False] * tries.height, pl.Boolean)
    listed = tries.select(
        "lang", pl.col("lemma").str.to_lowercase(), pl.col("bad_key").str.to_lowercase()
    ).join(
        table.with_columns(pl.lit(True).alias("_listed")),
        left_on=["lang", "lemma", "bad_key"],
        right_on=["lang", "lemma", "_adverb"],
        how="left",
        maintain_order="left",
    )
    predicative = (pl.col("type") == "predicative") & (pl.col("varied") == "target")
    return (
        tries.select(predicative).to_series() & listed.get_column("_listed").fill_null(False)
    ).alias("adverb_predicate")
