"""The miner's command sets polars' environment before polars loads, never over the user's own
setting: its allocator keeps freed memory a while (under the name polars' jemalloc reads), and
each worker's polars pool gets the cores over the finishings that run at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ud_agree.mine.environment import (
    BLAS_VARIABLE,
    JEMALLOC_CONF,
    JEMALLOC_VARIABLE,
    keep_freed_memory,
    no_blas_threads,
    polars_threads,
)

ROOT = Path(__file__).resolve().parents[2]


def python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )


def test_the_command_sets_the_allocator_before_anything_loads_polars() -> None:
    # `python -m mine` makes its settings in `cli.main`, after importing its __main__ module's
    # imports: were polars among them, polars would have read its environment already.
    done = python("import sys, mine.__main__; print('polars' in sys.modules)", dict(os.environ))
    assert done.stdout.strip() == "False"


def test_an_unset_allocator_gets_the_miners_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(JEMALLOC_VARIABLE, raising=False)
    keep_freed_memory()
    assert os.environ[JEMALLOC_VARIABLE] == JEMALLOC_CONF


def test_the_users_allocator_setting_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JEMALLOC_VARIABLE, "dirty_decay_ms:0")
    keep_freed_memory()
    assert os.environ[JEMALLOC_VARIABLE] == "dirty_decay_ms:0"


def test_an_unset_blas_gets_one_thread_and_the_users_setting_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(BLAS_VARIABLE, raising=False)
    no_blas_threads()
    assert os.environ[BLAS_VARIABLE] == "1"
    monkeypatch.setenv(BLAS_VARIABLE, "4")
    no_blas_threads()
    assert os.environ[BLAS_VARIABLE] == "4"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux /proc counts threads")
def test_numpy_starts_no_thread_under_the_setting() -> None:
    # Read as the command sets it, before numpy loads: OpenBLAS then starts no thread of its
    # own (a name it did not read would leave one per core, each spinning while it waits).
    count = "import os, numpy; print(len(os.listdir('/proc/self/task')))"
    threads = python(count, {**os.environ, BLAS_VARIABLE: "1"})
    assert threads.stdout.strip() == "1"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="polars uses jemalloc on Linux")
def test_polars_allocator_reads_the_setting_under_that_name() -> None:
    # jemalloc prints its options at exit when asked (stats_print): a name it did not read, or
    # a value it refused, would leave polars' own (dirty_decay_ms:500) in place.
    env = {**os.environ, JEMALLOC_VARIABLE: f"{JEMALLOC_CONF},stats_print:true"}
    done = python("import polars as pl; pl.Series([1, 2]).sum()", env)
    assert "opt.dirty_decay_ms: 5000" in done.stderr
    assert "opt.oversize_threshold: 0" in done.stderr


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
from mine.environment import polars_threads, share_cores
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
    monkeypatch.delenv(JEMALLOC_VARIABLE, raising=False)  # set by the command too: restored after
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
    # The allocator's, --nonce or not. polars, loaded by the first run here, put its own
    # settings before it; jemalloc takes an option's last value, the command's.
    assert os.environ[JEMALLOC_VARIABLE].endswith(JEMALLOC_CONF)
