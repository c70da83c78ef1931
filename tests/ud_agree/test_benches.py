"""Every bench script runs in its --smoke mode (tiny sizes, one repeat) and prints its lines, so
that a refactor cannot break a bench unnoticed; the speed goals themselves are the benches'."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.paths import MODELS, ROOT, SHARED

BENCH = ROOT / "bench"
# script → what its output must hold (a ratio measured side by side, or the comparison's verdict)
EXPECTED = {
    "pairs.py": [r"causal, tiny-fr-ud-gpt2, pairs \(tokens run [\d,]+ vs [\d,]+\):.* ratio \d",
                 r"pairs with --nonce 3 .* ratio \d", r"masked word PLL.* ratio \d"],
    "evaluate.py": [r"forward passes: \d+ for \d+ items", r"^  scoring: min .* ratio \d",
                    r"^  start-up .*: min [\d.]+ s, median [\d.]+ s, spread [\d.]+ s \(n=1\)",
                    r"causal class-average, tiny-fr-ud-gpt2: .* forwards"],
    "suite.py": [r"^ratio \d"],
    "mine.py": [r"ratio mine with pairs / conllu: +\d", r"ratio mine --nonce 1 / conllu: +\d"],
    "columnar.py": [r"columnar / python \(wall\) = \d"],
    "same_output.py": [r"3 languages: \d+ tables and manifest parts equal, 0 differ"],
    "compare_trees.py": [rf"^{part} {measure}: old median .* new/old \d.*: too few turns to tell"
                         for part in ("causal", "masked", "suite", "evaluate", "evaluate-causal")
                         for measure in ("cpu", "wall")],
}  # fmt: skip
NEEDS_MODELS = {"pairs.py", "evaluate.py", "suite.py", "compare_trees.py"}


def test_every_bench_script_is_smoke_tested():
    scripts = {p.name for p in BENCH.glob("*.py")} - {"floors.py"}  # floors.py: a module
    assert scripts == set(EXPECTED)
    for name in scripts:
        assert "--smoke" in (BENCH / name).read_text(), name


@pytest.mark.parametrize("script", sorted(EXPECTED))
def test_the_bench_runs_in_smoke_mode(script):
    if script in NEEDS_MODELS and not (MODELS / "tiny-fr-ud-gpt2").is_dir():
        pytest.skip("shared tiny models not present")
    if not (SHARED / "data" / "ud" / "UD_French-PUD").is_dir():
        pytest.skip("shared French-PUD not present")
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--smoke"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    for pattern in EXPECTED[script]:
        assert re.search(pattern, done.stdout, flags=re.M), (pattern, done.stdout[-2000:])
