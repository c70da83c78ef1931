"""The README's controls recipe runs as written (mine with --nonce 3, score a causal model and the
frequency baseline) and its polars code gives what a plain loop over the rows gives."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from collections import defaultdict

import pytest

from tests.paths import MODELS, ROOT, SAMPLE

README = ROOT / "README.md"
HEADING = "## Controls: is the model using the structure?"


def blocks(kind: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index(HEADING)
    section = text[start : text.index("\n## ", start + len(HEADING))]
    return re.findall(rf"```{kind}\n(.*?)```", section, flags=re.S)


def test_controls_recipe_runs_and_its_numbers_are_those_of_a_plain_loop(tmp_path, monkeypatch):
    if not (MODELS / "tiny-fr-ud-gpt2").is_dir():
        pytest.skip("shared tiny-fr-ud-gpt2 not present")
    (commands,) = blocks("bash")
    for line in commands.strip().splitlines():
        argv = shlex.split(line)
        assert argv[:2] == ["python", "-m"]
        argv = [
            sys.executable,
            "-m",
            *argv[2:],
            "--quiet" if "mine" in argv[2] else "--no-progress",
        ]
        argv = [a.replace("data/sample", str(SAMPLE)).replace("../shared/models", str(MODELS))
                for a in argv]  # fmt: skip
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    monkeypatch.chdir(tmp_path)
    (code,) = blocks("python")
    scope: dict = {}
    exec(code, scope)
    rows = scope["rows"]
    assert {"original", "nonce-1", "nonce-2", "nonce-3"} <= set(rows["variant"])
    right: dict = defaultdict(list)
    wrong_way: dict = defaultdict(list)
    for model, variant, frequency, is_right in rows.select(
        "model", "variant", "frequency", "right"
    ).iter_rows():
        right[(model, "original" if variant == "original" else "nonce")].append(is_right)
        if frequency == "incongruent":
            wrong_way[model].append(is_right)
    for model, variant, accuracy, n in scope["by_variant"].iter_rows():
        assert n == len(right[(model, variant)])
        assert accuracy == pytest.approx(sum(right[(model, variant)]) / n)
    incongruent = {model: accuracy for model, accuracy, _ in scope["incongruent"].iter_rows()}
    assert incongruent["frequency-baseline"] == 0.0
    for model, accuracy in incongruent.items():
        assert accuracy == pytest.approx(sum(wrong_way[model]) / len(wrong_way[model]))
