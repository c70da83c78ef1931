"""What the miner's command sets in its environment before polars and numpy load (they read it
then, and its workers inherit it): its allocator keeps freed memory a while, each worker's
polars pool gets its share of the cores, and numpy's OpenBLAS starts no thread. A value the user
set is kept."""

from __future__ import annotations

import os

# polars' jemalloc (built with dirty_decay_ms:500, muzzy_decay_ms:1000) returns freed pages
# to the system within a second, and blocks of 8 MiB or more (its "oversize" arena) at once:
# a worker, allocating the same sizes file after file, then faults the same pages in again
# (over fr, en and pt ~510,000 page faults, ~2 CPU-seconds of the kernel zeroing pages). Kept
# 5 s, big blocks with the others: ~340,000 faults, about 1 CPU-second and 0.5 s less; the
# largest process's peak is unchanged, the whole tree's ~10% higher (docs/choices.md).
# polars, at import, puts its own settings before this value; jemalloc takes the last value of
# each option, so these win (tests/mine/test_environment.py reads what jemalloc took).
JEMALLOC_VARIABLE = "_RJEM_MALLOC_CONF"
JEMALLOC_CONF = "oversize_threshold:0,dirty_decay_ms:5000,muzzy_decay_ms:5000"


def keep_freed_memory() -> None:
    """Configure polars' allocator for this process and those it starts, unless the user did
    (`_RJEM_MALLOC_CONF`); no effect once polars is loaded."""
    os.environ.setdefault(JEMALLOC_VARIABLE, JEMALLOC_CONF)


# numpy's OpenBLAS starts a thread per core at import, in each process, which waits spinning:
# the miner does no linear algebra, and one thread (the caller's) saved ~0.2 CPU-seconds over fr,
# en and pt (8 interleaved runs against OpenBLAS's default; docs/choices.md).
BLAS_VARIABLE = "OPENBLAS_NUM_THREADS"


def no_blas_threads() -> None:
    """numpy's OpenBLAS runs on the calling thread only, unless the user set it; no effect once
    numpy is loaded."""
    os.environ.setdefault(BLAS_VARIABLE, "1")


def polars_threads(workers: int, languages: int, cores: int) -> int:
    """Threads of each worker's polars pool: the cores shared among the languages' finishings
    that run at once (one per language, at most one per worker: `run.task_order`)."""
    return max(1, cores // max(1, min(workers, languages)))


def share_cores(workers: int, languages: int | None) -> None:
    """Each worker's polars pool gets `polars_threads` for the languages asked (None: all of a
    release, as many as workers at least), unless the user set it. Two workers of two threads
    on two cores spent ~0.5 CPU-seconds more, spinning and switching, than two of one thread
    (0.25 s of wall time over fr, en, pt); a language mined alone keeps every core for its
    finishing, which runs alone."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = polars_threads(workers, languages or workers, cores or 1)
    os.environ.setdefault("POLARS_MAX_THREADS", str(threads))
