"""DESIGN.md §4.2 (issue 41) on sentences written here: subjects without features (a relative
pronoun's antecedent, third-person pronouns, a noun's Number from its determiner), unmarked
paradigm cells, and unagreement only for definite plurals; each with its refusals."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

FIN = "Mood=Ind|Tense=Pres|VerbForm=Fin"
PAST = "Mood=Ind|Tense=Past|VerbForm=Fin"


def made(pairs: pl.DataFrame, sent_id: str) -> set[tuple]:
    """(feature, bad value, bad sentence, derived) of a sentence's pairs (too few sentences here
    to measure agreement: `agreement-unmeasured` left out)."""
    rows = pairs.filter(pl.col("sent_id") == sent_id)
    return {
        (
            r["feature"],
            r["bad_value"],
            r["sentence_bad"],
            tuple(d for d in r["derived"] if d != "agreement-unmeasured"),
        )
        for r in rows.iter_rows(named=True)
    }


def bad(pairs: pl.DataFrame, sent_id: str) -> set[str]:
    return set(pairs.filter(pl.col("sent_id") == sent_id)["sentence_bad"])


def relations(tmp_path, lang: str = "en") -> pl.DataFrame:
    return pl.read_parquet(tmp_path / "corpus" / lang / "relations.parquet")


def sing3(form: str, lemma: str, upos: str = "VERB", feats: str = FIN) -> tuple[str, ...]:
    return (
        "1 it it PRON Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 {form} {lemma} {upos} {feats}|Number=Sing|Person=3 0 root",
    )


def test_relative_pronoun_takes_number_from_its_antecedent(tmp_path):
    rules = (  # *the rules which apply*: *which* has no Number, *rules* has
        "1 the the DET Definite=Def|PronType=Art 2 det",
        "2 rules rule NOUN Number=Plur 0 root",
        "3 which which PRON PronType=Rel 4 nsubj",
        f"4 apply apply VERB {FIN}|Number=Plur|Person=3 2 acl:relcl",
    )
    pairs, _, _ = mine_with_skips(tmp_path, rules, sing3("applies", "apply"), lang="English")
    assert ("Number", "Sing", "the rules which applies", ("antecedent",)) in made(pairs, "s1")
    # The relation is no §1.2 relation (no agreeing feature): `relations` stays as it was.
    assert relations(tmp_path).filter(pl.col("sent_id") == "s1").height == 0


def test_who_after_i_is_first_person_through_its_antecedent(tmp_path):
    i_who_am = (
        "1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 0 root",
        "2 , , PUNCT _ 4 punct",
        "3 who who PRON PronType=Rel 4 nsubj",
        f"4 am be AUX {FIN}|Number=Sing|Person=1 1 acl:relcl",
    )
    pairs, _, _ = mine_with_skips(tmp_path, i_who_am, sing3("is", "be", "AUX"), lang="English")
    got = made(pairs, "s1")
    assert ("Person", "3", "I , who is", ("antecedent",)) in got
    assert not any("implicit-person" in derived for *_, derived in got)


def test_relative_pronoun_outside_a_relative_clause_takes_nothing(tmp_path):
    what = (  # a free relative: no antecedent
        "1 what what PRON PronType=Rel 2 nsubj",
        f"2 applies apply VERB {FIN}|Number=Sing|Person=3 0 root",
    )
    they = (
        "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        f"2 apply apply VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, what, they, lang="English")
    assert bad(pairs, "s1") == set()


COST_1SG = (
    "1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
    f"2 cost cost VERB {FIN}|Number=Sing|Person=1 0 root",
)


def test_demonstrative_and_indefinite_pronouns_count_as_third_person(tmp_path):
    this = (
        "1 this this PRON Number=Sing|PronType=Dem 2 nsubj",
        f"2 costs cost VERB {FIN}|Number=Sing|Person=3 0 root",
    )
    everyone = (
        "1 everyone everyone PRON Number=Sing|PronType=Tot 2 nsubj",
        f"2 costs cost VERB {FIN}|Number=Sing|Person=3 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, this, everyone, COST_1SG, lang="English")
    assert ("Person", "1", "this cost", ("implicit-person",)) in made(pairs, "s1")
    assert ("Person", "1", "everyone cost", ("implicit-person",)) in made(pairs, "s2")


def test_personal_interrogative_and_reflexive_pronouns_get_no_person(tmp_path):
    subjects = [
        "it it PRON Number=Sing|PronType=Prs",
        "who who PRON Number=Sing|PronType=Int",
        "itself itself PRON Number=Sing|PronType=Prs|Reflex=Yes",
        "that that PRON Number=Sing|PronType=Dem|Reflex=Yes",
    ]
    blocks = [
        (f"1 {subject} 2 nsubj", f"2 costs cost VERB {FIN}|Number=Sing|Person=3 0 root")
        for subject in subjects
    ]
    pairs, _, _ = mine_with_skips(tmp_path, *blocks, COST_1SG, lang="English")
    for sent_id in ("s1", "s2", "s3", "s4"):
        assert pairs.filter(
            (pl.col("sent_id") == sent_id) & (pl.col("feature") == "Person")
        ).is_empty()


def test_noun_without_number_takes_it_from_its_determiner(tmp_path):
    us = (  # an abbreviation without Number, its article plural
        "1 the the DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 US US NOUN Abbr=Yes 3 nsubj",
        f"3 have have VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    mixed = (  # two determiners that disagree on Number: none is taken
        "1 the the DET Definite=Def|Number=Plur|PronType=Art 3 det",
        "2 this this DET Number=Sing|PronType=Dem 3 det",
        "3 US US NOUN Abbr=Yes 4 nsubj",
        f"4 have have VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, us, mixed, sing3("has", "have"), lang="English")
    assert ("Number", "Sing", "the US has", ("dependent-number",)) in made(pairs, "s1")
    assert "the this US has" not in bad(pairs, "s2")


def test_unmarked_present_plural_takes_the_subjects_number(tmp_path):
    they_remain = (
        "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        f"2 remain remain VERB {FIN} 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, they_remain, sing3("remains", "remain"), lang="English")
    assert ("Number", "Sing", "they remains", ("unmarked-cell",)) in made(pairs, "s1")
    assert relations(tmp_path).filter(pl.col("sent_id") == "s1").height == 0


def test_a_form_attested_only_with_another_value_takes_none(tmp_path):
    they_remains = (  # *remains*, left unmarked here, is singular wherever it is marked
        "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        f"2 remains remain VERB {FIN} 0 root",
    )
    they_remain = (
        "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        f"2 remain remain VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    pairs, _, _ = mine_with_skips(
        tmp_path, they_remains, they_remain, sing3("remains", "remain"), lang="English"
    )
    assert bad(pairs, "s1") == set()
    assert "they remains" in bad(pairs, "s2")


def test_past_form_syncretic_with_the_present_is_refused(tmp_path):
    they_cost = (  # past *cost*: no Number; *costs* is present, another FEATS
        "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        f"2 cost cost VERB {PAST} 0 root",
    )
    it_was = sing3("was", "be", "AUX", PAST)  # the past marks Number elsewhere
    pairs, _, _ = mine_with_skips(
        tmp_path, they_cost, it_was, sing3("costs", "cost"), lang="English"
    )
    assert bad(pairs, "s1") == set()


def test_a_language_that_never_marks_person_on_verbs_transfers_none(tmp_path):
    ik_loop = (  # Dutch treebanks give finite verbs Number, never Person
        "1 ik ik PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
        f"2 loop lopen VERB {FIN}|Number=Sing 0 root",
    )
    hij_loopt = (
        "1 hij hij PRON Case=Nom|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 loopt lopen VERB {FIN}|Number=Sing 0 root",
    )
    wij_lopen = (
        "1 wij wij PRON Case=Nom|Number=Plur|Person=1|PronType=Prs 2 nsubj",
        f"2 lopen lopen VERB {FIN}|Number=Plur 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, ik_loop, hij_loopt, wij_lopen, lang="Dutch")
    assert pairs.filter(pl.col("feature") == "Person").is_empty()
    assert "ik lopen" in bad(pairs, "s1")
    assert not pairs["derived"].list.contains("unmarked-cell").any()


TRABAJAR = tuple(
    (f"1 {form} trabajar VERB {FIN}|Number={number}|Person={person} 0 root",)
    for form, number, person in [
        ("trabajo", "Sing", 1), ("trabajas", "Sing", 2), ("trabajamos", "Plur", 1),
        ("trabajáis", "Plur", 2), ("trabaja", "Sing", 3),
    ]
)  # fmt: skip


def test_bare_plural_has_its_person_varied_a_definite_one_not(tmp_path):
    bare = (
        "1 estudiantes estudiante NOUN Gender=Masc|Number=Plur 2 nsubj",
        f"2 trabajan trabajar VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    definite = (
        "1 los el DET Definite=Def|Gender=Masc|Number=Plur|PronType=Art 2 det",
        "2 estudiantes estudiante NOUN Gender=Masc|Number=Plur 3 nsubj",
        f"3 trabajan trabajar VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    possessed = (  # a possessive determiner makes it definite: *nuestros colegas hemos*
        "1 nuestros nuestro DET Gender=Masc|Number=Plur|Number[psor]=Plur|Person=1|Poss=Yes|"
        "PronType=Prs 2 det",
        "2 estudiantes estudiante NOUN Gender=Masc|Number=Plur 3 nsubj",
        f"3 trabajan trabajar VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    counted = (
        "1 cuatro cuatro NUM NumType=Card 2 nummod",
        "2 estudiantes estudiante NOUN Gender=Masc|Number=Plur 3 nsubj",
        f"3 trabajan trabajar VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    pairs, skips, _ = mine_with_skips(
        tmp_path, bare, definite, possessed, counted, *TRABAJAR, lang="Spanish"
    )
    assert "nuestros estudiantes trabajamos" not in bad(pairs, "s3")
    assert "cuatro estudiantes trabajamos" not in bad(pairs, "s4")
    assert ("Person", "1", "estudiantes trabajamos", ("implicit-person",)) in made(pairs, "s1")
    assert "los estudiantes trabajamos" not in bad(pairs, "s2")
    reasons = skips.filter(pl.col("sent_id") == "s2")["reason"].to_list()
    assert "unagreement" in reasons


def test_bare_plural_in_greek_has_its_person_varied(tmp_path):
    bare = (
        "1 φοιτητές φοιτητής NOUN Case=Nom|Gender=Masc|Number=Plur 2 nsubj",
        f"2 διαβάζουν διαβάζω VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    definite = (
        "1 οι ο DET Case=Nom|Definite=Def|Gender=Masc|Number=Plur|PronType=Art 2 det",
        "2 φοιτητές φοιτητής NOUN Case=Nom|Gender=Masc|Number=Plur 3 nsubj",
        f"3 διαβάζουν διαβάζω VERB {FIN}|Number=Plur|Person=3 0 root",
    )
    we = (f"1 διαβάζουμε διαβάζω VERB {FIN}|Number=Plur|Person=1 0 root",)
    pairs, _, _ = mine_with_skips(tmp_path, bare, definite, we, lang="Greek")
    assert "φοιτητές διαβάζουμε" in bad(pairs, "s1")
    assert "οι φοιτητές διαβάζουμε" not in bad(pairs, "s2")


BE_FORMS = tuple(
    (f"1 {form} be AUX {FIN}|Number={number}|Person={person} 0 root",)
    for form, number, person in [("am", "Sing", 1), ("are", "Plur", 3), ("is", "Sing", 3)]
)


def test_pronoun_without_feats_takes_what_its_form_has_elsewhere(tmp_path):
    bare_it = (  # LinES leaves *it* without FEATS; every other *it* is Number=Sing, Person=3
        "1 it it PRON _ 2 nsubj",
        f"2 is be AUX {FIN}|Number=Sing|Person=3 0 root",
    )
    it = (
        "1 it it PRON Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 is be AUX {FIN}|Number=Sing|Person=3 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, bare_it, it, *BE_FORMS, lang="English")
    got = made(pairs, "s1")
    assert ("Number", "Plur", "it are", ("lexicon-features",)) in got
    assert ("Person", "1", "it am", ("lexicon-features",)) in got
    assert relations(tmp_path).filter(pl.col("sent_id") == "s1").height == 0


def test_pronoun_without_feats_takes_no_value_its_form_lacks_or_varies(tmp_path):
    bare_you = (  # *you*: Person 2 wherever annotated, and no one Number
        "1 you you PRON _ 2 nsubj",
        f"2 are be AUX {FIN}|Number=Plur|Person=2 0 root",
    )
    you = (
        "1 you you PRON Case=Nom|Person=2|PronType=Prs 2 nsubj",
        f"2 are be AUX {FIN}|Person=2 0 root",
    )
    bare_this = (  # *this* is never annotated here: nothing to take
        "1 this this PRON _ 2 nsubj",
        f"2 is be AUX {FIN}|Number=Sing|Person=3 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, bare_you, you, bare_this, *BE_FORMS, lang="English")
    assert {f for f, *_ in made(pairs, "s1")} <= {"Person"}
    assert bad(pairs, "s3") == set()
    # Not licensed: no attempt, so no skip either.
    assert skips.filter(pl.col("sent_id") == "s3").is_empty()
    assert skips.filter((pl.col("sent_id") == "s1") & (pl.col("feature") == "Number")).is_empty()


def test_caseless_relative_pronoun_where_subjects_drop_takes_nothing(tmp_path):
    # *la voz que trabaja → trabajo* reads 'the voice that I work (on)': *que* can be the
    # object of a verb whose subject is dropped, so its antecedent lends it nothing.
    que = (
        "1 la el DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 voz voz NOUN Gender=Fem|Number=Sing 0 root",
        "3 que que PRON PronType=Rel 4 nsubj",
        f"4 trabaja trabajar VERB {FIN}|Number=Sing|Person=3 2 acl:relcl",
    )
    pairs, _, _ = mine_with_skips(tmp_path, que, *TRABAJAR, lang="Spanish")
    assert bad(pairs, "s1") == set()


def test_relative_pronoun_in_another_case_than_the_nominative_takes_nothing(tmp_path):
    # Finnish *joita* (partitive) controls no verb; nominative *joka* takes its antecedent's.
    def relative(pronoun: str, case: str) -> tuple[str, ...]:
        return (
            "1 laji laji NOUN Case=Nom|Number=Sing 0 root",
            f"2 {pronoun} joka PRON Case={case}|Number=Sing|PronType=Rel 3 nsubj",
            f"3 on olla AUX {FIN}|Number=Sing|Person=3|Voice=Act 1 acl:relcl",
        )

    olla = tuple(
        (f"1 {form} olla AUX {FIN}|Number={number}|Person={person}|Voice=Act 0 root",)
        for form, number, person in [("olen", "Sing", 1), ("olet", "Sing", 2), ("on", "Sing", 3)]
    )
    pairs, _, _ = mine_with_skips(
        tmp_path, relative("jota", "Par"), relative("joka", "Nom"), *olla, lang="Finnish"
    )
    assert bad(pairs, "s1") == set()
    assert "laji joka olen" in bad(pairs, "s2")


def test_romanian_definite_plural_by_its_own_suffix_keeps_its_person(tmp_path):
    # Romanian's article is a suffix (Definite=Def on the noun): *studenții lucrăm* ('we
    # students work') is licit unagreement; a bare *studenți lucrăm* is not.
    def subject(form: str, definite: str) -> tuple[str, ...]:
        return (
            f"1 {form} student NOUN Case=Acc,Nom|Definite={definite}|Gender=Masc|Number=Plur"
            " 2 nsubj",
            f"2 lucrează lucra VERB {FIN}|Number=Plur|Person=3 0 root",
        )

    lucra = tuple(
        (f"1 {form} lucra VERB {FIN}|Number={number}|Person={person} 0 root",)
        for form, number, person in [
            ("lucrez", "Sing", 1),
            ("lucrăm", "Plur", 1),
            ("lucrați", "Plur", 2),
        ]
    )
    pairs, skips, _ = mine_with_skips(
        tmp_path, subject("studenții", "Def"), subject("studenți", "Ind"), *lucra, lang="Romanian"
    )
    assert bad(pairs, "s1") & {"studenții lucrăm", "studenții lucrați"} == set()
    assert "unagreement" in skips.filter(pl.col("sent_id") == "s1")["reason"].to_list()
    assert "studenți lucrăm" in bad(pairs, "s2")


def test_a_tense_its_form_hardly_ever_has_is_a_tagging_error(tmp_path):
    # Upper-case *ES* tagged Tense=Past (one of 21 *es* of *ser*): its bad form would be past
    # *FUI*; a present *es* is varied to *soy*.
    def ser(form: str, number: str, person: int, tense: str = "Pres") -> str:
        return f"{form} ser AUX Mood=Ind|Number={number}|Person={person}|Tense={tense}|VerbForm=Fin"

    def sentence(verb: str) -> tuple[str, ...]:
        return ("1 FOTO foto NOUN Gender=Fem|Number=Sing 2 nsubj", f"2 {verb} 0 root")

    others = [(f"1 {ser('es', 'Sing', 3)} 0 root",)] * 20 + [
        (f"1 {ser('soy', 'Sing', 1)} 0 root",),
        (f"1 {ser('fui', 'Sing', 1, 'Past')} 0 root",),
        (f"1 {ser('fue', 'Sing', 3, 'Past')} 0 root",),
    ]
    pairs, skips, _ = mine_with_skips(
        tmp_path,
        sentence(ser("ES", "Sing", 3, "Past")),
        sentence(ser("ES", "Sing", 3)),
        *others,
        lang="Spanish",
    )
    assert bad(pairs, "s1") == set()
    assert "unattested-reading" in skips.filter(pl.col("sent_id") == "s1")["reason"].to_list()
    assert "FOTO SOY" in bad(pairs, "s2")


def test_a_unimorph_paradigm_of_another_inflection_class_gives_no_bad_form(tmp_path):
    # UniMorph conjugates *înceta* without -ez (3sg *înceată*, 1sg *încet*, an adverb);
    # the treebank's 3sg is *încetează* (1sg *încetez*). *lucra*'s paradigm holds *lucrează*.
    def subject_verb(form: str, lemma: str) -> tuple[str, ...]:
        return (
            "1 apariția apariție NOUN Case=Acc,Nom|Definite=Def|Gender=Fem|Number=Sing 2 nsubj",
            f"2 {form} {lemma} VERB {FIN}|Number=Sing|Person=3 0 root",
        )

    paradigms = "".join(
        f"{lemma}\t{form}\tV;IND;PRS;{cell}\n"
        for lemma, form, cell in [
            ("înceta", "înceată", "3;SG"),
            ("înceta", "încet", "1;SG"),
            ("lucra", "lucrează", "3;SG"),
            ("lucra", "lucrez", "1;SG"),
        ]
    )
    pairs, _, _ = mine_with_skips(
        tmp_path,
        subject_verb("încetează", "înceta"),
        subject_verb("lucrează", "lucra"),
        (f"1 merg merge VERB {FIN}|Number=Sing|Person=1 0 root",),  # Person=1 is no rare value
        lang="Romanian",
        unimorph=("ron", paradigms),
    )
    assert bad(pairs, "s1") == set()
    assert "apariția lucrez" in bad(pairs, "s2")


def test_a_coordinated_antecedent_lends_nothing(tmp_path):
    # *een aantal ruiters en publiek die stond/stonden*: the clause may be about the whole
    # coordination or its last conjunct, as §4 skips a coordinated controller.
    coordinated = (
        "1 cats cat NOUN Number=Plur 0 root",
        "2 and and CCONJ _ 3 cc",
        "3 dogs dog NOUN Number=Plur 1 conj",
        "4 which which PRON PronType=Rel 5 nsubj",
        f"5 sleep sleep VERB {FIN}|Number=Plur|Person=3 1 acl:relcl",
    )
    single = (
        "1 cats cat NOUN Number=Plur 0 root",
        "2 which which PRON PronType=Rel 3 nsubj",
        f"3 sleep sleep VERB {FIN}|Number=Plur|Person=3 1 acl:relcl",
    )
    after = (  # a conjunct after the clause: the clause is the first conjunct's
        "1 cats cat NOUN Number=Plur 0 root",
        "2 which which PRON PronType=Rel 3 nsubj",
        f"3 sleep sleep VERB {FIN}|Number=Plur|Person=3 1 acl:relcl",
        "4 and and CCONJ _ 5 cc",
        "5 dog dog NOUN Number=Sing 1 conj",
    )
    pairs, _, _ = mine_with_skips(
        tmp_path, coordinated, single, after, sing3("sleeps", "sleep"), lang="English"
    )
    assert bad(pairs, "s1") == set()
    assert "cats which sleeps" in bad(pairs, "s2")
    assert "cats which sleeps and dog" in bad(pairs, "s3")


def test_an_auxiliary_takes_a_cell_it_lacks_from_its_lemmas_verb_forms(tmp_path):
    # Greek *είχε* as the perfect's auxiliary: its first person *είχα* is seen as a VERB only.
    def echo(form: str, upos: str, number: str, person: int, tense: str = "Past") -> str:
        return (
            f"{form} έχω {upos} Aspect=Imp|Mood=Ind|Number={number}|Person={person}|"
            f"Tense={tense}|VerbForm=Fin|Voice=Act"
        )

    perfect = (
        "1 επιτροπή επιτροπή NOUN Case=Nom|Gender=Fem|Number=Sing 3 nsubj",
        f"2 {echo('είχε', 'AUX', 'Sing', 3)} 3 aux",
        "3 αποφασίσει αποφασίζω VERB Aspect=Perf|VerbForm=Inf|Voice=Act 0 root",
    )
    others = (
        (f"1 {echo('είχα', 'VERB', 'Sing', 1)} 0 root",),
        (f"1 {echo('είχε', 'VERB', 'Sing', 3)} 0 root",),  # the VERB's 3sg is the word's
        (f"1 {echo('έχουμε', 'AUX', 'Plur', 1, 'Pres')} 0 root",),  # AUX has Person=1
    )
    pairs, _, _ = mine_with_skips(tmp_path, perfect, *others, lang="Greek")
    assert "επιτροπή είχα αποφασίσει" in bad(pairs, "s1")


def test_an_auxiliary_takes_nothing_from_a_verb_paradigm_that_is_not_its_own(tmp_path):
    # The VERB's cell of the word holds another form too (UD_Persian-Seraji lemmas *شد*
    # 'became' as *کرد* 'did'): two lexemes under one lemma, nothing is lent.
    def cell(form: str, upos: str, number: str, person: int) -> str:
        return f"{form} کرد {upos} Number={number}|Person={person}|Tense=Past"

    became = (
        "1 کار کار NOUN Number=Sing 2 nsubj",
        f"2 {cell('شد', 'AUX', 'Sing', 3)} 0 root",
    )
    others = (
        (f"1 {cell('شد', 'VERB', 'Sing', 3)} 0 root",),
        (f"1 {cell('کرد', 'VERB', 'Sing', 3)} 0 root",),
        (f"1 {cell('کردم', 'VERB', 'Sing', 1)} 0 root",),
        (f"1 {cell('شدیم', 'AUX', 'Plur', 1)} 0 root",),  # AUX has Person=1
    )
    pairs, _, _ = mine_with_skips(tmp_path, became, *others, lang="Persian")
    assert bad(pairs, "s1") == set()


def test_a_finite_tense_is_not_judged_among_participles(tmp_path):
    # French *fait*: mostly the participle (Tense=Past, VerbForm=Part); the present is no error.
    participles = [("1 fait faire VERB Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 0 root",)]
    finite = (
        "1 il il PRON Gender=Masc|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 fait faire VERB {FIN}|Number=Sing|Person=3 0 root",
    )
    faisons = (f"1 faisons faire VERB {FIN}|Number=Plur|Person=1 0 root",)
    fais = (f"1 fais faire VERB {FIN}|Number=Sing|Person=1 0 root",)
    pairs, _, _ = mine_with_skips(tmp_path, finite, faisons, fais, *participles * 30)
    assert "il fais" in bad(pairs, "s1")


def test_a_bad_form_agreeing_in_another_tense_is_refused(tmp_path):
    # Romanian *el acoperă* → 2sg *acoperi*, also the 3sg perfect simplu: *el acoperi* is good.
    def sentence(pron: str, person: int, form: str, lemma: str, tense: str = "Pres") -> tuple:
        return (
            f"1 {pron} {pron} PRON Case=Nom|Number=Sing|Person={person}|PronType=Prs 2 nsubj",
            f"2 {form} {lemma} VERB Mood=Ind|Number=Sing|Person={person}|Tense={tense}"
            "|VerbForm=Fin 0 root",
        )

    pairs, _, _ = mine_with_skips(
        tmp_path,
        sentence("el", 3, "acoperă", "acoperi"),
        sentence("tu", 2, "acoperi", "acoperi"),
        sentence("el", 3, "acoperi", "acoperi", "Past"),
        sentence("el", 3, "cântă", "cânta"),
        sentence("el", 3, "acoperi", "acoperi", "Past"),
        sentence("tu", 2, "cânți", "cânta"),
        lang="Romanian",
    )
    assert not any("acoperi" in s for s in bad(pairs, "s1"))
    assert "el cânți" in bad(pairs, "s4")


def test_an_antecedent_under_a_head_of_other_values_lends_nothing(tmp_path):
    # *one of those people who have → has*: the clause may be about *one*.
    one_of = (
        "1 one one NUM NumType=Card 0 root",
        "2 of of ADP _ 4 case",
        "3 those that DET Number=Plur|PronType=Dem 4 det",
        "4 people person NOUN Number=Plur 1 nmod",
        "5 who who PRON PronType=Rel 6 nsubj",
        f"6 have have VERB {FIN}|Number=Plur|Person=3 4 acl:relcl",
    )
    cats = (
        "1 cats cat NOUN Number=Plur 0 root",
        "2 who who PRON PronType=Rel 3 nsubj",
        f"3 have have VERB {FIN}|Number=Plur|Person=3 1 acl:relcl",
    )
    pairs, _, _ = mine_with_skips(tmp_path, one_of, cats, sing3("has", "have"), lang="English")
    assert bad(pairs, "s1") == set()
    assert "cats who has" in bad(pairs, "s2")


def test_a_caseless_relative_pronoun_beside_another_nominal_lends_nothing(tmp_path):
    # Dutch *kinderen, die de gezondheid bedreigen → bedreigt*: also an object relative whose
    # subject is *de gezondheid*.
    def clause(obj: str) -> tuple[str, ...]:
        return (
            "1 kinderen kind NOUN Number=Plur 0 root",
            "2 , , PUNCT _ 3 punct",
            "3 die die PRON PronType=Rel 6 nsubj",
            "4 de de DET Definite=Def 5 det",
            f"5 {obj} {obj} NOUN Number={'Sing' if obj == 'gezondheid' else 'Plur'} 6 obj",
            f"6 bedreigen bedreigen VERB {FIN}|Number=Plur 1 acl:relcl",
        )

    hij = (
        "1 hij hij PRON Case=Nom|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 bedreigt bedreigen VERB {FIN}|Number=Sing 0 root",
    )
    pairs, _, _ = mine_with_skips(
        tmp_path, clause("gezondheid"), clause("dieren"), hij, lang="Dutch"
    )
    assert bad(pairs, "s1") == set()
    assert any("bedreigt" in s for s in bad(pairs, "s2"))
