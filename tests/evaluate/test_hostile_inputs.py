"""The evaluator's fault suite (issue 34): every case of tests/evaluate/faults.py, generated from
its table of mutations, gets its exit status and one error line, no traceback, nothing written
outside --out, and no result counted that should not be."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.evaluate.faults import Place, all_cases, build_models, mine_sample, problems_of, run_case
from tests.paths import ROOT, SHARED, needs_tiny_models

CASES = all_cases()


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    """The sample mined, and tiny random GPT-2 and BERT models built from config (once)."""
    base = tmp_path_factory.mktemp("faults")
    return (mine_sample(ROOT, base / "corpus"), *build_models(SHARED, base / "models"))


@needs_tiny_models
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_hostile_input_gets_its_due(case, fixtures, tmp_path):
    corpus, gpt2, bert = fixtures
    seen = run_case(case, Place(tmp_path, corpus, gpt2, bert))
    assert problems_of(case, seen) == [], seen.stderr[-3000:]


def test_the_table_covers_every_layout_and_input_with_100_cases():
    groups = Counter(case.name.split("/")[0] for case in CASES)
    every = {"blimp", "clams", "multiblimp", "syntaxgym", "gevalm", "table", "lang", "corpus",
             "option", "out", "model", "resume", "results"}  # fmt: skip
    assert every <= set(groups), every - set(groups)
    assert len(CASES) >= 100 and len({case.name for case in CASES}) == len(CASES)
    assert sum(case.tool == "subprocess-suite" for case in CASES) >= 1
