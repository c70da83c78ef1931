"""A Finnish nominative with a possessive suffix shows no Number (`hidden-number`): the plural
*-t* is lost before the suffix, so *työmme* is "our work" or "our works", and *työmme jatkuu* →
*jatkuvat* is as grammatical (Karlsson, *Finnish: A Comprehensive Grammar*). Sentences written
here, where the right pairs are known; the relations' context is checked against the
word-by-word reference too."""

from __future__ import annotations

from mine.languages import VerbContext, load_verb_contexts
from tests.mine.test_pairs import mine_with_skips
from tests.mine.test_participle_context import contexts, made, reasons

JATKUU = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act"
# *Työmme jatkuu*: the subject with the suffix of "our".
POSSESSED = (
    "1 Työmme työ NOUN Case=Nom|Number=Sing|Number[psor]=Plur|Person[psor]=1 2 nsubj",
    f"2 jatkuu jatkua VERB {JATKUU} 0 root",
)
# *Työ jatkuu*: the same without it, whose Number shows (*työt* is the plural).
BARE = (
    "1 Työ työ NOUN Case=Nom|Number=Sing 2 nsubj",
    f"2 jatkuu jatkua VERB {JATKUU} 0 root",
)
# *Monet sisaremme jatkuvat*: *monet* ("many") shows the plural.
SHOWN = (
    "1 Monet moni PRON Case=Nom|Number=Plur|PronType=Ind 2 det",
    "2 sisaremme sisar NOUN Case=Nom|Number=Plur|Number[psor]=Plur|Person[psor]=1 3 nsubj",
    "3 jatkuvat jatkua VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act 0 root",
)
# The verb's other forms, for the lexicon: *työt jatkuvat*, *minä jatkun*.
FORMS = (
    (
        "1 Työt työ NOUN Case=Nom|Number=Plur 2 nsubj",
        "2 jatkuvat jatkua VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act 0 root",
    ),
    (
        "1 Minä minä PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
        "2 jatkun jatkua VERB Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin|Voice=Act 0 root",
    ),
)


def test_a_possessed_nominative_has_no_number_pair(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, POSSESSED, BARE, SHOWN, *FORMS, lang="Finnish")
    assert ("jatkuu", "jatkuvat") not in made(pairs, "s1", "subject-verb")
    assert "hidden-number" in reasons(skips, "s1")
    # Its Person shows: *työmme jatkun* is no Finnish.
    assert ("jatkuu", "jatkun") in made(pairs, "s1", "subject-verb")
    # Without the suffix the subject is singular, and its Number pair is made.
    assert ("jatkuu", "jatkuvat") in made(pairs, "s2", "subject-verb")
    assert "hidden-number" not in reasons(skips, "s2")
    # Another word shows the plural: *monet sisaremme jatkuu* is no Finnish.
    assert ("jatkuvat", "jatkuu") in made(pairs, "s3", "subject-verb")
    assert "hidden-number" not in reasons(skips, "s3")


def test_the_engine_and_the_reference_read_a_hidden_number_alike():
    finnish = load_verb_contexts()["fi"]
    assert finnish.possessive_hides_number
    assert ("subject-verb", 2, "hidden-number") in contexts(*POSSESSED, context=finnish)
    assert ("subject-verb", 2, None) in contexts(*BARE, context=finnish)
    assert ("subject-verb", 3, None) in contexts(*SHOWN, context=finnish)
    # A language whose plural survives the suffix (Turkish *evlerim*) reads the subject as is.
    assert ("subject-verb", 2, None) in contexts(*POSSESSED, context=VerbContext())
