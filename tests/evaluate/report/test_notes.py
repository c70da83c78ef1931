"""The report's notes say why (issue 34 point 6): a §10 flag gives its reason, a balanced figure over
less than half of a row gives the share it covers (§6), and a missing one says why it is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from ud_agree.evaluate.report.heatmaps import heat_figure, heat_table
from ud_agree.evaluate.report.html import build_report
from ud_agree.evaluate.report.runs import overall, run_line, runs_table
from ud_agree.evaluate.report.sections import frequency_sentence
from ud_agree.evaluate.summary.tables import markdown_table, summarize

from tests.evaluate.report.test_synthetic import write_run
from ud_agree.schemas.results import RESULTS


def item(i: int, value: str, right: bool, frequency: str = "congruent", **more: Any) -> dict:
    """A class-average result row of its own sentence."""
    feature = value.split("=")[0]
    return {
        "lang": "de", "treebank": "t", "sent_id": f"{value}/{i}", "type": "determiner",
        "target_id": 1, "controller_id": 2, "masked": "controller", "agreeing": [feature],
        "distance": 1, "distractors": 0, "attractors": 0, "right": right, "right_logit": right,
        "model": "m", "method": "context", "reading": "class-average", "value": value,
        "frequency": frequency, "form": "f", "lemma": "l", "upos": "NOUN", **more,
    }  # fmt: skip


def frame(rows: list[dict]) -> pl.DataFrame:
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))  # type: ignore[return-value]


def report(tmp_path: Path, rows: list[dict]) -> str:
    write_run(tmp_path / "r", frame(rows), "m")
    return build_report(tmp_path / "r", tmp_path / "out").read_text(encoding="utf-8")


def test_a_cell_flagged_for_few_incongruent_items_says_so_not_the_heuristics_share(tmp_path):
    # 40 items, 12 incongruent: the heuristic is right on 70%, under 0.90; 12 < 30 flags it.
    rows = [item(i, "Number=Sing" if i % 2 else "Number=Plur", True) for i in range(40)]
    rows = [
        {**r, "frequency": "incongruent" if i < 12 else "congruent"} for i, r in enumerate(rows)
    ]
    page = report(tmp_path, rows)
    assert "<li><b>de, class-average, determiner</b>" in page
    assert "only 12 of them are incongruent (fewer than 30 incongruent items" in page
    assert "right on 70.0%" not in page


def test_a_cell_flagged_for_its_congruent_share_says_that():
    sentence = frequency_sentence(0.95, 40)
    assert sentence.startswith("the frequency heuristic alone is right on 95.0% of these items:")
    assert "fewer than 30" not in sentence
    both = frequency_sentence(1.0, 0)
    assert "right on 100.0%" in both and "fewer than 30 incongruent items" in both


def small_coverage_rows() -> list[dict]:
    """Number: 20 Sing (all right) and 20 Plur (half right) are balanced; 60 Gender=Masc items are
    one value of their group, so left out: the balanced figure, 75%, covers 40% of 100 items."""
    rows = [item(i, "Number=Sing", True) for i in range(20)]
    rows += [item(i, "Number=Plur", i % 2 == 0) for i in range(20)]
    rows += [item(i, "Gender=Masc", False) for i in range(60)]
    return [{**r, "frequency": "incongruent"} for r in rows]


def test_a_balanced_figure_over_less_than_half_of_a_row_gives_its_share(tmp_path):
    summary = summarize(frame(small_coverage_rows()), n_boot=50)
    everything = summary.filter(pl.col("breakdown") == "all").row(0, named=True)
    assert (everything["n"], everything["ba_left_out"]) == (100, 60)
    assert everything["balanced_accuracy"] == pytest.approx(0.75)
    assert "| 75.0% on 40% of items |" in markdown_table(summary)
    line = run_line({**overall(summary), "folder": "x"})
    assert "balanced 75.0% on 40% of items" in line

    page = report(tmp_path, small_coverage_rows())
    assert "75.0% on 40% of items" in page
    assert (
        "balanced accuracy here covers only 40% of the items (groups or values with fewer than 20 "
        "items are left out)"
    ) in page
    table = heat_table(frame(small_coverage_rows()))
    assert table["balanced_covers_little"].to_list() == [True]
    texts = [t.get_text() for t in heat_figure(table, "class-average").axes[0].texts]
    assert texts == ["75*\nn 100"]


def test_a_row_balanced_over_most_of_its_items_has_no_note(tmp_path):
    rows = small_coverage_rows()[:40]  # only the balanced Number items
    summary = summarize(frame(rows), n_boot=50)
    assert "75.0% |" in markdown_table(summary) and "of items" not in markdown_table(summary)
    assert heat_table(frame(rows))["balanced_covers_little"].to_list() == [False]


def test_a_missing_balanced_figure_says_why(tmp_path):
    rows = [item(i, "Number=Sing", True) for i in range(30)]  # one value: no group has a figure
    summary = summarize(frame(rows), n_boot=50)
    # The run's own line says `balanced –`; the table under every run says why, once.
    line = run_line({**overall(summary), "folder": "x"})
    assert line.endswith("balanced –") and "fewer than" not in line
    table = runs_table([{**overall(summary), "lang": "de", "model": "m", "reading": "r",
                         "method": "m", "folder": "x"}])  # fmt: skip
    assert table.count("no figure, fewer than 20 items a value") == 1
    page = report(tmp_path, rows)
    assert "no figure: fewer than 20 items a value" in page


def runs_row(model: str, reading: str, n: int) -> dict:
    return {**overall(None), "n": n, "lang": "fr", "model": model, "reading": reading,
            "method": "m", "accuracy": 0.5, "ci_low": 0.4, "ci_high": 0.6}  # fmt: skip


def test_runs_over_different_item_sets_are_said_to_be_so():
    table = runs_table(
        [
            runs_row("frequency-baseline", "class-average", 52),
            runs_row("frequency-baseline", "pair", 32),
            runs_row("gpt2", "class-average", 31),
            runs_row("gpt2", "pair", 32),
        ]
    )
    # Each note starts a line; its words go on in indented lines (the table fits 120 columns).
    notes = " ".join(line.strip() for line in table.splitlines()).split("note: ")[1:]
    notes = ["note: " + note.strip() for note in notes]
    assert notes == [
        "note: fr class-average: these runs score different item sets (frequency-baseline "
        "n = 52, gpt2 n = 31), so their accuracies are not over the same items; each run's "
        "manifest.json counts what it skipped and why"
    ]
