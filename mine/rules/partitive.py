"""The partitive genitive (§4.3): after Czech *co*, *něco*, *nic* (and their Slovak and Polish
kin) an adjective may stand in the genitive instead of agreeing (*to, co je nelogické* and *co je
nelogického* are both Czech): a Case pair between the genitive and another case there claims no
violation. The pronouns are data (`mine/data/partitive_pronouns.tsv`, each with its grammar)."""

from __future__ import annotations

from functools import cache

import polars as pl

from ..languages import load_partitive_pronouns

GENITIVE = "Gen"


@cache
def partitive_pronouns() -> pl.DataFrame:
    """(lang, o_lemma) of each pronoun after which an adjective may be a partitive genitive."""
    schema = {"lang": pl.String, "o_lemma": pl.String}
    return pl.DataFrame(list(load_partitive_pronouns()), schema=schema, orient="row")


def partitive_genitive(tries: pl.DataFrame) -> pl.Series:
    """Per try (`lang`, the other member's `o_lemma`, `varied`, `feature`, the word's `values`
    and `bad_value`): whether it moves a target's Case to or from the genitive where its
    controller is a listed pronoun."""
    table = partitive_pronouns()
    if not tries.get_column("lang").is_in(table.get_column("lang").implode()).any():
        return pl.Series("partitive", [False] * tries.height, pl.Boolean)
    listed = tries.select("lang", pl.col("o_lemma").str.to_lowercase()).join(
        table.with_columns(pl.lit(True).alias("_listed")),
        on=["lang", "o_lemma"],
        how="left",
        maintain_order="left",
    )
    genitive = (pl.col("bad_value") == GENITIVE) | pl.col("values").list.contains(GENITIVE)
    case = (pl.col("varied") == "target") & (pl.col("feature") == "Case") & genitive
    return (tries.select(case).to_series() & listed.get_column("_listed").fill_null(False)).alias(
        "partitive"
    )
