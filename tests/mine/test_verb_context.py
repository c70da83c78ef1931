"""What the words around a target say of it: a finite *have* after a modal of its own verb chain
(*they must have left*: *must has* says nothing of agreement), a doubled determiner (*la la
familia*), a mandative head (*we ask that the Commission ensure*), one's own elder as a Turkish
subject (*Annem geldiler*), a one-letter clitic written apart (Persian *م*). Sentences written
here, where the right pairs are known."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

PRON = "Case=Nom|Number={n}|Person=3|PronType=Prs"
FINITE = "Mood=Ind|Number={n}|Person=3|Tense=Pres|VerbForm=Fin"
LEFT = "Tense=Past|VerbForm=Part"


def perfect(subject: str, number: str, have: str, modal: str = "") -> tuple[str, ...]:
    """*<subject> [<modal>] <have> left*: a subject, its finite *have*, the participle."""
    rows = [f"1 {subject} {subject.lower()} PRON {PRON.format(n=number)} {3 + bool(modal)} nsubj"]
    if modal:
        rows.append(f"2 {modal} {modal} AUX VerbForm=Fin 4 aux")
    i = len(rows) + 1
    rows.append(f"{i} {have} have AUX {FINITE.format(n=number)} {i + 1} aux")
    rows.append(f"{i + 1} left leave VERB {LEFT} 0 root")
    return tuple(rows)


def made(pairs: pl.DataFrame, sent_id: str) -> set[tuple[str, str]]:
    rows = pairs.filter(pl.col("sent_id") == sent_id)
    return set(rows.select("good_form", "bad_form").iter_rows())


def reasons(skips: pl.DataFrame, sent_id: str) -> set[str]:
    return set(skips.filter(pl.col("sent_id") == sent_id).get_column("reason").to_list())


def test_no_pair_of_a_finite_have_after_a_modal(tmp_path):
    # English-LinES tags *have* of *they must have left* finite: *must has* is no agreement error.
    s1 = perfect("They", "Plur", "have", modal="must")
    s2 = perfect("He", "Sing", "has")
    s3 = perfect("They", "Plur", "have")
    pairs, skips, _ = mine_with_skips(tmp_path, s1, s2, s3, lang="English")
    assert made(pairs, "s1") == set()
    assert "after-modal" in reasons(skips, "s1")
    # Without the modal the pair stands: *they has left*.
    assert made(pairs, "s3") == {("have", "has")}
    assert "after-modal" not in reasons(skips, "s3")


def test_the_modal_of_another_chain_refuses_nothing(tmp_path):
    # *They say he must go, and they have left*: *must* is the aux of another verb.
    s1 = (
        "1 They they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 5 nsubj",
        "2 must must AUX VerbForm=Fin 3 aux",
        "3 go go VERB VerbForm=Inf 5 advcl",
        f"4 have have AUX {FINITE.format(n='Plur')} 5 aux",
        f"5 left leave VERB {LEFT} 0 root",
    )
    s2 = perfect("He", "Sing", "has")
    pairs, _, _ = mine_with_skips(tmp_path, s1, s2, lang="English")
    assert made(pairs, "s1") == {("have", "has")}


def test_have_heading_its_chain_after_its_own_modal(tmp_path):
    # *They must have it*: *have* is the verb, *must* its own aux.
    s1 = (
        "1 They they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 3 nsubj",
        "2 must must AUX VerbForm=Fin 3 aux",
        f"3 have have VERB {FINITE.format(n='Plur')} 0 root",
        "4 it it PRON Case=Acc|Number=Sing|Person=3|PronType=Prs 3 obj",
    )
    s2 = (
        "1 He he PRON Case=Nom|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 has have VERB {FINITE.format(n='Sing')} 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, s1, s2, lang="English")
    assert made(pairs, "s1") == set()
    assert "after-modal" in reasons(skips, "s1")


DET = "Definite=Def|Gender={g}|Number=Sing|PronType=Art"


def noun_phrase(*determiners: str, noun: str = "familia", gender: str = "Fem") -> tuple[str, ...]:
    """*<determiners> <noun>*: each determiner a `det` of the noun."""
    n = len(determiners) + 1
    rows = [f"{i} {d} el DET {DET.format(g=gender)} {n} det" for i, d in enumerate(determiners, 1)]
    return (*rows, f"{n} {noun} {noun} NOUN Gender={gender}|Number=Sing 0 root")


def test_no_pair_of_a_doubled_word(tmp_path):
    # *perteneciente a la la familia*: the treebank's sentence doubles the article, so neither
    # *la la familia* nor *el la familia* is Spanish.
    s1 = noun_phrase("la", "la")
    s2 = noun_phrase("el", noun="libro", gender="Masc")
    s3 = noun_phrase("la", noun="casa")
    pairs, skips, _ = mine_with_skips(tmp_path, s1, s2, s3, lang="Spanish")
    assert made(pairs, "s1") == set()
    assert reasons(skips, "s1") >= {"doubled-word"}
    assert made(pairs, "s3") == {("la", "el")}


def test_a_word_beside_one_of_its_form_under_another_head_is_no_double(tmp_path):
    # *dale la la casa*: the pronoun *la* of *dale* beside the article *la* of *casa* are two
    # words, each in its place: the article is varied.
    s1 = (
        "1 dale dar VERB Mood=Imp|Number=Sing|Person=2|VerbForm=Fin 0 root",
        "2 la él PRON Case=Acc|Gender=Fem|Number=Sing|Person=3|PronType=Prs 1 obj",
        f"3 la el DET {DET.format(g='Fem')} 4 det",
        "4 casa casa NOUN Gender=Fem|Number=Sing 1 obl",
    )
    s2 = noun_phrase("el", noun="libro", gender="Masc")
    pairs, skips, _ = mine_with_skips(tmp_path, s1, s2, lang="Spanish")
    assert ("la", "el") in made(pairs, "s1")
    assert "doubled-word" not in reasons(skips, "s1")


PRESENT = "Mood=Ind|Number={n}|Person=3|Tense=Pres|VerbForm=Fin"


def that_clause(head: str, verb: str, lemma: str, upos: str = "VERB") -> tuple[str, ...]:
    """*I <head> that the Commission <verb> it*: the clause a `ccomp` of the head."""
    return (
        "1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
        f"2 {head} {head} {upos} Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin 0 root",
        "3 that that SCONJ _ 6 mark",
        "4 the the DET Definite=Def|PronType=Art 5 det",
        "5 Commission commission NOUN Number=Sing 6 nsubj",
        f"6 {verb} {lemma} VERB {PRESENT.format(n='Sing')} 2 ccomp",
        "7 it it PRON Case=Acc|Number=Sing|Person=3|PronType=Prs 6 obj",
    )


def plural(verb: str, lemma: str) -> tuple[str, ...]:
    """*They <verb>*: the verb's plural (its plain form) attested."""
    return (
        "1 They they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        f"2 {verb} {lemma} VERB {PRESENT.format(n='Plur')} 0 root",
    )


def test_no_plain_form_pair_under_a_mandative_head(tmp_path):
    # *I ask that the Commission ensure it* is the mandative subjunctive: grammatical.
    s1 = that_clause("ask", "ensures", "ensure")
    s2 = plural("ensure", "ensure")
    # *I know that the Commission ensure it* is no English: the pair stands.
    s3 = that_clause("know", "ensures", "ensure")
    pairs, skips, _ = mine_with_skips(tmp_path, s1, s2, s3, lang="English")
    assert made(pairs, "s1") == set()
    assert "mandative" in reasons(skips, "s1")
    assert made(pairs, "s3") == {("ensures", "ensure")}


def test_god_forbid_takes_the_subjunctive(tmp_path):
    # English-EWT attaches *forbid* of *god forbid something goes wrong* as `discourse`.
    s1 = (
        "1 god god PROPN Number=Sing 2 nsubj",
        "2 forbid forbid VERB Mood=Sub|VerbForm=Fin 4 discourse",
        "3 something something PRON Number=Sing|PronType=Ind 4 nsubj",
        f"4 goes go VERB {PRESENT.format(n='Sing')} 0 root",
        "5 wrong wrong ADV _ 4 advmod",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, s1, plural("go", "go"), lang="English")
    assert made(pairs, "s1") == set()
    assert "mandative" in reasons(skips, "s1")


COPULA = "Mood=Ind|Number=Sing|Person={p}|Tense=Pres|VerbForm=Fin"
# *خوبم* 'I am well': the first-person copula *م* written on its host, a multiword token.
ON_HOST = (
    "1-2 خوبم _ _ _ _ _",
    "1 خوب خوب ADJ _ 0 root",
    f"2 م هست AUX {COPULA.format(p=1)} 1 cop",
)
# *حرف هست* 'there is a word': a noun subject and its third-person verb, a word of its own.
FREE = ("1 حرف حرف NOUN Number=Sing 2 nsubj", f"2 هست هست AUX {COPULA.format(p=3)} 0 root")


def test_no_pair_whose_one_letter_bad_form_is_only_written_on_a_host(tmp_path):
    # UD_Persian-Seraji has *م* only inside multiword tokens: *حرف م* is no Persian spelling.
    pairs, skips, _ = mine_with_skips(tmp_path, FREE, ON_HOST, lang="Persian")
    assert made(pairs, "s1") == set()
    assert "clitic-form" in reasons(skips, "s1")


def test_a_one_letter_form_written_alone_somewhere_is_a_word(tmp_path):
    # The same letter written as a word of its own elsewhere (a test's own spelling): the pair
    # stands.
    alone = ("1 خوب خوب ADJ _ 0 root", f"2 م هست AUX {COPULA.format(p=1)} 1 cop")
    pairs, skips, _ = mine_with_skips(tmp_path, FREE, ON_HOST, alone, lang="Persian")
    assert made(pairs, "s1") == {("هست", "م")}
    assert "clitic-form" not in reasons(skips, "s1")


def test_the_modal_of_a_clause_further_back_refuses_nothing(tmp_path):
    # *One answer might be: they have left*, the treebank attaching *might* to *left*: a modal
    # more than three words back is another clause's, and *they has left* is a pair.
    s1 = (
        "1 One one NUM NumType=Card 2 nummod",
        "2 answer answer NOUN Number=Sing 8 dislocated",
        "3 might might AUX VerbForm=Fin 8 aux",
        "4 be be AUX VerbForm=Inf 8 cop",
        "5 : : PUNCT _ 8 punct",
        "6 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 8 nsubj",
        f"7 have have AUX {FINITE.format(n='Plur')} 8 aux",
        f"8 left leave VERB {LEFT} 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, s1, perfect("He", "Sing", "has"), lang="English")
    assert made(pairs, "s1") == {("have", "has")}


def test_a_doubled_adjective_may_be_meant(tmp_path):
    # *le premier premier ministre* 'the first prime minister': only a doubled determiner is
    # taken for a slip.
    adj = "ADJ Gender=Masc|Number=Sing|NumType=Ord 4 amod"
    s1 = (
        "1 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 4 det",
        f"2 premier premier {adj}",
        f"3 premier premier {adj}",
        "4 ministre ministre NOUN Gender=Masc|Number=Sing 0 root",
    )
    s2 = (
        "1 la le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 3 det",
        "2 première premier ADJ Gender=Fem|Number=Sing|NumType=Ord 3 amod",
        "3 fois fois NOUN Gender=Fem|Number=Sing 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, s1, s2, lang="French")
    assert ("premier", "première") in made(pairs, "s1")
    assert "doubled-word" not in reasons(skips, "s1")


def test_no_mandative_reading_under_suggest(tmp_path):
    # *the data suggest that quality declines*: *suggest* 'indicate' takes the indicative, and
    # *quality decline* is no English there.
    s1 = that_clause("suggest", "declines", "decline")
    pairs, _, _ = mine_with_skips(tmp_path, s1, plural("decline", "decline"), lang="English")
    assert made(pairs, "s1") == {("declines", "decline")}


KIN = "Case=Nom|Number=Sing|Number[psor]=Sing|Person=3|Person[psor]={p}"
PAST_VERB = "Aspect=Perf|Mood=Ind|Number={n}|Person=3|Polarity=Pos|Tense=Past|VerbForm=Fin"


def kin_subject(noun: str, lemma: str, psor: str, verb: str, number: str) -> tuple[str, ...]:
    """*<noun> <verb>*: a possessed kinship noun and its past verb."""
    feats = KIN.format(p=psor) if psor else "Case=Nom|Number=Sing|Person=3"
    return (
        f"1 {noun} {lemma} NOUN {feats} 2 nsubj",
        f"2 {verb} başla VERB {PAST_VERB.format(n=number)} 0 root",
    )


def test_no_plural_pair_of_ones_own_elder_in_turkish(tmp_path):
    # *Annem başladılar* 'my mother began' is the plural of respect: grammatical.
    s1 = kin_subject("Annem", "anne", "1", "başladı", "Sing")
    s2 = kin_subject("Çocuklar", "çocuk", "", "başladılar", "Plur")
    # *Bir anne başladılar*: no one's own elder, the pair stands.
    s3 = kin_subject("anne", "anne", "", "başladı", "Sing")
    pairs, skips, _ = mine_with_skips(tmp_path, s1, s2, s3, lang="Turkish")
    assert made(pairs, "s1") == set()
    assert "respect-plural" in reasons(skips, "s1")
    assert made(pairs, "s3") == {("başladı", "başladılar")}


def test_a_predicate_nouns_plural_is_no_respect(tmp_path):
    # *Ağabeyim dahi* 'my elder brother is a genius' → *dahiler* 'geniuses' is a plural
    # predicate, not the verb's plural of respect: the pair stands.
    s1 = (
        f"1 Ağabeyim ağabey NOUN {KIN.format(p=1)} 2 nsubj",
        "2 dahi dahi ADJ Case=Nom|Number=Sing|Person=3 0 root",
    )
    s2 = (
        "1 Onlar o PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        "2 dahiler dahi ADJ Case=Nom|Number=Plur|Person=3 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, s1, s2, lang="Turkish")
    assert ("dahi", "dahiler") in made(pairs, "s1")
    assert "respect-plural" not in reasons(skips, "s1")
