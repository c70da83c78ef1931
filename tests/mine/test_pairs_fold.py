"""One row per bad sentence (DESIGN.md §4.1) and `derived` (§3), on sentences written here."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

PRESENT = "Mood=Ind|Tense=Pres|VerbForm=Fin"
# The dog has a bone . — *has* → *have* is Number=Plur and Person=1 at once.
DOG_HAS = (
    "1 The the DET Definite=Def|PronType=Art 2 det",
    "2 dog dog NOUN Number=Sing 3 nsubj",
    f"3 has have VERB {PRESENT}|Number=Sing|Person=3 0 root",
    "4 bones bone NOUN Number=Plur 3 obj",
)
# Sentences that put *have* (1sg, 3pl) into the lexicon.
I_HAVE = ("1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
          f"2 have have VERB {PRESENT}|Number=Sing|Person=1 0 root")  # fmt: skip
THEY_HAVE = ("1 They they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
             f"2 have have VERB {PRESENT}|Number=Plur|Person=3 0 root")  # fmt: skip
# The dog is here . — *is* → *am* changes Person only, through the implicit third person (§4).
DOG_IS = (
    "1 The the DET Definite=Def|PronType=Art 2 det",
    "2 dog dog NOUN Number=Sing 3 nsubj",
    f"3 is be AUX {PRESENT}|Number=Sing|Person=3 0 root",
)
I_AM = ("1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
        f"2 am be AUX {PRESENT}|Number=Sing|Person=1 0 root")  # fmt: skip


def test_two_contrasts_giving_one_bad_sentence_are_one_row_with_also(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, DOG_HAS, I_HAVE, THEY_HAVE, lang="English")
    rows = pairs.filter(pl.col("sent_id") == "s1")
    # Number comes first in F's order (Number, Gender, Case, Person); Person=1 is named in `also`.
    assert rows.select("feature", "bad_value", "bad_form", "sentence_bad", "also").rows() == [
        ("Number", "Plur", "have", "The dog have bones", ["Person=1"])
    ]
    # A folded contrast made a pair: it is no skip.
    assert skips.filter(pl.col("sent_id") == "s1").filter(pl.col("bad_value") == "1").height == 0


def test_each_bad_sentence_is_written_once(tmp_path):
    pairs, _, _ = mine_with_skips(
        tmp_path, DOG_HAS, I_HAVE, THEY_HAVE, DOG_IS, I_AM, lang="English"
    )
    keys = pairs.select("treebank", "sent_id", "variant", "sentence_bad")
    assert keys.height == keys.unique().height > 0


def test_derived_names_the_implicit_person_and_a_plain_pair_names_nothing(tmp_path):
    pairs, _, _ = mine_with_skips(tmp_path, DOG_IS, I_AM, DOG_HAS, THEY_HAVE, lang="English")
    got = dict(
        pairs.filter(pl.col("sent_id").is_in(["s1", "s3"]))
        .select(pl.concat_str("good_form", pl.lit(">"), "bad_form"), "derived")
        .iter_rows()
    )
    # *is* → *am* needs the noun's implicit Person 3; *has* → *have* (Number) is the plain rule.
    # (Two sentences cannot measure agreement: both say so, §4.1.)
    assert got == {
        "is>am": ["agreement-unmeasured", "implicit-person"],
        "has>have": ["agreement-unmeasured"],
    }


def test_derived_names_a_bad_form_only_unimorph_knows(tmp_path):
    robe = (
        "1 une un DET Definite=Ind|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 robe robe NOUN Gender=Fem|Number=Sing 0 root",
        "3 verte vert ADJ Gender=Fem|Number=Sing 2 amod",
    )
    grand = ("1 grand grand ADJ Gender=Masc|Number=Sing 0 root",)  # Masc is no rare value (§4.1)
    unimorph = ("fra", "vert\tvert\tADJ;MASC;SG\n")
    pairs, _, _ = mine_with_skips(tmp_path, robe, grand, unimorph=unimorph)
    row = pairs.filter(pl.col("good_form") == "verte").row(0, named=True)
    assert (row["bad_form"], row["bad_source"]) == ("vert", "unimorph")
    assert "unimorph-form" in row["derived"]
