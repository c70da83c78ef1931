"""Bootstrap intervals resample sentences, not items."""

from __future__ import annotations

import numpy as np
import polars as pl
from ud_agree.evaluate.summary.stats import accuracy_table, bootstrap_interval


def frame(sentences: int, items_per_sentence: int) -> pl.DataFrame:
    """Half the sentences all right, half all wrong: items within a sentence move together."""
    n = sentences * items_per_sentence
    sentence = [str(i // items_per_sentence) for i in range(n)]
    return pl.DataFrame(
        {
            "lang": ["fr"] * n,
            "treebank": ["t"] * n,
            "sent_id": sentence,
            "right": [int(s) % 2 == 0 for s in sentence],
        }
    )


def test_interval_contains_the_accuracy_and_is_reproducible():
    table = accuracy_table(frame(200, 1))
    row = table.row(0, named=True)
    assert row["n"] == 200 and row["accuracy"] == 0.5
    assert row["ci_low"] < 0.5 < row["ci_high"]
    assert accuracy_table(frame(200, 1)).equals(table)


def test_correlated_items_in_a_sentence_widen_the_interval():
    # 1000 items either way; clustered in 100 sentences they carry the information of 100.
    independent = accuracy_table(frame(1000, 1)).row(0, named=True)
    clustered = accuracy_table(frame(100, 10)).row(0, named=True)
    width = lambda r: r["ci_high"] - r["ci_low"]  # noqa: E731
    assert width(clustered) > 2.5 * width(independent)


def test_interval_of_a_unanimous_group_is_a_point():
    assert bootstrap_interval(np.array([3, 2]), np.array([3, 2])) == (1.0, 1.0)


def test_groups_get_their_own_rows():
    df = frame(10, 2).with_columns(
        type=pl.when(pl.col("sent_id").cast(pl.Int64) < 5).then(pl.lit("a")).otherwise(pl.lit("b"))
    )
    table = accuracy_table(df, by=["type"])
    assert table["type"].to_list() == ["a", "b"] and table["n"].to_list() == [10, 10]
    assert table["accuracy"].to_list() == [0.6, 0.4]


def test_balanced_accuracy_is_the_mean_over_values_with_20_items():
    # Singular always right (30 items), plural never (30), a rare value (10) left out: 50%, while
    # raw accuracy follows the majority (40/70).
    rows = (
        [("Number=Sing", True)] * 30 + [("Number=Plur", False)] * 30 + [("Number=Dual", True)] * 10
    )
    df = pl.DataFrame(
        {
            "lang": ["fr"] * 70,
            "treebank": ["t"] * 70,
            "sent_id": [str(i) for i in range(70)],
            "value": [v for v, _ in rows],
            "right": [r for _, r in rows],
        }
    )
    row = accuracy_table(df).row(0, named=True)
    assert row["accuracy"] == 40 / 70
    assert row["balanced_accuracy"] == 0.5 and row["values"] == 2
    assert row["ba_ci_low"] <= 0.5 <= row["ba_ci_high"]


def test_balanced_accuracy_needs_a_value_with_20_items():
    df = frame(10, 1).with_columns(value=pl.lit("Number=Sing"))
    row = accuracy_table(df).row(0, named=True)
    assert row["values"] == 0 and row["balanced_accuracy"] != row["balanced_accuracy"]  # NaN


def test_paired_difference_of_identical_sides_is_zero():
    from ud_agree.evaluate.summary.stats import paired_difference

    right, total = np.array([1, 2, 0, 3]), np.array([2, 2, 1, 3])
    assert paired_difference(right, total, right, total) == (0.0, 0.0, 0.0)


def _items(rows: list[tuple[str, str, bool]], **constant) -> pl.DataFrame:
    """One item a sentence: (contrast as agreeing features, value, right)."""
    return pl.DataFrame(
        {
            "lang": ["fr"] * len(rows),
            "treebank": ["t"] * len(rows),
            "sent_id": [str(i) for i in range(len(rows))],
            "agreeing": [contrast.split("+") for contrast, _, _ in rows],
            "value": [value for _, value, _ in rows],
            "right": [right for _, _, right in rows],
        }
    ).with_columns(**{k: pl.lit(v) for k, v in constant.items()})


def test_a_majority_guesser_with_a_counterpart_less_value_scores_half_balanced():
    # The French-PUD case of §6: singular right, plural wrong, and a big subject-verb group whose
    # only value (Number=Sing|Person=3) has no counterpart: it must not lift the figure.
    rows = (
        [("Number", "Number=Sing", True)] * 100
        + [("Number", "Number=Plur", False)] * 40
        + [("Number+Person", "Number=Sing|Person=3", True)] * 218
    )
    row = accuracy_table(_items(rows)).row(0, named=True)
    assert row["accuracy"] == 318 / 358
    assert row["balanced_accuracy"] == 0.5  # the mean over all values would be 2/3
    assert row["values"] == 2 and row["ba_left_out"] == 218
    assert row["ba_ci_low"] <= 0.5 <= row["ba_ci_high"]


def test_contrasts_are_weighted_by_the_items_they_count():
    rows = (
        [("Gender", "Gender=Fem", True)] * 30  # contrast Gender: (1 + 0) / 2 = 0.5 over 60 items
        + [("Gender", "Gender=Masc", False)] * 30
        + [("Number", "Number=Sing", True)] * 20  # contrast Number: (1 + 1) / 2 = 1 over 40 items
        + [("Number", "Number=Plur", True)] * 20
        + [("Number", "Number=Dual", False)] * 5  # below 20 items: left out
    )
    row = accuracy_table(_items(rows)).row(0, named=True)
    assert row["balanced_accuracy"] == (60 * 0.5 + 40 * 1.0) / 100
    assert row["values"] == 4 and row["ba_left_out"] == 5


def test_the_pair_reading_balances_by_varied_feature_not_by_agreeing():
    # Pairs of one relation kind vary Number or Gender: `feature` is the contrast.
    rows = [("Gender+Number", "Number=Sing", True)] * 25 + [
        ("Gender+Number", "Number=Plur", False)
    ] * 25
    number = _items(rows, feature="Number")
    gender = _items([("Gender+Number", "Gender=Fem", True)] * 20, feature="Gender")
    both = pl.concat([number, gender.with_columns(sent_id=pl.col("sent_id") + "g")])
    row = accuracy_table(both).row(0, named=True)
    assert row["balanced_accuracy"] == 0.5 and row["ba_left_out"] == 20
