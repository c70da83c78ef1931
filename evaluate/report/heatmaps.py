"""Results at scale: per reading, a heat map of languages × agreement types with one panel per
system (balanced accuracy in the cells, n beneath), and a system × language table; readable for
30 languages and 6 systems, where a bar per (system, language) is not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

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


def heat_figure(table: pl.DataFrame, reading: str) -> Figure:
    """One reading: a panel per system, rows languages, columns types."""
    rows = table.filter(pl.col("reading") == reading)
    systems = system_order(rows["system"].unique().to_list())
    langs = sorted(rows["lang"].unique().to_list())
    types = [t for t in TYPES if t in set(rows["type"])]
    width = max(4.0, len(types) * CELL_INCHES + 1.2)
    height = max(2.5, len(langs) * CELL_INCHES * 0.75 + 1.2)
    fig = Figure(figsize=(width * len(systems), height), dpi=DPI, constrained_layout=True)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(systems), squeeze=False)[0]
    for ax, system in zip(axes, systems, strict=True):
        cells = np.full((len(langs), len(types)), np.nan)
        counts = np.zeros((len(langs), len(types)), dtype=np.int64)
        flagged, partial = [], set()
        for row in rows.filter(pl.col("system") == system).iter_rows(named=True):
            i, j = langs.index(row["lang"]), types.index(row["type"])
            value = row.get("balanced_accuracy")
            cells[i, j] = row["accuracy"] if value is None or np.isnan(value) else value
            counts[i, j] = row["n"]
            if row.get("frequency_decides"):
                flagged.append((i, j))
            if row.get("balanced_covers_little"):
                partial.add((i, j))
        ax.imshow(cells, vmin=0.5, vmax=1.0, cmap="viridis", aspect="auto")
        for i, j in flagged:  # §10: frequency alone decides these cells
            ax.add_patch(
                Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="red", lw=0)
            )
        for i in range(len(langs)):
            for j in range(len(types)):
                if counts[i, j]:
                    mark = "*" if (i, j) in partial else ""  # §6: balanced over under half
                    text = f"{100 * cells[i, j]:.0f}{mark}\n{_label(int(counts[i, j]))}"
                    ax.text(j, i, text, ha="center", va="center", fontsize=MIN_LABEL_PT,
                            color="white" if cells[i, j] < 0.8 else "black")  # fmt: skip
        ax.set_xticks(range(len(types)), [t.replace("-", "-\n") for t in types], fontsize=9)
        ax.set_yticks(range(len(langs)), langs, fontsize=9)
        ax.set_title(system, fontsize=9, wrap=True)
    # The legend of the marks (* and hatching) is the page's caption: a long title is cut.
    fig.suptitle(f"Balanced accuracy (%), {reading} reading", fontsize=10)
    return fig


def write_heat_maps(
    frame: pl.DataFrame | pl.LazyFrame, out: Path
) -> tuple[list[str], pl.DataFrame]:
    """`heatmap_<reading>.png` (+ CSV) per reading and `systems_by_language.csv`: their names, and
    the cells where frequency alone decides (§10)."""
    table = heat_table(frame)
    names = []
    for reading in sorted(table["reading"].unique().to_list()):
        name = f"heatmap_{reading.replace('-', '_')}"
        fig = heat_figure(table, reading)
        save_png(fig, out / f"{name}.png")
        write_csv(table.filter(pl.col("reading") == reading), out / f"{name}.csv")
        names.append(name)
    write_csv(system_language_table(frame), out / "systems_by_language.csv")
    return names, frequency_flags(table)
