"""The instrumental predicate: in Czech (and Slovak, Russian, Ukrainian, Belarusian) an adjective
predicate of 'be' may stand in the instrumental (*víno bylo dobrým*), so a predicative Case
pair whose bad value is Ins is grammatical; Polish adjective predicates stay nominative
(*wino było dobrym* is no Polish). Sentences written here, where the right pairs are known."""

from __future__ import annotations

import polars as pl

from mine.rules.instrumental import MIN_LEMMAS, instrumental_cells
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


def attribute(
    preposition: str,
    case: str,
    adjective: str,
    noun: str,
    words: tuple[str, str, str, str] = ("dobrý", ADJ, "víno", NOUN),
) -> tuple[str, ...]:
    """*<preposition> <adjective> <noun>*: the adjective's other cases, attested (`words`: the
    adjective's lemma and FEATS less Case, the noun's)."""
    lemma, adjective_feats, noun_lemma, noun_feats = words
    return (
        f"1 {preposition} {preposition} ADP _ 3 case",
        f"2 {adjective} {lemma} ADJ Case={case}|{adjective_feats} 3 amod",
        f"3 {noun} {noun_lemma} NOUN Case={case}|{noun_feats} 0 root",
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


FEM = "Degree=Pos|Gender=Fem|Number=Sing|Polarity=Pos"


def feminine_predicate() -> tuple[str, ...]:
    """*práce je důležitá*: a feminine nominative subject and its predicative adjective."""
    return (
        "1 práce práce NOUN Case=Nom|Gender=Fem|Number=Sing 3 nsubj",
        "2 je být AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 cop",
        f"3 důležitá důležitý ADJ Case=Nom|{FEM} 0 root",
    )


def feminine_attribute(preposition: str, case: str, adjective: str, noun: str) -> tuple[str, ...]:
    """*<preposition> <adjective> <noun>*: a feminine form of *důležitý*, attested in `case`."""
    words = ("důležitý", FEM, "práce", "Gender=Fem|Number=Sing")
    return attribute(preposition, case, adjective, noun, words)


def masculine_attribute(case: str) -> tuple[str, ...]:
    """*důležitého úkolu* in `case`: a masculine form, never instrumental."""
    return (
        f"1 důležitého důležitý ADJ Case={case}|Degree=Pos|Gender=Masc|Animacy=Inan|"
        "Number=Sing|Polarity=Pos 2 amod",
        f"2 úkolu úkol NOUN Case={case}|Gender=Masc|Animacy=Inan|Number=Sing 0 root",
    )


# *důležitou* is tagged accusative and instrumental, each attested.
SYNCRETIC = [
    feminine_attribute("na", "Acc", "důležitou", "práci"),
    feminine_attribute("s", "Ins", "důležitou", "prací"),
]


def test_a_bad_form_that_is_also_the_instrumental_is_refused(tmp_path):
    # *je ta práce důležitou* drawn as the accusative reads as the instrumental predicate.
    pairs, skips, _ = mine_with_skips(tmp_path, feminine_predicate(), *SYNCRETIC, lang="Czech")
    assert not {("Acc", "důležitou"), ("Ins", "důležitou")} & cases(pairs)
    refused = skips.filter(
        (pl.col("sent_id") == "s1")
        & (pl.col("feature") == "Case")
        & (pl.col("reason") == "instrumental-predicate")
    )
    assert set(refused.get_column("bad_value")) == {"Acc", "Ins"}


def test_a_bad_form_without_an_instrumental_reading_is_kept(tmp_path):
    # *důležitého* is accusative and genitive masculine, never instrumental: the pairs stand.
    s1 = (
        "1 úkol úkol NOUN Case=Nom|Gender=Masc|Animacy=Inan|Number=Sing 3 nsubj",
        "2 je být AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 cop",
        "3 důležitý důležitý ADJ Case=Nom|Degree=Pos|Gender=Masc|Animacy=Inan|Number=Sing|"
        "Polarity=Pos 0 root",
    )
    pairs, skips, _ = mine_with_skips(
        tmp_path, s1, masculine_attribute("Acc"), masculine_attribute("Gen"), lang="Czech"
    )
    assert ("Acc", "důležitého") in cases(pairs)  # one bad sentence: Gen is its `also`
    assert "instrumental-predicate" not in skips.get_column("reason").to_list()


def test_an_instrumental_reading_of_another_number_is_no_predicate(tmp_path):
    # Russian *первым* is Dat Plur and Ins Masc Sing: *они были первым* is no instrumental
    # predicate of a plural subject, so the dative pair stands.
    s1 = (
        "1 они они PRON Case=Nom|Number=Plur|Person=3 3 nsubj",
        "2 были быть AUX Mood=Ind|Number=Plur|Tense=Past|VerbForm=Fin 3 cop",
        "3 первые первый ADJ Case=Nom|Degree=Pos|Number=Plur 0 root",
    )
    russian = [
        (
            "1 к к ADP _ 3 case",
            "2 первым первый ADJ Case=Dat|Degree=Pos|Number=Plur 3 amod",
            "3 домам дом NOUN Case=Dat|Gender=Masc|Number=Plur 0 root",
        ),
        (
            "1 с с ADP _ 3 case",
            "2 первым первый ADJ Case=Ins|Degree=Pos|Gender=Masc|Number=Sing 3 amod",
            "3 домом дом NOUN Case=Ins|Gender=Masc|Number=Sing 0 root",
        ),
    ]
    pairs, _, _ = mine_with_skips(tmp_path, s1, *russian, lang="Russian")
    assert ("Dat", "первым") in cases(pairs)


def test_outside_the_languages_the_syncretic_form_stands(tmp_path):
    # Polish adjective predicates stay nominative: *praca jest ważną* is refused by no rule here.
    s1 = (
        "1 praca praca NOUN Case=Nom|Gender=Fem|Number=Sing 3 nsubj",
        "2 jest być AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 cop",
        f"3 ważna ważny ADJ Case=Nom|{FEM} 0 root",
    )
    polish = [
        (
            "1 na na ADP _ 3 case",
            f"2 ważną ważny ADJ Case=Acc|{FEM} 3 amod",
            "3 pracę praca NOUN Case=Acc|Gender=Fem|Number=Sing 0 root",
        ),
        (
            "1 z z ADP _ 3 case",
            f"2 ważną ważny ADJ Case=Ins|{FEM} 3 amod",
            "3 pracą praca NOUN Case=Ins|Gender=Fem|Number=Sing 0 root",
        ),
    ]
    pairs, _, _ = mine_with_skips(tmp_path, s1, *polish, lang="Polish")
    assert ("Acc", "ważną") in cases(pairs)


# Feminine adjectives whose accusative singular is their instrumental (*-ou*), attested as both.
HARD = ("dobrý", "nový", "malý", "velký", "starý")


def test_the_feminine_accusative_is_syncretic_with_the_instrumental():
    rows = [
        (lemma[:-1] + "ou", lemma, "ADJ", ["Sing"], ["Fem"], [case], True)
        for lemma in HARD
        for case in ("Acc", "Ins")
    ]
    # The masculine accusative (*-ého*) is never the instrumental (*-ým*).
    rows += [
        (lemma[:-1] + ending, lemma, "ADJ", ["Sing"], ["Masc"], [case], True)
        for lemma in HARD
        for ending, case in (("ého", "Acc"), ("ým", "Ins"))
    ]
    columns = ["form", "lemma", "upos", "number", "gender", "case", "attested"]
    lexicon = pl.DataFrame(rows, schema=columns, orient="row")
    assert instrumental_cells(lexicon).rows() == [("ADJ", "Sing", "Fem", "Acc")]
    # One lemma fewer is too few to tell a syncretism.
    fewer = lexicon.filter(pl.col("lemma") != HARD[0])
    assert len(HARD) - 1 < MIN_LEMMAS and instrumental_cells(fewer).height == 0


def test_a_syncretic_cell_refuses_a_form_attested_as_the_accusative_only(tmp_path):
    # *vzácnou* is seen as the accusative only, but every attested feminine *-ou* is both.
    s1 = (
        "1 vteřina vteřina NOUN Case=Nom|Gender=Fem|Number=Sing 3 nsubj",
        "2 je být AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 cop",
        f"3 vzácná vzácný ADJ Case=Nom|{FEM} 0 root",
    )
    others = [
        tuple(line.replace("důležit", lemma[:-1]) for line in attribute)
        for lemma in HARD
        for attribute in SYNCRETIC
    ]
    seen = tuple(line.replace("důležit", "vzácn") for line in SYNCRETIC[0])
    pairs, skips, _ = mine_with_skips(tmp_path, s1, seen, *others, lang="Czech")
    assert ("Acc", "vzácnou") not in cases(pairs)
    refused = skips.filter((pl.col("sent_id") == "s1") & (pl.col("bad_value") == "Acc"))
    assert refused.get_column("reason").to_list() == ["instrumental-predicate"]
