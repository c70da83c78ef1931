"""The mining pool's workers: they never import pandas (pyarrow would, at their first array)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WORKER = """
import sys
import numpy as np
import pyarrow as pa
from mine.pool import without_pandas
without_pandas()
without_pandas()  # twice: one finder
assert pa.array(np.arange(3)).to_pylist() == [0, 1, 2]
print("pandas" in sys.modules, sum(type(f).__name__ == "_NoPandas" for f in sys.meta_path))
"""

PLAIN = """
import sys
import numpy as np
import pyarrow as pa
pa.array(np.arange(3))
print("pandas" in sys.modules)
"""


def run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_worker_makes_arrays_without_importing_pandas() -> None:
    assert run(WORKER) == "False 1"


def test_pyarrow_alone_imports_pandas() -> None:
    # What the worker is spared: without the finder, the first array imports pandas.
    assert run(PLAIN) == "True"
