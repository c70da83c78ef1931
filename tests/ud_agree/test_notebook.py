"""notebooks/analysis.ipynb runs on a corpus and results built by the real CLIs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import polars as pl
import pytest
from nbclient import NotebookClient
from ud_agree.evaluate import load_results

from tests.paths import ROOT, SAMPLE

NOTEBOOK = ROOT / "notebooks" / "analysis.ipynb"
# A model in context, its no-context control and the frequency baseline; tiny-random needs no download.
RUNS = (
    ["--model", "frequency"],
    ["--model", "tiny-random"],
    ["--model", "tiny-random", "--control", "no-context"],
)


def _run(*args: str | Path) -> None:
    done = subprocess.run(
        [sys.executable, *map(str, args)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`python -m mine` on the French sample, then `python -m evaluate` for every run of RUNS."""
    base = tmp_path_factory.mktemp("pipeline")
    corpus, results = base / "corpus", base / "results"
    _run("-m", "mine", "--ud-dir", SAMPLE / "ud", "--unimorph-dir", SAMPLE / "unimorph",
         "--lang", "fr", "--out", corpus, "--quiet", "--jobs", "1")  # fmt: skip
    for extra in RUNS:
        _run(
            "-m",
            "evaluate",
            "--lang",
            "fr",
            "--corpus",
            corpus,
            "--out",
            results,
            "--no-progress",
            *extra,
        )
    return corpus, results


def test_pipeline_results_hold_model_control_and_baseline(built: tuple[Path, Path]) -> None:
    systems = load_results(built[1]).select("model", "method").unique().collect()
    assert set(systems.iter_rows()) == {
        ("frequency-baseline", "frequency"),
        ("tiny-random", "context"),
        ("tiny-random", "no-context"),
    }


def test_notebook_runs_on_fresh_corpus_and_results(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, results = built
    nb = nbformat.read(NOTEBOOK, as_version=4)
    env = {
        "UD_AGREE_CORPUS": str(corpus),
        "UD_AGREE_RESULTS": str(results),
        "UD_AGREE_LANG": "fr",
        "UD_AGREE_FIGURES": str(tmp_path / "figures"),
    }
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute(env={**os.environ, **env})  # the kernel reads its paths from these variables
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) == 3
    figure = pl.read_csv(tmp_path / "figures" / "by_type.csv")
    assert set(figure["system"]) == {
        "tiny-random",
        "tiny-random (no-context)",
        "frequency-baseline",
    }
    text = "".join(
        o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    relations = pl.read_parquet(corpus / "fr" / "relations.parquet")
    assert f"{relations.height} relations" in text  # the corpus cell read this corpus
