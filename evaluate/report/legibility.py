"""Whether a figure can be read: its smallest label and any text outside its canvas, checked when
the figure is saved and written into the PNG, where the browser test reads them back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from ud_agree.atomic import atomic_write

DPI = 110  # every figure's resolution: 8 pt is 12.2 px at natural size
MIN_LABEL_PX = 10.0  # the smallest label a reader can read on the page, in CSS px
MIN_LABEL_PT = 8.0  # the smallest font the figures use
POINTS_PER_INCH = 72.0

# PNG text chunks (tEXt) holding the checks.
SMALLEST_PT = "ud-agree smallest label pt"
FIGURE_DPI = "ud-agree dpi"
CLIPPED = "ud-agree clipped"


@dataclass(frozen=True)
class Legibility:
    """A saved figure's checks: its smallest font (pt), its dpi, and the texts cut off its canvas."""

    smallest_pt: float
    dpi: float
    clipped: tuple[str, ...]


def label_px(points: float, dpi: float, rendered_width: float, natural_width: float) -> float:
    """A label's height in CSS px as the page shows it: points → image pixels (pt / 72 × dpi), then
    scaled as the page scales the image (rendered width / natural width)."""
    return points / POINTS_PER_INCH * dpi * rendered_width / natural_width


def _texts(fig: Figure) -> list[Text]:
    """The texts drawn: visible, not empty, and for tick labels only those within the view."""
    ticks: set[int] = set()
    drawn: list[Text] = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                labels = (tick.label1, tick.label2)
                ticks.update(id(label) for label in labels)
                where = tick.get_loc()
                if tick.get_visible() and where is not None and low <= where <= high:
                    drawn += labels
    drawn += [t for t in fig.findobj(Text) if isinstance(t, Text) and id(t) not in ticks]
    return [t for t in drawn if t.get_visible() and t.get_text().strip()]


def check(fig: Figure) -> Legibility:
    """Draw `fig` and measure it: the smallest visible font, and the texts that reach outside the
    canvas (where the tight bounding box of everything drawn leaves the figure's bounds)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    bounds = fig.bbox
    tight = fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans)
    clipped: list[str] = []
    slack = 1.0  # px: antialiasing at the edge is not a cut
    if (
        tight.x0 < bounds.x0 - slack
        or tight.y0 < bounds.y0 - slack
        or tight.x1 > bounds.x1 + slack
        or tight.y1 > bounds.y1 + slack
    ):
        for text in _texts(fig):
            box = text.get_window_extent(renderer)
            if (
                box.x0 < bounds.x0 - slack
                or box.y0 < bounds.y0 - slack
                or box.x1 > bounds.x1 + slack
                or box.y1 > bounds.y1 + slack
            ):
                clipped.append(text.get_text())
        clipped = clipped or ["(an artist outside the canvas)"]
    sizes = [float(t.get_fontsize()) for t in _texts(fig)]
    return Legibility(min(sizes, default=0.0), float(fig.dpi), tuple(clipped))


def save_png(fig: Figure, path: Path, extra: dict[str, str] | None = None) -> Legibility:
    """Write `fig` as it is laid out (no cropping that would hide a cut title), with its checks
    (and `extra`) in the PNG's text chunks; return the checks."""
    measured = check(fig)
    metadata = {
        **(extra or {}),
        SMALLEST_PT: f"{measured.smallest_pt:g}",
        FIGURE_DPI: f"{measured.dpi:g}",
        CLIPPED: json.dumps(list(measured.clipped), ensure_ascii=False),
    }
    atomic_write(path, lambda handle: fig.savefig(handle, format="png", metadata=metadata))
    return measured


def png_text(path: Path) -> dict[str, str]:
    """A PNG's text chunks."""
    with Image.open(path) as image:
        return dict(getattr(image, "text", {}))


def read_png(path: Path) -> Legibility | None:
    """The checks `save_png` wrote into a PNG (None for a PNG written otherwise)."""
    text = png_text(path)
    if SMALLEST_PT not in text:
        return None
    return Legibility(
        float(text[SMALLEST_PT]), float(text[FIGURE_DPI]), tuple(json.loads(text[CLIPPED]))
    )
