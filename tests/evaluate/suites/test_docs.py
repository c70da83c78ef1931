"""The README's peers' suites section: its example files read as their layouts, its recipe runs."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.suites.read import read_suite
from ud_agree.evaluate.suites.run import SuiteOptions, run_suites

from tests.paths import ROOT
from tests.suite_stubs import CLAMS, CLAMS_GOOD, OracleScorer, factory, write

README = ROOT / "README.md"
HEADING = "## Peers' suites"

# Subsection title → (layout, file name, reader options)
EXAMPLES = {
    "BLiMP": ("blimp", "blimp_example.jsonl", {}),
    "CLAMS": ("clams", "simple_agrmt.txt", {}),
    "MultiBLiMP": ("multiblimp", "data.tsv", {}),
    "SyntaxGym": ("syntaxgym", "suite.json", {}),
    "Any table": ("table", "pairs.csv", {"good": "grammatical", "bad": "ungrammatical"}),
}


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(HEADING)
    return text[start : text.find("\n## ", start + len(HEADING))]


def example(title: str) -> str:
    """The first fenced block of the subsection `### <title> …`."""
    part = section().split(f"### {title}", 1)[1]
    return re.search(r"```\n(.*?)```", part, flags=re.S).group(1)


@pytest.mark.parametrize("title", sorted(EXAMPLES))
def test_readme_example_files_read_as_their_layout_and_score_all(
    tmp_path: Path, title: str
) -> None:
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
    options = SuiteOptions([str(path)], "m", out=str(tmp_path / "out"), progress=False, **extra)
    (outcome,) = run_suites(options, factory(OracleScorer(good)))
    assert outcome.summary["accuracy"][0] == 1.0


def test_readme_recipe_compares_a_clams_suite_and_the_pair_reading(tmp_path, monkeypatch, capsys):
    from tests.evaluate.report.test_synthetic import write_run
    from tests.ud_agree.test_readme_recipes import hand_frame

    # The pair reading's results stand in as evaluator results of model gpt2 (5 of 9 right).
    frame = hand_frame("gpt2", "causal", lambda i: i[4]).with_columns(reading=pl.lit("pair"))
    write_run(tmp_path / "results", frame, "gpt2")
    path = write(tmp_path, "simple_agrmt.txt", CLAMS)
    options = SuiteOptions([str(path)], "gpt2", out=str(tmp_path / "results"), progress=False)
    run_suites(options, factory(OracleScorer(CLAMS_GOOD, name="gpt2")))
    monkeypatch.chdir(tmp_path)
    (block,) = re.findall(r"```python\n(.*?)```", section(), flags=re.S)
    namespace: dict = {}
    exec(compile(block, str(README), "exec"), namespace)
    assert capsys.readouterr().out
    table = namespace["side_by_side"]
    got = {row["set"]: (row["n"], row["accuracy"]) for row in table.iter_rows(named=True)}
    assert got["CLAMS simple_agrmt"] == (3, 1.0)
    assert got["ud-agree fr determiner"] == (6, 0.5)
    assert isinstance(table, pl.DataFrame)
