"""The paper's figures (and more) as PNG files with the data behind each as CSV.

Every figure shows accuracy with 95% bootstrap intervals that resample sentences;
systems (model × method, e.g. a model, its no-context control and the frequency
baseline) sit side by side. Figures are drawn on the Agg canvas: no display needed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import polars as pl
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from ud_agree.atomic import write_csv

from ..output.results import with_system
from ..summary.bins import COUNT_EDGES, DISTANCE_EDGES, UNKNOWN, bin_edge, bin_labels
from ..summary.stats import grouped_accuracy
from .legibility import DPI, MIN_LABEL_PT, save_png

BASELINE = "frequency-baseline"


@dataclass(frozen=True)
class FigureSpec:
    """One figure: the column it groups by, how to draw it, and its labels."""

    name: str
    column: str
    title: str
    xlabel: str
    kind: str  # "bar" for categories, "line" for ordered bins
    edges: tuple[int, ...] = ()


SPECS: tuple[FigureSpec, ...] = (
    FigureSpec("by_type", "type", "Accuracy per agreement type", "agreement type", "bar"),
    FigureSpec("by_lang", "lang", "Accuracy per language", "language", "bar"),
    FigureSpec(
        "by_distance",
        "distance",
        "Accuracy by controller–target distance",
        "distance (syntactic words)",
        "line",
        DISTANCE_EDGES,
    ),
    FigureSpec(
        "by_distractors",
        "distractors",
        "Accuracy by number of distractors",
        "distractors (non-agreeing nouns in the sentence)",
        "line",
        COUNT_EDGES,
    ),
    FigureSpec(
        "by_attractors",
        "attractors",
        "Accuracy by number of attractors",
        "attractors (distractors between target and controller)",
        "line",
        COUNT_EDGES,
    ),
    FigureSpec(
        "by_masked", "role", "Accuracy per masked or varied role", "masked or varied word", "bar"
    ),
    FigureSpec(
        "by_features", "features", "Accuracy per agreeing feature set", "agreeing features", "bar"
    ),
    FigureSpec(
        "by_value",
        "value",
        "Accuracy per value of the agreeing features",
        "value of the masked or varied word",
        "bar",
    ),
)


def prepare(results: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """Results with `system`, `features` (agreeing features joined by '+') and `role` (the word
    masked or varied) added."""
    return with_system(results).with_columns(
        pl.col("agreeing").list.sort().list.join("+").fill_null(UNKNOWN).alias("features"),
        pl.coalesce("masked", "varied").alias("role"),
    )


def figure_table(
    results: pl.LazyFrame | pl.DataFrame, spec: FigureSpec, seed: int = 0
) -> pl.DataFrame:
    """Accuracy table behind one figure: system, the binned column, n, accuracy, ci_low, ci_high."""
    frame = prepare(results)
    if spec.edges:
        # An item without the measure (a §4.2 pair without a relation row) lies on no bin.
        frame = frame.filter(pl.col(spec.column).is_not_null())
        frame = frame.with_columns(bin_edge(spec.column, spec.edges))
    table = grouped_accuracy(frame, ["system", spec.column], seed=seed)
    if spec.edges:
        labels = dict(zip(spec.edges, bin_labels(spec.edges), strict=True))
        table = table.with_columns(
            pl.col(spec.column).replace_strict(labels, return_dtype=pl.String).alias("bin")
        )
    return table


def system_order(systems: Sequence[str]) -> list[str]:
    """Systems sorted by name with the frequency baseline last, so colours stay stable."""
    return sorted(systems, key=lambda s: (s.startswith(BASELINE), s))


def _colors(systems: Sequence[str]) -> dict[str, str]:
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
    colors = {}
    others = [s for s in systems if not s.startswith(BASELINE)]
    for i, system in enumerate(others):
        colors[system] = palette[i % len(palette)]
    # Baselines are grey in every figure, in shades that tell several apart.
    greys = ["#7f7f7f", "#b5b5b5", "#4d4d4d", "#d9d9d9"]
    baselines = [s for s in systems if s.startswith(BASELINE)]
    for i, system in enumerate(baselines):
        colors[system] = greys[i % len(greys)]
    return colors


def _shows_balanced(table: pl.DataFrame, spec: FigureSpec) -> bool:
    """Balanced accuracy is drawn where it exists and differs from accuracy by construction
    (per value, it is the value's own accuracy)."""
    return (
        spec.column != "value"
        and "balanced_accuracy" in table.columns
        and table["balanced_accuracy"].is_not_nan().any()
    )


def _balanced_legend(ax: Axes) -> None:
    """A legend entry for the balanced-accuracy markers."""
    ax.plot(
        [], [], "D", markerfacecolor="white", markeredgecolor="black", label="balanced accuracy"
    )


def _errors(
    rows: pl.DataFrame, value: str = "accuracy", low_col: str = "ci_low", high_col: str = "ci_high"
) -> np.ndarray:
    """Asymmetric error-bar lengths (2 × n) from a value and its interval columns."""
    acc = rows[value].to_numpy()
    low = np.nan_to_num(acc - rows[low_col].to_numpy(), nan=0.0)
    high = np.nan_to_num(rows[high_col].to_numpy() - acc, nan=0.0)
    return np.vstack([np.clip(low, 0, None), np.clip(high, 0, None)])


def same_n(table: pl.DataFrame, column: str) -> bool:
    """Whether every system has the same n in each group: then the axis gives it once a group."""
    return bool(table.group_by(column).agg(pl.col("n").n_unique() == 1)["n"].all())


def _n_label(ax: Axes, x: float, y: float, n: int, **style: object) -> None:
    """A bar's or point's own n, readable over any colour."""
    box = {"boxstyle": "round,pad=0.1", "facecolor": "white", "alpha": 0.75, "linewidth": 0}
    ax.text(x, y, f"n={n:,}", fontsize=MIN_LABEL_PT, bbox=box, **style)  # type: ignore[arg-type]


def _new_figure(width: float) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(min(max(width, 6.0), 24.0), 4.4), dpi=DPI)
    FigureCanvasAgg(fig)  # Agg canvas: rendering needs no display
    return fig, fig.add_subplot(1, 1, 1)


def bar_figure(table: pl.DataFrame, spec: FigureSpec) -> Figure:
    """Grouped bars: one group per category, one bar per system, 95% interval whiskers."""
    systems = system_order(table["system"].unique().to_list())
    categories = table[spec.column].unique().sort().to_list()
    colors = _colors(systems)
    width = 0.8 / max(len(systems), 1)
    fig, ax = _new_figure(3.5 + 0.35 * len(categories) * max(len(systems), 2))
    x = np.arange(len(categories))
    # Runs score different items: where they differ, each bar carries its own n.
    per_bar, bottom = not same_n(table, spec.column), y_floor(table)
    for i, system in enumerate(systems):
        rows = (
            pl.DataFrame({spec.column: categories}, schema={spec.column: table.schema[spec.column]})
            .join(table.filter(pl.col("system") == system), on=spec.column, how="left")
            .fill_null(float("nan"))
        )
        ax.bar(
            x + (i - (len(systems) - 1) / 2) * width,
            rows["accuracy"].to_numpy(),
            width,
            yerr=_errors(rows),
            capsize=4,
            error_kw={"elinewidth": 1.5, "ecolor": "black", "capthick": 1.5},
            color=colors[system],
            label=system,
        )
        for at, n in zip(x + (i - (len(systems) - 1) / 2) * width, rows["n"], strict=True):
            if per_bar and n is not None and not np.isnan(n):
                _n_label(ax, at, bottom + 0.02, int(n), rotation=90, ha="center", va="bottom")
        if _shows_balanced(table, spec):
            ax.errorbar(
                x + (i - (len(systems) - 1) / 2) * width,
                rows["balanced_accuracy"].to_numpy(),
                yerr=_errors(rows, "balanced_accuracy", "ba_ci_low", "ba_ci_high"),
                fmt="D",
                markersize=5,
                markerfacecolor="white",
                markeredgecolor="black",
                ecolor="#555555",
                elinewidth=1,
                capsize=2,
            )
    if _shows_balanced(table, spec):
        _balanced_legend(ax)
    counts = table.group_by(spec.column).agg(pl.col("n").max()).sort(spec.column)
    ticks = [str(c) if per_bar else f"{c}\nn={n:,}" for c, n in counts.iter_rows()]
    # Long names (feature sets, many languages) would overlap their neighbours unless slanted.
    slant = (
        max(len(str(c)) for c in categories) * max(len(systems), 2) > 24 if categories else False
    )
    ax.set_xticks(
        x,
        ticks,
        fontsize=MIN_LABEL_PT,
        rotation=30 if slant else 0,
        ha="right" if slant else "center",
    )
    _finish(fig, ax, spec, table)
    return fig


def line_figure(table: pl.DataFrame, spec: FigureSpec) -> Figure:
    """Lines over ordered bins, one per system, with 95% interval error bars."""
    systems = system_order(table["system"].unique().to_list())
    colors = _colors(systems)
    # Bins past the last one with data would only show empty ticks.
    edges = (
        spec.edges[: spec.edges.index(table[spec.column].max()) + 1] if table.height else spec.edges
    )
    labels = bin_labels(spec.edges)[: len(edges)]
    fig, ax = _new_figure(3.5 + 0.7 * len(labels))
    offsets = np.linspace(-0.12, 0.12, len(systems)) if len(systems) > 1 else [0.0]
    # Runs differ: each point's n, stacked at the foot of its bin in the legend's order and colours.
    per_point, bottom = not same_n(table, spec.column), y_floor(table)
    for k, (offset, system) in enumerate(zip(offsets, systems, strict=True)):
        rows = table.filter(pl.col("system") == system).sort(spec.column)
        x = np.array([spec.edges.index(v) for v in rows[spec.column]]) + offset
        ax.errorbar(
            x,
            rows["accuracy"].to_numpy(),
            yerr=_errors(rows),
            marker="o",
            capsize=4,
            elinewidth=1.5,
            color=colors[system],
            label=system,
        )
        for at, n in zip(x - offset, rows["n"], strict=True):
            if per_point:
                y = bottom + 0.02 + 0.05 * (len(systems) - 1 - k)
                _n_label(ax, at, y, n, ha="center", va="bottom", color=colors[system])
        if _shows_balanced(table, spec):
            ax.plot(
                x,
                rows["balanced_accuracy"].to_numpy(),
                linestyle="--",
                marker="D",
                markersize=4,
                markerfacecolor="white",
                color=colors[system],
            )
    if _shows_balanced(table, spec):
        _balanced_legend(ax)
    counts = dict(table.group_by(spec.column).agg(pl.col("n").max()).iter_rows())
    ticks = [
        label if per_point else f"{label}\nn={counts.get(edge, 0):,}"
        for edge, label in zip(edges, labels, strict=True)
    ]
    ax.set_xticks(np.arange(len(labels)), ticks, fontsize=MIN_LABEL_PT)
    _finish(fig, ax, spec, table)
    return fig


def y_floor(table: pl.DataFrame) -> float:
    """Lowest y shown: 0.05 under the lowest interval, rounded down to a tenth (0 if under 0.5)."""
    lows = table["ci_low"].drop_nans().drop_nulls()
    if "ba_ci_low" in table.columns:
        lows = pl.concat([lows, table["ba_ci_low"].drop_nans().drop_nulls()])
    if lows.len() == 0:
        return 0.0
    lowest = cast(float, lows.min())  # a float column, NaN and nulls dropped, not empty
    floor = float(np.floor((lowest - 0.05) * 10) / 10)
    # Below chance level a zoom would hide the 0.5 line that makes low scores readable.
    return floor if floor >= 0.5 else 0.0


def _finish(fig: Figure, ax: Axes, spec: FigureSpec, table: pl.DataFrame) -> None:
    ax.set_title(spec.title, fontsize=11, wrap=True)
    ax.set_xlabel(spec.xlabel)
    bottom = y_floor(table)
    # Say so when the axis does not start at 0: bar heights then compare differences only.
    suffix = "" if bottom == 0 else f", axis from {100 * bottom:.0f}%"
    ax.set_ylabel(f"accuracy (95% CI, sentences resampled{suffix})", fontsize=9)
    ax.tick_params(axis="y", labelsize=MIN_LABEL_PT)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))  # percents, as the CLI prints
    ax.set_ylim(bottom, 1.02)
    if bottom < 0.5:
        ax.axhline(0.5, color="#bbbbbb", linewidth=0.8, linestyle=":", zorder=0)  # chance, 2-way
    ax.grid(axis="y", alpha=0.3)
    # Outside the axes: a legend inside would hide bars or points near the bottom.
    ax.legend(fontsize=MIN_LABEL_PT, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()


def draw(table: pl.DataFrame, spec: FigureSpec) -> Figure:
    """The figure for `spec` from its accuracy table."""
    return (bar_figure if spec.kind == "bar" else line_figure)(table, spec)


def make_figure(
    results: pl.LazyFrame | pl.DataFrame, spec: FigureSpec, out_dir: str | Path | None = None
) -> tuple[pl.DataFrame, Figure]:
    """Table and figure for `spec`; with `out_dir`, also write `<name>.png` and `<name>.csv` there."""
    table = figure_table(results, spec)
    fig = draw(table, spec)
    if out_dir is not None:
        out = Path(out_dir)
        write_csv(table, out / f"{spec.name}.csv")
        save_png(fig, out / f"{spec.name}.png")
    return table, fig


def get_spec(name: str) -> FigureSpec:
    """The figure spec called `name` (e.g. ``by_type``)."""
    for candidate in SPECS:
        if candidate.name == name:
            return candidate
    raise KeyError(f"no figure {name!r}; known: {', '.join(s.name for s in SPECS)}")


def all_figures(
    results: pl.LazyFrame | pl.DataFrame,
    out_dir: str | Path,
    progress: Callable[[str], None] | None = None,
) -> dict[str, pl.DataFrame]:
    """Write every figure of `SPECS` (PNG + CSV) to `out_dir`; return the tables by figure name."""
    # Collect once: each figure re-reads the same rows.
    frame = results.collect() if isinstance(results, pl.LazyFrame) else results
    tables = {}
    for figure_spec in SPECS:
        if progress:
            progress(figure_spec.name)
        tables[figure_spec.name], _ = make_figure(frame, figure_spec, out_dir)
    return tables
