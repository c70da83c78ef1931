"""The instrumental predicate (§4.1): where an adjective predicate of 'be' may stand in the
instrumental (Czech *víno bylo dobrým*, Russian *был первым*), a predicative pair whose bad
Case is Ins is grammatical. The languages are data (`mine/data/
instrumental_predicate_languages.tsv`, each with its grammar): the treebanks tag too few such
predicates for §4.1's rate to see them (Czech FicTree: 1 of 143). A bad form drawn for another
case may be the instrumental too (Czech *důležitou*, Acc and Ins Fem Sg: *je ta práce
důležitou*): its instrumental reading in the good form's Number and Gender, attested or given by
a cell the language's paradigms make syncretic with the instrumental, refuses it as well."""

from __future__ import annotations

import polars as pl

from ..languages import language_codes
from ..paradigms import cell_key, cell_key_of_joined
from .features import value_list

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


# A case's cell is the instrumental's (same UPOS, Number, Gender) where the two share a form in at
# least this share of the lemmas that attest both, and in MIN_LEMMAS of them at least: a
# paradigm-wide syncretism (Czech feminine singular adjectives, Acc = Ins: *-ou*, *-í*) that
# reaches forms whose instrumental reading the treebanks happen not to attest.
SYNCRETIC_SHARE = 0.9
MIN_LEMMAS = 5
READING = ["lemma", "upos", "k_number", "k_gender"]


def instrumental_cells(lexicon: pl.DataFrame) -> pl.DataFrame:
    """(upos, k_number, k_gender, bad_value) of each case cell syncretic with the instrumental
    of its Number and Gender across the language's paradigms (`lexicon`: attested rows read)."""
    rows = lexicon.filter(pl.col("attested")).select(
        pl.col("form").str.to_lowercase().alias("bad_key"),
        "lemma",
        "upos",
        cell_key(pl.col("number")).alias("k_number"),
        cell_key(pl.col("gender")).alias("k_gender"),
        pl.col("case").alias("bad_value"),
    )
    rows = rows.explode("bad_value").drop_nulls("bad_value")
    instrumental = rows.filter(pl.col("bad_value") == INSTRUMENTAL).drop("bad_value").unique()
    shared = ["bad_key", *READING]
    others = (
        rows.filter(pl.col("bad_value") != INSTRUMENTAL)
        .join(instrumental.select(READING).unique(), on=READING, how="semi")
        .join(
            instrumental.with_columns(pl.lit(True).alias("_same")),
            on=shared,
            how="left",
        )
    )
    per_lemma = others.group_by(*READING, "bad_value").agg(pl.col("_same").any().fill_null(False))
    return (
        per_lemma.group_by("upos", "k_number", "k_gender", "bad_value")
        .agg(pl.col("_same").mean().alias("_share"), pl.len().alias("_lemmas"))
        .filter((pl.col("_share") >= SYNCRETIC_SHARE) & (pl.col("_lemmas") >= MIN_LEMMAS))
        .select("upos", "k_number", "k_gender", "bad_value")
    )


def instrumental_reading(
    tries: pl.DataFrame, lexicon: pl.DataFrame, cells: pl.DataFrame | None = None
) -> pl.Series:
    """Per try (a varied member's `type`, `varied`, `feature`, `bad_value`, its bad form's
    `bad_key`, `lemma`, `upos`, the word's `k_number`, `k_gender`): whether a predicative
    target's Case try has a bad form that reads as the instrumental in the word's Number and
    Gender: an attested `lexicon` row says so (every value of the word's in the row's, or the
    row has none), or its cell is syncretic with the instrumental (`cells`, `instrumental_cells`)."""
    asked = (
        (pl.col("type") == "predicative")
        & (pl.col("varied") == "target")
        & (pl.col("feature") == "Case")
    )
    question = ["bad_key", "bad_value", *READING]
    # Each distinct question is decided once over the lexicon's rows, and joined back.
    questions = tries.filter(asked).select(question).unique()
    questions = questions.with_columns(
        cell_key_of_joined(pl.col("k_number")).alias("_number_key"),
        cell_key_of_joined(pl.col("k_gender")).alias("_gender_key"),
    )
    readings = lexicon.filter(pl.col("attested") & pl.col("case").list.contains(INSTRUMENTAL))
    readings = readings.select(
        pl.col("form").str.to_lowercase().alias("bad_key"),
        "lemma",
        "upos",
        pl.col("number").alias("_number"),
        pl.col("gender").alias("_gender"),
    )
    fits = pl.lit(True)
    for name in ("number", "gender"):
        word, row = value_list(f"k_{name}"), pl.col(f"_{name}")
        held = word.list.set_difference(row).list.len() == 0
        fits = fits & (held | (row.list.len() == 0))
    attested = (
        questions.join(readings, on=["bad_key", "lemma", "upos"]).filter(fits).select(question)
    )
    refused = [attested]
    if cells is not None and cells.height:
        syncretic = questions.join(
            cells.rename({"k_number": "_number_key", "k_gender": "_gender_key"}),
            on=["upos", "_number_key", "_gender_key", "bad_value"],
        )
        refused.append(syncretic.select(question))
    decided = pl.concat(refused).unique().with_columns(pl.lit(True).alias("_instrumental"))
    joined = tries.select(*question, asked.alias("_asked")).join(
        decided, on=question, how="left", maintain_order="left", nulls_equal=True
    )
    return (
        joined.select(pl.col("_asked") & pl.col("_instrumental").fill_null(False))
        .to_series()
        .alias("instrumental")
    )
