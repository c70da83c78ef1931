"""The rules of DESIGN.md §1.1–1.3 on sentences written for the purpose."""

from __future__ import annotations

from mine.relations import extract
from mine.schema import TYPES
from tests.sentences import KEYS_ARE_BROKEN, sentence

ALL = frozenset(TYPES)


def found(*rows: str, valid=ALL):
    """{(type, target_id, controller_id): relation} and drops of one sentence."""
    s = sentence(*rows)
    outcome = extract(s, valid)
    return {
        (r.type, s.ids[r.target], s.ids[r.controller]): r for r in outcome.relations
    }, outcome.drops


def test_copula_sentence_yields_determiners_predicative_and_copula_subject_verb():
    relations, drops = found(*KEYS_ARE_BROKEN)
    assert set(relations) == {
        ("determiner", 1, 2),
        ("determiner", 4, 5),
        ("predicative", 7, 2),
        ("subject-verb", 6, 2),
    }
    assert drops == {}


def test_agreeing_features_are_the_sorted_shared_ones():
    relations, _ = found(*KEYS_ARE_BROKEN)
    assert relations[("determiner", 1, 2)].agreeing == ["Gender", "Number"]
    assert relations[("determiner", 4, 5)].agreeing == ["Number"]  # l' has no Gender
    assert relations[("subject-verb", 6, 2)].agreeing == ["Number"]  # clés has no Person


def test_attractor_between_subject_and_predicate_counts_as_distractor_and_attractor():
    relations, _ = found(*KEYS_ARE_BROKEN)
    predicative = relations[("predicative", 7, 2)]
    assert (predicative.distance, predicative.order) == (5, "controller-first")
    assert predicative.intervening_nouns == 1
    assert (predicative.distractors, predicative.attractors) == (1, 1)
    copula = relations[("subject-verb", 6, 2)]
    assert (copula.distance, copula.distractors, copula.attractors) == (4, 1, 1)


def test_distractor_outside_the_span_is_not_an_attractor():
    relations, _ = found(*KEYS_ARE_BROKEN)
    determiner = relations[("determiner", 1, 2)]
    assert determiner.order == "target-first"
    assert (determiner.distance, determiner.intervening_nouns) == (1, 0)
    assert (determiner.distractors, determiner.attractors) == (1, 0)


def test_distractors_use_only_agreeing_features():
    # l' agrees with ami in Number only: voisine differs in Gender, which l' does not mark.
    relations, _ = found(
        "1 l' le DET Number=Sing 2 det",
        "2 ami ami NOUN Gender=Masc|Number=Sing 0 root",
        "3 de de ADP _ 5 case",
        "4 la le DET Gender=Fem|Number=Sing 5 det",
        "5 voisine voisine NOUN Gender=Fem|Number=Sing 2 nmod",
        "6 des un DET Number=Plur 7 det",
        "7 tables table NOUN Gender=Fem|Number=Plur 2 nmod",
    )
    first = relations[("determiner", 1, 2)]
    assert first.agreeing == ["Number"]
    assert first.distractors == 1  # tables (Plur), not voisine (Fem, Sing)
    second = relations[("determiner", 4, 5)]
    assert second.agreeing == ["Gender", "Number"]
    assert second.distractors == 2  # ami (Masc), tables (Plur)


def test_attributive_adjective_after_its_noun_is_controller_first():
    relations, _ = found(
        "1 une un DET Gender=Fem|Number=Sing 2 det",
        "2 voiture voiture NOUN Gender=Fem|Number=Sing 0 root",
        "3 rouge rouge ADJ Number=Sing 2 amod",
    )
    attributive = relations[("attributive", 3, 2)]
    assert attributive.order == "controller-first"
    assert attributive.agreeing == ["Number"]


def test_multi_valued_feature_agrees_when_the_sets_intersect():
    relations, drops = found(
        "1 des un DET Number=Plur 2 det",
        "2 personnes personne NOUN Gender=Fem|Number=Plur 0 root",
        "3 jeunes jeune ADJ Gender=Fem,Masc|Number=Plur 2 amod",
        "4 vieux vieux ADJ Gender=Masc,Neut|Number=Plur 2 amod",
    )
    assert relations[("attributive", 3, 2)].agreeing == ["Gender", "Number"]
    assert ("attributive", 4, 2) not in relations
    assert drops == {"disagree": 1}


def test_passive_auxiliary_and_participle():
    relations, _ = found(
        "1 Les le DET Gender=Fem|Number=Plur 2 det",
        "2 clés clé NOUN Gender=Fem|Number=Plur 5 nsubj:pass",
        "3 ont avoir AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 5 aux",
        "4 été être AUX Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 5 aux:pass",
        "5 cassées casser VERB Gender=Fem|Number=Plur|Tense=Past|VerbForm=Part|Voice=Pass 0 root",
    )
    assert set(relations) == {("determiner", 1, 2), ("subject-verb", 3, 2), ("subject-verb", 5, 2)}
    assert relations[("subject-verb", 5, 2)].agreeing == ["Gender", "Number"]


def test_active_participle_is_left_out_but_its_auxiliary_is_kept():
    relations, _ = found(
        "1 Il il PRON Gender=Masc|Number=Sing|Person=3 3 nsubj",
        "2 a avoir AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 aux",
        "3 travaillé travailler VERB Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 0 root",
    )
    assert set(relations) == {("subject-verb", 2, 1)}
    assert relations[("subject-verb", 2, 1)].agreeing == ["Number", "Person"]


def test_infinitive_verb_and_auxiliary_are_not_targets_but_verb_without_verbform_is():
    relations, _ = found(
        "1 Elles elle PRON Number=Plur|Person=3 2 nsubj",
        "2 chantent chanter VERB Number=Plur|Person=3 0 root",
        "3 eux lui PRON Number=Plur|Person=3 4 nsubj",
        "4 partir partir VERB VerbForm=Inf|Number=Plur 2 xcomp",
        "5 être être AUX VerbForm=Inf|Number=Plur 4 aux",
    )
    assert set(relations) == {("subject-verb", 2, 1)}


def test_propn_subject_is_never_a_controller():
    relations, drops = found(
        "1 Marie Marie PROPN Gender=Fem|Number=Sing 3 nsubj",
        "2 est être AUX Number=Sing|Person=3|VerbForm=Fin 3 cop",
        "3 grande grand ADJ Gender=Fem|Number=Sing 0 root",
    )
    assert relations == {} and drops == {}


def test_auxiliary_finds_subject_on_its_head_not_on_itself():
    relations, _ = found(
        "1 Les le DET Number=Plur 2 det",
        "2 chats chat NOUN Gender=Masc|Number=Plur 4 nsubj",
        "3 sont être AUX Number=Plur|Person=3|VerbForm=Fin 4 cop",
        "4 contents content ADJ Gender=Masc|Number=Plur 0 root",
    )
    assert ("subject-verb", 3, 2) in relations
    assert ("predicative", 4, 2) in relations


def test_drop_reasons_apply_in_order_typo_disagree_no_feature():
    _, drops = found(
        "1 le le DET Number=Sing|Typo=Yes 2 det",
        "2 maisons maison NOUN Number=Plur 0 root",
        "3 la le DET Number=Sing 2 det",
        "4 ce ce DET PronType=Dem 2 det",
    )
    assert drops == {"typo": 1, "disagree": 1, "no-agreeing-feature": 1}


def test_invalid_type_is_the_last_drop_reason():
    rows = KEYS_ARE_BROKEN
    relations, drops = found(*rows, valid=frozenset({"determiner", "subject-verb"}))
    assert {key[0] for key in relations} == {"determiner", "subject-verb"}
    assert drops == {"invalid-type": 1}


def test_subject_of_base_deprel_nsubj_with_subtype_is_a_controller():
    relations, _ = found(
        "1 Elle elle PRON Number=Sing|Person=3 2 nsubj:outer",
        "2 dort dormir VERB Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 0 root",
    )
    assert ("subject-verb", 2, 1) in relations


def test_layered_feature_is_another_feature():
    relations, drops = found(
        "1 son son DET Number=Sing|Number[psor]=Plur 2 det",
        "2 chien chien NOUN Number=Sing 0 root",
    )
    assert relations[("determiner", 1, 2)].agreeing == ["Number"] and drops == {}
