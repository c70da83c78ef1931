"""A predicative adjective's bad form that is also an adverb the copula takes: Greek *οι τιμές
είναι ψηλά* ('prices are high up') is as Greek as *οι τιμές είναι ψηλές*, so no Gender pair to
*ψηλά*; *σταθερά* is no such adverb, and its pair is made. Sentences written here."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

COPULA = "Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin|Voice=Pass"


def predicate(adjective: str, lemma: str) -> tuple[str, ...]:
    """*Οι τιμές είναι <adjective>*: a feminine plural subject and its predicative adjective."""
    return (
        "1 Οι ο DET Case=Nom|Definite=Def|Gender=Fem|Number=Plur|PronType=Art 2 det",
        "2 τιμές τιμή NOUN Case=Nom|Gender=Fem|Number=Plur 4 nsubj",
        f"3 είναι είμαι AUX {COPULA} 4 cop",
        f"4 {adjective} {lemma} ADJ Case=Nom|Degree=Pos|Gender=Fem|Number=Plur 0 root",
    )


def attributes(lemma: str, neuter_plural: str, feminine_singular: str) -> list[tuple[str, ...]]:
    """The adjective's neuter plural and feminine singular, attested before nouns."""
    return [
        (
            "1 τα ο DET Case=Nom|Definite=Def|Gender=Neut|Number=Plur|PronType=Art 3 det",
            f"2 {neuter_plural} {lemma} ADJ Case=Nom|Degree=Pos|Gender=Neut|Number=Plur 3 amod",
            "3 βουνά βουνό NOUN Case=Nom|Gender=Neut|Number=Plur 0 root",
        ),
        (
            "1 η ο DET Case=Nom|Definite=Def|Gender=Fem|Number=Sing|PronType=Art 3 det",
            f"2 {feminine_singular} {lemma} ADJ Case=Nom|Degree=Pos|Gender=Fem|Number=Sing 3 amod",
            "3 τιμή τιμή NOUN Case=Nom|Gender=Fem|Number=Sing 0 root",
        ),
    ]


def predicative_bad_forms(pairs: pl.DataFrame, sent_id: str) -> set[tuple[str, str]]:
    rows = pairs.filter((pl.col("sent_id") == sent_id) & (pl.col("type") == "predicative"))
    return set(rows.select("feature", "bad_form").iter_rows())


def test_no_pair_to_an_adjective_form_that_is_a_predicate_adverb(tmp_path):
    high = predicate("ψηλές", "ψηλός")
    steady = predicate("σταθερές", "σταθερός")
    blocks = [high, steady, *attributes("ψηλός", "ψηλά", "ψηλή")]
    blocks += attributes("σταθερός", "σταθερά", "σταθερή")
    pairs, skips, _ = mine_with_skips(tmp_path, *blocks, lang="Greek")
    assert ("Gender", "ψηλά") not in predicative_bad_forms(pairs, "s1")
    assert ("Number", "ψηλή") in predicative_bad_forms(pairs, "s1")  # no adverb: made
    assert ("Gender", "σταθερά") in predicative_bad_forms(pairs, "s2")  # not listed: made
    refused = skips.filter(pl.col("reason") == "adverb-reading")
    assert set(refused.select("sent_id", "type", "bad_value").iter_rows()) == {
        ("s1", "predicative", "Neut")
    }


def test_the_adverb_is_refused_only_in_its_own_language(tmp_path):
    # The same words labelled Croatian: no Croatian adjective is listed, the pair is made.
    blocks = [predicate("ψηλές", "ψηλός"), *attributes("ψηλός", "ψηλά", "ψηλή")]
    pairs, skips, _ = mine_with_skips(tmp_path, *blocks, lang="Croatian")
    assert ("Gender", "ψηλά") in predicative_bad_forms(pairs, "s1")
    assert skips.filter(pl.col("reason") == "adverb-reading").height == 0
