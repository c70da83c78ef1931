"""A Russian spelling that differs from the word's own only by *ё* written *е* is the word's own
spelling: print writes *ё* where a word could be misread and *е* elsewhere, so *о своем деле* →
*о своём деле* changes no agreement (the locative of *свой* is one form for the masculine and
the neuter). Ukrainian has no such letter: the same words labelled Ukrainian make the pair.
Sentences written here."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

VERB = "Aspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"


def about(possessive: str, gender: str, noun: str, lemma: str) -> tuple[str, ...]:
    """*Он думает о <possessive> <noun>*: 'he thinks about his <noun>'."""
    return (
        "1 Он он PRON Case=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 думает думать VERB {VERB} 0 root",
        "3 о о ADP _ 5 case",
        f"4 {possessive} свой DET Case=Loc|Gender={gender}|Number=Sing|Poss=Yes|Reflex=Yes 5 det",
        f"5 {noun} {lemma} NOUN Animacy=Inan|Case=Loc|Gender={gender}|Number=Sing 2 obl",
    )


def gender_bad_forms(pairs: pl.DataFrame, sent_id: str) -> set[str]:
    rows = pairs.filter(
        (pl.col("sent_id") == sent_id)
        & (pl.col("type") == "determiner")
        & (pl.col("feature") == "Gender")
    )
    return set(rows.get_column("bad_form"))


def test_a_spelling_with_an_optional_letter_is_the_words_own(tmp_path):
    neuter, masculine = about("своем", "Neut", "деле", "дело"), about("своём", "Masc", "доме", "дом")
    pairs, skips, _ = mine_with_skips(tmp_path, neuter, masculine, lang="Russian")
    assert gender_bad_forms(pairs, "s1") == set()
    assert gender_bad_forms(pairs, "s2") == set()
    refused = skips.filter((pl.col("reason") == "syncretic") & (pl.col("feature") == "Gender"))
    assert set(refused.get_column("sent_id")) >= {"s1", "s2"}


def test_the_letter_is_optional_only_in_its_own_language(tmp_path):
    neuter, masculine = about("своем", "Neut", "деле", "дело"), about("своём", "Masc", "доме", "дом")
    pairs, _, _ = mine_with_skips(tmp_path, neuter, masculine, lang="Ukrainian")
    assert gender_bad_forms(pairs, "s1") == {"своём"}
    assert gender_bad_forms(pairs, "s2") == {"своем"}
