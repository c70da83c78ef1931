"""The public API: every name of `ud_agree.__all__` resolves, importing `ud_agree` stays light, and
the README's "Python API" recipe runs as written and agrees with the evaluator's own rows."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import polars as pl
import pytest

import ud_agree
from tests.paths import ROOT

README = ROOT / "README.md"
HEADING = "## Python API"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(HEADING)
    return text[start : text.index("\n## ", start + len(HEADING))]


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


def test_the_readme_recipe_runs_and_matches_the_pair_reading(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    from ud_agree.evaluate.cli import main as evaluate_main
    from ud_agree.mine.cli import main as mine_main

    body = section()
    commands = re.findall(r"```bash\n(.*?)```", body, flags=re.S)[0].strip().splitlines()
    blocks = re.findall(r"```python\n(.*?)```", body, flags=re.S)
    assert len(commands) == 2 and len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").symlink_to(ROOT / "data")
    mains = {"python -m mine": mine_main, "python -m evaluate": evaluate_main}
    for line in commands:
        tool = next(t for t in mains if line.startswith(t))
        assert (
            mains[tool](
                [
                    *shlex.split(line[len(tool) :]),
                    *(["--no-progress"] if "evaluate" in tool else ["--quiet"]),
                ]
            )
            == 0
        )
    namespace: dict = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    out = capsys.readouterr().out
    assert "right:" in out and "tiny-random" in out
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
