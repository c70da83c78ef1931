"""The README's and the docs' figure (docs/images/demo-by_type.png) is the demo's: the items per
system and type it was drawn from match the demo run again now (its frequency baseline, which
needs no model), so a change that moves the demo's counts fails here until
`python scripts/figures.py` is rerun."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ud_agree.evaluate.report.legibility import png_text, read_png

ROOT = Path(__file__).resolve().parents[3]
FIGURE = ROOT / "docs" / "images" / "demo-by_type.png"
COUNTS = "ud-agree items per system and type"
# demo.sh's systems: the tiny BERT in both readings, the tiny GPT-2 (pair), the baseline in both.
DEMO_SYSTEMS = {
    "tiny-fr-ud-bert",
    "tiny-fr-ud-bert (pair)",
    "tiny-fr-ud-gpt2 (pair)",
    "frequency-baseline",
    "frequency-baseline (pair)",
}


def _run(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_readme_and_docs_show_the_generated_figure() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/images/demo-by_type.png)" in readme
    checks = read_png(FIGURE)
    assert checks is not None, "not written by scripts/figures.py"
    assert checks.clipped == ()
    assert set(json.loads(png_text(FIGURE)[COUNTS])) == DEMO_SYSTEMS


def test_readme_figure_counts_match_the_demo(tmp_path: Path) -> None:
    from ud_agree.evaluate import load_results
    from ud_agree.evaluate.report.figures import figure_table, get_spec

    sample = ROOT / "data" / "sample"
    corpus, results = tmp_path / "corpus", tmp_path / "results"
    _run("mine", "--ud-dir", str(sample / "ud"), "--unimorph-dir", str(sample / "unimorph"),
         "--out", str(corpus))  # fmt: skip
    common = ["--lang", "fr", "--corpus", str(corpus), "--out", str(results)]
    common += ["--min-candidates", "3", "--no-progress", "--model", "frequency"]
    _run("evaluate", *common)
    _run("evaluate", *common, "--reading", "pair")
    table = figure_table(load_results(results), get_spec("by_type"))
    now: dict[str, dict[str, int]] = {}
    for system, kind, n in table.select("system", "type", "n").iter_rows():
        now.setdefault(system, {})[kind] = n
    drawn = json.loads(png_text(FIGURE)[COUNTS])
    for system in ("frequency-baseline", "frequency-baseline (pair)"):
        assert drawn[system] == now[system], (
            f"{FIGURE.name} is stale for {system}: rerun bash demo.sh && python scripts/figures.py"
        )
