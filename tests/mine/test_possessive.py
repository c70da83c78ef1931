"""The `possessive` type (DESIGN.md §1.7): a possessive pronoun or determiner, or the adposition
of a genitive phrase, and the noun it modifies, from candidates to pairs, on sentences written
here (Hindi *merī kitāb* 'my book', *rām kī kitāb* 'Ram's book')."""

from __future__ import annotations

import polars as pl

from tests.mine.test_optional_feminine import mine_norwegian
from tests.mine.test_pairs import mine_with_skips
from tests.mine.test_relations import found

FELL_FEM = "3 गिरी गिरना VERB Aspect=Perf|Gender=Fem|Number=Sing|Person=3 0 root"
FELL_MASC = "3 गिरा गिरना VERB Aspect=Perf|Gender=Masc|Number=Sing|Person=3 0 root"
# *merī kitāb girī* 'my book fell': the possessive agrees with its noun in Gender, Number and
# Case; its Person is the possessor's (first), the noun's third.
MERI_KITAB = (
    "1 मेरी मैं PRON Case=Nom|Gender=Fem|Number=Sing|Person=1|Poss=Yes|PronType=Prs 2 nmod:poss",
    "2 किताब किताब NOUN Case=Nom|Gender=Fem|Number=Sing|Person=3 3 nsubj",
    FELL_FEM,
)
# *merā ghar girā* 'my house fell': puts the masculine *merā* into the lexicon.
MERA_GHAR = (
    "1 मेरा मैं PRON Case=Nom|Gender=Masc|Number=Sing|Person=1|Poss=Yes|PronType=Prs 2 nmod:poss",
    "2 घर घर NOUN Case=Nom|Gender=Masc|Number=Sing|Person=3 3 nsubj",
    FELL_MASC,
)
# *rām kī kitāb* 'Ram's book': the genitive postposition agrees with the possessed noun; its
# Case=Gen is the case it marks on *rām*, not agreement.
RAM_KI_KITAB = (
    "1 राम राम PROPN Case=Acc|Gender=Masc|Number=Sing 3 nmod:poss",
    "2 की का ADP Case=Gen|Gender=Fem 1 case",
    "3 किताब किताब NOUN Case=Nom|Gender=Fem|Number=Sing 4 nsubj",
    "4 गिरी गिरना VERB Aspect=Perf|Gender=Fem|Number=Sing|Person=3 0 root",
)


def test_a_possessive_pronoun_is_a_candidate_of_its_noun_and_its_person_plays_no_part():
    relations, drops = found(*MERI_KITAB)
    possessive = relations[("possessive", 1, 2)]
    assert possessive.agreeing == ["Case", "Gender", "Number"]
    assert possessive.order == "target-first" and possessive.distance == 1
    assert not drops


def test_a_genitive_postposition_agrees_with_the_possessed_noun_not_in_its_own_case():
    relations, drops = found(*RAM_KI_KITAB)
    assert relations[("possessive", 2, 3)].agreeing == ["Gender"]
    assert relations[("possessive", 2, 3)].distance == 1
    assert not drops


def test_a_genitive_on_a_plain_nmod_counts_where_it_carries_gender_a_locative_does_not():
    # Urdu attaches genitives as plain nmod: *šahr kā ghar* 'the city's house'.
    genitive = (
        "1 شہر شہر NOUN Case=Acc|Gender=Masc|Number=Sing|Person=3 3 nmod",
        "2 کا کا ADP AdpType=Post|Case=Nom|Gender=Masc|Number=Sing 1 case",
        "3 گھر گھر NOUN Case=Nom|Gender=Masc|Number=Sing|Person=3 0 root",
    )
    assert found(*genitive)[0][("possessive", 2, 3)].agreeing == ["Case", "Gender", "Number"]
    # *ghar meṁ kitāb* 'the book in the house': a locative carries no Number or Gender.
    locative = (
        "1 घर घर NOUN Case=Acc|Gender=Masc|Number=Sing 3 nmod",
        "2 में में ADP Case=Loc 1 case",
        "3 किताब किताब NOUN Case=Nom|Gender=Fem|Number=Sing 0 root",
    )
    relations, drops = found(*locative)
    assert not relations and not drops


def test_a_possessive_determiner_is_a_determiner_and_a_possessive_of_no_noun_is_none():
    sa_maison = (
        "1 sa son DET Gender=Fem|Number=Sing|Poss=Yes|PronType=Prs 2 det:poss",
        "2 maison maison NOUN Gender=Fem|Number=Sing 0 root",
    )
    assert set(found(*sa_maison)[0]) == {("determiner", 1, 2)}
    of_a_verb = (
        "1 मेरा मैं PRON Case=Nom|Gender=Masc|Number=Sing|Person=1 2 nmod:poss",
        "2 गिरा गिरना VERB Aspect=Perf|Gender=Masc|Number=Sing|Person=3 0 root",
    )
    relations, drops = found(*of_a_verb)
    assert not relations and not drops


def test_a_possessive_that_disagrees_is_dropped():
    relations, drops = found(
        "1 मेरा मैं PRON Case=Nom|Gender=Masc|Number=Sing|Person=1 2 nmod:poss",
        *MERI_KITAB[1:],
    )
    assert ("possessive", 1, 2) not in relations and drops == {"disagree": 1}


def test_meri_kitab_becomes_mera_kitab_by_gender(tmp_path):
    pairs, _, manifest = mine_with_skips(tmp_path, MERI_KITAB, MERA_GHAR, lang="Hindi")
    possessive = pairs.filter(pl.col("type") == "possessive")
    made = set(possessive.select("sent_id", "feature", "bad_value", "sentence_bad").iter_rows())
    assert ("s1", "Gender", "Masc", "मेरा किताब गिरी") in made
    assert ("s2", "Gender", "Fem", "मेरी घर गिरा") in made
    # No Person pair: the possessive's Person is no agreement.
    assert set(possessive["feature"]) == {"Gender"}
    assert manifest["counts"]["relations_by_type"]["possessive"] == 2
    assert manifest["counts"]["pairs_by_type"]["possessive"] == possessive.height
    rates = pl.read_parquet(tmp_path / "corpus" / "hi" / "agreement.parquet")
    assert "possessive" in set(rates["type"])
    assert "Person" not in set(rates.filter(pl.col("type") == "possessive")["feature"])


def test_a_bad_form_that_is_no_possessive_is_refused(tmp_path):
    # *uske ghar meṁ* 'in his house': UD_Hindi-PUD lemmatises *uske* 'his' and *unheṁ* 'them'
    # both as *vah*, with the same FEATS but Number: *unheṁ* is no possessive.
    uske_ghar = (
        "1 उसके वह PRON Case=Acc|Number=Sing|Person=3 2 nmod:poss",
        "2 घर घर NOUN Case=Acc|Gender=Masc|Number=Sing 4 obl",
        "3 में में ADP Case=Loc 2 case",
        "4 गया जाना VERB Aspect=Perf|Gender=Masc|Number=Sing|Person=3 0 root",
    )
    unhen = (
        "1 उन्हें वह PRON Case=Acc|Number=Plur|Person=3 2 nsubj",
        "2 गया जाना VERB Aspect=Perf|Gender=Masc|Number=Sing|Person=3 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, uske_ghar, unhen, lang="Hindi")
    assert pairs.filter((pl.col("type") == "possessive") & (pl.col("sent_id") == "s1")).is_empty()
    refused = skips.filter(
        (pl.col("type") == "possessive") & (pl.col("reason") == "not-possessive")
    )
    assert refused.select("sent_id", "feature", "bad_value").rows() == [("s1", "Number", "Plur")]


def test_a_bad_form_of_another_possessor_is_refused(tmp_path):
    # *uskā ghar* 'his house' and honorific *unkī kitāb* 'his (hon.) book': UD_Hindi-PUD tags both
    # Number=Sing, Person=3, lemma *vah*; *uskā* → *unkī* would change the possessor too.
    uska_ghar = (
        "1 उसका वह PRON Case=Nom|Gender=Masc|Number=Sing|Person=3 2 nmod:poss",
        "2 घर घर NOUN Case=Nom|Gender=Masc|Number=Sing 3 nsubj",
        FELL_MASC,
    )
    unki_kitab = (
        "1 उनकी वह PRON Case=Nom|Gender=Fem|Number=Sing|Person=3 2 nmod:poss",
        *MERI_KITAB[1:],
    )
    pairs, skips, _ = mine_with_skips(tmp_path, uska_ghar, unki_kitab, MERI_KITAB, lang="Hindi")
    assert pairs.filter((pl.col("type") == "possessive") & (pl.col("lemma") == "वह")).is_empty()
    refused = skips.filter(
        (pl.col("type") == "possessive") & (pl.col("reason") == "other-possessor")
    )
    assert sorted(refused.select("sent_id", "feature").rows()) == [
        ("s1", "Gender"),
        ("s2", "Gender"),
    ]


def test_a_feminine_nouns_masculine_possessive_is_no_violation_where_the_feminine_is_optional(
    tmp_path,
):
    # Bokmål *kona di* and *kona din* are both Norwegian; *bilen di* is not.
    poss = "Number=Sing|Poss=Yes|PronType=Prs"
    kona_di = (
        "1 kona kone NOUN Definite=Def|Gender=Fem|Number=Sing 3 nsubj",
        f"2 di du PRON Gender=Fem|{poss} 1 nmod:poss",
        "3 sover sove VERB Mood=Ind|Tense=Pres|VerbForm=Fin 0 root",
    )
    bilen_din = (
        "1 bilen bil NOUN Definite=Def|Gender=Masc|Number=Sing 3 nsubj",
        f"2 din du PRON Gender=Masc|{poss} 1 nmod:poss",
        "3 står stå VERB Mood=Ind|Tense=Pres|VerbForm=Fin 0 root",
    )
    pairs, skips = mine_norwegian(tmp_path, "Bokmaal", kona_di, bilen_din)
    possessive = pairs.filter(pl.col("type") == "possessive")
    assert set(possessive.select("sent_id", "sentence_bad").iter_rows()) == {
        ("s2", "bilen di står")
    }
    refused = skips.filter(pl.col("reason") == "optional-feminine")
    assert refused.select("sent_id", "feature", "bad_value").rows() == [("s1", "Gender", "Masc")]
