"""The report in a real browser (headless Chromium via playwright): every figure at full size,
labels of 10 CSS px or more, no text cut. Skips where playwright or Chromium is not installed;
never downloads a browser."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from ud_agree.evaluate.report.browser import (
    PAGE_WIDTH,
    PHONE_WIDTH,
    chromium,
    page_width,
    shown_figures,
)
from ud_agree.evaluate.report.html import build_report
from ud_agree.evaluate.report.legibility import MIN_LABEL_PX

from tests.evaluate.report.test_synthetic import build_results

pytest.importorskip("playwright", reason="playwright not installed (pip install playwright)")
if chromium() is None:
    pytest.skip("no Chromium installed (apt-get install chromium)", allow_module_level=True)


def test_figures_read_in_chromium(tmp_path: Path) -> None:
    index = build_report(build_results(tmp_path / "results"), tmp_path / "report")
    shown = shown_figures(index, PAGE_WIDTH)
    assert {f.name for f in shown} == {p.stem for p in index.parent.glob("*.png")}
    for figure in shown:
        # Full size: the page never shrinks a figure (a wide one scrolls in its box).
        assert figure.rendered_width == pytest.approx(figure.natural_width, abs=1), figure
        assert figure.smallest_label_px is not None and figure.smallest_label_px >= MIN_LABEL_PX
        assert figure.clipped == (), figure


@pytest.mark.parametrize("screen", [PHONE_WIDTH, PAGE_WIDTH])
def test_the_page_fits_a_phone_and_a_laptop_with_wide_tables_scrolling_in_their_box(
    tmp_path: Path, screen: int
) -> None:
    index = build_report(build_results(tmp_path / "results"), tmp_path / "report")
    shot = tmp_path / f"report-{screen}px.png"
    width, wide = page_width(index, screen, screenshot=shot)
    assert wide == [] and width <= screen, (width, wide[:5])
    with Image.open(shot) as image:  # the whole page, as wide as the screen
        assert image.width == screen and image.height > 800
