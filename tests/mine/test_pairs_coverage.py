"""DESIGN.md §4's additions (issue 35) on sentences written here: the implicit third person with
its unagreement exception, transparent multiword tokens, and a `pair_skips` row per skip."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

FIN = "Mood=Ind|Tense=Pres|VerbForm=Fin"
# *The answer is right*: a NOUN subject without Person, a copula with Person 3.
ANSWER_IS = (
    "1 The the DET Definite=Def|PronType=Art 2 det",
    "2 answer answer NOUN Number=Sing 4 nsubj",
    f"3 is be AUX {FIN}|Number=Sing|Person=3 4 cop",
    "4 right right ADJ Degree=Pos 0 root",
)
# The other forms of *be* the lexicon needs (same other features as *is*).
BE = (
    ("1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
     f"2 am be AUX {FIN}|Number=Sing|Person=1 0 root"),
    ("1 you you PRON Case=Nom|Number=Sing|Person=2|PronType=Prs 2 nsubj",
     f"2 are be AUX {FIN}|Number=Sing|Person=2 0 root"),
    ("1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
     f"2 are be AUX {FIN}|Number=Plur|Person=3 0 root"),
)  # fmt: skip


def rows(frame: pl.DataFrame, sent_id: str, *columns: str) -> set[tuple]:
    return set(frame.filter(pl.col("sent_id") == sent_id).select(columns).iter_rows())


def test_noun_subject_counts_as_third_person_for_pairs_only(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, ANSWER_IS, *BE, lang="English")
    assert rows(pairs, "s1", "feature", "good_value", "bad_value", "sentence_bad") == {
        ("Person", "3", "1", "The answer am right"),
        # *are* is also Sing (Person 2): without the subject's implicit Person it could agree
        # on Number alone and would be refused as syncretic. One bad sentence, one row (§4.1):
        # Number first, Person 2 in `also`.
        ("Number", "Sing", "Plur", "The answer are right"),
    }
    assert rows(skips, "s1", "feature") == set()
    also = pairs.filter(pl.col("sent_id") == "s1").select("bad_form", pl.col("also").list.join(","))
    assert set(also.iter_rows()) == {("am", ""), ("are", "Person=2")}
    # The relation itself is unchanged: Person is no agreeing feature (relations, class average).
    relations = pl.read_parquet(tmp_path / "corpus" / "en" / "relations.parquet")
    (relation,) = relations.filter(pl.col("sent_id") == "s1").iter_rows(named=True)
    assert relation["agreeing"] == ["Number"] and relation["controller_person"] == []


def test_pronoun_subject_without_person_and_other_types_get_no_implicit_person(tmp_path):
    who = (  # *who is right*: a PRON subject without Person is no NOUN
        "1 who who PRON PronType=Rel|Number=Sing 3 nsubj",
        f"2 is be AUX {FIN}|Number=Sing|Person=3 3 cop",
        "3 right right ADJ Degree=Pos 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, who, *BE, lang="English")
    assert rows(pairs, "s1", "feature") <= {("Number",)}


def test_controller_varied_never_takes_the_implicit_person(tmp_path):
    answers = ("1 answers answer NOUN Number=Plur 0 root",)
    pairs, _, _ = mine_with_skips(tmp_path, ANSWER_IS, *BE, answers, lang="English", vary="both")
    varied = set(pairs.filter(pl.col("sent_id") == "s1").select("varied", "feature").iter_rows())
    assert ("controller", "Person") not in varied and ("controller", "Number") in varied
    assert ("target", "Person") in varied


SPANISH = (
    "1 los el DET Definite=Def|Gender=Masc|Number=Plur|PronType=Art 2 det",
    "2 estudiantes estudiante NOUN Gender=Masc|Number=Plur 3 nsubj",
    f"3 trabajan trabajar VERB {FIN}|Number=Plur|Person=3 0 root",
)
SPANISH_SING = (
    "1 el el DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
    "2 estudiante estudiante NOUN Gender=Masc|Number=Sing 3 nsubj",
    f"3 trabaja trabajar VERB {FIN}|Number=Sing|Person=3 0 root",
)
TRABAJAR = tuple(
    (f"1 {form} trabajar VERB {FIN}|Number={number}|Person={person} 0 root",)
    for form, number, person in [
        ("trabajo", "Sing", 1), ("trabajas", "Sing", 2), ("trabajamos", "Plur", 1),
        ("trabajáis", "Plur", 2),
    ]
)  # fmt: skip


def test_unagreement_keeps_the_person_of_a_plural_target_but_not_of_a_singular(tmp_path):
    pairs, skips, manifest = mine_with_skips(
        tmp_path, SPANISH, SPANISH_SING, *TRABAJAR, lang="Spanish"
    )
    pairs = pairs.filter(pl.col("type") == "subject-verb")
    skips = skips.filter(pl.col("type") == "subject-verb")
    # *los estudiantes trabajamos* is grammatical Spanish: no Person pair, an `unagreement` row.
    assert rows(pairs, "s1", "feature", "sentence_bad") == {("Number", "los estudiantes trabaja")}
    assert rows(skips, "s1", "varied", "feature", "bad_value", "reason") == {
        ("target", "Person", None, "unagreement")
    }
    assert rows(pairs, "s2", "feature", "sentence_bad") == {
        ("Person", "el estudiante trabajo"),
        ("Person", "el estudiante trabajas"),
        ("Number", "el estudiante trabajan"),
    }
    assert manifest["counts"]["pair_skips"]["unagreement"] == 1


def test_without_unagreement_a_plural_target_has_its_person_varied(tmp_path):
    enfants = (
        "1 les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 enfants enfant NOUN Gender=Masc|Number=Plur 3 nsubj",
        f"3 dorment dormir VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    dormons = (f"1 dormons dormir VERB {FIN}|Number=Plur|Person=1 0 root",)
    pairs, skips, _ = mine_with_skips(tmp_path, enfants, dormons)
    assert ("Person", "les enfants dormons") in rows(pairs, "s1", "feature", "sentence_bad")
    assert "unagreement" not in set(skips["reason"])


def isnt(first: str, word: str) -> tuple[str, ...]:
    """*<first> answer isn't right* with the copula inside a multiword token."""
    return (
        f"1 {first} the DET Definite=Def|PronType=Art 2 det",
        "2 answer answer NOUN Number=Sing 5 nsubj",
        "3-4 isn't _ _ _ _ _",
        f"3 {word} be AUX {FIN}|Number=Sing|Person=3 5 cop",
        "4 n't not PART Polarity=Neg 5 advmod",
        "5 right right ADJ Degree=Pos 0 root",
    )


# *aren't* written as a token somewhere (§4.1: a rebuilt token must be attested; *amn't* is not).
ARENT = (
    "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 4 nsubj",
    "2-3 aren't _ _ _ _ _",
    f"2 are be AUX {FIN}|Number=Plur|Person=3 4 cop",
    "3 n't not PART Polarity=Neg 4 advmod",
    "4 right right ADJ Degree=Pos 0 root",
)


def test_word_of_a_transparent_token_is_replaced_inside_it(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, isnt("The", "is"), *BE, ARENT, lang="English")
    got = pairs.filter((pl.col("sent_id") == "s1") & (pl.col("bad_value") == "Plur"))
    (row,) = got.iter_rows(named=True)
    assert row["sentence_bad"] == "The answer aren't right"
    assert (row["good_form"], row["bad_form"]) == ("is", "are")
    assert row["sentence_good"][row["start"] : row["end_good"]] == "is"
    assert row["sentence_bad"][row["start"] : row["end_bad"]] == "are"
    assert (row["start"], row["end_good"], row["end_bad"]) == (11, 13, 14)
    assert "in-mwt" not in set(skips["reason"])
    # *amn't* is a token no treebank writes.
    assert rows(skips, "s1", "feature", "bad_value", "reason") >= {
        ("Person", "1", "unattested-token")
    }


def test_token_capitalisation_is_kept_whatever_the_word_form(tmp_path):
    question = (
        "1-2 Isn't _ _ _ _ _",
        f"1 {{}} be AUX {FIN}|Number=Sing|Person=3 5 cop",
        "2 n't not PART Polarity=Neg 5 advmod",
        "3 the the DET Definite=Def|PronType=Art 4 det",
        "4 answer answer NOUN Number=Sing 5 nsubj",
        "5 right right ADJ Degree=Pos 0 root SpaceAfter=No",
        "6 ? ? PUNCT _ 5 punct",
    )
    for word in ("Is", "is"):  # treebanks write the word as in the token, or lower-cased
        written = tuple(line.format(word) for line in question)
        pairs, _, _ = mine_with_skips(tmp_path / word, written, *BE, ARENT, lang="English")
        assert rows(pairs, "s1", "good_form", "sentence_bad") == {
            ("Is", "Aren't the answer right?"),
        }


def test_opaque_tokens_stay_in_mwt_with_no_bad_value(tmp_path):
    zum = (
        "1 Er er PRON Case=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 geht gehen VERB {FIN}|Number=Sing|Person=3 0 root",
        "3-4 zum _ _ _ _ _",
        "3 zu zu ADP _ 5 case",
        "4 dem der DET Case=Dat|Definite=Def|Gender=Neut|Number=Sing|PronType=Art 5 det",
        "5 Haus Haus NOUN Case=Dat|Gender=Neut|Number=Sing 2 obl",
    )
    der = ("1 der der DET Case=Dat|Definite=Def|Gender=Fem|Number=Sing|PronType=Art 0 root",)
    pairs, skips, _ = mine_with_skips(tmp_path, zum, der, lang="German")
    assert not rows(pairs, "s1", "type") & {("determiner",)}
    assert rows(
        skips.filter(pl.col("type") == "determiner"), "s1", "feature", "bad_value", "reason"
    ) == {
        ("Case", None, "in-mwt"),
        ("Gender", None, "in-mwt"),
        ("Number", None, "in-mwt"),
    }


def test_later_part_of_a_token_keeps_its_first_letter(tmp_path):
    # Greek *στη* = *σ* + *τη*: *στον* is a contraction, *ση* (with the nominative *η*) none.
    sti = (
        "1 Πάει πηγαίνω VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
        "2-3 στη _ _ _ _ _",
        "2 σ σε ADP _ 4 case",
        "3 τη ο DET Case=Acc|Definite=Def|Gender=Fem|Number=Sing|PronType=Art 4 det",
        "4 πόλη πόλη NOUN Case=Acc|Gender=Fem|Number=Sing 1 obl",
    )
    forms = (
        ("1 τον ο DET Case=Acc|Definite=Def|Gender=Masc|Number=Sing|PronType=Art 0 root",),
        ("1 η ο DET Case=Nom|Definite=Def|Gender=Fem|Number=Sing|PronType=Art 0 root",),
    )
    ston = (
        "1-2 στον _ _ _ _ _",
        "1 σ σε ADP _ 3 case",
        "2 τον ο DET Case=Acc|Definite=Def|Gender=Masc|Number=Sing|PronType=Art 3 det",
        "3 δρόμο δρόμος NOUN Case=Acc|Gender=Masc|Number=Sing 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, sti, *forms, ston, lang="Greek")
    assert rows(pairs, "s1", "feature", "bad_form", "sentence_bad") == {
        ("Gender", "τον", "Πάει στον πόλη")
    }
    assert rows(skips, "s1", "feature", "bad_value", "reason") == {("Case", "Nom", "elision")}


def test_clitic_written_with_an_apostrophe_is_neither_varied_nor_a_bad_form(tmp_path):
    shes = (
        "1 She she PRON Case=Nom|Gender=Fem|Number=Sing|Person=3|PronType=Prs 3 nsubj SpaceAfter=No",
        f"2 's be AUX {FIN}|Number=Sing|Person=3 3 aux",
        "3 saying say VERB Tense=Pres|VerbForm=Part 0 root",
    )
    answers_re = (
        "1 answers answer NOUN Number=Plur 4 nsubj",
        f"2 're be AUX {FIN}|Number=Plur|Person=3 4 cop",
        "3 n't not PART _ 4 advmod",
        "4 right right ADJ Degree=Pos 0 root",
    )
    pairs, skips, _ = mine_with_skips(
        tmp_path, shes, ANSWER_IS, answers_re, *BE[:2], lang="English"
    )
    assert not rows(pairs, "s1", "feature")  # never *Sheam saying*
    assert rows(skips, "s1", "feature", "bad_value", "reason") == {
        ("Number", None, "elision"),
        ("Person", None, "elision"),
    }
    assert "'re" not in set(pairs["bad_form"])  # *The answer 're right* is no pair either


def test_a_row_per_skip_with_its_bad_value(tmp_path):
    prix = (  # *prix* is singular and plural: the bad value Plur is ambiguous
        "1 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 prix prix NOUN Gender=Masc|Number=Sing 3 nsubj",
        f"3 augmente augmenter VERB {FIN}|Number=Sing|Person=3 0 root",
    )
    plural = (
        "1 prix prix NOUN Gender=Masc|Number=Plur 2 nsubj",
        f"2 augmentent augmenter VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    coordination = (
        "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 chat chat NOUN Gender=Masc|Number=Sing 5 nsubj",
        "3 et et CCONJ _ 4 cc",
        "4 chien chien NOUN Gender=Masc|Number=Sing 2 conj",
        f"5 dorment dormir VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    no_lemma = (
        "1 la _ DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 porte porte NOUN Gender=Fem|Number=Sing 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, prix, plural, coordination, no_lemma)
    key = ("type", "varied", "feature", "bad_value", "reason")
    # (Every DET and VERB here is singular and third person: no other value of the
    # determiner's Number or the verb's Person to try.)
    assert rows(skips, "s1", *key) == {
        ("determiner", "target", "Gender", "Fem", "no-form"),  # no *la* of lemma *le*
        ("subject-verb", "target", "Number", "Plur", "ambiguous-controller"),
    }
    assert rows(skips, "s3", *key) == {
        ("determiner", "target", "Gender", None, "coordinated"),
        ("determiner", "target", "Number", None, "coordinated"),
    }
    assert rows(skips, "s4", *key) == {
        ("determiner", "target", "Gender", None, "no-lemma"),
        ("determiner", "target", "Number", None, "no-lemma"),
    }
    # Every (relation, varied role, feature, bad value) gives a pair or a skip, never both.
    key_columns = ["sent_id", "type", "target_id", "controller_id", "varied", "feature"]
    both = pairs.join(skips, on=[*key_columns, "bad_value"], how="inner")
    assert both.height == 0
