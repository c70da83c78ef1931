"""Balanced accuracy (DESIGN §6 revised): no guesser right exactly when one feature has one value
scores above 1/k on a feature of k values, in any summary row; frequency congruence in every row
(§10). Tables built here where the answer is known, and the real French-PUD items."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.summary.stats import (
    Contrast,
    accuracy_table,
    balanced,
    contrasts_of,
)
from ud_agree.evaluate.summary.tables import summarize

from tests.paths import MODELS, PUD

Row = tuple[str, str, bool]  # (agreeing features joined by +, value string, right)


def items(rows: list[Row], **constant) -> pl.DataFrame:
    """One item a sentence, class-average style: `agreeing` is the group, `value` its values."""
    return pl.DataFrame(
        {
            "lang": ["xx"] * len(rows),
            "treebank": ["t"] * len(rows),
            "sent_id": [str(i) for i in range(len(rows))],
            "agreeing": [group.split("+") for group, _, _ in rows],
            "value": [value for _, value, _ in rows],
            "right": [right for _, _, right in rows],
        }
    ).with_columns(**{k: pl.lit(v) for k, v in constant.items()})


def feature_values(frame: pl.DataFrame) -> set[tuple[str, str]]:
    """Every (feature, value) an item holds: its value string's features that its group balances."""
    found = set()
    for value, group, feature in _labels(frame):
        for part in value.split("|"):
            name, _, held = part.partition("=")
            if name in group or name == feature:
                found.add((name, held))
    return found


def _labels(frame: pl.DataFrame) -> list[tuple[str, list[str], str | None]]:
    feature = frame["feature"] if "feature" in frame.columns else [None] * frame.height
    # A pair without a relation row (§4.2) has no agreeing set: its group is its varied feature.
    agreeing = [group or [] for group in frame["agreeing"].to_list()]
    return list(zip(frame["value"], agreeing, feature, strict=True))


def holds(frame: pl.DataFrame, name: str, held: str) -> pl.Series:
    """Whether each item holds `name` = `held` (the masked word's or the good form's value)."""
    return pl.Series(
        [
            (name in group or name == feature) and f"{name}={held}" in value.split("|")
            for value, group, feature in _labels(frame)
        ]
    )


def stub_rows(frame: pl.DataFrame, right: pl.Series, by: list[str]) -> pl.DataFrame:
    table = accuracy_table(frame.with_columns(right.alias("right")), by=by, n_boot=50)
    return table.filter(pl.col("balanced_accuracy").is_not_nan())


def assert_no_one_value_stub_beats(frame: pl.DataFrame, bound: float, by: list[str]) -> int:
    """Every feature = value stub scores at most `bound` in every row; how many stubs were tried."""
    tried = 0
    for name, held in sorted(feature_values(frame)):
        rows = stub_rows(frame, holds(frame, name, held), by)
        tried += 1
        assert (rows["balanced_accuracy"] <= bound + 1e-9).all(), (name, held, rows)
    return tried


# -- tables built here ------------------------------------------------------------------------


def test_always_singular_gets_no_figure_where_every_counted_bundle_is_singular():
    # The Spanish predicative case: plural adjectives carry no Gender, so the Gender+Number group
    # holds singular items only; the old definition balanced its two bundles and gave 100%.
    rows = [("Gender+Number", "Gender=Masc|Number=Sing", True)] * 40 + [
        ("Gender+Number", "Gender=Fem|Number=Sing", True)
    ] * 40
    row = accuracy_table(items(rows), n_boot=50).row(0, named=True)
    assert row["accuracy"] == 1.0
    assert np.isnan(row["balanced_accuracy"]) and row["ba_left_out"] == 80


def test_a_one_value_stub_scores_at_most_one_over_k_on_a_three_valued_feature():
    rows = []
    for person in ("1", "2", "3"):
        for number in ("Sing", "Plur"):
            rows += [("Number+Person", f"Number={number}|Person={person}", True)] * 25
    frame = items(rows)
    tried = assert_no_one_value_stub_beats(frame, 1 / 2, by=[])
    assert tried == 5
    # Person alone has three values: a Person=3 guesser scores exactly 1/3.
    row = stub_rows(frame, holds(frame, "Person", "3"), by=[]).row(0, named=True)
    assert row["balanced_accuracy"] == pytest.approx(1 / 3)


def test_a_stub_right_everywhere_scores_100_and_nowhere_0():
    rows = [("Gender+Number", f"Gender={g}|Number={n}", True) for g in ("Masc", "Fem")
            for n in ("Sing", "Plur") for _ in range(30)]  # fmt: skip
    frame = items(rows)
    everywhere = stub_rows(frame, pl.Series([True] * frame.height), by=[])
    nowhere = stub_rows(frame, pl.Series([False] * frame.height), by=[])
    assert everywhere["balanced_accuracy"].to_list() == [1.0]
    assert nowhere["balanced_accuracy"].to_list() == [0.0]


def test_a_fully_crossed_group_keeps_the_mean_over_its_bundles():
    # Every Gender × Number cell holds 30 items: each feature's mean over its values is the mean
    # over the four bundles, so the figure is what whole-bundle balancing gave.
    accuracies = {("Masc", "Sing"): 0.9, ("Masc", "Plur"): 0.6, ("Fem", "Sing"): 0.8,
                  ("Fem", "Plur"): 0.5}  # fmt: skip
    rows = []
    for (gender, number), accuracy in accuracies.items():
        right = round(30 * accuracy)
        value = f"Gender={gender}|Number={number}"
        rows += [("Gender+Number", value, True)] * right
        rows += [("Gender+Number", value, False)] * (30 - right)
    row = accuracy_table(items(rows), n_boot=50).row(0, named=True)
    assert row["balanced_accuracy"] == pytest.approx(np.mean(list(accuracies.values())))
    assert row["ba_left_out"] == 0 and row["values"] == 4


def test_the_weakest_feature_decides_a_group():
    # Number well balanced (Sing 100%, Plur 100%), Gender not (Masc 100%, Fem 0%): 50%.
    rows = (
        [("Gender+Number", "Gender=Masc|Number=Sing", True)] * 30
        + [("Gender+Number", "Gender=Masc|Number=Plur", True)] * 30
        + [("Gender+Number", "Gender=Fem|Number=Sing", False)] * 10
        + [("Gender+Number", "Gender=Fem|Number=Plur", False)] * 10
    )
    row = accuracy_table(items(rows), n_boot=50).row(0, named=True)
    assert row["balanced_accuracy"] == pytest.approx(0.5)


def test_a_resample_recomputes_which_values_count():
    # Two values of one feature, 20 items each: in a resample where one falls to 19, the group
    # has no figure; where both keep 20 or more, it has one.
    (contrast,) = contrasts_of(["Number", "Number"], ["Number=Plur", "Number=Sing"])
    assert isinstance(contrast, Contrast)
    right = np.array([[20.0, 0.0], [19.0, 0.0], [25.0, 0.0]])
    total = np.array([[20.0, 20.0], [19.0, 21.0], [25.0, 20.0]])
    estimate, items_balanced, _ = balanced(right, total, [contrast])
    assert estimate[0] == 0.5 and np.isnan(estimate[1]) and estimate[2] == 0.5
    assert items_balanced.tolist() == [40.0, 0.0, 45.0]


def test_every_summary_row_says_how_often_frequency_alone_is_right():
    rows = [("Number", "Number=Sing", True)] * 40 + [("Number", "Number=Plur", False)] * 40
    frame = items(rows).with_columns(
        frequency=pl.Series(["congruent"] * 50 + ["incongruent"] * 20 + ["tie"] * 10),
        type=pl.lit("determiner"),
    )
    full = frame.with_columns(
        **{
            c: pl.lit(None, dtype=pl.String)
            for c in ("masked", "varied", "feature", "variant", "right_logit")
        },
        **{
            c: pl.lit(1, dtype=pl.Int32)
            for c in ("distance", "distance_tokens", "distractors", "attractors")
        },
    ).with_columns(pl.col("right_logit").cast(pl.Boolean))
    summary = summarize(full, n_boot=20)
    overall = summary.filter(pl.col("breakdown") == "all").row(0, named=True)
    assert overall["frequency_congruent"] == 50 / 80 and overall["incongruent_n"] == 20
    assert summary["frequency_congruent"].null_count() == 0


# -- the real French-PUD items ----------------------------------------------------------------


@pytest.fixture(scope="module")
def pud_frequency_results(pud_corpus, tmp_path_factory):
    """French-PUD scored by the frequency baseline in both readings (class-average with
    tiny-fr-ud-bert's vocabulary): the real items, and the baseline's own decisions."""
    pytest.importorskip("transformers")
    if not (MODELS / "tiny-fr-ud-bert").is_dir():
        pytest.skip("shared tiny-fr-ud-bert not present")
    from ud_agree.evaluate.options import Options
    from ud_agree.evaluate.run import evaluate

    out = tmp_path_factory.mktemp("pud-frequency")
    frames = {}
    for reading, extra in (
        ("class-average", {"vocab_of": str(MODELS / "tiny-fr-ud-bert")}),
        ("pair", {}),
    ):
        options = Options(lang="fr", corpus=str(pud_corpus), model="frequency", reading=reading,
                          out=str(out), progress=False, **extra)  # fmt: skip
        outcome = evaluate(options)
        frames[reading] = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    return frames


@pytest.mark.skipif(not PUD.is_dir(), reason="shared French-PUD not present")
@pytest.mark.parametrize("reading", ["class-average", "pair"])
def test_no_one_value_stub_beats_one_half_on_french_pud(pud_frequency_results, reading):
    frame = pud_frequency_results[reading]
    tried = assert_no_one_value_stub_beats(frame, 1 / 2, by=["type"])
    assert tried >= 4  # Number and Gender values at least
    everywhere = stub_rows(frame, pl.Series([True] * frame.height), by=["type"])
    nowhere = stub_rows(frame, pl.Series([False] * frame.height), by=["type"])
    assert everywhere.height and (everywhere["balanced_accuracy"] == 1.0).all()
    assert (nowhere["balanced_accuracy"] == 0.0).all()


@pytest.mark.skipif(not PUD.is_dir(), reason="shared French-PUD not present")
def test_the_frequency_baseline_scores_at_most_half_balanced_on_french_pud(pud_frequency_results):
    frame = pud_frequency_results["class-average"]
    row = accuracy_table(frame, n_boot=50).row(0, named=True)
    assert row["accuracy"] > 0.6  # raw accuracy rewards frequent, many-bundled forms
    assert row["balanced_accuracy"] <= 0.5
