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
