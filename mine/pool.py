"""The mining pool's processes never outlive the miner: a worker, and the forkserver that forks
the workers, die with their parent, however it ends (SIGKILL from the OOM killer included)."""

from __future__ import annotations

import contextlib
import ctypes
import importlib.abc
import importlib.machinery
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import sys
import threading
from pathlib import Path

PR_SET_PDEATHSIG = 1  # linux/prctl.h
POLL_SECONDS = 1.0


def die_with_parent() -> None:
    """Linux: the kernel kills this process when its parent dies (prctl PR_SET_PDEATHSIG);
    everywhere, a daemon thread also polls the parent and exits when it is gone."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        # Without the libc symbol the thread below still watches.
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the kernel was asked
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="ud-agree parent watch", daemon=True).start()


def start_worker() -> None:
    """A mining worker's start: it dies with its parent, and never imports pandas; SIGTERM ends
    it, as it ends a fork server's worker (a fork of the command inherits its handler)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()
    without_pandas()


class _NoPandas(importlib.abc.MetaPathFinder):
    """Refuses to import pandas: pyarrow imports it, to test whether an input is a pandas
    object, at its first `pa.array` in a process (~0.4 s a worker), and the miner never uses it."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] == "pandas":
            raise ImportError("pandas is not imported in a mining worker")
        return None


def without_pandas() -> None:
    """This process never imports pandas (a mining worker, which never uses it: pyarrow then
    takes every input as no pandas object without importing it)."""
    if "pandas" not in sys.modules and not any(isinstance(f, _NoPandas) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoPandas())


def pool_context() -> multiprocessing.context.BaseContext:
    """Workers forked from this process where nothing but imports has run in it (`forks_clean`):
    no second interpreter imports polars and pyarrow again. Else forked from a clean server
    process: a fork of a process whose polars (or torch) thread pool is running can hang in the
    child; `spawn` would re-import for every worker."""
    if forks_clean():
        return multiprocessing.get_context("fork")
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # `pool` first: the fork server then dies with the miner (and so, in turn, do the workers).
    context.set_forkserver_preload(
        [f"{__package__}.pool", f"{__package__}.columnar", f"{__package__}.run"]
    )
    return context


def start_pool_server() -> None:
    """Start the fork server now, where the workers will be forked from it, so that its imports
    (polars, pyarrow, the miner) run on another core while this process imports its own."""
    if pool_context().get_start_method() == "forkserver":
        multiprocessing.forkserver.ensure_running()


def started_for_command() -> bool:
    """Whether the interpreter was started to run the miner's command (`python -m mine`), not
    a program that runs it in-process (`runpy`: a test, a notebook), which goes on after it."""
    argv = getattr(sys, "orig_argv", [])
    return "-m" in argv and argv[argv.index("-m") + 1 :][:1] == [__package__]


# Threads that a process has once it has imported numpy (OpenBLAS: `python`), pyarrow and polars
# (jemalloc, polars' spill cleaner), and nothing more: the fork server forks its workers so too.
IMPORTS_THREADS = frozenset({"python", "jemalloc_bg_thd", "polars-ooc-clea"})
# This process's own Python threads that only wait and touch a file (`ud_agree.hold`'s
# heartbeat): the workers never use what they hold.
QUIET_THREADS = frozenset({"ud-agree hold"})


def forks_clean() -> bool:
    """Whether this process, started for the command, may fork its workers (Linux `/proc` tells
    which threads run)."""
    if not started_for_command() or "fork" not in multiprocessing.get_all_start_methods():
        return False
    python = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    native = native_threads()
    return native is not None and fork_is_clean(python, native)


def native_threads() -> list[str] | None:
    """The names of this process's threads as the kernel knows them (Linux `/proc`), or None
    where nothing tells what runs."""
    try:
        tasks = os.listdir("/proc/self/task")
        return [Path(f"/proc/self/task/{t}/comm").read_text().strip() for t in tasks]
    except OSError:
        return None


def fork_is_clean(python_threads: list[str], native_threads: list[str]) -> bool:
    """Whether a process with these threads forks as safely as the fork server: no Python thread
    but QUIET_THREADS beside the main one, no native thread but the imports' (polars' pool,
    `polars-N`, starts at its first parallel step: a fork after it can hang in the child)."""
    return set(python_threads) <= QUIET_THREADS and set(native_threads) <= IMPORTS_THREADS


def in_forkserver() -> bool:
    """Whether this process is multiprocessing's fork server (which imports the preloaded
    modules, this one among them, before it forks any worker)."""
    return "from multiprocessing.forkserver import main" in " ".join(getattr(sys, "orig_argv", []))


if in_forkserver():  # pragma: no cover - runs in the fork server process
    die_with_parent()
