"""Results at scale: per reading, a heat map of languages × agreement types with one panel per
system (balanced accuracy, or accuracy where a cell cannot be balanced, n beneath; a colour bar),
and a system × language table; readable for 30 languages and 6 systems, where a bar per (system,
language) is not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle
from matplotlib.ticker import PercentFormatter

from ud_agree.atomic import write_csv
from ud_agree.schemas.corpus import TYPES

from ..output.results import with_system
from ..summary.stats import grouped_accuracy
from ..summary.tables import COVERS_LITTLE
from .figures import system_order
from .legibility import DPI, MIN_LABEL_PT, save_png

CELL_INCHES = 0.75  # a cell: room for "93*" and "n 1.2k" at the smallest label size

# §10: where the frequency heuristic alone is right this often, or fails on this few items, a
# reading cannot separate agreement from frequency.
CONGRUENT_SHARE = 0.90
MIN_INCONGRUENT = 30
FREQUENCY_DECIDES = (pl.col("frequency_congruent") >= CONGRUENT_SHARE) | (
    pl.col("incongruent_n") < MIN_INCONGRUENT
)


def heat_table(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """reading, system, lang, type, n, accuracy, balanced accuracy (§6), the share of items the
    frequency heuristic gets right, its incongruent items, and whether frequency decides (§10)."""
    systems = with_system(frame).collect()
    table = grouped_accuracy(systems, ["reading", "system", "lang", "type"])
    if "frequency_congruent" in table.columns:
        table = table.with_columns(FREQUENCY_DECIDES.fill_null(False).alias("frequency_decides"))
    if "ba_left_out" in table.columns:
        covers_little = COVERS_LITTLE & pl.col("balanced_accuracy").is_not_nan()
        table = table.with_columns(covers_little.fill_null(False).alias("balanced_covers_little"))
    keep = [
        "reading",
        "system",
        "lang",
        "type",
        "n",
        "accuracy",
        "balanced_accuracy",
        "ba_left_out",
        "balanced_covers_little",
        "frequency_congruent",
        "incongruent_n",
        "frequency_decides",
    ]
    return table.select([c for c in keep if c in table.columns])


def frequency_flags(table: pl.DataFrame) -> pl.DataFrame:
    """The (lang, reading, type) cells where frequency alone decides (§10), one row per set of
    systems whose cells have the same figures: items, the share of them the frequency heuristic
    gets right, and its incongruent items; `systems` joined by "; "."""
    if "frequency_decides" not in table.columns:
        return pl.DataFrame(schema={"lang": pl.String, "reading": pl.String, "type": pl.String})
    order = {s: i for i, s in enumerate(system_order(table["system"].unique().to_list()))}
    figures = ["lang", "reading", "type", "n", "frequency_congruent", "incongruent_n"]
    return (
        table.filter(pl.col("frequency_decides"))
        .sort(pl.col("system").replace_strict(order, return_dtype=pl.Int64))
        .group_by(figures, maintain_order=True)
        .agg(pl.col("system").str.join("; ").alias("systems"))
        .sort("lang", "reading", "type", pl.col("n"), descending=[False, False, False, True])
    )


def system_language_table(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Balanced accuracy (accuracy where it cannot be balanced) per system (rows) and language
    (columns), one table per reading stacked: the report's table at scale."""
    systems = with_system(frame).collect()
    table = grouped_accuracy(systems, ["reading", "system", "lang"])
    shown = pl.when(pl.col("balanced_accuracy").is_nan()).then(pl.col("accuracy"))
    table = table.with_columns(shown.otherwise(pl.col("balanced_accuracy")).round(3).alias("cell"))
    wide = table.pivot(on="lang", index=["reading", "system"], values="cell", sort_columns=True)
    return wide.sort("reading", "system")


def _label(n: int) -> str:
    return f"n {n / 1000:.1f}k" if n >= 1000 else f"n {n}"


# Where some cells of a map show balanced accuracy and others accuracy, the latter are marked so.
ACCURACY_MARK = "°"


def cells_shown(rows: pl.DataFrame) -> str:
    """What a heat map's cells show: `balanced`, `accuracy`, or `mixed` (balanced where it can be)."""
    balanced = (
        rows["balanced_accuracy"].is_not_nan() if "balanced_accuracy" in rows.columns else None
    )
    if balanced is None or not balanced.any():
        return "accuracy"
    return "balanced" if balanced.all() else "mixed"


def heat_title(rows: pl.DataFrame, reading: str) -> str:
    """The map's title: what its cells show, in percent, and the reading."""
    shown = {
        "accuracy": "Accuracy (%)",
        "balanced": "Balanced accuracy (%)",
        "mixed": f"Balanced accuracy (%; {ACCURACY_MARK} accuracy, where it cannot be balanced)",
    }[cells_shown(rows)]
    return f"{shown}, {reading} reading"


def heat_figure(table: pl.DataFrame, reading: str) -> Figure:
    """One reading: a panel per system, rows languages, columns types, and the colour bar."""
    rows = table.filter(pl.col("reading") == reading)
    mixed = cells_shown(rows) == "mixed"
    systems = system_order(rows["system"].unique().to_list())
    langs = sorted(rows["lang"].unique().to_list())
    types = [t for t in TYPES if t in set(rows["type"])]
    width = max(4.0, len(types) * CELL_INCHES + 1.2)
    height = max(2.5, len(langs) * CELL_INCHES * 0.75 + 1.2)
    fig = Figure(figsize=(width * len(systems), height), dpi=DPI, constrained_layout=True)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(systems), squeeze=False)[0]
    image = None
    for ax, system in zip(axes, systems, strict=True):
        cells = np.full((len(langs), len(types)), np.nan)
        counts = np.zeros((len(langs), len(types)), dtype=np.int64)
        flagged, partial, unbalanced = [], set(), set()
        for row in rows.filter(pl.col("system") == system).iter_rows(named=True):
            i, j = langs.index(row["lang"]), types.index(row["type"])
            value = row.get("balanced_accuracy")
            if value is None or np.isnan(value):
                value = row["accuracy"]
                unbalanced.add((i, j))
            cells[i, j] = value
            counts[i, j] = row["n"]
            if row.get("frequency_decides"):
                flagged.append((i, j))
            if row.get("balanced_covers_little"):
                partial.add((i, j))
        image = ax.imshow(cells, vmin=0.5, vmax=1.0, cmap="viridis", aspect="auto")
        for i, j in flagged:  # §10: frequency alone decides these cells
            ax.add_patch(
                Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="red", lw=0)
            )
        for i in range(len(langs)):
            for j in range(len(types)):
                if counts[i, j]:
                    mark = "*" if (i, j) in partial else ""  # §6: balanced over under half
                    mark += ACCURACY_MARK if mixed and (i, j) in unbalanced else ""
                    text = f"{100 * cells[i, j]:.0f}{mark}\n{_label(int(counts[i, j]))}"
                    ax.text(j, i, text, ha="center", va="center", fontsize=MIN_LABEL_PT,
                            color="white" if cells[i, j] < 0.8 else "black")  # fmt: skip
        ax.set_xticks(range(len(types)), [t.replace("-", "-\n") for t in types], fontsize=9)
        ax.set_yticks(range(len(langs)), langs, fontsize=9)
        ax.set_title(system, fontsize=9, wrap=True)
    if image is not None:
        _colour_bar(fig, image, list(axes), cells_shown(rows))
    # The legend of the marks (* and hatching) is the page's caption: a long title is cut.
    fig.suptitle(heat_title(rows, reading), fontsize=10)
    return fig


COLOUR_BAR = "colour bar"  # the label of the colour bar's axes, to find it again


def _colour_bar(fig: Figure, image: AxesImage, axes: list[Axes], shown: str) -> None:
    """The scale beside the panels; cells under 50% take the colour of 50% (the arrow)."""
    what = {"accuracy": "accuracy", "balanced": "balanced accuracy"}.get(
        shown, "balanced accuracy or accuracy"
    )
    bar = fig.colorbar(image, ax=axes, extend="min", shrink=0.9, pad=0.02)
    bar.ax.set_label(COLOUR_BAR)
    bar.set_label(f"{what} (%), under 50% as 50%", fontsize=MIN_LABEL_PT)
    bar.ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    bar.ax.tick_params(labelsize=MIN_LABEL_PT)


def colour_bar_label(fig: Figure) -> str:
    """The text of the figure's colour bar ("" without one)."""
    for ax in fig.axes:
        if ax.get_label() == COLOUR_BAR:
            return str(ax.get_ylabel())
    return ""


def write_heat_maps(
    frame: pl.DataFrame | pl.LazyFrame, out: Path
) -> tuple[list[tuple[str, str]], pl.DataFrame]:
    """`heatmap_<reading>.png` (+ CSV) per reading and `systems_by_language.csv`: their names
    with their titles, and the cells where frequency alone decides (§10)."""
    table = heat_table(frame)
    names = []
    for reading in sorted(table["reading"].unique().to_list()):
        name = f"heatmap_{reading.replace('-', '_')}"
        fig = heat_figure(table, reading)
        title = heat_title(table.filter(pl.col("reading") == reading), reading)
        save_png(fig, out / f"{name}.png", {"Title": title, "Colour bar": colour_bar_label(fig)})
        write_csv(table.filter(pl.col("reading") == reading), out / f"{name}.csv")
        names.append((name, title))
    write_csv(system_language_table(frame), out / "systems_by_language.csv")
    return names, frequency_flags(table)
