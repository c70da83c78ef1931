"""§4.2 pairs without a relation row (a relative pronoun's Number borrowed from its antecedent:
the relations table keeps agreeing relations only) are scored like every other pair, on a corpus
written here where every count is known: the varied word's values from the lexicon, the measures
the pair and its sentence tell, the others null and never binned."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.output.results import load_results
from ud_agree.evaluate.readings.items import pair_surfaces, varied_values
from ud_agree.evaluate.report.figures import SPECS, figure_table
from ud_agree.evaluate.run import evaluate
from ud_agree.evaluate.summary.stats import accuracy_table
from ud_agree.evaluate.summary.tables import summarize

from tests.sentences import write_treebank
from tests.sharding import sample_options
from tests.suite_stubs import HashScorer, OracleScorer
from ud_agree.schemas.corpus import PAIR_KEY, RELATION_KEY

FIN = "Mood=Ind|Tense=Pres|VerbForm=Fin"
THEY = "1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj"
BLOCKS = (
    (  # s1: *which* has no Number: no relation row, a pair all the same (antecedent)
        "1 the the DET Definite=Def|PronType=Art 2 det",
        "2 rules rule NOUN Number=Plur 0 root",
        "3 which which PRON PronType=Rel 4 nsubj",
        f"4 apply apply VERB {FIN}|Number=Plur|Person=3 2 acl:relcl",
    ),
    (  # s2
        "1 it it PRON Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        f"2 applies apply VERB {FIN}|Number=Sing|Person=3 0 root",
    ),
    (THEY, f"2 apply apply VERB {FIN}|Number=Plur|Person=3 0 root"),  # s3
    (THEY, f"2 apply apply VERB {FIN}|Number=Plur|Person=3 0 root"),  # s4
    (  # s5: *apply* in another bundle, which the s1 pair must not count
        "1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
        f"2 apply apply VERB {FIN}|Number=Sing|Person=1 0 root",
    ),
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    from ud_agree.mine.plan import Options as MineOptions
    from ud_agree.mine.run import mine_languages

    work = tmp_path_factory.mktemp("alone")
    write_treebank(work / "ud", "English", "en", BLOCKS)
    options = MineOptions(ud_dir=work / "ud", out=work / "corpus", unimorph_dirs=[],
                          all_types=True, progress=False)  # fmt: skip
    mine_languages(options)
    return work / "corpus"


def tables(corpus: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The pairs, and those of them without a relation row (checked: the s1 pair only)."""
    pairs = pl.read_parquet(corpus / "en" / "pairs.parquet")
    relations = pl.read_parquet(corpus / "en" / "relations.parquet")
    alone = pairs.join(relations.select(RELATION_KEY), on=list(RELATION_KEY), how="anti")
    assert alone.select("sent_id", "good_form", "bad_form").rows() == [("s1", "apply", "applies")]
    assert "antecedent" in alone["derived"][0]
    return pairs, alone


def run(corpus: Path, out: Path, scorer=None, **kw) -> tuple[pl.DataFrame, dict]:
    model = "frequency" if scorer is None else scorer.name
    options = sample_options(corpus, out, lang="en", reading="pair", model=model, **kw)
    outcome = evaluate(options, scorer=scorer)
    return load_results(outcome.out_dir).collect(), outcome.manifest


def the_pair_alone(results: pl.DataFrame) -> dict:
    (row,) = results.filter(pl.col("sent_id") == "s1").iter_rows(named=True)
    return row


def test_every_pair_is_scored_and_the_one_without_relation_is_counted(corpus, tmp_path):
    pairs, _ = tables(corpus)
    results, manifest = run(corpus, tmp_path)
    assert sorted(results.select(PAIR_KEY).rows()) == sorted(pairs.select(PAIR_KEY).rows())
    counts = manifest["counts"]
    assert counts["pairs_without_relation"] == 1 and "missing-relation" not in counts
    assert counts["items_in_results"] == pairs.height
    row = the_pair_alone(results)
    # What the pair and its sentence tell: the IDs (4 and 3), the varied word a surface word.
    assert (row["distance"], row["order"], row["in_mwt"]) == (1, "controller-first", False)
    assert (row["type"], row["value"], row["form"]) == ("subject-verb", "Number=Plur", "apply")
    # What only a relation row holds: null, not 0.
    assert row["agreeing"] is None and row["distractors"] is None and row["attractors"] is None


def test_an_oracle_is_right_on_every_pair_and_the_reversed_one_on_none(corpus, tmp_path):
    pairs, _ = tables(corpus)
    good = set(pairs["sentence_good"])
    results, _ = run(corpus, tmp_path / "a", OracleScorer(good))
    assert results.height == pairs.height and results["right"].all()
    assert the_pair_alone(results)["right"]
    results, _ = run(corpus, tmp_path / "b", OracleScorer(good, reverse=True))
    assert results.height == pairs.height and not results["right"].any()
    overall = summarize(results, n_boot=20).filter(pl.col("breakdown") == "all")
    assert overall["accuracy"].to_list() == [0.0] and overall["n"].to_list() == [pairs.height]


def test_scores_equal_a_one_pair_at_a_time_loop(corpus, tmp_path):
    pairs, _ = tables(corpus)
    scorer = HashScorer()
    results, _ = run(corpus, tmp_path, scorer, chunk_size=2)
    by_key = {row[: len(PAIR_KEY)]: row[len(PAIR_KEY) :] for row in results.select(
        *PAIR_KEY, "score_good", "score_bad", "right").rows()}  # fmt: skip
    alone = HashScorer()
    for pair in pairs.iter_rows(named=True):
        good, bad = (
            float(np.sum(alone.token_scores([pair[side]])[0].logprobs))
            for side in ("sentence_good", "sentence_bad")
        )
        score_good, score_bad, right = by_key[tuple(pair[k] for k in PAIR_KEY)]
        assert score_good == pytest.approx(good, abs=1e-12)
        assert score_bad == pytest.approx(bad, abs=1e-12)
        assert right == (good > bad)


def test_the_frequency_counts_of_the_pair_are_the_lexicons_by_hand(corpus, tmp_path):
    results, _ = run(corpus, tmp_path)
    row = the_pair_alone(results)
    # *apply* as 3rd plural: s1, s3, s4 (s5's 1st singular *apply* is another bundle); *applies*
    # as 3rd singular: s2. The relation row of s3 (the same word, the same bundle) counts alike.
    assert (row["good_count"], row["bad_count"]) == (3, 1)
    assert (row["score_good"], row["score_bad"], row["frequency"]) == (3.0, 1.0, "congruent")
    assert row["right"]
    (s3,) = results.filter(pl.col("sent_id") == "s3").iter_rows(named=True)
    assert (s3["good_count"], s3["bad_count"]) == (3, 1)
    assert (results["right"] == (results["frequency"] == "congruent")).all()


def test_a_null_measure_is_its_own_group_and_on_no_bin(corpus, tmp_path):
    results, _ = run(corpus, tmp_path)
    table = summarize(results, n_boot=20)
    distractors = dict(
        table.filter(pl.col("breakdown") == "distractors").select("group", "n").rows()
    )
    held = results.filter(pl.col("distractors").is_not_null())
    assert distractors["unknown"] == 1
    assert sum(n for group, n in distractors.items() if group != "unknown") == held.height
    assert (held["distractors"] == 0).all() and distractors["0"] == held.height
    agreeing = dict(table.filter(pl.col("breakdown") == "agreeing").select("group", "n").rows())
    assert agreeing["unknown"] == 1
    spec = next(s for s in SPECS if s.column == "distractors")
    assert figure_table(results, spec)["n"].sum() == held.height


def test_balanced_accuracy_groups_them_by_their_varied_feature():
    # 25 plural items without a relation row (agreeing null), 75 singular with one: a guesser
    # right on plurals only scores 25% raw, 50% balanced, every item balanced.
    n_plur, n_sing = 25, 75
    frame = pl.DataFrame(
        {
            "lang": ["xx"] * (n_plur + n_sing),
            "treebank": ["t"] * (n_plur + n_sing),
            "sent_id": [str(i) for i in range(n_plur + n_sing)],
            "feature": ["Number"] * (n_plur + n_sing),
            "agreeing": [None] * n_plur + [["Number", "Person"]] * n_sing,
            "value": ["Number=Plur"] * n_plur + ["Number=Sing"] * n_sing,
            "right": [True] * n_plur + [False] * n_sing,
        },
        schema_overrides={"agreeing": pl.List(pl.String)},
    )
    row = accuracy_table(frame, n_boot=20).row(0, named=True)
    assert row["accuracy"] == pytest.approx(0.25)
    assert row["balanced_accuracy"] == pytest.approx(0.5) and row["ba_left_out"] == 0


LEXICON = pl.DataFrame(
    [
        ("are", "be", "AUX", ["Plur"], ["3"], 10),
        ("Are", "be", "AUX", ["Plur"], ["1"], 5),
        ("are", "be", "AUX", ["Sing"], ["2"], 30),
        ("află", "afla", "VERB", [], ["3"], 8),
        ("află", "afla", "VERB", ["Sing"], ["3"], 0),  # UniMorph only: no treebank token
    ],
    schema=["form", "lemma", "upos", "number", "person", "count"],
    orient="row",
).with_columns(**{name: pl.lit([], pl.List(pl.String)) for name in ("gender", "case", "definite")})


def asked(*rows: tuple[str, str, str, str, str, list[str]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema=["good_form", "lemma", "upos", "feature", "good_value", "derived"],
        orient="row",
    )  # fmt: skip


def test_the_varied_words_values_are_its_forms_bundle_that_holds_the_good_value():
    got = varied_values(
        asked(
            ("are", "be", "AUX", "Number", "Plur", []),  # (Plur, 3) and (Plur, 1): the frequent
            ("are", "be", "AUX", "Number", "Sing", []),  # (Sing, 2): the only singular
            # The subject's own Number and an unmarked cell: were *are* plural as annotated, the
            # two would agree and have a relation row; no bundle lacks Number: a bare token.
            ("are", "be", "AUX", "Number", "Plur", ["unmarked-cell"]),
            # The subject's Number borrowed (its antecedent's): *are*'s own plural may be it.
            ("are", "be", "AUX", "Number", "Plur", ["antecedent", "unmarked-cell"]),
            # Person implicit (borrowed), Number the unmarked cell: *află*'s own Person 3.
            ("află", "afla", "VERB", "Person", "3", ["implicit-person", "unmarked-cell"]),
            # The subject's own Person 3, unmarked on *află*: no bundle lacks Person.
            ("află", "afla", "VERB", "Person", "3", ["unmarked-cell"]),
            ("is", "be", "AUX", "Number", "Sing", ["antecedent"]),  # a form the lexicon lacks
        ),
        LEXICON,
    )
    assert got.select("m_number", "m_person").rows() == [
        (["Plur"], ["3"]),
        (["Sing"], ["2"]),
        ([], []),
        (["Plur"], ["3"]),
        ([], ["3"]),
        ([], []),
        (["Sing"], []),
    ]


def test_the_surface_words_are_found_where_the_ids_tell_them():
    sentences = pl.DataFrame(
        {
            "lang": ["xx"] * 2,
            "treebank": ["t"] * 2,
            "sent_id": ["plain", "mwt"],
            "words": [["the", "rules", "which", "apply"], ["du", "vin", "qui", "coule"]],
            "space_after": [[True] * 4, [True] * 4],
        }
    )
    # (sent_id, target, controller, start, end): du = de + le, so *coule* is word 5, surface 3.
    rows = [
        ("plain", 4, 3, 16, 21),  # the controller before: surface 2
        ("plain", 3, 4, 10, 15),  # the controller after: unknown
        ("mwt", 5, 4, 11, 16),  # a multiword token before: the controller's surface unknown
        ("plain", 4, 3, 16, 19),  # not a whole surface word: nothing known
    ]
    text = {"plain": "the rules which apply", "mwt": "du vin qui coule"}
    pairs = pl.DataFrame(
        [("xx", "t", s, t, c, "target", text[s], a, b) for s, t, c, a, b in rows],
        schema=["lang", "treebank", "sent_id", "target_id", "controller_id", "varied",
                "sentence_good", "start", "end_good"],
        orient="row",
    )  # fmt: skip
    masked, other = pair_surfaces(pairs, sentences)
    assert masked.to_list() == [3, 2, 3, None]
    assert other.to_list() == [2, None, None, None]


def test_the_words_other_pairs_narrow_its_bundle():
    # *are* varied for Number (plural) and for Person (1st) in one relation: (Plur, 1), though
    # (Plur, 3) is the more frequent plural; the same pair alone in another relation: (Plur, 3).
    rows = [
        ("s1", "Number", "Plur"),
        ("s1", "Person", "1"),
        ("s2", "Number", "Plur"),
    ]
    pairs = pl.DataFrame(
        [("xx", "t", s, 2, 1, "target", "original", "are", "be", "AUX", f, v, ["antecedent"])
         for s, f, v in rows],
        schema=[*RELATION_KEY, "varied", "variant", "good_form", "lemma", "upos", "feature",
                "good_value", "derived"],
        orient="row",
    )  # fmt: skip
    got = varied_values(pairs, LEXICON)
    assert got.select("m_number", "m_person").rows() == [
        (["Plur"], ["1"]),
        (["Plur"], ["1"]),
        (["Plur"], ["3"]),
    ]


def test_the_command_line_says_how_many_pairs_have_no_relation_row(corpus, tmp_path, capsys):
    from ud_agree.evaluate.cli import main

    argv = ["--lang", "en", "--corpus", str(corpus), "--out", str(tmp_path), "--model"]
    assert main([*argv, "frequency", "--reading", "pair", "--no-progress"]) == 0
    pairs, _ = tables(corpus)
    out = capsys.readouterr().out
    assert f"items: {pairs.height} scored (1 pairs without a relation row);" in out
    assert "missing-relation" not in out
