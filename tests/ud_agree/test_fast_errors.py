"""A misspelt model, a language the corpus lacks, a missing path or an --out that is a file is
said within two seconds, in a fresh interpreter, before torch or transformers is imported."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT, SAMPLE, TINY_GPT2

LIMIT_S = 2.0
# Runs `ud-agree ARGS…` in-process, then prints its exit code and which heavy modules it loaded.
PROBE = """
import json, sys
from ud_agree.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:  # argparse's own errors
    code = stop.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "transformers", "matplotlib"})
print(json.dumps({"code": code, "heavy": heavy}))
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The embedded sample, mined (fr, de, en)."""
    out = tmp_path_factory.mktemp("fast") / "corpus"
    mined = subprocess.run(
        [sys.executable, "-m", "ud_agree", "mine", "--ud-dir", str(SAMPLE / "ud"),
         "--unimorph-dir", str(SAMPLE / "unimorph"), "--out", str(out), "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert mined.returncode == 0, mined.stderr
    return out


def cases(corpus: Path) -> dict[str, tuple[list[str], str]]:
    """Name → (the arguments of `ud-agree`, a words its one-line error must hold)."""
    gone = corpus.parent / "nowhere"
    a_file = str(ROOT / "README.md")
    model = str(TINY_GPT2) if TINY_GPT2.is_dir() else "frequency"
    evaluate = ["evaluate", "--corpus", str(corpus), "--lang"]
    return {
        "evaluate: misspelt model": ([*evaluate, "fr", "--model", "frequncy"], "did you mean"),
        "evaluate: language not mined": ([*evaluate, "es", "--model", model], "--lang es"),
        "evaluate: no corpus": (
            ["evaluate", "--corpus", str(gone), "--lang", "fr", "--model", model],
            "not found",
        ),
        "evaluate: --out a file": (
            [*evaluate, "fr", "--model", model, "--out", a_file],
            "not a directory on",
        ),
        "evaluate: no model folder": (
            [*evaluate, "fr", "--model", str(gone / "model")],
            "no such folder",
        ),
        "evaluate: unknown option": ([*evaluate, "fr", "--min-candidate", "3"], "did you mean"),
        "mine: no treebanks": (["mine", "--ud-dir", str(gone)], "no such directory"),
        "mine: --out a file": (
            ["mine", "--ud-dir", str(SAMPLE / "ud"), "--out", a_file],
            "not a directory on",
        ),
        "validate: no corpus": (
            ["validate", "sample", "--corpus", str(gone), "--out", str(gone / "v")],
            str(gone),
        ),
        "compare: no TSV": (["compare", str(gone / "fr.tsv"), "--corpus", str(corpus)], "fr.tsv"),
        "export: no pairs": (
            ["export", str(gone / "pairs.parquet"), "--format", "blimp", "--out", str(gone)],
            "no such pairs table",
        ),
        "report: no results": (["report", str(gone), "--out", str(gone / "r")], str(gone)),
    }


@pytest.mark.parametrize("name", list(cases(Path("corpus"))))
def test_a_bad_argument_is_said_at_once_without_torch(name, corpus):
    args, says = cases(corpus)[name]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # CPU seconds of the child, not wall-clock ones: on a loaded machine (tests in parallel)
    # waiting for a core is not the command's doing. The best of two tries, each clean.
    took = []
    for _ in range(2):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [sys.executable, "-c", PROBE, *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        took.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        probe = json.loads(done.stdout.strip().splitlines()[-1])
        # An --out over a file is the file system's refusal (exit 1), as when writing.
        assert probe["code"] == (1 if "--out a file" in name else 2), done.stderr
        assert probe["heavy"] == [], f"{name}: imported {probe['heavy']}"
        error = done.stderr.strip()
        assert error.startswith("error:") and "\n" not in error and says in error, error
    assert min(took) < LIMIT_S, f"{name}: {min(took):.2f} s"


def test_without_the_evaluate_extra_a_model_run_says_what_to_install(corpus, monkeypatch, capsys):
    import importlib.util

    from ud_agree.evaluate.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    args = ["--lang", "fr", "--corpus", str(corpus), "--out", str(corpus.parent / "r")]
    assert main([*args, "--model", "tiny-random"]) == 2
    error = capsys.readouterr().err.strip()
    assert error == "error: No module named 'torch'; install with pip install 'ud-agree[evaluate]'"
    # The frequency baseline needs neither torch nor transformers: it runs.
    assert main([*args, "--model", "frequency", "--min-candidates", "3", "--no-progress"]) == 0
