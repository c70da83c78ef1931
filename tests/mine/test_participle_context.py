"""French participles whose subject is not their controller (Grevisse, *Le Bon Usage*): a
participle with a reflexive and a direct object agrees with that object or with nothing
(`reflexive-object`), and *on* takes notional agreement in a participle or predicative
adjective (`notional-subject`). Sentences written here, where the right pairs are known; the
relations' context is checked against the word-by-word reference too."""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl

from mine.languages import VerbContext
from tests.mine.test_pairs import mine_with_skips
from tests.reference.compare import assert_same
from tests.sentences import conllu
from ud_agree.schemas.corpus import TYPES

SONT = "Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin"
EST = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
PART = "Gender={g}|Number={n}|Tense=Past|VerbForm=Part"
SE = "Person=3|PronType=Prs|Reflex=Yes"
ILS = "Gender=Masc|Number=Plur|Person=3|PronType=Prs"


def participle(subject: str, feats: str, aux: str, form: str, g: str, n: str) -> tuple[str, ...]:
    """*<subject> <aux> <form>*: a subject, its *être*, the participle (*ils sont partis*)."""
    return (
        f"1 {subject} {subject.lower()} PRON {feats} 3 nsubj",
        f"2 {aux} être AUX {SONT if n == 'Plur' else EST} 3 aux:tense",
        f"3 {form} partir VERB {PART.format(g=g, n=n)} 0 root",
    )


# The participle's four forms, for the lexicon.
FORMS = (
    participle("Ils", ILS, "sont", "partis", "Masc", "Plur"),
    participle("Elles", "Gender=Fem|Number=Plur|Person=3|PronType=Prs", "sont", "parties", "Fem", "Plur"),
    participle("Il", "Gender=Masc|Number=Sing|Person=3|PronType=Prs", "est", "parti", "Masc", "Sing"),
    participle("Elle", "Gender=Fem|Number=Sing|Person=3|PronType=Prs", "est", "partie", "Fem", "Sing"),
)  # fmt: skip

# *Les commissions que se sont partis les partis* (the shape of *que se sont partagé ces grands
# partis*): *que* is the object, *se* indirect; the participle agrees with *commissions* before
# it, never with *partis*.
REFLEXIVE_WITH_OBJECT = (
    "1 commissions commission NOUN Gender=Fem|Number=Plur 0 root",
    "2 que que PRON PronType=Rel 5 obj",
    f"3 se soi PRON {SE} 5 expl:pv",
    f"4 sont être AUX {SONT} 5 aux:tense",
    f"5 partis partir VERB {PART.format(g='Masc', n='Plur')} 1 acl:relcl",
    "6 les le DET Definite=Def|Number=Plur|PronType=Art 7 det",
    "7 partis parti NOUN Gender=Masc|Number=Plur 5 nsubj",
)
# *Ils se sont partis*: the reflexive without another object; the subject controls.
REFLEXIVE_ALONE = (
    f"1 Ils il PRON {ILS} 4 nsubj",
    f"2 se soi PRON {SE} 4 expl:pv",
    f"3 sont être AUX {SONT} 4 aux:tense",
    f"4 partis partir VERB {PART.format(g='Masc', n='Plur')} 0 root",
)
# *On est partis*, *on est contents*: *on* takes the people meant's gender and number.
ON = "Gender=Masc|Number=Sing|Person=3|PronType=Ind"
ON_EST_PARTI = participle("On", ON, "est", "parti", "Masc", "Sing")
ON_EST_CONTENT = (
    f"1 On on PRON {ON} 3 nsubj",
    f"2 est être AUX {EST} 3 cop",
    "3 content content ADJ Gender=Masc|Number=Sing 0 root",
)
CONTENTS = (
    f"1 Ils il PRON {ILS} 3 nsubj",
    f"2 sont être AUX {SONT} 3 cop",
    "3 contents content ADJ Gender=Masc|Number=Plur 0 root",
)


def made(pairs: pl.DataFrame, sent_id: str, kind: str) -> set[tuple[str, str]]:
    rows = pairs.filter((pl.col("sent_id") == sent_id) & (pl.col("type") == kind))
    return set(rows.select("good_form", "bad_form").iter_rows())


def reasons(skips: pl.DataFrame, sent_id: str) -> set[str]:
    return set(skips.filter(pl.col("sent_id") == sent_id).get_column("reason").to_list())


def test_a_reflexive_participle_with_an_object_is_not_varied_against_its_subject(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, REFLEXIVE_WITH_OBJECT, REFLEXIVE_ALONE, *FORMS)
    assert made(pairs, "s1", "subject-participle") == set()
    assert "reflexive-object" in reasons(skips, "s1")
    # Without an object the reflexive is direct and the subject controls: *ils se sont partie*.
    assert made(pairs, "s2", "subject-participle") == {("partis", "parti"), ("partis", "parties")}
    assert "reflexive-object" not in reasons(skips, "s2")


def test_on_is_no_controller_of_a_participle_or_an_adjective(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, ON_EST_PARTI, ON_EST_CONTENT, CONTENTS, *FORMS)
    assert made(pairs, "s1", "subject-participle") == set()
    assert made(pairs, "s2", "predicative") == set()
    assert {"notional-subject"} <= reasons(skips, "s1") & reasons(skips, "s2")
    # The verb still agrees with *on* in the third person singular: *on sont* is no French.
    assert ("est", "sont") in made(pairs, "s1", "subject-verb")
    # A subject that shows its number controls: *ils sont content*.
    assert made(pairs, "s3", "predicative") == {("contents", "content")}


def contexts(*rows: str, context: VerbContext) -> set[tuple[str, int, str | None]]:
    """(type, target_id, target_context) of one sentence's relations, both engines alike."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "xx_test-ud-test.conllu"
        path.write_text(conllu(*rows), encoding="utf-8")
        result = assert_same(path, frozenset(TYPES), verb_context=context)
    assert result is not None
    return {(r["type"], r["target_id"], r["target_context"]) for r in result.relations.to_pylist()}


def test_the_engine_and_the_reference_read_the_context_alike():
    french = VerbContext(notional_subjects=frozenset({"on"}), reflexive_object=True)
    assert ("subject-participle", 5, "reflexive-object") in contexts(
        *REFLEXIVE_WITH_OBJECT, context=french
    )
    assert ("subject-participle", 4, None) in contexts(*REFLEXIVE_ALONE, context=french)
    assert ("predicative", 3, "notional-subject") in contexts(*ON_EST_CONTENT, context=french)
    # Another language's participle keeps its subject.
    assert ("subject-participle", 5, None) in contexts(
        *REFLEXIVE_WITH_OBJECT, context=VerbContext()
    )
