"""Does agreement hold here? (DESIGN.md §4.1): rates per configuration measured from sentences
written here, and the pairs they let through, back off, leave unmeasured or skip."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl
from ud_agree.mine.rules.certainty import KEYS, decide, rate_table, syncretic_agree

from tests.mine.test_pairs import mine_with_skips
from ud_agree.schemas.corpus import AGREEMENT

DET = "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det"
SING = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
PLUR = "Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin"


def boy_sleeps(case: str, verb_number: str = "Sing") -> tuple[str, ...]:
    """*Le garçon dort*, the subject in `case` ('' for none), the verb in `verb_number`."""
    feats = f"Case={case}|Gender=Masc|Number=Sing" if case else "Gender=Masc|Number=Sing"
    form, verb_feats = ("dort", SING) if verb_number == "Sing" else ("dorment", PLUR)
    return (
        DET,
        f"2 garçon garçon NOUN {feats} 3 nsubj",
        f"3 {form} dormir VERB {verb_feats} 0 root",
    )


def sleeps_boy(case: str) -> tuple[str, ...]:
    """*Dort le garçon*: the verb first."""
    return (
        f"1 Dort dormir VERB {SING} 0 root",
        "2 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 3 det",
        f"3 garçon garçon NOUN Case={case}|Gender=Masc|Number=Sing 1 nsubj",
    )


BOYS_SLEEP = (  # puts *dorment* (plural) into the lexicon
    "1 Les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
    "2 garçons garçon NOUN Gender=Masc|Number=Plur 3 nsubj",
    f"3 dorment dormir VERB {PLUR} 0 root",
)


def rates(tmp_path: Path) -> pl.DataFrame:
    return pl.read_parquet(tmp_path / "corpus" / "fr" / "agreement.parquet")


def number_pairs(pairs: pl.DataFrame, sent_ids: list[str]) -> int:
    return pairs.filter(
        (pl.col("type") == "subject-verb")
        & (pl.col("feature") == "Number")
        & pl.col("sent_id").is_in(sent_ids)
    ).height


def test_rates_counted_by_hand_at_every_level(tmp_path):
    girl_sleeps = (
        "1 La le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 fille fille NOUN Gender=Fem|Number=Sing 3 nsubj",
        f"3 dort dormir VERB {SING} 0 root",
    )
    boys_sleeps = (  # subject-verb Number disagrees; the determiner has no Gender
        "1 Les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 garçons garçon NOUN Gender=Masc|Number=Plur 3 nsubj",
        f"3 dort dormir VERB {SING} 0 root",
    )
    typo = (  # a Typo word: no evidence, not counted
        "1 La le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 filel fille NOUN Gender=Fem|Number=Sing|Typo=Yes 3 nsubj",
        f"3 dort dormir VERB {SING} 0 root",
    )
    _, _, manifest = mine_with_skips(tmp_path, girl_sleeps, boy_sleeps(""), boys_sleeps, typo)
    table = rates(tmp_path)
    assert table.schema == pl.Schema(pl.DataFrame(AGREEMENT.empty_table()).schema)
    finest = table.filter(pl.col("order").is_not_null())
    got = {
        (r["type"], r["feature"], r["controller_value"], r["controller_case"], r["target_upos"],
         r["target_verbform"], r["order"], r["n"], r["agree"])
        for r in finest.iter_rows(named=True)
    }  # fmt: skip
    assert got == {
        ("determiner", "Number", "Sing", "_", "DET", "_", "target-first", 2, 2),
        ("determiner", "Number", "Plur", "_", "DET", "_", "target-first", 1, 1),
        ("determiner", "Gender", "Fem", "_", "DET", "_", "target-first", 1, 1),
        ("determiner", "Gender", "Masc", "_", "DET", "_", "target-first", 1, 1),
        ("subject-verb", "Number", "Sing", "_", "VERB", "Fin", "controller-first", 2, 2),
        ("subject-verb", "Number", "Plur", "_", "VERB", "Fin", "controller-first", 1, 0),
        # Nouns without Person count as Person 3 against *dort* (implicit third person).
        ("subject-verb", "Person", "3", "_", "VERB", "Fin", "controller-first", 3, 3),
    }
    # Each (configuration, value) has a row per level of the back-off that keeps the value (4),
    # each configuration one where Case alone is kept; then a row per value and one per
    # (type, feature): 3 × (2 × 4 + 1 + 2 + 1) + (4 + 1 + 1 + 1).
    assert table.height == 3 * 12 + 7
    coarsest = table.filter(
        pl.col("controller_case").is_null() & pl.col("controller_value").is_null()
    )
    assert coarsest.filter(pl.col("feature") == "Number", pl.col("type") == "subject-verb").row(
        0, named=True
    ) | {"lang": "fr"} == {
        "lang": "fr", "type": "subject-verb", "feature": "Number", "controller_value": None,
        "controller_case": None, "target_upos": None, "target_verbform": None, "order": None,
        "n": 3, "agree": 2, "rate": 2 / 3, "certain": None,
    }  # fmt: skip
    assert table["certain"].is_null().all()  # nothing reaches 20 candidates
    assert manifest["agreement"]["rows"] == table.height
    assert manifest["agreement"]["uncertain"] == []


def test_agreement_that_holds_makes_pairs_and_optional_agreement_skips_them(tmp_path):
    # 24 subjects in Nom, all agreeing; 24 in Acc, half of them with a plural verb (0.5).
    nominative = [boy_sleeps("Nom") for _ in range(24)]
    oblique = [boy_sleeps("Acc", "Sing" if i % 2 else "Plur") for i in range(24)]
    pairs, skips, manifest = mine_with_skips(tmp_path, *nominative, *oblique, BOYS_SLEEP)
    nominative_ids = [f"s{i}" for i in range(1, 25)]
    oblique_ids = [f"s{i}" for i in range(25, 49)]
    assert number_pairs(pairs, nominative_ids) == 24
    assert number_pairs(pairs, oblique_ids) == 0
    uncertain = skips.filter(pl.col("reason") == "uncertain-agreement")
    # The 12 agreeing Acc relations are skipped for Number, before any bad value is tried; so is
    # the plural sentence without Case (alone in its configuration, it backs off to (type, f),
    # where the Acc subjects' disagreements weigh).
    assert uncertain.height == 13
    assert set(uncertain["sent_id"]) == {*oblique_ids[1::2], "s49"}
    assert uncertain["feature"].unique().to_list() == ["Number"]
    assert uncertain["bad_value"].is_null().all()
    assert manifest["counts"]["pair_skips"]["uncertain-agreement"] == 13
    # Person (implicitly 3 in both configurations) holds: its pairs are not skipped.
    table = rates(tmp_path)
    acc = table.filter(
        (pl.col("type") == "subject-verb")
        & (pl.col("feature") == "Number")
        & (pl.col("controller_case") == "Acc")
        & pl.col("order").is_not_null()
    ).row(0, named=True)
    assert (acc["n"], acc["agree"], acc["rate"], acc["certain"]) == (24, 12, 0.5, False)
    listed = manifest["agreement"]["uncertain"]
    assert {(u["controller_case"], u["n"], u["agree"]) for u in listed} == {
        ("Acc", 24, 12),
        (None, 48, 36),  # singular controllers of both cases
        (None, 49, 37),  # (type, feature) pools both cases and the plural sentence
    }
    assert manifest["agreement"]["pairs_backed_off"] == 0


def test_small_configuration_backs_off_to_a_coarser_level(tmp_path):
    # 22 verb-last subjects in Nom decide for the 3 verb-first ones (order dropped).
    last = [boy_sleeps("Nom") for _ in range(22)]
    first = [sleeps_boy("Nom") for _ in range(3)]
    pairs, _, manifest = mine_with_skips(tmp_path, *last, *first, BOYS_SLEEP)
    assert number_pairs(pairs, ["s23", "s24", "s25"]) == 3
    table = rates(tmp_path)
    verb_first = table.filter(
        (pl.col("type") == "subject-verb")
        & (pl.col("feature") == "Number")
        & (pl.col("order") == "target-first")
    ).row(0, named=True)
    assert (verb_first["n"], verb_first["certain"]) == (3, None)
    # The verb-first relations are decided one level up, the plural sentence without Case (alone
    # in its configuration) at (type, feature): all their subject-verb pairs are flagged.
    made = pairs.filter(pl.col("sent_id").is_in(["s23", "s24", "s25", "s26"]))
    flagged = made.filter(pl.col("type") == "subject-verb")
    assert flagged.height == 4
    assert flagged["derived"].list.contains("backed-off").all()
    assert not pairs.filter(pl.col("sent_id") == "s1")["derived"].list.contains("backed-off").any()
    assert manifest["agreement"]["pairs_backed_off"] == 4


def test_too_few_candidates_leave_agreement_unmeasured_and_pairs_made(tmp_path):
    pairs, skips, manifest = mine_with_skips(tmp_path, boy_sleeps(""), BOYS_SLEEP)
    assert number_pairs(pairs, ["s1", "s2"]) == 2  # *dort* → *dorment* and back
    assert "uncertain-agreement" not in set(skips["reason"])
    assert manifest["agreement"]["pairs_unmeasured"] == pairs.height > 0
    assert pairs["derived"].list.contains("agreement-unmeasured").all()
    assert manifest["agreement"]["pairs_backed_off"] == 0


def decided_as_attempts(
    lang: str, rated: dict[tuple[str, ...], tuple[int, int]]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The rate table of counts written by hand ((type, feature, value, configuration) → (n,
    agree)), and each counted row decided as an attempt of its own."""
    table = rate_table(
        lang,
        Counter({k: n for k, (n, _) in rated.items()}),
        Counter({k: a for k, (_, a) in rated.items()}),
    )
    columns = ["type", "feature", *KEYS]
    attempts = pl.DataFrame([list(k) for k in rated], schema=columns, orient="row")
    return table, decide(attempts, table)


def test_decision_and_flag_of_each_configuration():
    sv = ("subject-verb", "Number")
    rated = {
        (*sv, "Sing", "Nom", "VERB", "Fin", "controller-first"): (30, 30),
        (*sv, "Sing", "Nom", "VERB", "Fin", "target-first"): (4, 4),  # (Sing, Nom, VERB, Fin)
        (*sv, "Sing", "Acc", "VERB", "Fin", "controller-first"): (25, 12),  # optional
        (*sv, "Sing", "Dat", "VERB", "Fin", "controller-first"): (5, 5),  # to (type, f, Sing)
        ("determiner", "Number", "Plur", "_", "DET", "_", "target-first"): (3, 3),  # unmeasured
    }
    _, decided = decided_as_attempts("xx", rated)
    got = decided.select("controller_case", "certain", "agreement_flag").rows()
    # (type, Number, Sing) pools 64 candidates of which 51 agree: (51 + 1) / 66 < 0.90.
    assert got == [
        ("Nom", True, None),
        ("Nom", True, "backed-off"),
        ("Acc", False, None),
        ("Dat", False, "backed-off"),
        ("_", True, "agreement-unmeasured"),
    ]


def test_each_direction_read_at_its_own_controller_value():
    # Optional agreement one way only (Turkish plural subjects): singular controllers always
    # agree, plural ones a quarter of the time, in one configuration.
    config = ("subject-verb", "Number")
    rest = ("Nom", "VERB", "Fin", "controller-first")
    rated = {(*config, "Sing", *rest): (40, 40), (*config, "Plur", *rest): (40, 10)}
    table, decided = decided_as_attempts("tr", rated)
    assert decided.select("controller_value", "certain", "agreement_flag").rows() == [
        ("Sing", True, None),  # a singular subject with a plural verb: ungrammatical
        ("Plur", False, None),  # a plural subject with a singular verb: grammatical here
    ]
    # Pooled, the two directions would be one rate, 50 of 80: both skipped.
    pooled = table.filter(pl.col("controller_value").is_null() & pl.col("order").is_null())
    assert pooled.filter(pl.col("controller_case").is_null())["rate"].to_list() == [50 / 80]


def test_singular_subjects_keep_their_pairs_where_only_plural_ones_may_disagree(tmp_path):
    # 24 singular subjects, all agreeing; 24 plural ones, half with a singular verb.
    singular = [boy_sleeps("Nom") for _ in range(24)]
    plural = [
        (
            "1 Les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
            "2 garçons garçon NOUN Case=Nom|Gender=Masc|Number=Plur 3 nsubj",
            f"3 {'dorment' if i % 2 else 'dort'} dormir VERB {PLUR if i % 2 else SING} 0 root",
        )
        for i in range(24)
    ]
    pairs, skips, _ = mine_with_skips(tmp_path, *singular, *plural)
    singular_ids = [f"s{i}" for i in range(1, 25)]
    plural_ids = [f"s{i}" for i in range(25, 49)]
    # *le garçon dort* → *dorment* is made (singular: 24 of 24 agree) ...
    assert number_pairs(pairs, singular_ids) == 24
    # ... *les garçons dorment* → *dort* is not (plural: 12 of 24).
    assert number_pairs(pairs, plural_ids) == 0
    uncertain = skips.filter(pl.col("reason") == "uncertain-agreement")
    assert set(uncertain["sent_id"]) == set(plural_ids[1::2])
    table = rates(tmp_path)
    finest = table.filter(
        (pl.col("type") == "subject-verb")
        & (pl.col("feature") == "Number")
        & pl.col("order").is_not_null()
    )
    got = {(r["controller_value"], r["n"], r["agree"]) for r in finest.iter_rows(named=True)}
    assert got == {("Sing", 24, 24), ("Plur", 24, 12)}


# A syncretic target is no evidence of optional agreement: Greek *είναι* is 3sg and 3pl, and
# UD_Greek-GDT tags it Sing after plural subjects too.
GREEK_AUX = "Aspect=Imp|Mood=Ind|Number={}|Person=3|Tense=Pres|VerbForm=Fin|Voice={}"


def greek_perfect(number: str) -> tuple[str, ...]:
    """*Οι άνθρωποι έχουν φύγει* (or the singular *Ο άνθρωπος έχει φύγει*)."""
    plural = number == "Plur"
    return (
        f"1 {'Οι' if plural else 'Ο'} ο DET Case=Nom|Definite=Def|Gender=Masc|Number={number}|"
        "PronType=Art 2 det",
        f"2 {'άνθρωποι' if plural else 'άνθρωπος'} άνθρωπος NOUN Case=Nom|Gender=Masc|"
        f"Number={number} 4 nsubj",
        f"3 {'έχουν' if plural else 'έχει'} έχω AUX {GREEK_AUX.format(number, 'Act')} 4 aux",
        "4 φύγει φεύγω VERB Aspect=Perf|VerbForm=Inf|Voice=Act 0 root",
    )


def greek_copula(subject: str, copula: str) -> tuple[str, ...]:
    """*Τα παιδιά είναι μικρά* (`subject` Plur) or *Το παιδί είναι μικρό*, *είναι* tagged
    `copula`."""
    plural = subject == "Plur"
    return (
        f"1 {'Τα' if plural else 'Το'} ο DET Case=Nom|Definite=Def|Gender=Neut|Number={subject}|"
        "PronType=Art 2 det",
        f"2 {'παιδιά' if plural else 'παιδί'} παιδί NOUN Case=Nom|Gender=Neut|Number={subject} "
        "4 nsubj",
        f"3 είναι είμαι AUX {GREEK_AUX.format(copula, 'Pass')} 4 cop",
        f"4 {'μικρά' if plural else 'μικρό'} μικρός ADJ Case=Nom|Gender=Neut|Number={subject} "
        "0 root",
    )


def test_a_syncretic_target_tagged_against_its_subject_counts_as_agreeing(tmp_path):
    # 20 plural perfects agree; 8 plural copulas tagged Plur make *είναι* the usual 3pl form of
    # *είμαι*, and 6 more are tagged Sing: before, 28 of 34 plural subjects agreed after an
    # auxiliary ((28 + 1) / 36 < 0.90) and *οι άνθρωποι έχουν* → *έχει* was skipped.
    plural = [greek_perfect("Plur") for _ in range(20)]
    copulas = [greek_copula("Plur", "Plur") for _ in range(8)]
    copulas += [greek_copula("Plur", "Sing") for _ in range(6)]
    singular = [greek_perfect("Sing"), *(greek_copula("Sing", "Sing") for _ in range(10))]
    pairs, skips, _ = mine_with_skips(tmp_path, *plural, *copulas, *singular, lang="Greek")
    table = pl.read_parquet(tmp_path / "corpus" / "el" / "agreement.parquet")
    finest = table.filter(
        (pl.col("type") == "subject-verb")
        & (pl.col("feature") == "Number")
        & (pl.col("controller_value") == "Plur")
        & pl.col("order").is_not_null()
    ).row(0, named=True)
    assert (finest["n"], finest["agree"], finest["certain"]) == (34, 34, True)
    made = pairs.filter(
        (pl.col("type") == "subject-verb")
        & (pl.col("feature") == "Number")
        & pl.col("sent_id").is_in([f"s{i}" for i in range(1, 21)])
    )
    assert made.height == 20
    assert set(made["bad_form"]) == {"έχει"}
    assert "uncertain-agreement" not in set(skips["reason"])


def lexicon_rows(*rows: tuple[str, str, str, str, str, int]) -> pl.DataFrame:
    """UD lexicon rows (form, lemma, upos, Number, Person, Tense, count) of verbs."""
    return pl.DataFrame(
        [
            (form, lemma, upos, [number], [], [], ["3"], [], f"Mood=Ind|Tense={tense}", count,
             "ud")
            for form, lemma, upos, number, tense, count in rows
        ],
        schema=["form", "lemma", "upos", "number", "gender", "case", "person", "definite",
                "feats", "count", "source"],
        orient="row",
    )  # fmt: skip


def disagreement(
    case: str, form: str, lemma: str, tagged: str, value: str, kind: str = "subject-verb"
) -> tuple[str, ...]:
    """A `rated_disagree` key: a Number configuration with the controller's `value` and Case,
    then the target's form, lemma and FEATS (tagged `tagged`)."""
    config = (kind, "Number", value, case, "AUX", "Fin", "controller-first")
    return (*config, form, lemma, f"Mood=Ind|Number={tagged}|Person=3|Tense=Pres")


def test_a_form_the_controllers_cell_only_borrows_stays_evidence():
    # Greek-like: *είναι* is the 3pl's only form. Hindi-like: the plural *हैं* is tagged Sing
    # beside honorific singular subjects, 3 of the 3sg's 103 tokens: agreement that is optional
    # (a singular subject with a plural verb) stays so.
    lexicon = lexicon_rows(
        ("είναι", "είμαι", "AUX", "Sing", "Pres", 310),
        ("είναι", "είμαι", "AUX", "Plur", "Pres", 100),
        ("है", "है", "AUX", "Sing", "Pres", 100),
        ("हैं", "है", "AUX", "Sing", "Pres", 3),
        ("हैं", "है", "AUX", "Plur", "Pres", 90),
    )
    greek = disagreement("Nom", "είναι", "είμαι", "Sing", "Plur")
    hindi = disagreement("Nom", "हैं", "है", "Plur", "Sing")
    agree = syncretic_agree(Counter({greek: 6, hindi: 4}), lexicon, {})
    assert agree == Counter({greek[:-3]: 6})


def test_an_oblique_subject_keeps_its_syncretic_disagreements():
    # An oblique subject's verb agrees with another word (Hindi ergative subjects: the object),
    # so a syncretic form there is counted as tagged; a determiner's oblique noun is not a
    # subject, and its syncretic determiner counts as agreeing.
    lexicon = lexicon_rows(
        ("είναι", "είμαι", "AUX", "Sing", "Pres", 310),
        ("είναι", "είμαι", "AUX", "Plur", "Pres", 100),
    )
    oblique = disagreement("Acc", "είναι", "είμαι", "Sing", "Plur")
    caseless = disagreement("_", "είναι", "είμαι", "Sing", "Plur")
    determiner = disagreement("Dat", "είναι", "είμαι", "Sing", "Plur", kind="determiner")
    agree = syncretic_agree(Counter({oblique: 5, caseless: 2, determiner: 1}), lexicon, {})
    assert agree == Counter({caseless[:-3]: 2, determiner[:-3]: 1})
