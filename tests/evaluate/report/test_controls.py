"""The report's controls (DESIGN.md §9, §10): nonce against original pairs, accuracy where
frequency points the wrong way, each model's controls side by side."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from ud_agree.evaluate.report.analysis import controls_table, incongruent_table, nonce_table
from ud_agree.evaluate.report.html import build_report

from tests.evaluate.report.test_synthetic import make_frame, write_run


def pair_frame(model: str, method: str, original: float, nonce: float) -> pl.DataFrame:
    """Pair-reading rows: each item once as `original`, once as `nonce-1`, right at the given
    rates (decided per row by its index, so the accuracies are exact)."""
    base = make_frame("fr", model, method, 0.5).with_columns(
        pl.lit("pair").alias("reading"),
        pl.lit("Number").alias("feature"),
        pl.lit("Plur").alias("bad_value"),
        pl.col("masked").alias("varied"),
        pl.lit(None, dtype=pl.String).alias("masked"),
    )
    n = base.height
    index = pl.int_range(0, n)
    first = base.with_columns(
        pl.lit("original").alias("variant"), (index < round(original * n)).alias("right")
    )
    second = base.with_columns(
        pl.lit("nonce-1").alias("variant"), (index < round(nonce * n)).alias("right")
    )
    both = pl.concat([first, second])
    # The frequency heuristic is wrong on every other item.
    return both.with_columns(
        pl.when(pl.int_range(0, both.height) % 2 == 0)
        .then(pl.lit("congruent"))
        .otherwise(pl.lit("incongruent"))
        .alias("frequency")
    )


def test_nonce_table_gives_original_minus_nonce_on_pairs_that_have_both():
    frame = pair_frame("gpt2", "causal", original=0.8, nonce=0.5)
    # An original pair without a nonce variant is left out of both sides.
    lone = frame.filter(pl.col("variant") == "original").head(1)
    lone = lone.with_columns(pl.lit("zzz").alias("sent_id"), pl.lit(True).alias("right"))
    table = nonce_table(pl.concat([frame, lone]))
    row = table.row(0, named=True)
    n = frame.height // 2
    assert row["n_original"] == row["n_nonce"] == n
    assert abs(row["original"] - round(0.8 * n) / n) < 1e-12
    assert abs(row["nonce"] - round(0.5 * n) / n) < 1e-12
    assert abs(row["difference"] - (row["original"] - row["nonce"])) < 1e-12
    assert row["diff_low"] <= row["difference"] <= row["diff_high"]


def test_incongruent_accuracy_counts_only_items_where_frequency_is_wrong():
    frame = pair_frame("gpt2", "causal", original=1.0, nonce=1.0)
    frame = frame.with_columns((pl.col("frequency") == "congruent").alias("right"))
    row = incongruent_table(frame).row(0, named=True)
    assert row["incongruent"] == 0.0 and row["accuracy"] == 0.5
    assert row["n_incongruent"] == frame.height // 2


def test_report_has_a_controls_section_with_each_model_side_by_side(tmp_path: Path):
    model = pair_frame("gpt2", "causal", original=0.9, nonce=0.6)
    baseline = pair_frame("frequency-baseline", "frequency", original=0.5, nonce=0.5)
    write_run(tmp_path / "r", model, "gpt2__pair")
    write_run(tmp_path / "r", baseline, "frequency-baseline__pair")
    table = controls_table(pl.concat([model, baseline]))
    gpt2 = table.filter(pl.col("model") == "gpt2 (pair)").row(0, named=True)
    assert abs(gpt2["original_minus_nonce"] - 0.3) < 0.01
    assert abs(gpt2["vs_frequency"] - 0.25) < 0.01  # (0.9 + 0.6) / 2 − 0.5
    page = build_report(tmp_path / "r", tmp_path / "out").read_text(encoding="utf-8")
    controls = page.split("<h2>Controls</h2>")[1].split("<h2>")[0]
    assert "original_minus_nonce" in controls and "gpt2 (pair)" in controls
    assert "Nonce vs original" in controls
    assert "Where frequency points the wrong way" in page
