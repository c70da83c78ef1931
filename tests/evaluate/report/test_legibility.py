"""Figures a reader can read: the checks each PNG carries (smallest label, texts cut off)."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from ud_agree.evaluate.report.html import build_report
from ud_agree.evaluate.report.legibility import MIN_LABEL_PX, check, label_px, read_png, save_png

from tests.evaluate.report.test_synthetic import build_results


def test_label_px_scales_points_by_dpi_and_page() -> None:
    # 72 pt is one inch: 110 px at 110 dpi, half of it where the page halves the image.
    assert label_px(72, 110, 500, 1000) == pytest.approx(55)
    assert label_px(8, 110, 1155, 1155) == pytest.approx(8 * 110 / 72)


def test_a_title_wider_than_its_figure_is_reported_cut(tmp_path: Path) -> None:
    # Laid out, so that the ticks fit: only the title runs off both sides.
    fig = Figure(figsize=(3, 2), dpi=100, constrained_layout=True)
    FigureCanvasAgg(fig)
    fig.add_subplot(1, 1, 1).plot([0, 1])
    fig.suptitle("a title far too long for a figure three inches wide, so its ends are cut")
    assert check(fig).clipped == (
        "a title far too long for a figure three inches wide, so its ends are cut",
    )
    saved = save_png(fig, tmp_path / "cut.png")
    assert read_png(tmp_path / "cut.png") == saved


def test_a_figure_that_fits_is_not_reported_cut() -> None:
    fig = Figure(figsize=(6, 4), dpi=100, constrained_layout=True)
    FigureCanvasAgg(fig)
    fig.add_subplot(1, 1, 1).set_title("short", fontsize=7)
    measured = check(fig)
    assert measured.clipped == () and measured.smallest_pt == 7


def test_every_figure_of_a_report_reads_at_natural_size(tmp_path: Path) -> None:
    index = build_report(build_results(tmp_path / "results"), tmp_path / "report")
    pngs = sorted(index.parent.glob("*.png"))
    assert any(p.stem.startswith("heatmap") for p in pngs) and len(pngs) > 5
    for png in pngs:
        checks = read_png(png)
        assert checks is not None, png.name
        assert checks.clipped == (), png.name
        # The page shows figures at natural size (a wide one scrolls): pt / 72 × dpi px.
        assert label_px(checks.smallest_pt, checks.dpi, 1, 1) >= MIN_LABEL_PX, png.name
