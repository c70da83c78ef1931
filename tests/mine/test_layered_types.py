"""The §1.7 types that compare a layer of the target's features with the controller's plain
ones (`object-verb`, `indirect-object-verb`, `ergative-verb`, `possessor`), on sentences written
here: a pair varies that layer only."""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl

from tests.mine.test_pairs import mine_with_skips
from tests.reference.compare import assert_same
from tests.sentences import conllu
from ud_agree.schemas.corpus import TYPES

_AUX = "Mood=Ind|Number[abs]={abs}|Number[erg]={erg}|Person[abs]=3|Person[erg]=3|VerbForm=Fin"


def basque(subject: str, erg: str, obj: str, abs_: str, aux: str) -> tuple[str, ...]:
    """*Gizonak liburuak ikusi ditu.* ("The man has seen the books."): an ergative subject, an
    absolutive object, a participle and the auxiliary *edun* agreeing with both."""
    return (
        f"1 {subject} gizon NOUN Case=Erg|Definite=Def|Number={erg} 3 nsubj",
        f"2 {obj} liburu NOUN Case=Abs|Definite=Def|Number={abs_} 3 obj",
        "3 ikusi ikusi VERB Aspect=Perf|VerbForm=Part 0 root",
        f"4 {aux} edun AUX {_AUX.format(abs=abs_, erg=erg)} 3 aux",
    )


DITU = basque("Gizonak", "Sing", "liburuak", "Plur", "ditu")  # erg Sing, abs Plur
DU = basque("Gizonak", "Sing", "liburua", "Sing", "du")  # erg Sing, abs Sing
DUTE = basque("Gizonek", "Plur", "liburua", "Sing", "dute")  # erg Plur, abs Sing
DITUZTE = basque("Gizonek", "Plur", "liburuak", "Plur", "dituzte")  # erg Plur, abs Plur


def relations_of(*rows: str, **facts: object) -> set[tuple[str, int, int, str | None]]:
    """(type, target_id, controller_id, target_layer) of one sentence's kept relations, the
    engine checked against the reference (`facts`: the language's, as FileJob takes them)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "xx_test-ud-test.conllu"
        path.write_text(conllu(*rows), encoding="utf-8")
        result = assert_same(path, frozenset(TYPES), **facts)
    assert result is not None
    return {
        (r["type"], r["target_id"], r["controller_id"], r["target_layer"])
        for r in result.relations.to_pylist()
    }


def test_a_basque_auxiliary_agrees_with_its_object_and_its_ergative_subject():
    assert relations_of(*DITU) == {
        ("object-verb", 4, 2, "abs"),
        ("ergative-verb", 4, 1, "erg"),
    }


def test_the_target_values_of_a_layered_relation_are_its_layers():
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "xx_test-ud-test.conllu"
        path.write_text(conllu(*DITU), encoding="utf-8")
        result = assert_same(path, frozenset(TYPES))
    assert result is not None
    rows = {r["type"]: r for r in result.relations.to_pylist()}
    assert rows["object-verb"]["target_number"] == ["Plur"]
    assert rows["ergative-verb"]["target_number"] == ["Sing"]
    assert rows["object-verb"]["agreeing"] == ["Number"]


def test_a_layer_that_disagrees_drops_the_candidate():
    # *Gizonak liburuak ikusi du*: the auxiliary's absolutive is singular, the object plural.
    rows = list(DITU)
    rows[3] = f"4 du edun AUX {_AUX.format(abs='Sing', erg='Sing')} 3 aux"
    assert relations_of(*rows) == {("ergative-verb", 4, 1, "erg")}


def test_ditu_becomes_du_varying_number_abs_and_nothing_else(tmp_path):
    pairs, _, manifest = mine_with_skips(tmp_path, DITU, DU, DUTE, DITUZTE, lang="Basque")
    objects = pairs.filter((pl.col("type") == "object-verb") & (pl.col("sent_id") == "s1"))
    assert objects.select("feature", "good_value", "bad_value", "bad_form", "upos").rows() == [
        ("Number", "Plur", "Sing", "du", "AUX")
    ]
    assert objects["sentence_bad"].to_list() == ["Gizonak liburuak ikusi du"]
    # Its ergative: ditu → dituzte (the absolutive stays plural), never dute.
    ergatives = pairs.filter((pl.col("type") == "ergative-verb") & (pl.col("sent_id") == "s1"))
    assert ergatives["bad_form"].to_list() == ["dituzte"]
    assert manifest["counts"]["relations_by_type"]["object-verb"] == 4
    assert manifest["counts"]["pairs_by_type"]["object-verb"] == 4


def test_no_form_where_only_another_layer_differs_too(tmp_path):
    # Without *du* in the treebank, *ditu* has no singular absolutive with a singular ergative:
    # *dute* (plural ergative) changes another layer, so no object-verb pair for s1.
    pairs, skips, _ = mine_with_skips(tmp_path, DITU, DUTE, DITUZTE, lang="Basque")
    made = pairs.filter((pl.col("type") == "object-verb") & (pl.col("sent_id") == "s1"))
    assert made.is_empty()
    refused = skips.filter((pl.col("type") == "object-verb") & (pl.col("sent_id") == "s1"))
    assert refused.select("feature", "bad_value", "reason").rows() == [
        ("Number", "Sing", "no-form")
    ]


def turkish(
    possessor: str, lemma: str, upos: str, feats: str, noun: str, psor: str
) -> tuple[str, ...]:
    """A possessor (`nmod:poss`) and the noun *ev* ("house") with its possessive suffix."""
    return (
        f"1 {possessor} {lemma} {upos} {feats} 2 nmod:poss",
        f"2 {noun} ev NOUN Case=Nom|Number=Sing|{psor} 0 root",
    )


_PRON = "Case=Gen|Number={number}|Person={person}|PronType=Prs"
BENIM_EVIM = turkish(
    "benim", "ben", "PRON", _PRON.format(number="Sing", person=1), "evim",
    "Number[psor]=Sing|Person[psor]=1",
)  # fmt: skip
SENIN_EVIN = turkish(
    "senin", "sen", "PRON", _PRON.format(number="Sing", person=2), "evin",
    "Number[psor]=Sing|Person[psor]=2",
)  # fmt: skip
ADAMIN_EVI = turkish(
    "adamın", "adam", "NOUN", "Case=Gen|Number=Sing", "evi", "Number[psor]=Sing|Person[psor]=3"
)
ALININ_EVI = turkish(
    "Ali'nin", "Ali", "PROPN", "Case=Gen|Number=Sing", "evi", "Number[psor]=Sing|Person[psor]=3"
)


def test_a_turkish_noun_agrees_with_its_pronoun_possessor_in_its_psor_layer():
    assert relations_of(*BENIM_EVIM) == {("possessor", 2, 1, "psor")}
    # *benim evin*: the possessor is 1sg, the suffix 2sg.
    disagreeing = (BENIM_EVIM[0], SENIN_EVIN[1])
    assert relations_of(*disagreeing) == set()


def test_a_bare_noun_of_a_compound_is_no_possessor():
    # *dağ evi* ("mountain house"): *dağ evim* ("my mountain house") is Turkish too.
    dag = "1 dağ dağ NOUN Case=Nom|Number=Sing 2 nmod:poss"
    assert relations_of(dag, ADAMIN_EVI[1]) == set()


def test_a_noun_possessor_is_person_3_and_a_proper_noun_no_controller():
    assert relations_of(*ADAMIN_EVI) == {("possessor", 2, 1, "psor")}
    # *adamın evim*: a noun possessor is third person, the suffix first.
    assert relations_of(ADAMIN_EVI[0], BENIM_EVIM[1]) == set()
    assert relations_of(*ALININ_EVI) == set()  # PROPN is never a controller


def test_benim_evim_becomes_benim_evin_and_adamin_evi_adamin_evim(tmp_path):
    pairs, skips, manifest = mine_with_skips(
        tmp_path, BENIM_EVIM, SENIN_EVIN, ADAMIN_EVI, ALININ_EVI, lang="Turkish"
    )
    made = pairs.filter(pl.col("type") == "possessor")
    rows = set(made.select("sent_id", "feature", "good_value", "bad_value", "sentence_bad").rows())
    assert ("s1", "Person", "1", "2", "benim evin") in rows
    assert ("s3", "Person", "3", "1", "adamın evim") in rows
    assert made.filter(pl.col("sent_id") == "s4").is_empty()
    assert manifest["counts"]["relations_by_type"]["possessor"] == 3
    # *adamın evi* → *evleri* would read "the man's houses": a third person's Number is not varied.
    refused = skips.filter((pl.col("sent_id") == "s3") & (pl.col("feature") == "Number"))
    assert refused["reason"].to_list() == ["third-person-possessor"]


def test_a_basque_bad_form_keeps_the_tense_and_the_subordinator_its_letters_show(tmp_path):
    # BDT marks no Tense: *zituen* (past) → *zuen*, not the commoner present *du*; and
    # *dituela* ("that he has them") → *duela*, not the main-clause *du*.
    zituen = basque("Gizonak", "Sing", "liburuak", "Plur", "zituen")
    zuen = basque("Gizonak", "Sing", "liburua", "Sing", "zuen")
    dituela = basque("Gizonak", "Sing", "liburuak", "Plur", "dituela")
    duela = basque("Gizonak", "Sing", "liburua", "Sing", "duela")
    pairs, _, _ = mine_with_skips(tmp_path, zituen, dituela, DU, DU, DU, zuen, duela, lang="Basque")
    made = pairs.filter(pl.col("type") == "object-verb")
    assert made.filter(pl.col("sent_id") == "s1")["bad_form"].to_list() == ["zuen"]
    assert made.filter(pl.col("sent_id") == "s2")["bad_form"].to_list() == ["duela"]


def hindi(subject: str, feats: str, marker: bool, verb: str, verb_feats: str) -> tuple[str, ...]:
    """*laṛke ne kitāb paṛhī* ("the boy read the book"), with or without the ergative *ne*."""
    rows = [f"1 {subject} लड़का NOUN {feats} 4 nsubj"]
    rows.append("2 ने ने ADP Case=Erg 1 case" if marker else "2 भी भी PART _ 1 advmod")
    rows.append("3 किताब किताब NOUN Case=Nom|Gender=Fem|Number=Sing|Person=3 4 obj")
    rows.append(f"4 {verb} पढ़ना VERB {verb_feats} 0 root")
    return tuple(rows)


_PERFECTIVE = "Aspect=Perf|Gender={gender}|Mood=Ind|Number=Sing|Person=3|Tense=Past"  # as Hindi-PUD


def test_a_hindi_perfective_agrees_with_its_object_where_the_subject_is_ergative():
    # *laṛke ne kitāb paṛhī*: the verb is feminine with the feminine object, not the subject.
    ergative = hindi(
        "लड़के", "Case=Acc|Gender=Masc|Number=Sing|Person=3", True, "पढ़ी",
        _PERFECTIVE.format(gender="Fem"),
    )  # fmt: skip
    found = relations_of(*ergative)
    assert ("object-verb", 4, 3, None) in found
    assert ("subject-verb", 4, 1, None) not in found  # Gender disagrees: dropped
    # *laṛkā kitāb paṛhā* (nominative subject): the verb agrees with its subject, and no object
    # relation is made.
    nominative = hindi(
        "लड़का", "Case=Nom|Gender=Masc|Number=Sing|Person=3", False, "पढ़ा",
        _PERFECTIVE.format(gender="Masc"),
    )  # fmt: skip
    assert relations_of(*nominative) == {("subject-verb", 4, 1, None)}


def test_an_urdu_ne_is_ergative_where_the_language_data_says_so():
    # UD_Urdu-UDTB writes *ne* without Case: `mine/data/ergative_markers.tsv` marks it.
    rows = [
        "1 لڑکے لڑکا NOUN Case=Acc|Gender=Masc|Number=Sing|Person=3 4 nsubj",
        "2 نے نے ADP AdpType=Post 1 case",
        "3 کتاب کتاب NOUN Case=Nom|Gender=Fem|Number=Sing|Person=3 4 obj",
        f"4 پڑھی پڑھنا VERB {_PERFECTIVE.format(gender='Fem')} 0 root",
    ]
    assert not any(kind == "object-verb" for kind, *_ in relations_of(*rows))
    marked = relations_of(*rows, ergative_lemmas=frozenset({"نے"}))
    assert ("object-verb", 4, 3, None) in marked


def test_a_basque_verb_in_a_case_is_no_ergative_clause_target():
    # *proposamena egitea* ("making the proposal"): a nominalised verb's Case is its phrase's.
    rows = (
        "1 Gobernuak gobernu NOUN Case=Erg|Definite=Def|Number=Sing 3 nsubj",
        "2 proposamena proposamen NOUN Case=Abs|Definite=Def|Number=Sing 3 obj",
        "3 egitea egin VERB Case=Abs|Definite=Def|Number=Sing|VerbForm=Inf 0 root",
    )
    assert relations_of(*rows) == set()


_AVOIR = frozenset({"avoir"})
_A = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"


def test_a_french_participle_agrees_with_the_noun_its_relative_object_stands_for():
    # *les lettres qu'il a écrites*: *que* is the object of *écrites*, placed before it.
    rows = (
        "1 les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 lettres lettre NOUN Gender=Fem|Number=Plur 0 root",
        "3 qu' que PRON PronType=Rel 6 obj",
        "4 il il PRON Gender=Masc|Number=Sing|Person=3|PronType=Prs 6 nsubj",
        f"5 a avoir AUX {_A} 6 aux",
        "6 écrites écrire VERB Gender=Fem|Number=Plur|Tense=Past|VerbForm=Part 2 acl:relcl",
    )
    found = relations_of(*rows, have_lemmas=_AVOIR, object_have_lemmas=_AVOIR)
    assert ("object-verb", 6, 2, None) in found
    assert not any(kind == "object-verb" and c != 2 for kind, _, c, _ in found)
    # Without the language's data (Spanish *haber*: *las cartas que ha escrito*), none.
    plain = relations_of(*rows, have_lemmas=_AVOIR)
    assert not any(kind == "object-verb" for kind, *_ in plain)


def test_a_french_clitic_object_before_the_participle_is_its_controller():
    # *je les ai vues*
    rows = (
        "1 je il PRON Number=Sing|Person=1|PronType=Prs 4 nsubj",
        "2 les le PRON Gender=Fem|Number=Plur|Person=3|PronType=Prs 4 obj",
        "3 ai avoir AUX Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin 4 aux",
        "4 vues voir VERB Gender=Fem|Number=Plur|Tense=Past|VerbForm=Part 0 root",
    )
    found = relations_of(*rows, have_lemmas=_AVOIR, object_have_lemmas=_AVOIR)
    assert ("object-verb", 4, 2, None) in found


def test_a_french_participle_with_avoir_and_no_object_before_it_is_no_target():
    # *il a écrit les lettres*: the object follows, the participle stays invariable.
    after = (
        "1 il il PRON Gender=Masc|Number=Sing|Person=3|PronType=Prs 3 nsubj",
        f"2 a avoir AUX {_A} 3 aux",
        "3 écrit écrire VERB Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 0 root",
        "4 les le DET Definite=Def|Number=Plur|PronType=Art 5 det",
        "5 lettres lettre NOUN Gender=Fem|Number=Plur 3 obj",
    )
    # *elle a travaillé*: no object at all, and no subject agreement with *avoir*.
    intransitive = (
        "1 elle il PRON Gender=Fem|Number=Sing|Person=3|PronType=Prs 3 nsubj",
        f"2 a avoir AUX {_A} 3 aux",
        "3 travaillé travailler VERB Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 0 root",
    )
    for rows in (after, intransitive):
        found = relations_of(*rows, have_lemmas=_AVOIR, object_have_lemmas=_AVOIR)
        assert not any(kind in ("object-verb", "subject-participle") for kind, *_ in found)


def test_a_french_relative_clause_with_etre_is_no_object_verb_target():
    # *les lettres qui sont arrivées*: *qui* is a subject, the auxiliary *être*.
    rows = (
        "1 les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 lettres lettre NOUN Gender=Fem|Number=Plur 0 root",
        "3 qui qui PRON PronType=Rel 5 nsubj",
        "4 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 5 aux",
        "5 arrivées arriver VERB Gender=Fem|Number=Plur|Tense=Past|VerbForm=Part 2 acl:relcl",
    )
    found = relations_of(*rows, have_lemmas=_AVOIR, object_have_lemmas=_AVOIR)
    assert not any(kind == "object-verb" for kind, *_ in found)


def test_an_italian_interrogative_object_is_no_clitic_controller():
    # *Cosa ha inventato?*: an interrogative before the participle does not make it agree.
    rows = (
        "1 Cosa cosa PRON Number=Sing|PronType=Int 3 obj",
        "2 ha avere AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 aux",
        "3 inventato inventare VERB Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 0 root",
    )
    avere = frozenset({"avere"})
    assert relations_of(*rows, have_lemmas=avere, object_have_lemmas=avere) == set()
    # *L'ha vista* ("he has seen her"): the clitic is.
    rows = (
        "1 L' lo PRON Clitic=Yes|Gender=Fem|Number=Sing|Person=3|PronType=Prs 3 obj",
        "2 ha avere AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 aux",
        "3 vista vedere VERB Gender=Fem|Number=Sing|Tense=Past|VerbForm=Part 0 root",
    )
    found = relations_of(*rows, have_lemmas=avere, object_have_lemmas=avere)
    assert found == {("object-verb", 3, 1, None)}


def test_a_french_participle_before_an_infinitive_is_no_target():
    # *les airs qu'il a laissé jouer*: the object is the infinitive's; *laissé* stays invariable.
    rows = (
        "1 les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 airs air NOUN Gender=Masc|Number=Plur 0 root",
        "3 qu' que PRON PronType=Rel 6 obj",
        "4 il il PRON Gender=Masc|Number=Sing|Person=3|PronType=Prs 6 nsubj",
        f"5 a avoir AUX {_A} 6 aux",
        "6 laissé laisser VERB Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 2 acl:relcl",
        "7 jouer jouer VERB VerbForm=Inf 6 xcomp",
    )
    found = relations_of(*rows, have_lemmas=_AVOIR, object_have_lemmas=_AVOIR)
    assert not any(kind == "object-verb" for kind, *_ in found)
    # The same clause without the infinitive is a candidate (*les airs qu'il a laissés*).
    without = (*rows[:5], rows[5].replace("Number=Sing", "Number=Plur"))
    found = relations_of(*without, have_lemmas=_AVOIR, object_have_lemmas=_AVOIR)
    assert ("object-verb", 6, 2, None) in found
