"""§4.3 a dropped subject reads the sentence anew: where the copula heads its clause (Czech
existential *být*), its nominative noun subject is the only nominal, and with a dropped first or
second person subject it reads as the predicate. Sentences written here."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

BYT = "Mood=Ind|Number=Plur|Person={}|Tense=Pres|VerbForm=Fin"
NOUN = "Animacy=Inan|Case=Nom|Gender=Masc|Number=Plur"

# *Jsou rozchody.* 'There are break-ups.': *Jste rozchody* is "you are break-ups", grammatical.
EXISTENTIAL = (f"1 Jsou být AUX {BYT.format(3)} 0 root",
               f"2 rozchody rozchod NOUN {NOUN} 1 nsubj")  # fmt: skip
# *Rozchody jsou těžké.* 'Break-ups are hard.': the predicate is the adjective, and *rozchody
# jste těžké* has no reading.
COPULAR = (f"1 Rozchody rozchod NOUN {NOUN} 3 nsubj",
           f"2 jsou být AUX {BYT.format(3)} 3 cop",
           f"3 těžké těžký ADJ {NOUN} 0 root")  # fmt: skip


def pronoun(form: str, person: str, verb: str) -> tuple[str, ...]:
    return (f"1 {form} {form.lower()} PRON Case=Nom|Number=Plur|Person={person}|PronType=Prs 2 nsubj",
            f"2 {verb} být AUX {BYT.format(person)} 0 root")  # fmt: skip


PARADIGM = [pronoun("My", "1", "jsme"), pronoun("Vy", "2", "jste")] * 2


def person_pairs(pairs: pl.DataFrame, sent_id: str) -> set[str]:
    rows = pairs.filter(
        (pl.col("sent_id") == sent_id)
        & (pl.col("type") == "subject-verb")
        & (pl.col("feature") == "Person")
    )
    return set(rows.get_column("bad_form").str.to_lowercase())


def test_an_existential_copula_has_no_person_varied_in_a_pro_drop_language(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, EXISTENTIAL, COPULAR, *PARADIGM, lang="Czech")
    assert person_pairs(pairs, "s1") == set()
    refused = skips.filter((pl.col("sent_id") == "s1") & (pl.col("feature") == "Person"))
    assert refused.get_column("reason").to_list() == ["predicate-nominal"]
    # The copula of an adjectival predicate keeps its pairs.
    assert person_pairs(pairs, "s2") == {"jsme", "jste"}


def test_an_existential_copula_keeps_its_person_pairs_where_subjects_are_not_dropped(tmp_path):
    # English is no pro-drop language: *there are* has no subject to drop (written Czech-like
    # here, the language alone differs).
    pairs, _, _ = mine_with_skips(tmp_path, EXISTENTIAL, *PARADIGM, lang="English")
    assert person_pairs(pairs, "s1") == {"jsme", "jste"}
