"""Figures: the CSV beside each PNG holds accuracy_table's numbers, with interval bars drawn."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from matplotlib.container import BarContainer, ErrorbarContainer
from ud_agree.evaluate.output.results import with_system
from ud_agree.evaluate.report import figures
from ud_agree.evaluate.summary.bins import COUNT_EDGES, DISTANCE_EDGES, bin_labels
from ud_agree.evaluate.summary.stats import accuracy_table

from tests.evaluate.report.test_synthetic import SYSTEMS, make_frame
from tests.paths import ROOT


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    """Two languages, a model, its no-context control and the frequency baseline."""
    parts = [
        make_frame(lang, model, method, acc, seed=10 * li + si)
        for li, lang in enumerate(("fr", "de"))
        for si, (model, method, _, acc) in enumerate(SYSTEMS)
    ]
    return pl.concat(parts)


@pytest.fixture(scope="module")
def written(frame: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("figures")
    return out, figures.all_figures(frame.lazy(), out)


def test_every_figure_has_png_and_csv(written: tuple[Path, dict]) -> None:
    out, tables = written
    assert set(tables) == {s.name for s in figures.SPECS}
    for spec in figures.SPECS:
        png = (out / f"{spec.name}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
        assert pl.read_csv(out / f"{spec.name}.csv").height == tables[spec.name].height > 0


def test_type_csv_equals_accuracy_table(frame: pl.DataFrame, written: tuple[Path, dict]) -> None:
    out, _ = written
    expected = accuracy_table(with_system(frame), by=["system", "type"])
    got = pl.read_csv(out / "by_type.csv")
    assert got.columns == expected.columns
    assert got["system"].to_list() == expected["system"].to_list()
    assert got["n"].to_list() == expected["n"].to_list()
    np.testing.assert_allclose(got["accuracy"].to_numpy(), expected["accuracy"].to_numpy())
    # accuracy_table's bootstrap depends on polars' unordered group_by, so bounds agree only closely.
    for column in ("ci_low", "ci_high"):
        np.testing.assert_allclose(got[column].to_numpy(), expected[column].to_numpy(), atol=0.06)
    assert set(got["system"]) == {"tiny-bert", "tiny-bert (no-context)", "frequency-baseline"}


def test_lang_figure_groups_by_sentence_key_column(
    frame: pl.DataFrame, written: tuple[Path, dict]
) -> None:
    table = written[1]["by_lang"]
    means = frame.filter(pl.col("method") == "context").group_by("lang").agg(pl.col("right").mean())
    for lang, mean in means.iter_rows():
        row = table.filter((pl.col("system") == "tiny-bert") & (pl.col("lang") == lang))
        assert row["accuracy"].item() == pytest.approx(mean)
        assert row["ci_low"].item() <= mean <= row["ci_high"].item()


def test_distance_bins_count_items(frame: pl.DataFrame, written: tuple[Path, dict]) -> None:
    table = written[1]["by_distance"].filter(pl.col("system") == "tiny-bert")
    items = frame.filter(pl.col("method") == "context")["distance"].to_numpy()
    expected = {
        "1": (items == 1).sum(),
        "3-4": ((items >= 3) & (items <= 4)).sum(),
        "5-8": ((items >= 5) & (items <= 8)).sum(),
        "9-15": ((items >= 9) & (items <= 15)).sum(),
    }
    got = dict(zip(table["bin"], table["n"], strict=True))
    for label, n in expected.items():
        assert got[label] == n


def test_bin_labels() -> None:
    assert bin_labels((1, 2, 3, 6, 11)) == ["1", "2", "3-5", "6-10", "11+"]
    assert bin_labels(COUNT_EDGES) == ["0", "1", "2", "3", "4+"]
    assert bin_labels(DISTANCE_EDGES) == ["1", "2", "3-4", "5-8", "9-15", "16+"]


def test_bar_figure_draws_interval_bars_per_system(frame: pl.DataFrame) -> None:
    spec = figures.get_spec("by_type")
    table, fig = figures.make_figure(frame, spec)
    ax = fig.axes[0]
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    labels = [b.get_label() for b in bars]
    assert labels == ["tiny-bert", "tiny-bert (no-context)", "frequency-baseline"]  # baseline last
    for container in bars:
        rows = table.filter(pl.col("system") == container.get_label()).sort("type")
        segments = container.errorbar.lines[2][0].get_segments()
        lengths = [seg[1][1] - seg[0][1] for seg in segments]
        np.testing.assert_allclose(
            lengths, (rows["ci_high"] - rows["ci_low"]).to_numpy(), atol=1e-9
        )
    baseline = bars[-1].patches[0].get_facecolor()
    assert baseline[0] == baseline[1] == baseline[2]  # grey


def test_line_figure_draws_error_bars(frame: pl.DataFrame) -> None:
    _, fig = figures.make_figure(frame, figures.get_spec("by_attractors"))
    errorbars = [c for c in fig.axes[0].containers if isinstance(c, ErrorbarContainer)]
    assert len(errorbars) == 3
    assert all(c.has_yerr for c in errorbars)


def test_figures_need_no_display_nor_pyplot(tmp_path: Path, frame: pl.DataFrame) -> None:
    frame.write_parquet(tmp_path / "results.parquet")  # a table saved by hand: no manifest
    code = (
        "import sys, ud_agree.evaluate.report.figures as f; from ud_agree.evaluate import load_results;"
        f"f.all_figures(load_results({str(tmp_path)!r}), {str(tmp_path / 'out')!r});"
        "assert 'matplotlib.pyplot' not in sys.modules"
    )
    env = {"PATH": "/usr/bin:/bin", "MPLBACKEND": "", "HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
    assert (tmp_path / "out" / "by_distance.png").exists()


def test_axis_zooms_so_narrow_intervals_stay_visible() -> None:
    table = pl.DataFrame({"ci_low": [0.93, 0.97], "ci_high": [0.96, 0.99]})
    assert figures.y_floor(table) == pytest.approx(0.8)
    assert figures.y_floor(pl.DataFrame({"ci_low": [0.62, float("nan")]})) == pytest.approx(0.5)
    assert figures.y_floor(pl.DataFrame({"ci_low": [0.2, 0.9]})) == 0.0
