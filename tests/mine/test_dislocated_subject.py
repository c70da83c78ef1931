"""A subject before its own clause's subordinator: Czech *Ty že děláš zástupce?* ('you [say] that
you are the representative?') puts *ty* outside the clause *že* opens; where subjects are
dropped, *Ty že dělám zástupce?* ('you [say] that I am …?') reads with a subject of its own, so
the verb's Person and Number are not varied there. Sentences written here, where the right pairs
are known."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

VERB = "Mood=Ind|Polarity=Pos|Tense=Pres|VerbForm=Fin|Voice=Act"


def clause(subject: str, person: str, verb: str, particle: str | None) -> tuple[str, ...]:
    """*<subject> [<particle>] <verb> zástupce*: a pronoun subject, maybe a particle of the
    verb between (FicTree tags *že* there `advmod`, *když* is a `mark`), and its verb."""
    pronoun = f"Case=Nom|Number=Sing|Person={person}|PronType=Prs"
    v = 3 if particle else 2
    words = [f"1 {subject} {subject.lower()} PRON {pronoun} {v} nsubj"]
    if particle:
        deprel = "advmod" if particle == "že" else "mark"
        words.append(f"2 {particle} {particle} PART _ 3 {deprel}")
    words.append(f"{v} {verb} dělat VERB Number=Sing|Person={person}|{VERB} 0 root")
    words.append(f"{v + 1} zástupce zástupce NOUN Case=Acc|Gender=Masc|Number=Sing {v} obj")
    return tuple(words)


def forms() -> list[tuple[str, ...]]:
    """The verb's other cells, attested: *já dělám*, *my děláme*, *vy děláte*, *oni dělají*."""

    def one(pronoun: str, number: str, person: str, verb: str) -> tuple[str, ...]:
        feats = f"Case=Nom|Number={number}|Person={person}|PronType=Prs"
        return (
            f"1 {pronoun} {pronoun} PRON {feats} 2 nsubj",
            f"2 {verb} dělat VERB Number={number}|Person={person}|{VERB} 0 root",
        )

    return [
        one("já", "Sing", "1", "dělám"),
        one("my", "Plur", "1", "děláme"),
        one("vy", "Plur", "2", "děláte"),
        one("oni", "Plur", "3", "dělají"),
    ]


def person_number(pairs: pl.DataFrame, sent_id: str) -> set[str]:
    rows = pairs.filter(
        (pl.col("sent_id") == sent_id)
        & (pl.col("type") == "subject-verb")
        & pl.col("feature").is_in(["Person", "Number"])
    )
    return set(rows.get_column("bad_form"))


def test_no_person_or_number_pair_of_a_subject_before_ze(tmp_path):
    ty_ze = clause("Ty", "2", "děláš", "že")
    ty = clause("Ty", "2", "děláš", None)
    pairs, skips, _ = mine_with_skips(tmp_path, ty_ze, ty, *forms(), lang="Czech")
    assert person_number(pairs, "s1") == set()
    assert {"dělám", "děláte"} <= person_number(pairs, "s2")  # *Ty dělám* is no Czech
    refused = skips.filter(pl.col("reason") == "dislocated-subject")
    assert set(refused["sent_id"]) == {"s1"}


def test_a_mark_between_counts_and_only_where_subjects_are_dropped(tmp_path):
    # *Ty když děláš* (a `mark`): the same reading. In English, which does not drop subjects,
    # a pronoun before its clause's *if* (*he if is …*) is no topic of another verb.
    pairs, _, _ = mine_with_skips(
        tmp_path, clause("Ty", "2", "děláš", "když"), *forms(), lang="Czech"
    )
    assert person_number(pairs, "s1") == set()
    english = (
        "1 he he PRON Case=Nom|Number=Sing|Person=3|PronType=Prs 3 nsubj",
        "2 if if SCONJ _ 3 mark",
        "3 is be AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    are = (
        "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        "2 are be AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path / "en", english, are, lang="English")
    assert "are" in person_number(pairs, "s1")


def test_a_focus_particle_tagged_mark_opens_no_clause(tmp_path):
    # UD_Persian-Seraji tags *هم* 'too' `mark`: *من هم می‌کنم* 'I too do' → *می‌کنی* is no
    # Persian, and is made.
    def persian(pronoun: str, person: str, particle: bool, verb: str) -> tuple[str, ...]:
        feats = f"Number=Sing|Person={person}"
        words = [f"1 {pronoun} {pronoun} PRON {feats}|PronType=Prs {3 if particle else 2} nsubj"]
        if particle:
            words.append("2 هم هم SCONJ _ 3 mark")
        n = len(words) + 1
        words.append(f"{n} {verb} کرد#کن VERB Mood=Ind|{feats}|Tense=Pres|VerbForm=Fin 0 root")
        return tuple(words)

    blocks = (
        persian("من", "1", True, "می‌کنم"),
        persian("تو", "2", False, "می‌کنی"),
        persian("او", "3", False, "می‌کند"),
    )
    pairs, skips, _ = mine_with_skips(tmp_path, *blocks, lang="Persian")
    assert {"می‌کنی", "می‌کند"} <= person_number(pairs, "s1")
    assert "dislocated-subject" not in set(skips["reason"])
