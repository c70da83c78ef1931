"""The mining pool's workers: they never import pandas (pyarrow would, at their first array), and
the command forks them from itself only while nothing but the imports' threads runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ud_agree.mine.pool import fork_is_clean, polars_threads, pool_context

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


@pytest.mark.parametrize(
    ("workers", "languages", "cores", "threads"),
    [
        (2, 3, 2, 1),  # two finishings at once on two cores: one thread each
        (2, 1, 2, 2),  # one language: its finishing runs alone, with every core
        (4, 2, 16, 8),  # two languages' finishings at most
        (16, 40, 16, 1),
        (1, 3, 8, 8),  # one worker
        (8, 3, 2, 1),  # more workers than cores: never no thread
    ],
)
def test_each_worker_gets_the_cores_over_the_finishings_that_run_at_once(
    workers, languages, cores, threads
):
    assert polars_threads(workers, languages, cores) == threads


FORKED = """
import multiprocessing, os
from mine.pool import polars_threads, share_cores
cores = len(os.sched_getaffinity(0))
share_cores(cores, cores)  # a worker per core: one thread each
import polars as pl  # reads POLARS_MAX_THREADS now
def size(_):
    return pl.thread_pool_size()
with multiprocessing.get_context("fork").Pool(1) as workers:
    print(workers.map(size, [0])[0], polars_threads(cores, cores, cores))
"""

MANY_CORES = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="a single core's pool has one thread however it is set",
)


@MANY_CORES
def test_a_forked_worker_s_polars_pool_has_the_threads_set_before_polars_loads() -> None:
    env = {k: v for k, v in os.environ.items() if k != "POLARS_MAX_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", FORKED],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    worker, wanted = done.stdout.split()
    assert worker == wanted == "1"


@MANY_CORES
def test_the_command_shares_the_cores_among_the_languages_asked(monkeypatch, tmp_path) -> None:
    from ud_agree.mine import cli

    cores = len(os.sched_getaffinity(0))
    monkeypatch.setattr(cli, "started_for_command", lambda: True)
    monkeypatch.setattr(cli, "start_pool_server", lambda: None)
    for langs, user, threads in (
        (["fr", "en"], None, cores // 2),
        (["fr"], None, cores),
        ([], "3", 3),
    ):
        if user is None:
            monkeypatch.delenv("POLARS_MAX_THREADS", raising=False)
        else:
            monkeypatch.setenv("POLARS_MAX_THREADS", user)  # the user's own setting is kept
        lang = ["--lang", *langs] if langs else []
        # No such folder: the run stops (exit 2) after the setting, before any polars step.
        assert cli.main(["--ud-dir", str(tmp_path / "none"), "--jobs", "2", *lang]) == 2
        assert os.environ["POLARS_MAX_THREADS"] == str(threads)
    monkeypatch.delenv("POLARS_MAX_THREADS")
    args = ["--ud-dir", str(tmp_path / "none"), "--jobs", "2", "--lang", "fr", "en", "--nonce", "1"]
    assert cli.main(args) == 2
    assert "POLARS_MAX_THREADS" not in os.environ  # --nonce: polars' own pool
