"""DESIGN.md §4.2's unmarked cells and borrowed values, the cases the judged sheets refused
(issue 41): a taken cell binds the bad form, is one the target's form fills, comes from a
nominative (or caseless) controller only, and a verb without Tense or Mood borrows nothing."""

from __future__ import annotations

from tests.mine.test_pairs import mine_with_skips
from tests.mine.test_pairs_contrasts import BE_FORMS, FIN, bad, made

YOU_ARE = (  # *are* is 2sg too (EWT's tag for *you are*)
    "1 you you PRON Case=Nom|Person=2|PronType=Prs 2 nsubj",
    f"2 are be AUX {FIN}|Number=Sing|Person=2 0 root",
)
THEY_ARE = (  # *are* left unmarked (LinES)
    "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
    f"2 are be AUX {FIN} 0 root",
)


def test_a_taken_number_holds_in_the_bad_form(tmp_path):
    these_cats = (  # Person 3 → 1 with the taken Plur is *are* itself: no *am*
        "1 These this DET Number=Plur|PronType=Dem 2 det",
        "2 cats cat NOUN Number=Plur 3 nsubj",
        f"3 are be AUX {FIN} 0 root",
    )
    we_are = (f"1 are be AUX {FIN}|Number=Plur|Person=1 0 root",)
    am_alone = (f"1 am be AUX {FIN}|Person=1 0 root",)  # a row without Number
    pairs, _, _ = mine_with_skips(tmp_path, these_cats, we_are, am_alone, *BE_FORMS, lang="English")
    got = bad(pairs, "s1")
    assert "These cats is" in got
    assert "These cats am" not in got


def test_a_taken_cell_is_one_the_targets_form_fills(tmp_path):
    the_range = (  # *are* is never 3sg: the cell (Sing, 3) is refused, so is *am*
        "1 The the DET Definite=Def|PronType=Art 2 det",
        "2 range range NOUN Number=Sing 3 nsubj",
        f"3 are be AUX {FIN} 0 root",
    )
    # Two tokens of each bundle: a single one does not decide (§4.1).
    pairs, skips, _ = mine_with_skips(
        tmp_path, the_range, THEY_ARE, YOU_ARE, YOU_ARE, *BE_FORMS, *BE_FORMS, lang="English"
    )
    assert bad(pairs, "s1") == set()
    assert skips.filter(skips["sent_id"] == "s1").is_empty()  # no attempt, no skip
    assert ("Number", "Sing", "they is", ("unmarked-cell",)) in made(pairs, "s2")


CONDITIONAL = "Aspect=Imp|Mood=Cnd|VerbForm=Fin"
BY_FORMS = tuple(
    (f"1 {form} být AUX {CONDITIONAL}|Number={number}|Person={person} 0 root",)
    for form, number, person in [
        ("bych", "Sing", 1), ("bys", "Sing", 2), ("bychom", "Plur", 1), ("byste", "Plur", 2),
    ]
)  # fmt: skip


def test_no_cell_from_a_genitive_subject(tmp_path):
    millions = (  # *15,5 milionů by šlo*: a quantified genitive, default 3sg neuter
        "1 15,5 15,5 NUM NumForm=Digit|NumType=Card 2 nummod:gov",
        "2 milionů milión NOUN Animacy=Inan|Case=Gen|Gender=Masc|Number=Plur 4 nsubj",
        f"3 by být AUX {CONDITIONAL} 4 aux",
        "4 šlo jít VERB Gender=Neut|Number=Sing|Tense=Past|VerbForm=Part 0 root",
    )
    parents = (  # a nominative plural: *by* is 3pl, *byste* a violation
        "1 rodiče rodič NOUN Animacy=Anim|Case=Nom|Gender=Masc|Number=Plur 3 nsubj",
        f"2 by být AUX {CONDITIONAL} 3 aux",
        "3 šli jít VERB Animacy=Anim|Gender=Masc|Number=Plur|Tense=Past|VerbForm=Part 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, millions, parents, *BY_FORMS, lang="Czech")
    assert bad(pairs, "s1") == set()
    assert "rodiče byste šli" in bad(pairs, "s2")


# UD_French-ALTS: finite verbs carry Number, Person and VerbForm only.
ALTS_FIN = "VerbForm=Fin"


def test_a_verb_without_tense_or_mood_borrows_nothing(tmp_path):
    aucun_seroit = (  # conditional *seroit* → present *sont* changes the mood, not Number
        "1 aucun aucun PRON _ 2 nsubj",
        f"2 seroit être AUX {ALTS_FIN}|Number=Sing|Person=3 0 root",
    )
    aucun_est = (  # a present tense: the borrowed Number is varied
        "1 aucun aucun PRON _ 2 nsubj",
        f"2 est être AUX {FIN}|Number=Sing|Person=3 0 root",
    )
    annotated = (
        "1 aucun aucun PRON Gender=Masc|Number=Sing|Person=3|PronType=Neg 2 nsubj",
        f"2 est être AUX {FIN}|Number=Sing|Person=3 0 root",
    )
    ils_sont = (
        "1 ils il PRON Gender=Masc|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        f"2 sont être AUX {ALTS_FIN}|Number=Plur|Person=3 0 root",
    )
    sont = (f"1 sont être AUX {FIN}|Number=Plur|Person=3 0 root",)
    pairs, skips, _ = mine_with_skips(
        tmp_path, aucun_seroit, aucun_est, annotated, ils_sont, sont, lang="French"
    )
    assert bad(pairs, "s1") == set()
    assert skips.filter(skips["sent_id"] == "s1").is_empty()  # refused as if nothing borrowed
    assert ("Number", "Plur", "aucun sont", ("lexicon-features",)) in made(pairs, "s2")


def test_an_elided_word_written_apart_is_still_elided(tmp_path):
    apart = (  # UD_French-ALTS writes *n' est* with a space: *n' sont* is no French spelling
        "1 il il PRON Gender=Masc|Number=Sing|Person=3|PronType=Prs 3 nsubj",
        "2 n' ne ADV Polarity=Neg 3 advmod",
        f"3 est être AUX {FIN}|Number=Sing|Person=3 0 root",
    )
    negated = (  # the full *ne* before a consonant: the pair is made
        "1 il il PRON Gender=Masc|Number=Sing|Person=3|PronType=Prs 3 nsubj",
        "2 ne ne ADV Polarity=Neg 3 advmod",
        f"3 est être AUX {FIN}|Number=Sing|Person=3 0 root",
    )
    sont = (f"1 sont être AUX {FIN}|Number=Plur|Person=3 0 root",)
    pairs, skips, _ = mine_with_skips(tmp_path, apart, negated, sont, sont, lang="French")
    assert bad(pairs, "s1") == set()
    assert "elision" in skips.filter(skips["sent_id"] == "s1")["reason"].to_list()
    assert "il ne sont" in bad(pairs, "s2")
