"""The README's scoring-rules recipe runs as written on the embedded sample, and its figures are
the pair reading's rule columns as the summary reports them (DESIGN §5.1)."""

from __future__ import annotations

import re
import shlex

import polars as pl
import pytest

from tests.paths import MODELS, ROOT, SHARED

HEADING = "### Scoring rules side by side (DESIGN.md §5.1)"


def section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(HEADING)
    return text[start : text.index("\n## ", start)]


def test_the_rules_table_names_every_rule_once():
    from ud_agree.schemas.results import RULE_NAMES

    rows = re.findall(r"^\| `(\w+)` \|", section(), flags=re.M)
    assert tuple(rows) == RULE_NAMES


def test_the_rules_recipe_reproduces_the_lm_eval_metrics_columns(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    if not (MODELS / "tiny-fr-ud-gpt2").is_dir():
        pytest.skip("shared tiny-fr-ud-gpt2 not present")
    from ud_agree.evaluate.cli import main as evaluate_main
    from ud_agree.mine.cli import main as mine_main

    body = section()
    commands = re.findall(r"```bash\n(.*?)```", body, flags=re.S)[0].strip().splitlines()
    (block,) = re.findall(r"```python\n(.*?)```", body, flags=re.S)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").symlink_to(ROOT / "data")
    mains = {"python -m mine": mine_main, "python -m evaluate": evaluate_main}
    for command in commands:
        prefix = next(p for p in mains if command.startswith(p))
        argv = shlex.split(command[len(prefix) :].replace("../shared", str(SHARED)))
        assert mains[prefix](argv) == 0, command
    namespace: dict = {}
    exec(compile(block, "README rules recipe", "exec"), namespace)
    figures = namespace["figures"]
    assert "the pair reading" not in capsys.readouterr().err
    rows = pl.read_parquet(next((tmp_path / "results-rules").rglob("results-*.parquet")).parent
                           / "results-*.parquet")  # fmt: skip
    for row in figures.iter_rows(named=True):
        part = rows.filter(pl.col("type") == row["type"])
        assert row["lm-eval acc"] == part["right_sum"].mean()
        assert row["lm-eval acc_norm"] == part["right_chars"].mean()
        assert row["lm-eval acc_bytes"] == part["right_bytes"].mean()
        assert row["no_bos (MultiBLiMP-style)"] == part["right_no_bos"].mean()
    summary = pl.read_csv(next((tmp_path / "results-rules").rglob("summary.csv")))
    by_rule = summary.filter(pl.col("breakdown") == "rule")
    assert by_rule["group"].to_list() == ["sum", "no_bos", "mean", "chars", "bytes", "word", "slor"]
    overall = dict(by_rule.select("group", "accuracy").iter_rows())
    assert overall["chars"] == pytest.approx(rows["right_chars"].mean())
