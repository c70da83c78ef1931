"""The mining pool's workers: they never import pandas (pyarrow would, at their first array), and
the command forks them from itself only while nothing but the imports' threads runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ud_agree.mine.pool import fork_is_clean, pool_context

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


THREADS = """
import polars as pl
from mine import columnar, pool, run
from mine.pool import fork_is_clean, native_threads

print(fork_is_clean([], native_threads()))
pl.DataFrame({"a": list(range(100_000))}).sort("a")  # polars' pool starts
# A new thread is named `python` until it names itself (`polars-N`): on a loaded machine that
# may come a moment after the sort returns, so look again for up to a second.
import time
for _ in range(50):
    if not fork_is_clean([], native_threads()):
        break
    time.sleep(0.02)
print(fork_is_clean([], native_threads()))
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux /proc")
def test_a_process_that_only_imported_the_miner_forks_clean_and_not_once_polars_ran() -> None:
    # Pins IMPORTS_THREADS to what numpy, pyarrow and polars start here: a thread they add
    # would make the command fall back to the fork server, unseen but for this test.
    assert run(THREADS).split() == ["True", "False"]


@pytest.mark.parametrize(
    ("python_threads", "native_threads", "clean"),
    [
        ([], ["python", "python", "jemalloc_bg_thd", "polars-ooc-clea"], True),
        (["ud-agree hold"], ["python", "python"], True),
        ([], ["python", "polars-0", "polars-1"], False),  # polars' pool has run
        ([], ["python", "tokio-rt-worker"], False),
        (["tqdm monitor"], ["python", "python"], False),  # a Python thread of another's
    ],
)
def test_a_fork_is_clean_with_the_imports_threads_only(python_threads, native_threads, clean):
    assert fork_is_clean(python_threads, native_threads) is clean


def test_a_program_that_runs_the_miner_in_process_forks_from_the_server() -> None:
    # pytest, a notebook: polars may have run here, so workers come from the clean server.
    assert pool_context().get_start_method() in ("forkserver", "spawn")
