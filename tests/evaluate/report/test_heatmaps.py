"""The report at scale: a heat map per reading readable for 30 languages × 6 systems."""

from __future__ import annotations

import polars as pl
from ud_agree.evaluate.report.heatmaps import (
    COLOUR_BAR,
    heat_figure,
    heat_table,
    system_language_table,
)

from tests.evaluate.report.test_synthetic import make_frame

LANGS = [f"l{i:02d}" for i in range(30)]
MODELS = [("m1", "context"), ("m2", "context"), ("m3", "context"), ("m4", "context"),
          ("m5", "context"), ("frequency-baseline", "frequency")]  # fmt: skip


def thirty_by_six() -> pl.DataFrame:
    return pl.concat(
        [
            make_frame(lang, model, method, 0.9 - 0.05 * m, n_sentences=12, seed=i * 7 + m)
            for i, lang in enumerate(LANGS)
            for m, (model, method) in enumerate(MODELS)
        ]
    )


def test_a_heat_map_of_30_languages_and_6_systems_draws_every_label_at_a_readable_size():
    frame = thirty_by_six()
    table = heat_table(frame)
    fig = heat_figure(table, "class-average")
    fig.canvas.draw()
    axes = [ax for ax in fig.axes if ax.get_label() != COLOUR_BAR]
    assert len(axes) == 6 and len(fig.axes) == 7  # six panels and their colour bar
    assert [ax.get_title() for ax in axes][-1] == "frequency-baseline"  # the baseline last
    for ax in axes:
        assert [t.get_text() for t in ax.get_yticklabels()] == LANGS
        assert len(ax.get_xticklabels()) == len(set(frame["type"]))
        cells = [t.get_text() for t in ax.texts]
        assert len(cells) == 30 * len(set(frame["type"])) and all("\nn " in c for c in cells)
    width, height = fig.get_size_inches()
    # Every row at least about 0.4 in tall, each panel at least 2.5 in wide: labels do not overlap.
    assert height / 30 >= 0.35 and width / 6 >= 2.5 and width <= 40


def test_the_cells_are_balanced_accuracy_with_their_counts():
    frame = thirty_by_six().filter(pl.col("lang") == "l00")
    table = heat_table(frame).filter(pl.col("system") == "m1")
    by_type = frame.filter(pl.col("model") == "m1").group_by("type").len()
    assert dict(table.select("type", "n").iter_rows()) == dict(by_type.iter_rows())


def test_the_system_by_language_table_has_a_column_per_language():
    wide = system_language_table(thirty_by_six())
    assert wide.columns == ["reading", "system", *LANGS] and wide.height == 6


def with_frequency(frame: pl.DataFrame, congruent_lang: str) -> pl.DataFrame:
    """Items of `congruent_lang` all frequency-congruent; elsewhere half incongruent."""
    half = pl.when(pl.int_range(pl.len()) % 2 == 0).then(pl.lit("congruent"))
    return frame.with_columns(
        pl.when(pl.col("lang") == congruent_lang)
        .then(pl.lit("congruent"))
        .otherwise(half.otherwise(pl.lit("incongruent")))
        .alias("frequency")
    )


def test_cells_where_frequency_alone_decides_are_hatched_and_listed():
    from matplotlib.patches import Rectangle
    from ud_agree.evaluate.report.heatmaps import frequency_flags
    from ud_agree.evaluate.report.sections import frequency_sentence

    frame = with_frequency(
        pl.concat(
            [
                make_frame(lang, "m1", "context", 0.9, n_sentences=200, seed=i)
                for i, lang in enumerate(["aa", "bb"])
            ]
        ),
        congruent_lang="aa",
    )
    table = heat_table(frame)
    flagged = table.filter(pl.col("frequency_decides"))
    assert set(flagged["lang"]) == {"aa"} and (flagged["frequency_congruent"] == 1.0).all()
    flags = frequency_flags(table)
    assert flags["lang"].unique().to_list() == ["aa"] and flags.height == flagged.height
    fig = heat_figure(table, "class-average")
    hatched = [p for p in fig.axes[0].patches if isinstance(p, Rectangle) and p.get_hatch()]
    assert len(hatched) == flagged.height
    assert "cannot separate agreement from frequency" in frequency_sentence(1.0)
    assert "100.0%" in frequency_sentence(1.0)


def test_few_incongruent_items_flag_a_cell_too():
    frame = make_frame("aa", "m1", "context", 0.9, n_sentences=20).with_columns(
        frequency=pl.lit("incongruent")
    )
    table = heat_table(frame)
    # Every item incongruent, but fewer than 30 of them per type: still nothing to read there.
    assert (table["incongruent_n"] < 30).all() and table["frequency_decides"].all()
