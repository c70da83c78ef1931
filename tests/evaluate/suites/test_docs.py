"""The peers' suites page: its example files read as their layouts; the exports page's recipe
compares a CLAMS suite and the pair reading as a plain count does."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.options import suite_run
from ud_agree.evaluate.run import run_suites
from ud_agree.evaluate.sources.files import read_suite

from tests.docs import DOCS, blocks
from tests.suite_stubs import CLAMS, CLAMS_GOOD, OracleScorer, factory, write

SUITES = DOCS / "suites.md"
EXPORTS = DOCS / "exports.md"

# Subsection title → (layout, file name, reader options)
EXAMPLES = {
    "BLiMP": ("blimp", "blimp_example.jsonl", {}),
    "CLAMS": ("clams", "simple_agrmt.txt", {}),
    "MultiBLiMP": ("multiblimp", "data.tsv", {}),
    "SyntaxGym": ("syntaxgym", "suite.json", {}),
    "Any table": ("table", "pairs.csv", {"good": "grammatical", "bad": "ungrammatical"}),
}


def example(title: str) -> str:
    """The first block of the section `## <title> …`: an example file."""
    heading = next(h for h in SUITES.read_text(encoding="utf-8").splitlines()
                   if h.startswith(f"## {title}"))  # fmt: skip
    return blocks(SUITES, heading)[0].text


@pytest.mark.parametrize("title", sorted(EXAMPLES))
def test_example_files_read_as_their_layout_and_score_all(tmp_path: Path, title: str) -> None:
    layout, name, extra = EXAMPLES[title]
    text = example(title)
    assert len(text.splitlines()) == 5
    path = write(tmp_path, name, text)
    suite = read_suite(path, **extra)
    assert (suite.format, suite.malformed) == (layout, [])
    if layout == "syntaxgym":
        good = [suite.items[0].conditions["match"].layout()[0]]
    else:
        good = suite.pairs["sentence_good"].to_list()
    options = suite_run([str(path)], "m", out=str(tmp_path / "out"), progress=False, **extra)
    (outcome,) = run_suites(options, factory(OracleScorer(good)))
    assert outcome.summary["accuracy"][0] == 1.0


def test_recipe_compares_a_clams_suite_and_the_pair_reading(tmp_path, monkeypatch, capsys):
    from tests.evaluate.report.test_synthetic import write_run
    from tests.ud_agree.test_docs_recipes import hand_frame

    # The pair reading's results stand in as evaluator results of the model (5 of 9 right).
    model = "tiny-fr-ud-gpt2"
    frame = hand_frame(model, "causal", lambda i: i[4]).with_columns(reading=pl.lit("pair"))
    write_run(tmp_path / "results", frame, model)
    path = write(tmp_path, "simple_agrmt.txt", CLAMS)
    options = suite_run([str(path)], model, out=str(tmp_path / "results"), progress=False)
    run_suites(options, factory(OracleScorer(CLAMS_GOOD, name=model)))
    monkeypatch.chdir(tmp_path)
    heading = "## Recipe: one model on a CLAMS suite and on ud-agree's French pairs"
    (block,) = [b for b in blocks(EXPORTS, heading) if b.language == "python"]
    namespace: dict = {}
    exec(compile(block.text, block.where, "exec"), namespace)
    assert capsys.readouterr().out
    table = namespace["side_by_side"]
    got = {row["set"]: (row["n"], row["accuracy"]) for row in table.iter_rows(named=True)}
    assert got["CLAMS simple_agrmt"] == (3, 1.0)
    assert got["ud-agree fr determiner"] == (6, 0.5)
    assert isinstance(table, pl.DataFrame)
