"""The report's figures as a browser shows them: each image's rendered and natural width, its
smallest label in CSS px, and whether a text is cut (headless Chromium via playwright)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .legibility import MIN_LABEL_PX, label_px, read_png

# Known to work in containers and CI: no sandbox, no GPU, no network, no first-run dialogs.
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
PAGE_WIDTH = 1280  # CSS px: a laptop's browser window


def chromium() -> str | None:
    """The system's Chromium (never a downloaded one), or None where none is installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass(frozen=True)
class ShownFigure:
    """One figure on the page: widths in CSS px, its smallest label in CSS px, the texts cut off."""

    name: str
    rendered_width: float
    natural_width: float
    smallest_label_px: float | None  # None: the PNG carries no checks (made by older code)
    clipped: tuple[str, ...] | None

    @property
    def readable(self) -> bool:
        return (
            self.smallest_label_px is not None
            and self.smallest_label_px >= MIN_LABEL_PX
            and not self.clipped
        )


def shown_figures(index: Path, width: int = PAGE_WIDTH) -> list[ShownFigure]:
    """Open `index` in headless Chromium at `width` px and measure every image on it."""
    with opened(index, width, 900) as page:
        images = page.eval_on_selector_all(
            "img",
            "els => els.map(e => ({src: e.getAttribute('src'), "
            "rendered: e.getBoundingClientRect().width, natural: e.naturalWidth}))",
        )
    shown = []
    for image in images:
        png = index.parent / image["src"]
        checks = read_png(png)
        px = (
            None
            if checks is None or not image["natural"]
            else label_px(checks.smallest_pt, checks.dpi, image["rendered"], image["natural"])
        )
        shown.append(
            ShownFigure(
                png.stem,
                float(image["rendered"]),
                float(image["natural"]),
                px,
                None if checks is None else checks.clipped,
            )
        )
    return shown


PHONE_WIDTH = 390  # CSS px: a phone held upright


def page_width(
    index: Path, width: int = PHONE_WIDTH, screenshot: Path | None = None
) -> tuple[int, list[str]]:
    """Open `index` at `width` px: the page's laid-out width (more than `width`: the whole page
    scrolls sideways) and the tags of the elements that reach past it; with `screenshot`, the
    whole page saved there as PNG, for a person to look at."""
    with opened(index, width, 800) as page:
        if screenshot is not None:
            page.screenshot(path=str(screenshot), full_page=True)
        scroll = int(page.evaluate("document.documentElement.scrollWidth"))
        wide = page.eval_on_selector_all(
            "body *",
            f"els => els.filter(e => e.getBoundingClientRect().right > {width} + 1"
            " && !e.closest('.scroll, .table-scroll, pre, details:not([open])'))"
            ".map(e => e.tagName + ': ' + e.textContent.slice(0, 40))",
        )
    return scroll, list(wide)


@contextmanager
def opened(index: Path, width: int, height: int) -> Iterator[Any]:
    """`index` loaded in headless Chromium at `width` × `height` px (a playwright page)."""
    from playwright.sync_api import sync_playwright

    browser_path = chromium()
    if browser_path is None:
        raise FileNotFoundError("no Chromium installed (apt-get install chromium)")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=browser_path, args=list(LAUNCH_ARGS))
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(index.resolve().as_uri())
            page.wait_for_load_state("load")
            yield page
        finally:
            browser.close()
