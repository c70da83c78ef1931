"""The reports page runs as written on the sample's runs, and its polars recipes give the right
numbers on a hand-built frame where the answers are known."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from ud_agree.evaluate import load_results

from tests.docs import DOCS, Block, blocks, run_page
from tests.evaluate.report.test_synthetic import write_run
from tests.paths import MODELS
from ud_agree.schemas.results import RESULTS

PAGE = "evaluating/reports.md"
HEADING = "## Recipes"

# (sent_id, type, distance, lemma, right in context): nine items of model "m" in French.
ITEMS = (
    ("s1", "determiner", 1, "chat", True),
    ("s1", "attributive", 2, "chat", False),
    ("s2", "determiner", 3, "chat", False),
    ("s2", "determiner", 9, "chien", True),
    ("s3", "subject-verb", 5, "chien", True),
    ("s3", "attributive", 12, "chien", True),
    ("s4", "determiner", 1, "lune", False),
    ("s4", "determiner", 4, "lune", False),
    ("s4", "determiner", 8, "lune", True),
)


def recipe_blocks() -> list[Block]:
    """The Python blocks of the page's recipes."""
    return [b for b in blocks(DOCS / PAGE, HEADING) if b.language == "python"]


def hand_frame(model: str, method: str, verdict) -> pl.DataFrame:
    """The nine ITEMS as result rows, `right` decided by `verdict(item)`."""
    rows = []
    for i, item in enumerate(ITEMS):
        sent_id, type_, distance, lemma, _ = item
        right = bool(verdict(item))
        rows.append(
            {
                "lang": "fr",
                "treebank": "GSD",
                "sent_id": sent_id,
                "type": type_,
                "target_id": i + 1,
                "controller_id": i + 1 + distance,
                "masked": "controller",
                "form": lemma,
                "lemma": lemma,
                "upos": "NOUN",
                "agreeing": ["Number"],
                "distance": distance,
                "distance_tokens": distance,
                "distractors": 0,
                "attractors": 0,
                "order": "target-first",
                "in_mwt": False,
                "n_correct": 10,
                "n_incorrect": 10,
                "p_correct": 0.2 if right else 0.1,
                "p_incorrect": 0.15,
                "logit_correct": 0.0,
                "logit_incorrect": 0.0,
                "right": right,
                "right_logit": right,
                "model": model,
                "match": "agreement",
                "case": "fold",
                "method": method,
            }
        )
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))


@pytest.fixture
def recipes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> dict:
    """Run every recipe from a folder holding results/ with model, no-context control and baseline."""
    root = tmp_path / "results"
    write_run(root, hand_frame("m", "context", lambda item: item[4]), "m")
    write_run(
        root,
        hand_frame("m", "no-context", lambda item: item[2] == 1 and item[0] == "s1"),
        "m__no-context",
    )
    write_run(
        root,
        hand_frame("frequency-baseline", "frequency", lambda item: item[2] <= 2),
        "frequency-baseline",
    )
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in recipe_blocks():
        exec(compile(block.text, block.where, "exec"), namespace)
    assert capsys.readouterr().out  # every recipe prints its table
    return namespace


def test_the_page_has_at_least_three_recipes() -> None:
    assert len(recipe_blocks()) >= 3


def test_the_page_runs_on_the_samples_runs_and_its_recipes_count_every_row(tmp_path) -> None:
    if not MODELS.is_dir():
        pytest.skip("shared models not present")
    namespace = run_page(DOCS / PAGE, tmp_path).namespace
    results = load_results(tmp_path / "results")
    total = results.filter(pl.col("model") == "tiny-random").select(pl.len()).collect().item()
    by_type = namespace["by_type"].filter(pl.col("model") == "tiny-random")
    assert by_type["n"].sum() == total
    assert set(namespace["side_by_side"].columns) == {
        "lang",
        "tiny-random",
        "tiny-random (no-context)",
        "frequency-baseline",
    }
    assert (tmp_path / "report" / "index.html").is_file()


def test_recipe_accuracy_by_type_and_language(recipes: dict) -> None:
    table = recipes["by_type"].filter((pl.col("model") == "m") & (pl.col("method") == "context"))
    got = {row["type"]: (row["n"], row["accuracy"]) for row in table.iter_rows(named=True)}
    assert got == {"determiner": (6, 0.5), "attributive": (2, 0.5), "subject-verb": (1, 1.0)}
    assert set(recipes["by_type"]["method"]) == {"context", "no-context", "frequency"}


def test_recipe_accuracy_by_distance_bins(recipes: dict) -> None:
    table = recipes["by_distance"]
    assert table["model"].unique().to_list() == ["m"]  # the recipe keeps the context runs only
    got = {row["bin"]: (row["n"], row["accuracy"]) for row in table.iter_rows(named=True)}
    assert got == {"1": (2, 0.5), "2": (1, 0.0), "3-4": (2, 0.0), "5-8": (2, 1.0), "9+": (2, 1.0)}
    assert table["bin"].to_list() == ["1", "2", "3-4", "5-8", "9+"]


def test_recipe_worst_lemmas(recipes: dict) -> None:
    table = recipes["worst_lemmas"]
    assert table["lemma"].to_list() == ["chat", "lune", "chien"]
    assert table["accuracy"].to_list() == pytest.approx([1 / 3, 1 / 3, 1.0])


def test_recipe_side_by_side_shows_control_and_baseline(recipes: dict) -> None:
    row = recipes["side_by_side"].row(0, named=True)
    assert row["lang"] == "fr"
    assert row["m"] == pytest.approx(5 / 9)
    assert row["m (no-context)"] == pytest.approx(1 / 9)
    assert row["frequency-baseline"] == pytest.approx(3 / 9)


def test_recipe_intervals_bracket_accuracy(recipes: dict) -> None:
    table = recipes["intervals"]
    assert table.height == 3
    assert (table["ci_low"] <= table["accuracy"]).all()
    assert (table["accuracy"] <= table["ci_high"]).all()
