"""Every line of the report read against the results it was built from (issue 57): hand-built runs
whose figures are known, the rendered page parsed, each claim checked against the rows."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from ud_agree.evaluate.output.results import with_system
from ud_agree.evaluate.report.html import build_report
from ud_agree.evaluate.summary.stats import grouped_accuracy

from tests.evaluate.report.test_synthetic import make_frame, write_run
from ud_agree.schemas.results import RESULTS

# One item: (sentence, agreement type, right, frequency congruence).
Item = tuple[str, str, bool, str]


def items_frame(model: str, method: str, reading: str, items: list[Item]) -> pl.DataFrame:
    """A run's rows: `items` on a template row of the synthetic results."""
    template = make_frame("fr", model, method, 1.0, n_sentences=1).row(0, named=True)
    rows = [
        template
        | {
            "sent_id": sent,
            "type": type_,
            "right": right,
            "right_logit": right,
            "frequency": frequency,
            "reading": reading,
            "target_id": i + 1,
            "controller_id": i + 2,
            "feature": "Number" if reading == "pair" else None,
            "bad_value": "Plur" if reading == "pair" else None,
        }
        for i, (sent, type_, right, frequency) in enumerate(items)
    ]
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))  # type: ignore[return-value]


def spread(n: int, type_: str, right: int, incongruent: int, prefix: str) -> list[Item]:
    """`n` items of `type_`, one sentence each: the first `right` right, the last `incongruent`
    incongruent."""
    return [
        (f"{prefix}{i}", type_, i < right, "incongruent" if i >= n - incongruent else "congruent")
        for i in range(n)
    ]


# The demo's shape: 3 models in 6 runs, runs scoring different item sets.
RUNS: dict[str, tuple[str, str, str, list[Item]]] = {
    # The baseline sees 14 subject-verb items, 6 of them incongruent (it gets those wrong).
    "frequency-baseline": (
        "frequency",
        "class-average",
        "frequency-baseline",
        spread(14, "subject-verb", 8, 6, "sv") + spread(20, "determiner", 12, 8, "det"),
    ),
    # GPT-2 scores one subject-verb item (congruent): its cell's figures are not the baseline's.
    "gpt2": ("context", "class-average", "gpt2", spread(1, "subject-verb", 1, 0, "sv")),
    "bert": (
        "context",
        "class-average",
        "bert",
        spread(14, "subject-verb", 13, 6, "sv") + spread(20, "determiner", 19, 8, "det"),
    ),
    "frequency-baseline__pair": (
        "frequency",
        "pair",
        "frequency-baseline",
        spread(22, "determiner", 16, 6, "p"),
    ),
    "bert__pll-word": ("pll-word", "pair", "bert", spread(22, "determiner", 21, 6, "p")),
    # Four items of one sentence, three right: a bootstrap over sentences cannot spread.
    "gpt2__pair": (
        "causal",
        "pair",
        "gpt2",
        [("one", "determiner", i < 3, "congruent") for i in range(4)],
    ),
}


def frames() -> dict[str, pl.DataFrame]:
    return {
        folder: items_frame(model, method, reading, items)
        for folder, (method, reading, model, items) in RUNS.items()
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pl.DataFrame, Path]:
    """The page, every run's rows (with `system`) and the report folder."""
    root = tmp_path_factory.mktemp("results")
    runs = frames()
    for folder, frame in runs.items():
        write_run(root, frame, folder, chunks=1)
    out = tmp_path_factory.mktemp("report")
    page = build_report(root, out).read_text(encoding="utf-8")
    rows = with_system(pl.concat(list(runs.values()))).collect()
    return page, rows, out


def section(page: str, heading: str) -> str:
    """The page from `heading` to the next heading."""
    return re.split(r"<h[1-4]>", page.split(heading, 1)[1], maxsplit=1)[0]


def text(fragment: str) -> str:
    """A fragment's text, tags dropped and entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def cell_figures(rows: pl.DataFrame, **where: Any) -> dict[str, Any]:
    """n, the frequency heuristic's share and the incongruent items of one system's cell."""
    cell = rows.filter(*(pl.col(k) == v for k, v in where.items()))
    table = grouped_accuracy(cell, ["system"])
    return table.select("n", "frequency_congruent", "incongruent_n").row(0, named=True)


def test_each_frequency_bullet_gives_the_figures_of_every_system_it_names(
    built: tuple[str, pl.DataFrame, Path],
) -> None:
    page, rows, _ = built
    bullets = re.findall(r"<li>(.*?)</li>", section(page, "<h3>Where frequency alone decides"))
    assert bullets
    named = 0
    for bullet in map(text, bullets):
        where = re.match(
            r"(\w+), ([\w-]+), ([\w-]+): (.+?) \((\d+) items?, (\d+) incongruent\)", bullet
        )
        assert where, bullet
        lang, reading, type_, systems, n, incongruent = where.groups()
        share = re.search(r"right on ([\d.]+)% of these items", bullet)
        for system in systems.split("; "):
            figures = cell_figures(rows, lang=lang, reading=reading, type=type_, system=system)
            assert figures["n"] == int(n), bullet
            assert figures["incongruent_n"] == int(incongruent), bullet
            if share:
                assert f"{100 * figures['frequency_congruent']:.1f}" == share.group(1), bullet
            named += 1
        # The pair reading is not sent to itself.
        assert not (reading == "pair" and "read the pair reading" in bullet), bullet
    # The baseline's subject-verb cell (14 items, 6 incongruent) is not GPT-2's (1 item, 0).
    assert any("subject-verb: gpt2 (1 item, 0 incongruent)" in text(b) for b in bullets)
    assert any(
        "subject-verb: bert; frequency-baseline (14 items, 6 incongruent)" in text(b)
        for b in bullets
    )
    assert named > len(bullets)  # some bullets name several systems with the same figures


def test_the_headline_counts_runs_and_models_apart(built: tuple[str, pl.DataFrame, Path]) -> None:
    page, rows, _ = built
    headline = text(re.search(r"<p class='headline'>(.*?)</p>", page, re.S).group(1))  # type: ignore[union-attr]
    found = re.match(r"([\d,]+) items scored in (\d+) runs of (\d+) models", headline)
    assert found, headline
    items, runs, models = (int(g.replace(",", "")) for g in found.groups())
    assert items == rows.height
    assert runs == len(RUNS) == 6
    assert models == rows["model"].n_unique() == 3


def test_each_heat_map_says_what_its_cells_show_and_has_a_colour_bar(
    built: tuple[str, pl.DataFrame, Path],
) -> None:
    from ud_agree.evaluate.report.heatmaps import heat_table
    from ud_agree.evaluate.report.legibility import png_text

    page, rows, out = built
    table = heat_table(rows)
    maps = re.findall(r"<img src='(heatmap_\w+)\.png' alt='([^']*)'>", page)
    assert len(maps) == 2
    for name, alt in maps:
        reading = name.removeprefix("heatmap_").replace("_", "-")
        cells = table.filter(pl.col("reading") == reading)["balanced_accuracy"]
        # No cell here has 20 items a value: every cell shows accuracy, none balanced accuracy.
        assert cells.is_nan().all()
        title = html.unescape(alt)
        assert title == f"Accuracy (%), {reading} reading"
        chunks = png_text(out / f"{name}.png")
        assert chunks["Title"] == title
        assert chunks["Colour bar"].startswith("accuracy")
        caption = text(page.split(f"src='{name}.png'", 1)[1].split("</figcaption>", 1)[0])
        assert title in caption and "Balanced" not in caption


def test_a_heat_map_with_balanced_and_plain_cells_marks_the_plain_ones() -> None:
    from ud_agree.evaluate.report.heatmaps import colour_bar_label, heat_figure

    nan = float("nan")
    table = pl.DataFrame(
        {
            "reading": ["pair"] * 2,
            "system": ["m"] * 2,
            "lang": ["fr"] * 2,
            "type": ["determiner", "subject-verb"],
            "n": [50, 8],
            "accuracy": [0.9, 0.75],
            "balanced_accuracy": [0.8, nan],
        }
    )
    fig = heat_figure(table, "pair")
    assert fig.get_suptitle().startswith("Balanced accuracy (%; ° accuracy, where it cannot")
    cells = sorted(t.get_text() for t in fig.axes[0].texts)
    assert cells == ["75°\nn 8", "80\nn 50"]
    assert colour_bar_label(fig).startswith("balanced accuracy or accuracy (%)")
    balanced = heat_figure(table.head(1), "pair")
    assert balanced.get_suptitle() == "Balanced accuracy (%), pair reading"
    assert [t.get_text() for t in balanced.axes[0].texts] == ["80\nn 50"]


@pytest.mark.parametrize("name", ["by_type", "by_lang", "by_distance"])
def test_each_bar_or_point_carries_its_own_n_where_runs_differ(
    built: tuple[str, pl.DataFrame, Path], name: str
) -> None:
    from ud_agree.evaluate.report.figures import draw, get_spec, prepare

    page, rows, out = built
    assert f"<img src='{name}.png'" in page
    spec = get_spec(name)
    # The counts from the rows themselves: items with a decision, per system and group.
    frame = prepare(rows).collect()
    if spec.edges:
        from ud_agree.evaluate.summary.bins import bin_edge

        frame = frame.filter(pl.col(spec.column).is_not_null()).with_columns(
            bin_edge(spec.column, spec.edges)
        )
    counts = frame.group_by("system", spec.column).agg(pl.col("right").is_not_null().sum())
    assert counts["right"].n_unique() > 1  # the runs differ: one n per group would be wrong
    table = pl.read_csv(
        out / f"{name}.csv", schema_overrides={spec.column: frame.schema[spec.column]}
    )
    fig = draw(table, spec)
    ax = fig.axes[0]
    labels = sorted(t.get_text() for t in ax.texts if t.get_text().startswith("n="))
    assert labels == sorted(f"n={n:,}" for n in counts["right"])
    assert not any("n=" in t.get_text() for t in ax.get_xticklabels())


def test_an_interval_of_no_width_is_called_degenerate(
    built: tuple[str, pl.DataFrame, Path],
) -> None:
    page, rows, _ = built
    one = rows.filter(pl.col("system") == "gpt2 (pair)")
    assert one["sent_id"].n_unique() == 1 and one.height == 4
    share = f"{100 * one['right'].mean():.1f}%"
    summary = section(page, "<h2>Summary</h2>")
    row = next(r for r in re.findall(r"<tr>(.*?)</tr>", summary) if ">gpt2 (pair)<" in r)
    assert f"{share} [75, 75] (degenerate)" in text(row)
    # Every interval on the page: called degenerate exactly where its ends meet.
    cells = re.findall(r"<td class='num'>([^<]*\[[^<]*\][^<]*)</td>", page)
    assert cells
    for cell in map(html.unescape, cells):
        low, high = re.search(r"\[([^,]+), ([^\]]+)\]", cell).groups()  # type: ignore[union-attr]
        assert cell.endswith("(degenerate)") == (low == high != "–"), cell
    assert "(degenerate)" in section(page, "<details><summary>Definitions")


def test_validity_only_on_the_pair_rows_it_judged_and_a_mismatch_warns(tmp_path: Path) -> None:
    import json

    from ud_agree.mine.validate import Judgment, validity

    root = tmp_path / "results"
    runs = frames()
    for folder, frame in runs.items():
        run = write_run(root, frame, folder, chunks=1)
        if frame["reading"][0] == "pair":  # two pair runs over another corpus than the third
            manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
            other = folder == "gpt2__pair"
            manifest |= {"corpus": "corpus-b/fr" if other else "corpus/fr"}
            (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    verdicts = [("determiner", "valid")] * 8 + [("determiner", "wrong-feature")] * 2
    verdicts += [("subject-verb", "valid")] * 3  # no pair run scored subject-verb
    judged = [
        Judgment(f"i{i}", f"x.csv:{i + 2}", "fr", t, ("plain",), v)
        for i, (t, v) in enumerate(verdicts)
    ]
    path = tmp_path / "validity.parquet"
    validity(judged, "maintainers").write_parquet(path)
    warnings: list[str] = []
    page = build_report(root, tmp_path / "out", warnings.append, path).read_text(encoding="utf-8")
    rows = with_system(pl.concat(list(runs.values()))).collect()
    pair_systems = set(rows.filter(pl.col("reading") == "pair")["system"])
    table = page.split("<h3>Per language and agreement type</h3>", 1)[1].split("</table>", 1)[0]
    head = [text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
    at = {name: head.index(name) for name in ("model", "language", "agreement type")}
    judged_at = head.index("judged valid [95% CI]")
    seen = 0
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("<tbody>", 1)[1]):
        cells = [text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        system, type_ = cells[at["model"]], cells[at["agreement type"]]
        shown = cells[judged_at]
        if system in pair_systems and type_ == "determiner":
            assert shown.startswith("80.0% ["), (system, shown)
            seen += 1
        else:
            assert shown == "–", (system, type_, shown)
    assert seen == len(pair_systems) == 3
    note = section(page, "<h3>Per language and agreement type</h3>")
    assert "pair reading's rows only" in note
    assert "corpus/fr" in note and "corpus-b/fr" in note
    assert any("fr subject-verb" in w for w in warnings)
    assert any("2 corpora" in w for w in warnings)
    assert all(html.escape(w.removeprefix("validity: ")) in note for w in warnings)


def test_the_page_reads_on_a_phone_and_links_the_docs_relatively(
    built: tuple[str, pl.DataFrame, Path],
) -> None:
    from ud_agree.evaluate.report.sections import Page, render

    page, _, out = built
    suites_only = render(Page("results", pl.DataFrame(), suites=[{"suite": "s", "n": 1}]))
    for shown in (page, suites_only):
        head = shown.split("</head>", 1)[0]
        assert "<meta name='viewport' content='width=device-width, initial-scale=1'>" in head
        # Every table scrolls sideways inside its own box, not the page.
        assert shown.count("<table>") == shown.count("<div class='table-scroll'><table>") > 0
    assert re.search(r"\.table-scroll \{[^}]*overflow-x: auto", page)
    assert "file://" not in page
    links = re.findall(r"href='([^']+\.md)'", page)
    assert len(links) >= 4
    for link in links:
        assert not Path(link).is_absolute() and "://" not in link, link
        assert (out / link).resolve().is_file(), link
