"""A spelling that differs from the word's own only by a letter that varies between spellings of
one form is the word's own spelling: Russian print writes *ё* where a word could be misread and
*е* elsewhere, so *о своем деле* → *о своём деле* changes no agreement (the locative of *свой* is
one form for the masculine and the neuter); Greek stresses the learned genitive plural on the
penult, so *των υπόλοιπων εθνών* → *υπολοίπων* is the same genitive plural, of every gender.
Languages without the variant (Ukrainian, Croatian labels on the same words) make the pair.
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


def bad_forms(pairs: pl.DataFrame, sent_id: str, type_: str, feature: str) -> set[str]:
    """The bad forms of a sentence's pairs of one type and feature."""
    rows = pairs.filter(
        (pl.col("sent_id") == sent_id) & (pl.col("type") == type_) & (pl.col("feature") == feature)
    )
    return set(rows.get_column("bad_form"))


def gender_bad_forms(pairs: pl.DataFrame, sent_id: str) -> set[str]:
    return bad_forms(pairs, sent_id, "determiner", "Gender")


def test_a_spelling_with_yo_printed_ye_is_the_words_own(tmp_path):
    neuter, masculine = (
        about("своем", "Neut", "деле", "дело"),
        about("своём", "Masc", "доме", "дом"),
    )
    pairs, skips, _ = mine_with_skips(tmp_path, neuter, masculine, lang="Russian")
    assert gender_bad_forms(pairs, "s1") == set()
    assert gender_bad_forms(pairs, "s2") == set()
    refused = skips.filter((pl.col("reason") == "syncretic") & (pl.col("feature") == "Gender"))
    assert set(refused.get_column("sent_id")) >= {"s1", "s2"}


def test_the_variant_holds_only_in_its_own_language(tmp_path):
    neuter, masculine = (
        about("своем", "Neut", "деле", "дело"),
        about("своём", "Masc", "доме", "дом"),
    )
    pairs, _, _ = mine_with_skips(tmp_path, neuter, masculine, lang="Ukrainian")
    assert gender_bad_forms(pairs, "s1") == {"своём"}
    assert gender_bad_forms(pairs, "s2") == {"своем"}


def rest(adjective: str, gender: str, noun: str, lemma: str) -> tuple[str, ...]:
    """*Μιλούν για τα δικαιώματα των <adjective> <noun>*: 'they speak of the rights of the other
    <noun>', the adjective in the genitive plural."""
    return (
        "1 Μιλούν μιλώ VERB Aspect=Imp|Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act 0 root",
        "2 για για ADP _ 4 case",
        "3 τα ο DET Case=Acc|Definite=Def|Gender=Neut|Number=Plur|PronType=Art 4 det",
        "4 δικαιώματα δικαίωμα NOUN Case=Acc|Gender=Neut|Number=Plur 1 obl",
        f"5 των ο DET Case=Gen|Definite=Def|Gender={gender}|Number=Plur|PronType=Art 7 det",
        f"6 {adjective} υπόλοιπος ADJ Case=Gen|Degree=Pos|Gender={gender}|Number=Plur 7 amod",
        f"7 {noun} {lemma} NOUN Case=Gen|Gender={gender}|Number=Plur 4 nmod",
    )


def attributive_gender_forms(pairs: pl.DataFrame, sent_id: str) -> set[str]:
    return bad_forms(pairs, sent_id, "attributive", "Gender")


def test_a_stress_variant_is_the_words_own_spelling(tmp_path):
    nations = rest("υπόλοιπων", "Neut", "εθνών", "έθνος")
    countries = rest("υπολοίπων", "Fem", "χωρών", "χώρα")
    pairs, _, _ = mine_with_skips(tmp_path / "el", nations, countries, lang="Greek")
    assert attributive_gender_forms(pairs, "s1") == set()
    assert attributive_gender_forms(pairs, "s2") == set()
    # Without the variant, the two spellings are two forms: the contrast is made.
    pairs, _, _ = mine_with_skips(tmp_path / "hr", nations, countries, lang="Croatian")
    assert attributive_gender_forms(pairs, "s1") == {"υπολοίπων"}


def open_basis(adjective: str) -> tuple[str, ...]:
    """*Συζητούν σε <adjective> βάση*: 'they talk on an open basis', the adjective accusative."""
    return (
        "1 Συζητούν συζητώ VERB Aspect=Imp|Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act 0 root",
        "2 σε σε ADP _ 4 case",
        f"3 {adjective} ανοιχτός ADJ Case=Acc|Degree=Pos|Gender=Fem|Number=Sing 4 amod",
        "4 βάση βάση NOUN Case=Acc|Gender=Fem|Number=Sing 1 obl",
    )


OPEN_SEA = (
    "1 Η ο DET Case=Nom|Definite=Def|Gender=Fem|Number=Sing|PronType=Art 3 det",
    "2 ανοιχτή ανοιχτός ADJ Case=Nom|Degree=Pos|Gender=Fem|Number=Sing 3 amod",
    "3 θάλασσα θάλασσα NOUN Case=Nom|Gender=Fem|Number=Sing 0 root",
)


def test_a_learned_consonant_cluster_is_the_words_own_spelling(tmp_path):
    # *ανοικτή* and *ανοιχτή* are one feminine form, nominative and accusative alike.
    def case_forms(pairs: pl.DataFrame) -> set[str]:
        return bad_forms(pairs, "s1", "attributive", "Case")

    pairs, _, _ = mine_with_skips(tmp_path / "el", open_basis("ανοικτή"), OPEN_SEA, lang="Greek")
    assert case_forms(pairs) == set()
    pairs, _, _ = mine_with_skips(tmp_path / "hr", open_basis("ανοικτή"), OPEN_SEA, lang="Croatian")
    assert case_forms(pairs) == {"ανοιχτή"}
