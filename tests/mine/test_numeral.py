"""The `numeral` type (DESIGN.md §1.7): a NUM with base deprel `nummod` and the NOUN it modifies,
from candidates to pairs, on sentences written here."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips
from tests.mine.test_relations import found

CARD = "NumForm=Word|NumType=Card"
# Czech *Dva stoly stojí.*: the numeral agrees with its noun in Gender, Number and Case.
DVA_STOLY = (
    f"1 Dva dva NUM Case=Nom|Gender=Masc|Number=Plur|{CARD} 2 nummod",
    "2 stoly stůl NOUN Animacy=Inan|Case=Nom|Gender=Masc|Number=Plur 3 nsubj",
    "3 stojí stát VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
)
# *Dvě ženy stojí.*: puts the feminine *dvě* into the lexicon.
DVE_ZENY = (
    f"1 Dvě dva NUM Case=Nom|Gender=Fem|Number=Plur|{CARD} 2 nummod",
    "2 ženy žena NOUN Case=Nom|Gender=Fem|Number=Plur 3 nsubj",
    "3 stojí stát VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
)
# *Vidím pět stolů.*: from five on the numeral governs the noun's genitive plural.
PET_STOLU = (
    "1 Vidím vidět VERB Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin 0 root",
    f"2 pět pět NUM Case=Acc|{CARD} 3 nummod:gov",
    "3 stolů stůl NOUN Animacy=Inan|Case=Gen|Gender=Masc|Number=Plur 1 obj",
)


def test_a_numeral_modifying_a_noun_is_a_candidate_of_its_noun():
    relations, drops = found(*DVA_STOLY)
    numeral = relations[("numeral", 1, 2)]
    assert numeral.agreeing == ["Case", "Gender", "Number"]
    assert numeral.order == "target-first" and numeral.distance == 1
    assert not drops


def test_a_governing_numeral_disagrees_in_case_and_is_dropped():
    relations, drops = found(*PET_STOLU)
    assert not any(kind == "numeral" for kind, _, _ in relations)
    assert drops == {"disagree": 1}


def test_a_numeral_that_is_no_nummod_or_modifies_no_noun_is_no_candidate():
    relations, drops = found(
        f"1 Dva dva NUM Case=Nom|Gender=Masc|Number=Plur|{CARD} 3 nsubj",
        f"2 dva dva NUM Case=Nom|Gender=Masc|Number=Plur|{CARD} 1 nummod",
        "3 stojí stát VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    assert not any(kind == "numeral" for kind, _, _ in relations) and not drops


def test_dva_stoly_becomes_dve_stoly_by_gender(tmp_path):
    pairs, skips, manifest = mine_with_skips(tmp_path, DVA_STOLY, DVE_ZENY, lang="Czech")
    numeral = pairs.filter(pl.col("type") == "numeral")
    made = set(numeral.select("sent_id", "feature", "bad_value", "sentence_bad").iter_rows())
    assert ("s1", "Gender", "Fem", "Dvě stoly stojí") in made
    assert ("s2", "Gender", "Masc", "Dva ženy stojí") in made
    # Number and Case have no other value among the numeral's forms: no pair, each counted.
    assert not numeral.filter(pl.col("feature") != "Gender").height
    assert manifest["counts"]["pairs_by_type"]["numeral"] == numeral.height
    assert manifest["counts"]["relations_by_type"]["numeral"] == 2
    assert set(skips.filter(pl.col("type") == "numeral")["reason"]) <= {"no-form", "rare-value"}
    rates = pl.read_parquet(tmp_path / "corpus" / "cs" / "agreement.parquet")
    assert "numeral" in set(rates["type"])


def test_a_bad_form_that_is_a_multiplicative_adverb_is_refused(tmp_path):
    # *Jedna noha bolí*: *jednou* is the numeral's instrumental and the adverb 'once', so *Jednou
    # noha bolí* ('once, a leg hurts') is Czech.
    verb = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
    jedna_noha = (
        f"1 Jedna jeden NUM Case=Nom|Gender=Fem|Number=Sing|{CARD} 2 nummod",
        "2 noha noha NOUN Case=Nom|Gender=Fem|Number=Sing 3 nsubj",
        f"3 bolí bolet VERB {verb} 0 root",
    )
    s_jednou_nohou = (
        f"1 Stojí stát VERB {verb} 0 root",
        "2 s s ADP Case=Ins 4 case",
        f"3 jednou jeden NUM Case=Ins|Gender=Fem|Number=Sing|{CARD} 4 nummod",
        "4 nohou noha NOUN Case=Ins|Gender=Fem|Number=Sing 1 obl",
    )
    once = ("1 Jednou jednou ADV NumType=Mult 2 advmod", f"2 stojí stát VERB {verb} 0 root")
    pairs, skips, _ = mine_with_skips(tmp_path, jedna_noha, s_jednou_nohou, once, lang="Czech")
    numeral = pairs.filter(pl.col("type") == "numeral")
    assert numeral.filter(pl.col("bad_form").str.to_lowercase() == "jednou").is_empty()
    refused = skips.filter(pl.col("reason") == "adverb-reading")
    assert refused.select("sent_id", "feature", "bad_value").rows() == [("s1", "Case", "Ins")]
    # The other direction is no adverb: *Stojí s jedna nohou* stays a pair.
    assert ("s2", "Case", "Stojí s jedna nohou") in set(
        numeral.select("sent_id", "feature", "sentence_bad").iter_rows()
    )
