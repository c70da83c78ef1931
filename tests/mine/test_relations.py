"""The rules of DESIGN.md §1.1–1.3 on sentences written for the purpose.

Each sentence is mined by the package's engine (`mine.columnar`, rules in `mine.rules`) and by
the reference (`tests/reference/`), which must agree; the assertions read the package's table.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from ud_agree.mine.columnar import mine_file_columnar
from ud_agree.mine.extract import FileJob
from ud_agree.mine.languages import load_participle_languages, load_value_sets

from tests.paths import UD, needs_shared
from tests.reference.compare import assert_same
from tests.sentences import KEYS_ARE_BROKEN, conllu
from ud_agree.schemas.corpus import TYPES

ALL = frozenset(TYPES)
NORWEGIAN = load_value_sets()["no"]
AVOIR = frozenset({"avoir"})


def found(*rows: str, valid=ALL, participle_agreement=False, value_sets=None, have=AVOIR):
    """{(type, target_id, controller_id): relation row} and drops of one sentence (*have* is
    French *avoir* unless told)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "xx_test-ud-test.conllu"
        path.write_text(conllu(*rows), encoding="utf-8")
        facts = {
            "participle_agreement": participle_agreement,
            "value_sets": value_sets or {},
            "have_lemmas": have,
        }
        result = assert_same(path, valid, **facts)
    assert result is not None and result.malformed == []
    relations = {
        (r["type"], r["target_id"], r["controller_id"]): SimpleNamespace(**r)
        for r in result.relations.to_pylist()
    }
    return relations, dict(result.drops)


def pairs(*rows: str, **options) -> set[tuple[str, int, int]]:
    """(type, target_id, controller_id) of the kept relations of one sentence."""
    return set(found(*rows, **options)[0])


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
    """§1.1: `nsubj:pass`, `nsubj:caus`… are subjects (base deprel nsubj)."""
    assert pairs(
        "1 Elle elle PRON Number=Sing|Person=3 2 nsubj:caus",
        "2 dort dormir VERB Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 0 root",
    ) == {("subject-verb", 2, 1)}


def test_layered_feature_is_another_feature():
    relations, drops = found(
        "1 son son DET Number=Sing|Number[psor]=Plur 2 det",
        "2 chien chien NOUN Number=Sing 0 root",
    )
    assert relations[("determiner", 1, 2)].agreeing == ["Number"] and drops == {}


# §1.1 Subjects: nsubj:outer.

# La question suivante est : Peut-on y prendre épouse ?  (French-GSD fr-ud-dev_00863)
OUTER = (
    "1 La le DET Gender=Fem|Number=Sing 2 det",
    "2 question question NOUN Gender=Fem|Number=Sing 6 nsubj:outer",
    "3 suivante suivant ADJ Gender=Fem|Number=Sing 2 amod",
    "4 est être AUX Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 6 cop",
    "5 : : PUNCT _ 6 punct",
    "6 Peut pouvoir VERB Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 0 root",
    "7 -on on PRON Gender=Masc|Number=Sing|Person=3 6 nsubj",
    "8 prendre prendre VERB VerbForm=Inf 6 xcomp",
    "9 épouse épouse NOUN Gender=Fem|Number=Sing 8 obj",
)


def test_outer_subject_is_no_controller_of_the_verb_it_sits_in():
    """§1.1 Subjects: `nsubj:outer` is never a controller in the table's rows; *Peut* agrees
    with *-on*, not with *question*."""
    found_pairs = pairs(*OUTER)
    assert ("subject-verb", 6, 7) in found_pairs
    assert ("subject-verb", 6, 2) not in found_pairs


def test_copula_whose_head_has_an_outer_subject_takes_only_that_subject():
    """§1.1 Subjects: a `cop` target whose head has `nsubj:outer` dependents takes those, and
    only those: *est* agrees with *question*, not with *-on*."""
    found_pairs = pairs(*OUTER)
    assert ("subject-verb", 4, 2) in found_pairs
    assert ("subject-verb", 4, 7) not in found_pairs
    assert {p for p in found_pairs if p[0] == "subject-verb"} == {
        ("subject-verb", 4, 2),
        ("subject-verb", 6, 7),
    }


def test_outer_subject_is_no_controller_of_a_predicative_adjective():
    """§1.1 Subjects: the predicative row leaves `nsubj:outer` out too (the copula keeps it)."""
    assert pairs(
        "1 Elle elle PRON Gender=Fem|Number=Sing|Person=3 4 nsubj:outer",
        "2 est être AUX Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 4 cop",
        "3 lui lui PRON Gender=Fem|Number=Sing|Person=3 4 nsubj",
        "4 grande grand ADJ Gender=Fem|Number=Sing 0 root",
    ) == {("predicative", 4, 3), ("subject-verb", 2, 1)}


def test_auxiliary_that_is_no_copula_ignores_outer_subjects():
    """§1.1 Subjects: only a `cop` takes the outer subjects of its head; an `aux` takes the
    plain subjects."""
    assert pairs(
        "1 Elle elle PRON Gender=Fem|Number=Sing|Person=3 4 nsubj:outer",
        "2 a avoir AUX Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 4 aux",
        "3 il il PRON Gender=Masc|Number=Sing|Person=3 4 nsubj",
        "4 dit dire VERB Gender=Masc|Number=Sing|VerbForm=Part 0 root",
    ) == {("subject-verb", 2, 3)}


def test_outer_subject_that_is_no_noun_or_pronoun_does_not_count():
    """§1.1 Subjects (our reading): only an outer subject that could be a controller (NOUN or
    PRON) counts as one; with an ADJ outer subject the copula keeps its head's plain subjects
    (Sequoia Europar.550_00299 *Le premier est qu'elle doit…*; the French counts of the shared
    checks agree with this reading)."""
    assert pairs(
        "1 premier premier ADJ Gender=Masc|Number=Sing 4 nsubj:outer",
        "2 est être AUX Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 4 cop",
        "3 elle elle PRON Gender=Fem|Number=Sing|Person=3 4 nsubj",
        "4 doit devoir VERB Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 0 root",
    ) == {("subject-verb", 2, 3), ("subject-verb", 4, 3)}


# §1.1 Verb forms.


def test_verb_without_verbform_is_finite_only_with_mood_or_person():
    """§1.1 Verb forms: no VerbForm and neither Mood nor Person is a participle (Italian-PUD
    *cresciuti*); with Mood or with Person it is finite."""
    subject = "1 investimenti investimento NOUN Gender=Masc|Number=Plur 2 nsubj"
    bare = pairs(subject, "2 cresciuti crescere VERB Gender=Masc|Number=Plur|Tense=Past 0 root")
    mood = pairs(subject, "2 crescono crescere VERB Mood=Ind|Number=Plur|Tense=Pres 0 root")
    person = pairs(subject, "2 crescono crescere VERB Number=Plur|Person=3 0 root")
    assert bare == set()
    assert mood == person == {("subject-verb", 2, 1)}


def test_auxiliary_without_verbform_mood_or_person_is_no_target():
    """§1.1 Verb forms apply to AUX targets too."""
    assert (
        pairs(
            "1 investimenti investimento NOUN Gender=Masc|Number=Plur 3 nsubj",
            "2 stati essere AUX Gender=Masc|Number=Plur 3 aux",
            "3 cresciuti crescere VERB Gender=Masc|Number=Plur|VerbForm=Part 0 root",
        )
        == {("subject-participle", 3, 1)}  # §1.7 takes the participle under *essere*
    )


# §1.1 subject-verb (a): an AUX heading its clause.


def test_auxiliary_heading_its_clause_is_a_target_of_its_own_subjects():
    """§1.1 `subject-verb` (a): an AUX whose base deprel is not `aux`/`cop` (Russian *Был
    момент*) is a target of its own subjects, like a VERB."""
    relations, _ = found(
        "1 Был быть AUX Gender=Masc|Mood=Ind|Number=Sing|VerbForm=Fin 0 root",
        "2 момент момент NOUN Case=Nom|Gender=Masc|Number=Sing 1 nsubj",
    )
    assert set(relations) == {("subject-verb", 1, 2)}
    assert relations[("subject-verb", 1, 2)].agreeing == ["Gender", "Number"]


def test_auxiliary_in_a_conjunct_clause_takes_its_own_subjects_not_its_heads():
    """§1.1 `subject-verb` (a) and (b): base deprel `conj` heads a clause; `aux` does not."""
    assert pairs(
        "1 Я я PRON Number=Sing|Person=1 2 nsubj",
        "2 пишу писать VERB Mood=Ind|Number=Sing|Person=1|VerbForm=Fin 0 root",
        "3 он он PRON Gender=Masc|Number=Sing|Person=3 4 nsubj",
        "4 был быть AUX Gender=Masc|Mood=Ind|Number=Sing|VerbForm=Fin 2 conj",
    ) == {("subject-verb", 2, 1), ("subject-verb", 4, 3)}


# §1.1 Verb forms: participle-agreement languages.

CZECH = (
    "1 Petr Petr PRON Gender=Masc|Number=Sing|Person=3 2 nsubj",
    "2 řekl říci VERB Gender=Masc|Number=Sing|VerbForm=Part|Voice=Act 0 root",
    "3 dům dům NOUN Gender=Masc|Number=Sing 5 nsubj",
    "4 byl být AUX Gender=Masc|Number=Sing|VerbForm=Part|Voice=Act 5 cop",
    "5 velký velký ADJ Gender=Masc|Number=Sing 2 ccomp",
)


def test_participles_agree_with_their_subject_in_participle_languages():
    """§1.1 Verb forms: in the languages of `participle_languages.tsv` every VERB or AUX
    participle is a subject-verb target (Czech *řekl*, *byl*)."""
    assert {"cs", "sk", "hr", "sr", "sl"} <= load_participle_languages()
    relations, _ = found(*CZECH, participle_agreement=True)
    assert set(relations) == {
        ("subject-verb", 2, 1),
        ("subject-verb", 4, 3),
        ("predicative", 5, 3),
    }
    assert relations[("subject-verb", 2, 1)].agreeing == ["Gender", "Number"]


def test_active_participles_are_left_out_elsewhere():
    """§1.1 Verb forms: outside those languages an active participle is no target."""
    assert pairs(*CZECH) == {("predicative", 5, 3)}


# §1.1 Notes: `coordinated`.


def test_coordinated_is_true_when_the_controller_has_a_conj_dependent():
    """§1.1 Notes / §3: `coordinated` — the controller has a dependent with base deprel conj."""
    relations, _ = found(
        "1 Le le DET Gender=Masc|Number=Sing 2 det",
        "2 chat chat NOUN Gender=Masc|Number=Sing 6 nsubj",
        "3 et et CCONJ _ 5 cc",
        "4 le le DET Gender=Masc|Number=Sing 5 det",
        "5 chien chien NOUN Gender=Masc|Number=Sing 2 conj",
        "6 dort dormir VERB Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 0 root",
        "7 la le DET Gender=Fem|Number=Sing 8 det",
        "8 nuit nuit NOUN Gender=Fem|Number=Sing 6 obl",
        "9 et et CCONJ _ 10 cc",
        "10 rêve rêver VERB Mood=Ind|Number=Sing|Person=3|VerbForm=Fin 6 conj:svc",
    )
    coordinated = {key: r.coordinated for key, r in relations.items()}
    assert coordinated == {
        ("determiner", 1, 2): True,
        ("determiner", 4, 5): False,
        ("subject-verb", 6, 2): True,
        ("determiner", 7, 8): False,
    }


# §1.2 Value sets.

BOKMAAL = (
    "1 en en DET Gender=Masc|Number=Sing 3 det",
    "2 stor stor ADJ Definite=Ind|Gender=Com|Number=Sing 3 amod",
    "3 bil bil NOUN Definite=Ind|Gender=Masc|Number=Sing 0 root",
    "4 med med ADP _ 6 case",
    "5 et en DET Gender=Neut|Number=Sing 6 det",
    "6 hus hus NOUN Definite=Ind|Gender=Neut|Number=Sing 3 nmod",
    "7 og og CCONJ _ 8 cc",
    "8 ei ei NOUN Definite=Ind|Gender=Fem|Number=Sing 6 conj",
)


def test_norwegian_common_gender_stands_for_masculine_and_feminine():
    """§1.2: with Norwegian's value sets `Gender=Com` = {Masc, Fem}: *stor bil* agrees in Gender;
    the table keeps the value as written."""
    relations, drops = found(*BOKMAAL, value_sets=NORWEGIAN)
    stor = relations[("attributive", 2, 3)]
    assert stor.agreeing == ["Gender", "Number"]
    assert stor.target_gender == ["Com"] and stor.controller_gender == ["Masc"]
    assert drops == {}


def test_without_value_sets_common_gender_is_a_disagreement():
    """§1.2: the set rule alone sees Com and Masc as disjoint."""
    relations, drops = found(*BOKMAAL)
    assert ("attributive", 2, 3) not in relations
    assert drops == {"disagree": 1}


def test_value_sets_apply_to_distractors():
    """§1.3 `distractors` compare values as §1.2 does: with a `Com` controller, a Masc or Fem
    noun is no distractor, a Neut noun is."""
    rows = (
        "1 den den DET Gender=Com|Number=Sing 2 det",
        "2 ting ting NOUN Gender=Com|Number=Sing 0 root",
        "3 bil bil NOUN Gender=Masc|Number=Sing 2 nmod",
        "4 hus hus NOUN Gender=Neut|Number=Sing 2 nmod",
        "5 ei ei NOUN Gender=Fem|Number=Sing 2 nmod",
    )
    with_sets, _ = found(*rows, value_sets=NORWEGIAN)
    without, _ = found(*rows)
    assert with_sets[("determiner", 1, 2)].distractors == 1  # hus
    assert without[("determiner", 1, 2)].distractors == 3


# Treebank sentences of the shared data (§1.1).


def mined(treebank: str, sent_id: str, **facts) -> set[tuple[str, str, int, str, int]]:
    """(type, target form, target ID, controller form, controller ID) of one treebank sentence,
    as the package mines it."""
    found_pairs = set()
    for path in sorted((UD / treebank).glob("*.conllu*")):
        result = mine_file_columnar(FileJob(path, path.name, "xx", treebank, ALL, **facts))
        for r in result.relations.to_pylist():
            if r["sent_id"] == sent_id:
                found_pairs.add(
                    (
                        r["type"],
                        r["target_form"],
                        r["target_id"],
                        r["controller_form"],
                        r["controller_id"],
                    )
                )
    return found_pairs


@needs_shared
def test_french_gsd_copula_takes_the_outer_subject_and_the_verb_its_own():
    """§1.1 Subjects: fr-ud-dev_00863 *La question suivante est : Peut-on y prendre épouse ?*"""
    got = {(t, tid, c, cid) for kind, t, tid, c, cid in mined("UD_French-GSD", "fr-ud-dev_00863")}
    assert ("est", 4, "question", 2) in got and ("Peut", 6, "-on", 7) in got
    assert ("Peut", 6, "question", 2) not in got and ("est", 4, "-on", 7) not in got


@needs_shared
def test_italian_pud_participle_without_verbform_is_no_target():
    """§1.1 Verb forms: n01022016 *Gli investimenti … sono cresciuti* gives no cresciuti ←
    investimenti (the auxiliary *sono* still agrees)."""
    got = mined("UD_Italian-PUD", "n01022016")
    assert not any(t == "cresciuti" and c == "investimenti" for _, t, _, c, _ in got)
    assert ("subject-verb", "sono", 6, "investimenti", 2) in got


@needs_shared
def test_russian_pud_auxiliary_heading_its_clause_agrees_with_its_subject():
    """§1.1 `subject-verb` (a): n01010042 *Был момент* gives Был#2 ← момент#3."""
    assert ("subject-verb", "Был", 2, "момент", 3) in mined("UD_Russian-PUD", "n01010042")


@pytest.mark.parametrize("sentence", [KEYS_ARE_BROKEN, OUTER, CZECH, BOKMAAL])
def test_reference_and_package_agree_with_all_facts(sentence):
    """The engines agree whatever the language facts (participles, value sets)."""
    found(*sentence, participle_agreement=True, value_sets=NORWEGIAN)


def test_the_lexicon_keeps_every_member_upos_and_the_deprel_column_holds_every_bit():
    from ud_agree.mine.lexicon import LEXICON_UPOS
    from ud_agree.mine.rules import candidates as found
    from ud_agree.mine.rules import words as vocab

    members = {tag for row in found.ROWS for tag in row.targets + row.controllers}
    assert members == LEXICON_UPOS and {"DET", "ADJ", "NOUN", "PRON"} <= members
    bits = len(vocab.BASE_DEPRELS) + len(vocab.FULL_DEPRELS)
    assert 8 * vocab.DEPREL_DTYPE.itemsize >= bits
    assert vocab.deprel_bits(b"nsubj:pass") == vocab.NSUBJ | vocab.NSUBJ_PASS
    assert vocab.deprel_bits(b"nsubj:outer") == vocab.NSUBJ | vocab.NSUBJ_OUTER
    assert vocab.deprel_bits(b"obl:arg") == vocab.OBL
    assert vocab.deprel_bits(b"nmod:poss") == vocab.NMOD | vocab.NMOD_POSS
    assert vocab.deprel_bits(b"acl:relcl") == vocab.ACL_RELCL  # base `acl` is not read
    assert vocab.deprel_bits(b"xcomp") == vocab.XCOMP
    assert vocab.deprel_bits(b"advmod") == 0
