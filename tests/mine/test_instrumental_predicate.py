"""The instrumental predicate: in Czech (and Slovak, Russian, Ukrainian, Belarusian) an adjective
predicate of 'be' may stand in the instrumental (*víno bylo dobrým*), so a predicative Case
pair whose bad value is Ins is grammatical; Polish adjective predicates stay nominative
(*wino było dobrym* is no Polish). Sentences written here, where the right pairs are known."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

ADJ = "Degree=Pos|Gender=Neut|Number=Sing|Polarity=Pos"
NOUN = "Gender=Neut|Number=Sing"


def predicate(noun: str, copula: str, lemma: str, adjective: str) -> tuple[str, ...]:
    """*<noun> <copula> <adjective>*: a nominative subject and its predicative adjective."""
    past = f"{NOUN}|Polarity=Pos|Tense=Past|VerbForm=Part|Voice=Act"
    return (
        f"1 {noun} {noun} NOUN Case=Nom|{NOUN} 3 nsubj",
        f"2 {copula} {lemma} AUX {past} 3 cop",
        f"3 {adjective} dobrý ADJ Case=Nom|{ADJ} 0 root",
    )


def attribute(preposition: str, case: str, adjective: str, noun: str) -> tuple[str, ...]:
    """*<preposition> <adjective> <noun>*: the adjective's other cases, attested."""
    return (
        f"1 {preposition} {preposition} ADP _ 3 case",
        f"2 {adjective} dobrý ADJ Case={case}|{ADJ} 3 amod",
        f"3 {noun} víno NOUN Case={case}|{NOUN} 0 root",
    )


def cases(pairs: pl.DataFrame) -> set[tuple[str, str]]:
    rows = pairs.filter(
        (pl.col("sent_id") == "s1")
        & (pl.col("type") == "predicative")
        & (pl.col("feature") == "Case")
    )
    return set(rows.select("bad_value", "bad_form").iter_rows())


CZECH = [attribute("s", "Ins", "dobrým", "vínem"), attribute("bez", "Gen", "dobrého", "vína")]


def test_no_instrumental_predicate_pair_in_czech(tmp_path):
    # *víno bylo dobré* → *dobrým* is Czech (written style); → *dobrého* is not.
    s1 = predicate("víno", "bylo", "být", "dobré")
    pairs, skips, _ = mine_with_skips(tmp_path, s1, *CZECH, lang="Czech")
    assert cases(pairs) == {("Gen", "dobrého")}
    refused = skips.filter((pl.col("sent_id") == "s1") & (pl.col("feature") == "Case"))
    assert set(refused.select("bad_value", "reason").iter_rows()) == {
        ("Ins", "instrumental-predicate")
    }


def test_polish_adjective_predicates_stay_nominative(tmp_path):
    # *wino było dobrym* is no Polish: the pair stands.
    s1 = predicate("wino", "było", "być", "dobre")
    polish = [attribute("z", "Ins", "dobrym", "winem"), attribute("bez", "Gen", "dobrego", "wina")]
    pairs, _, _ = mine_with_skips(tmp_path, s1, *polish, lang="Polish")
    assert ("Ins", "dobrym") in cases(pairs)
