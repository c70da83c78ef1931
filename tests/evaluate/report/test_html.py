"""The HTML report: figures, baseline row, context-control differences, manifests, CLI errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate import load_results
from ud_agree.evaluate.options import option_defaults
from ud_agree.evaluate.report.analysis import (
    baseline_gap_table,
    context_control_table,
    paired_difference,
)
from ud_agree.evaluate.report.figures import SPECS
from ud_agree.evaluate.report.html import build_report, main

from tests.evaluate.report.test_synthetic import build_results, make_frame, write_run


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    results = build_results(tmp_path_factory.mktemp("results"))
    index = build_report(results, tmp_path_factory.mktemp("report"), defaults=option_defaults())
    return results, index, index.read_text(encoding="utf-8")


def _rows(page: str, heading: str) -> list[list[str]]:
    """Cells of the first table after `heading`, one list per body row."""
    table = page.split(heading, 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("<tbody>", 1)[1], flags=re.S)
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in rows]


def test_report_embeds_every_figure(report: tuple[Path, Path, str]) -> None:
    _, index, page = report
    for spec in SPECS:
        assert f"src='{spec.name}.png'" in page
        assert (index.parent / f"{spec.name}.png").stat().st_size > 5000
        assert (index.parent / f"{spec.name}.csv").exists()


def test_summary_lists_baseline_row_with_interval(report: tuple[Path, Path, str]) -> None:
    results, _, page = report
    assert re.search(r'<tr class="baseline"><td>frequency-baseline</td>', page)
    rows = {cells[0]: cells for cells in _rows(page, "<h2>Summary</h2>")}
    assert set(rows) == {"tiny-bert", "tiny-bert (no-context)", "frequency-baseline"}
    frame = load_results(results).collect()
    baseline = frame.filter(pl.col("model") == "frequency-baseline")
    n, shown = rows["frequency-baseline"][1:3]
    assert int(n.replace(",", "")) == baseline.height
    # As the CLI prints it: a percent with one decimal, then its 95% interval.
    found = re.fullmatch(r"(\d+\.\d)% \[(\d+(?:\.\d)?), (\d+(?:\.\d)?)\]", shown)
    assert found is not None, shown
    accuracy, low, high = (float(x) for x in found.groups())
    assert accuracy == pytest.approx(100 * baseline["right"].mean(), abs=0.05)
    assert low <= accuracy <= high


def _shared_means(a: pl.DataFrame, b: pl.DataFrame) -> tuple[int, float, float]:
    """Items both frames scored, and each frame's accuracy on them (plain Python, as a check)."""
    key = ("treebank", "sent_id", "target_id", "controller_id", "masked")
    right_a = {tuple(r[k] for k in key): r["right"] for r in a.iter_rows(named=True)}
    right_b = {tuple(r[k] for k in key): r["right"] for r in b.iter_rows(named=True)}
    shared = right_a.keys() & right_b.keys()
    return (
        len(shared),
        sum(right_a[k] for k in shared) / len(shared),
        sum(right_b[k] for k in shared) / len(shared),
    )


def test_context_control_difference_on_shared_items(report: tuple[Path, Path, str]) -> None:
    results, _, page = report
    frame = load_results(results).collect()
    table = context_control_table(frame)
    assert table["lang"].to_list() == ["de", "fr"]
    for row in table.iter_rows(named=True):
        same = frame.filter(pl.col("lang") == row["lang"])
        n, context, control = _shared_means(
            same.filter(pl.col("method") == "context"),
            same.filter(pl.col("method") == "no-context"),
        )
        assert (row["n_shared"], row["context"], row["no_context"]) == (
            n,
            pytest.approx(context),
            pytest.approx(control),
        )
        assert row["difference"] == pytest.approx(context - control)
        assert row["diff_low"] <= row["difference"] <= row["diff_high"]
    cells = _rows(page, "Context control")
    assert [c[:2] for c in cells] == [["tiny-bert", "de"], ["tiny-bert", "fr"]]


def test_baseline_gap_on_shared_items() -> None:
    model = make_frame("fr", "/models/m/", "context", 0.9, seed=3)
    baseline = model.head(
        60
    ).with_columns(  # the baseline scored fewer items, and got every one wrong
        pl.lit("frequency-baseline").alias("model"),
        pl.lit("frequency").alias("method"),
        pl.lit(False).alias("right"),
    )
    table = baseline_gap_table(pl.concat([model, baseline]))
    row = table.row(0, named=True)
    assert row["model"] == "m"  # a model folder's path is shown by its last part
    assert row["n_shared"] == 60
    assert row["baseline_accuracy"] == 0.0
    assert row["difference"] == pytest.approx(model.head(60)["right"].mean())


def test_report_shows_runs_options_and_skips(report: tuple[Path, Path, str]) -> None:
    page = report[2]
    assert "fr/tiny-bert__no-context" in page
    assert "min_candidates=10" not in page  # the default: not listed among the changed options
    assert "mask=controller" not in page
    assert "too-few-candidates=7" in page
    runs = page.split("<h2>Runs", 1)[1]
    assert re.search(r"<th title=\"[^\"]*\">reading</th>", runs)
    assert "lexicon forms 80 of 100 (80%)" in page
    assert "No frequency baseline" not in page


def test_without_the_defaults_the_runs_table_lists_every_option_that_measures(
    tmp_path: Path,
) -> None:
    from ud_agree.evaluate.report.manifests import manifests_section

    manifest = {"run_dir": "fr/m", "model": "m", "options": {"min_candidates": 10, "device": "cpu"}}
    given = manifests_section([manifest], option_defaults())
    assert "options not at their default" in given and "min_candidates=10" not in given
    unknown = manifests_section([manifest])
    assert ">options</th>" in unknown and "min_candidates=10" in unknown
    assert "device=" not in unknown  # where a run went says nothing of what it measured


def test_paired_difference_on_known_data() -> None:
    a = make_frame("fr", "a", "context", 0.9, seed=1)
    b = a.with_columns(pl.lit(False).alias("right"))
    diff, low, high = paired_difference(a, b)
    assert diff == pytest.approx(a["right"].mean())
    assert low < diff < high
    same = paired_difference(a, a)
    assert same == (0.0, 0.0, 0.0)


def test_warns_without_baseline(tmp_path: Path) -> None:
    write_run(tmp_path / "r", make_frame("fr", "m", "context", 0.8), "m")
    page = build_report(tmp_path / "r", tmp_path / "out").read_text(encoding="utf-8")
    assert "No frequency baseline" in page
    assert "No <code>no-context</code> results" in page


@pytest.mark.parametrize("make", [lambda p: p / "missing", lambda p: p])
def test_cli_missing_or_empty_exits_2(tmp_path: Path, make, capsys: pytest.CaptureFixture) -> None:
    assert main([str(make(tmp_path)), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_cli_module_writes_index(report: tuple[Path, Path, str], tmp_path: Path) -> None:
    results = report[0]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluate.report",
            str(results / "fr"),
            "--out",
            str(tmp_path / "rep"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(done.stdout.strip()) == tmp_path / "rep" / "index.html"
    assert "de/" not in (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")


def test_warns_when_runs_are_pooled(tmp_path: Path) -> None:
    frame = make_frame("fr", "frequency-baseline", "frequency", 0.6)
    write_run(tmp_path / "r", frame, "frequency-baseline")
    write_run(tmp_path / "r", frame, "frequency-baseline__vocab-m")  # same lang, model, method
    page = build_report(tmp_path / "r", tmp_path / "out").read_text(encoding="utf-8")
    assert "share language, model, reading and method" in page
    assert "fr/frequency-baseline__vocab-m" in page.split("share language")[0]


def test_one_model_in_both_readings_is_not_pooled(tmp_path: Path) -> None:
    # The demo's own layout: the frequency baseline in both readings, one results folder.
    average = make_frame("fr", "frequency-baseline", "frequency", 0.6)
    pair = average.with_columns(pl.lit("pair").alias("reading"))
    write_run(tmp_path / "r", average, "frequency-baseline")
    write_run(tmp_path / "r", pair, "frequency-baseline__pair")
    page = build_report(tmp_path / "r", tmp_path / "out").read_text(encoding="utf-8")
    assert "pooled" not in page


def test_readings_are_compared_on_the_relations_both_scored() -> None:
    from ud_agree.evaluate.report.analysis import model_differences_table, readings_table

    average = make_frame("fr", "m", "context", 0.9, seed=5)
    # The pair reading scored the first 40 relations, two pairs each, all right.
    relations = average.head(40)
    pair = pl.concat(
        [
            relations.with_columns(
                pl.lit("pair").alias("reading"),
                pl.lit("causal").alias("method"),
                pl.lit(feature).alias("feature"),
                pl.lit(True).alias("right"),
            )
            for feature in ("Number", "Gender")
        ],
        how="diagonal",
    )
    table = readings_table(pl.concat([average, pair], how="diagonal"))
    row = table.row(0, named=True)
    assert (
        row["n_shared"] == relations.select("sent_id", "target_id", "controller_id").unique().height
    )
    assert row["pair"] == 1.0
    assert row["class_average"] == pytest.approx(relations["right"].mean())
    other = make_frame("fr", "n", "context", 0.5, seed=5).with_columns(pl.lit(False).alias("right"))
    differences = model_differences_table(pl.concat([average, other], how="diagonal"))
    row = differences.row(0, named=True)
    assert (row["a"], row["b"], row["accuracy_b"]) == ("m", "n", 0.0)
    assert row["difference"] == pytest.approx(row["accuracy_a"])


def test_the_report_lists_cells_where_frequency_alone_decides(tmp_path: Path) -> None:
    frame = make_frame("de", "m", "context", 0.8).with_columns(frequency=pl.lit("congruent"))
    write_run(tmp_path / "r", frame, "m")
    page = build_report(tmp_path / "r", tmp_path / "out").read_text(encoding="utf-8")
    assert "Where frequency alone decides" in page
    listed = re.findall(r"<li><b>de, class-average, ([a-z-]+)</b>", page)
    assert sorted(listed) == sorted(set(frame["type"]))
    assert "the frequency heuristic alone is right on 100.0% of these items" in page
    # No item is incongruent: both reasons hold, and there are no incongruent items to read.
    assert "none of them is incongruent (fewer than 30 incongruent items" in page
    assert "read the pair reading" in page and "read the incongruent items" not in page
