"""Bad forms a language's data table lists per lemma (`predicate_adverbs.tsv`,
`pronoun_readings.tsv`): forms of a word that also read as another word in some place."""

from __future__ import annotations

import polars as pl


def listed_bad_form(tries: pl.DataFrame, table: pl.DataFrame, name: str) -> pl.Series:
    """Per try (`lang`, the word's `lemma` and bad form `bad_key`, case-folded): whether `table`
    (lang, lemma, form) lists the bad form for the word's lemma in its language."""
    if not tries.get_column("lang").is_in(table.get_column("lang").implode()).any():
        return pl.Series(name, [False] * tries.height, pl.Boolean)
    listed = tries.select(
        "lang", pl.col("lemma").str.to_lowercase(), pl.col("bad_key").str.to_lowercase()
    ).join(
        table.rename({table.columns[2]: "_form"}).with_columns(pl.lit(True).alias("_listed")),
        left_on=["lang", "lemma", "bad_key"],
        right_on=["lang", "lemma", "_form"],
        how="left",
        maintain_order="left",
    )
    return listed.get_column("_listed").fill_null(False).alias(name)
