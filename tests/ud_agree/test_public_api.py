"""The public API: every name of `ud_agree.__all__` resolves, importing `ud_agree` stays light, and
the API page's recipe runs as written and agrees with the evaluator's own rows."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

import ud_agree
from tests.docs import DOCS, run_page
from tests.paths import ROOT

PAGE = "reference/index.md"


def test_every_public_name_resolves():
    assert "__version__" in ud_agree.__all__ and len(ud_agree.__all__) >= 7
    for name in ud_agree.__all__:
        assert getattr(ud_agree, name) is not None, name
    for name in ("read_corpus", "load_scorer", "score_sentences", "load_results", "read_suite"):
        assert callable(getattr(ud_agree, name))
    with pytest.raises(AttributeError):
        ud_agree.no_such_name  # noqa: B018


def test_importing_ud_agree_imports_neither_torch_nor_the_miner():
    code = (
        "import sys, ud_agree; ud_agree.read_corpus; ud_agree.load_results; "
        "print(sorted(m for m in sys.modules if m in ('torch', 'transformers') "
        "or m.startswith('ud_agree.mine')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_the_api_page_recipe_runs_and_matches_the_pair_reading(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    run = run_page(DOCS / PAGE, tmp_path)
    namespace = run.namespace
    out = "".join(run.printed)
    assert "right:" in out and "tiny-random" in out
    monkeypatch.chdir(tmp_path)
    # The recipe's verdicts are the evaluator's for the same pairs (same model, same spans).
    pairs, good, bad = namespace["pairs"], namespace["good"], namespace["bad"]
    key = ["treebank", "sent_id", "target_id", "controller_id", "varied", "feature", "bad_value"]
    rows = (
        ud_agree.load_results("results")
        .filter(pl.col("model") == "tiny-random")
        .collect()
        .join(pairs.select(*key, "good_form").with_row_index("row"), on=key)
        .sort("row")
    )
    assert rows.height == pairs.height == 4
    assert rows["right"].to_list() == (good > bad).tolist()
    assert rows["score_good"].to_list() == pytest.approx(good.tolist(), abs=1e-9)
    accuracy = namespace["accuracy"]
    assert set(accuracy["model"]) == {"frequency-baseline", "tiny-random"}
