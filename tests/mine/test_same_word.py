"""Another word's series under one lemma: UD lemmatises Czech *stát se* 'happen' (past *stal*,
*stala*, *stalo*) and *stát* 'stand' (*stál*, *stála*, *stálo*) as one *stát*, so a cell holds
both verbs' forms; the bad form is the one of the word's own series. Sentences written here,
where the right pairs are known."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

PAST = "Polarity=Pos|Tense=Past|VerbForm=Part|Voice=Act"
NOUN_GENDER = {"Fem": "Gender=Fem", "Neut": "Gender=Neut", "Masc": "Animacy=Anim|Gender=Masc"}


def clause(noun: str, gender: str, verb: str, reflexive: bool = False) -> tuple[str, ...]:
    """*<noun> [se] <verb>*: a singular subject and its past participle (lemma *stát*)."""
    feats = f"{NOUN_GENDER[gender]}|Number=Sing"
    rows = [f"1 {noun} {noun} NOUN Case=Nom|{feats} {3 if reflexive else 2} nsubj"]
    if reflexive:
        rows.append("2 se se PRON Case=Acc|PronType=Prs|Reflex=Yes|Variant=Short 3 expl:pv")
    rows.append(f"{len(rows) + 1} {verb} stát VERB {feats}|{PAST} 0 root")
    return tuple(rows)


# *stát* 'stand' is the commoner verb of the two in the Feminine: its *stála* outnumbers *stala*.
STAND = [clause("žena", "Fem", "stála")] * 3 + [clause("okno", "Neut", "stálo")]
HAPPEN = [clause("věc", "Fem", "stala", reflexive=True)]


def bad_forms(pairs: pl.DataFrame, sent_id: str) -> set[tuple[str, str, str]]:
    rows = pairs.filter((pl.col("sent_id") == sent_id) & (pl.col("feature") == "Gender"))
    return set(rows.select("good_form", "bad_value", "bad_form").iter_rows())


def test_the_bad_form_is_of_the_words_own_series(tmp_path):
    # *neštěstí se stalo* → Fem *stala* (it happened), never *stála* (it stood), though *stála*
    # is the Feminine cell's most frequent form: the Neuter cell holds *stálo* beside *stalo*,
    # and *stála* shares more with *stálo* than with *stalo*.
    s1 = clause("neštěstí", "Neut", "stalo", reflexive=True)
    pairs, _, _ = mine_with_skips(tmp_path, s1, *STAND, *HAPPEN, lang="Czech")
    assert ("stalo", "Fem", "stala") in bad_forms(pairs, "s1")
    assert ("stalo", "Fem", "stála") not in bad_forms(pairs, "s1")
    # *okno stálo* → *stála*: the other verb keeps its own series too.
    assert ("stálo", "Fem", "stála") in bad_forms(pairs, "s5")


def test_the_commonest_form_stays_where_the_words_cell_holds_one_series(tmp_path):
    # Without *stálo* in the Neuter cell nothing says the lemma spans two words: the commonest
    # Feminine form stays the bad form (a spelling variant is no other word).
    s1 = clause("neštěstí", "Neut", "stalo", reflexive=True)
    stand = [clause("žena", "Fem", "stála")] * 3
    pairs, _, _ = mine_with_skips(tmp_path, s1, *stand, *HAPPEN, lang="Czech")
    assert ("stalo", "Fem", "stála") in bad_forms(pairs, "s1")


def test_a_form_of_the_other_series_is_used_where_the_cell_has_no_own_one(tmp_path):
    # The Feminine cell holds *stála* alone: nothing says which series is the word's, so it
    # stays (French *nouveau* → *nouvelle* beside *nouvel* is the same shape, and valid).
    s1 = clause("neštěstí", "Neut", "stalo", reflexive=True)
    pairs, _, _ = mine_with_skips(tmp_path, s1, *STAND, lang="Czech")
    assert ("stalo", "Fem", "stála") in bad_forms(pairs, "s1")


def test_no_pair_where_the_own_series_form_could_be_correct(tmp_path):
    # Czech PUD tags *stala* Fem Sing or Neut Plur as `Gender=Fem,Neut|Number=Plur,Sing`: the
    # word's own series' form could be correct, so its Feminine is no violation to make, and the
    # other verb's *stála* is no stand-in for it.
    s1 = clause("neštěstí", "Neut", "stalo", reflexive=True)
    both = (
        "1 věci věc NOUN Case=Nom|Gender=Fem|Number=Plur 3 nsubj",
        "2 se se PRON Case=Acc|PronType=Prs|Reflex=Yes|Variant=Short 3 expl:pv",
        f"3 stala stát VERB Gender=Fem,Neut|Number=Plur,Sing|{PAST} 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, s1, *STAND, *HAPPEN, both, both, lang="Czech")
    assert not bad_forms(pairs, "s1") & {("stalo", "Fem", "stála"), ("stalo", "Fem", "stala")}
    refused = skips.filter((pl.col("sent_id") == "s1") & (pl.col("bad_value") == "Fem"))
    assert refused.get_column("reason").to_list() == ["other-series"]
