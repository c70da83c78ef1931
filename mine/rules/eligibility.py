"""Which relations give pairs (§4): the first reason about the varied word or its relation."""

from __future__ import annotations

import polars as pl

from ..paradigms import (
    elided,
)


def relation_skip_reason() -> pl.Expr:
    """The first reason of §4 about the varied word or its relation (null: go on), in order."""
    return (
        pl.when(pl.col("unagreeing"))
        .then(pl.lit("unagreement"))  # *los estudiantes trabajamos* is grammatical
        .when(pl.col("predicative"))
        .then(pl.lit("predicate-nominal"))  # *(já) bych byl rok*: the noun is the predicate
        .when(pl.col("values").list.len() > 1)
        .then(pl.lit("multi-valued"))
        .when(pl.col("lemma").is_in(["", "_"]) | pl.col("lemma").is_null())
        .then(pl.lit("no-lemma"))
        .when(pl.col("in_mwt"))
        .then(pl.lit("in-mwt"))  # re-contracting *du* is language-specific
        .when(pl.col("coordinated"))
        .then(pl.lit("coordinated"))  # the verb may agree with the whole coordination
        .when(elided(pl.col("form")))
        # *l'* depends on the next word's sound, *'m* on the word before: not on agreement.
        .then(pl.lit("elision"))
        .when(third_person_possessor_number())
        # *-lArI* is the plural possessor's and the plural noun's: *temsilcisi* → *temsilcileri*
        .then(pl.lit("third-person-possessor"))
        .when(pl.col("duplicate"))
        .then(pl.lit("duplicate-sent-id"))  # a join on the sentence would be ambiguous
        .when(pl.col("sentence").is_null())
        .then(pl.lit("missing-sentence"))
    )


def third_person_possessor_number() -> pl.Expr:
    """§1.7 `possessor`: a target of a third-person possessor varied in Number is no contrast —
    the plural possessor's form is also the plural noun's with a singular possessor (Turkish
    *son temsilcisi* → *son temsilcileri*, "its last representatives") and a plural possessor
    takes the singular's form as often as not (*onların evi*); Finnish *-nsA* has one form."""
    third = (pl.col("k_person") == "3").fill_null(False)  # the varied target's own (its layer's)
    varied = (pl.col("varied") == "target") & (pl.col("feature") == "Number")
    return (pl.col("type") == "possessor") & varied & third
