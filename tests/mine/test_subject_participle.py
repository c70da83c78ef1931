"""The `subject-participle` type (DESIGN.md §1.7): a participle marked by a copula, a passive
auxiliary or an auxiliary other than *have*, and its subjects, on sentences written here."""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl

from tests.mine.test_pairs import mine_with_skips
from tests.reference.compare import assert_same
from tests.sentences import conllu
from ud_agree.schemas.corpus import TYPES

AVOIR = frozenset({"avoir"})
# *Elles sont parties.*: the participle agrees with its subject (auxiliary *être*).
ELLES_SONT_PARTIES = (
    "1 Elles elles PRON Gender=Fem|Number=Plur|Person=3|PronType=Prs 3 nsubj",
    "2 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 3 aux:tense",
    "3 parties partir VERB Gender=Fem|Number=Plur|Tense=Past|VerbForm=Part 0 root",
)
# *Elle a travaillé.*: a participle under *avoir* agrees with no subject.
ELLE_A_TRAVAILLE = (
    "1 Elle elle PRON Gender=Fem|Number=Sing|Person=3|PronType=Prs 3 nsubj",
    "2 a avoir AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 aux:tense",
    "3 travaillé travailler VERB Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 0 root",
)
# Forms for the lexicon: *Ils sont partis.*, *Elle est partie.*
ILS_SONT_PARTIS = (
    "1 Ils il PRON Gender=Masc|Number=Plur|Person=3|PronType=Prs 3 nsubj",
    "2 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 3 aux:tense",
    "3 partis partir VERB Gender=Masc|Number=Plur|Tense=Past|VerbForm=Part 0 root",
)
ELLE_EST_PARTIE = (
    "1 Elle elle PRON Gender=Fem|Number=Sing|Person=3|PronType=Prs 3 nsubj",
    "2 est être AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 3 aux:tense",
    "3 partie partir VERB Gender=Fem|Number=Sing|Tense=Past|VerbForm=Part 0 root",
)


def relations_of(*rows: str, have: frozenset[str] = AVOIR) -> set[tuple[str, int, int]]:
    """(type, target_id, controller_id) of one sentence's kept relations, the engine checked
    against the reference."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "xx_test-ud-test.conllu"
        path.write_text(conllu(*rows), encoding="utf-8")
        result = assert_same(path, frozenset(TYPES), have_lemmas=have)
    assert result is not None
    return {(r["type"], r["target_id"], r["controller_id"]) for r in result.relations.to_pylist()}


def test_elles_sont_parties_is_a_target_of_its_subject():
    assert relations_of(*ELLES_SONT_PARTIES) == {
        ("subject-verb", 2, 1),
        ("subject-participle", 3, 1),
    }


def test_elle_a_travaille_is_no_target_under_the_languages_have():
    assert relations_of(*ELLE_A_TRAVAILLE) == {("subject-verb", 2, 1)}
    # Without *avoir* in the table the auxiliary marks the participle (and it disagrees).
    assert ("subject-participle", 3, 1) not in relations_of(*ELLE_A_TRAVAILLE, have=frozenset())


def test_a_passive_participle_stays_subject_verb_and_a_copula_marks_a_participle():
    passive = (
        "1 Les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 clés clé NOUN Gender=Fem|Number=Plur 4 nsubj:pass",
        "3 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 4 aux:pass",
        "4 cassées casser VERB Gender=Fem|Number=Plur|Tense=Past|VerbForm=Part 0 root",
    )
    found = relations_of(*passive)
    assert ("subject-verb", 4, 2) in found and ("subject-participle", 4, 2) not in found
    copula = (
        "1 Elles elles PRON Gender=Fem|Number=Plur|Person=3|PronType=Prs 3 nsubj",
        "2 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 3 cop",
        "3 fatiguées fatiguer VERB Gender=Fem|Number=Plur|Tense=Past|VerbForm=Part 0 root",
    )
    assert ("subject-participle", 3, 1) in relations_of(*copula)


def test_elles_sont_parties_gives_pairs_and_elle_a_travaille_none(tmp_path):
    pairs, _, manifest = mine_with_skips(
        tmp_path, ELLES_SONT_PARTIES, ELLE_A_TRAVAILLE, ILS_SONT_PARTIS, ELLE_EST_PARTIE
    )
    participle = pairs.filter(pl.col("type") == "subject-participle")
    made = set(participle.select("sent_id", "feature", "sentence_bad").iter_rows())
    assert ("s1", "Gender", "Elles sont partis") in made
    assert ("s1", "Number", "Elles sont partie") in made
    assert participle.filter(pl.col("sent_id") == "s2").is_empty()
    assert manifest["counts"]["relations_by_type"]["subject-participle"] == 3
    assert manifest["counts"]["pairs_by_type"]["subject-participle"] == participle.height
