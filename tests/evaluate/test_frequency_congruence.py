"""§10: every result row says what the frequency heuristic decides on it, and the frequency
baseline is right exactly where that verdict is `congruent`."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.readings.candidates import CandidateSet
from ud_agree.evaluate.readings.class_decisions import Splits, class_average_congruence, congruence
from ud_agree.evaluate.readings.frequency import FEATURE_COLUMNS, pair_counts

from tests.sharding import sample_options


def test_congruence_labels_follow_the_counts():
    labels = congruence(np.array([5, 1, 3, 0, np.nan]), np.array([1, 5, 3, 0, 2]))
    assert labels.tolist() == ["congruent", "incongruent", "tie", "tie", "tie"]


def test_class_average_congruence_compares_mean_counts_of_the_same_candidates():
    candidates = CandidateSet(
        upos=["NOUN"] * 4,
        keys=["a", "b", "c", "d"],
        token_ids=[[], [], [], []],
        counts=np.array([10.0, 2.0, 4.0, 4.0]),
        bundles=[frozenset()] * 4,
    )
    correct = np.array([[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=bool)
    incorrect = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]], dtype=bool)
    splits = Splits(keys=["k1", "k2", "k3"], correct=correct, incorrect=incorrect)
    # means: (10+2)/2 = 6 > 4; 2 < 4; 4 = 4
    assert class_average_congruence(candidates, splits).tolist() == [
        "congruent",
        "incongruent",
        "tie",
    ]


@pytest.mark.parametrize("reading", ["class-average", "pair"])
def test_the_frequency_baseline_is_right_on_congruent_items_and_wrong_on_the_others(
    pud_corpus, tmp_path, reading
):
    from ud_agree.evaluate.output.results import load_results
    from ud_agree.evaluate.run import evaluate

    options = sample_options(pud_corpus, tmp_path, reading=reading, batch_size=32)
    rows = load_results(evaluate(options).out_dir).collect()
    by_label = {label: frame for (label,), frame in rows.group_by("frequency")}
    assert {"congruent", "incongruent"} <= set(by_label)
    assert by_label["congruent"]["right"].all()
    assert not by_label["incongruent"]["right"].any()
    if "tie" in by_label:
        assert not by_label["tie"]["right"].any()  # a tie is not right (§5)
    if reading == "pair":
        # The labels, item by item, from the counts recorded beside them.
        for good, bad, label in rows.select("good_count", "bad_count", "frequency").iter_rows():
            expected = "congruent" if good > bad else "incongruent" if good < bad else "tie"
            assert label == expected


def test_a_pair_counts_the_lexicon_rows_of_its_own_lemma_and_form(pud_corpus, tmp_path):
    from ud_agree.evaluate.output.results import load_results
    from ud_agree.evaluate.run import evaluate

    options = sample_options(pud_corpus, tmp_path, reading="pair", batch_size=32)
    rows = load_results(evaluate(options).out_dir).collect()
    lexicon = pl.read_parquet(pud_corpus / "fr" / "lexicon.parquet")
    totals = lexicon.group_by(pl.col("form").str.to_lowercase().alias("key"), "lemma", "upos").agg(
        pl.col("count").sum(), pl.len().alias("bundles")
    )
    index = {
        (key, lemma, upos): (count, bundles) for key, lemma, upos, count, bundles in totals.rows()
    }
    checked = 0
    for form, lemma, upos, good in rows.select("good_form", "lemma", "upos", "good_count").rows():
        count, bundles = index.get((form.lower(), lemma, upos), (0, 0))
        assert good <= count  # one bundle's count of the form, never more than all of them
        if bundles == 1:  # the form has one bundle for its lemma: the whole count is the pair's
            assert good == count
            checked += 1
    assert checked > 100


def test_a_class_average_label_is_the_baseline_over_the_models_own_candidates(pud_corpus, tmp_path):
    # The rule the labels follow: an item's `frequency` says whether the frequency heuristic
    # gets it right over the candidates the run's model chooses among (its whole-word forms), so
    # two models' runs may label one item apart. The baseline given that model's vocabulary
    # (--vocab-of) chooses among the very same candidates: the same items, the same labels, and
    # right exactly where they say congruent.
    from ud_agree.evaluate.output.results import load_results
    from ud_agree.evaluate.run import evaluate

    from tests.paths import MODELS

    if not (MODELS / "tiny-fr-ud-bert").is_dir():
        pytest.skip("shared tiny-fr-ud-bert not present")
    bert = str(MODELS / "tiny-fr-ud-bert")
    key = ["sent_id", "type", "target_id", "controller_id", "masked"]
    runs = {}
    for name, extra in (("bert", {"model": bert}), ("baseline", {"vocab_of": bert})):
        options = sample_options(
            pud_corpus, tmp_path / name, mask="controller", batch_size=32, **extra
        )
        runs[name] = load_results(evaluate(options).out_dir).collect().sort(key)
    model, baseline = runs["bert"], runs["baseline"]
    assert model.height == baseline.height > 20
    assert model.select(key).equals(baseline.select(key))
    assert model["frequency"].to_list() == baseline["frequency"].to_list()
    assert baseline["right"].to_list() == [f == "congruent" for f in baseline["frequency"]]


def _lexicon_row(form, lemma, upos, feats, count, number=(), gender=()):
    return {"form": form, "lemma": lemma, "upos": upos, "number": list(number),
            "gender": list(gender), "case": [], "person": [], "definite": [], "feats": feats,
            "count": count}  # fmt: skip


def _pair_item(kind, good, bad, lemma, upos, feature, bad_value, **held):
    values = {f"m_{name}": list(held.get(name, ())) for name in FEATURE_COLUMNS}
    return {"type": kind, "good_form": good, "bad_form": bad, "lemma": lemma, "upos": upos,
            "feature": feature, "bad_value": bad_value, **values}  # fmt: skip


def test_a_layered_pair_counts_its_forms_in_the_layer_it_varies():
    # Basque-BDT keeps an auxiliary's agreement in layered FEATS only (its F lists are empty);
    # Hindi object-verb (b) compares plain F: both must count their forms, never 0 for want of
    # a bundle (a 0 against 0 is a tie, and the baseline would read wrong on every such pair).
    erg_abs = "Mood=Ind|Number[abs]={}|Number[erg]={}|Person[abs]=3|Person[erg]=3"
    lexicon = pl.DataFrame(
        [
            _lexicon_row("du", "edun", "AUX", erg_abs.format("Sing", "Sing"), 323),
            _lexicon_row("ditu", "edun", "AUX", erg_abs.format("Plur", "Sing"), 87),
            _lexicon_row("dute", "edun", "AUX", erg_abs.format("Sing", "Plur"), 152),
            _lexicon_row("kiyā", "kar", "VERB", "Aspect=Perf", 50, ["Sing"], ["Masc"]),
            _lexicon_row("kī", "kar", "VERB", "Aspect=Perf", 20, ["Sing"], ["Fem"]),
        ]
    ).with_columns(pl.col(name).cast(pl.List(pl.String)) for name in FEATURE_COLUMNS)
    items = pl.DataFrame(
        [
            _pair_item(
                "object-verb",
                "du",
                "ditu",
                "edun",
                "AUX",
                "Number",
                "Plur",
                number=["Sing"],
                person=["3"],
            ),
            _pair_item(
                "ergative-verb",
                "Dute",
                "du",
                "edun",
                "AUX",
                "Number",
                "Sing",
                number=["Plur"],
                person=["3"],
            ),
            _pair_item(
                "object-verb",
                "kiyā",
                "kī",
                "kar",
                "VERB",
                "Gender",
                "Fem",
                number=["Sing"],
                gender=["Masc"],
            ),
            # A plain type never reads a layer: its bundle is the forms' F, empty here.
            _pair_item(
                "subject-verb",
                "du",
                "ditu",
                "edun",
                "AUX",
                "Number",
                "Plur",
                number=["Sing"],
                person=["3"],
            ),
        ]
    ).with_columns(pl.col(f"m_{name}").cast(pl.List(pl.String)) for name in FEATURE_COLUMNS)
    good, bad = pair_counts(items, lexicon)
    assert good.tolist() == [323, 152, 50, 0]
    assert bad.tolist() == [87, 323, 20, 0]
