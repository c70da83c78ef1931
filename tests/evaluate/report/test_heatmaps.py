"""The report at scale: a heat map per reading readable for 30 languages × 6 systems."""

from __future__ import annotations

import polars as pl
from ud_agree.evaluate.report.heatmaps import heat_figure, heat_table, system_language_table

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
    axes = fig.axes
    assert len(axes) == 6
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
