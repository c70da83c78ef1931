"""The miner's command keeps the memory its workers free, for a while, instead of returning it
to the system at once (set before polars loads: its allocator reads this once)."""

from __future__ import annotations

import os

# polars' jemalloc (built with dirty_decay_ms:500, muzzy_decay_ms:1000) returns freed pages
# to the system within a second, and blocks of 8 MiB or more (its "oversize" arena) at once:
# a worker, allocating the same sizes file after file, then faults the same pages in again
# (over fr, en and pt ~510,000 page faults, ~2 CPU-seconds of the kernel zeroing pages). Kept
# 5 s, big blocks with the others: ~340,000 faults, about 1 CPU-second and 0.5 s less; the
# largest process's peak is unchanged, the whole tree's ~10% higher (docs/choices.md).
JEMALLOC_VARIABLE = "_RJEM_MALLOC_CONF"
JEMALLOC_CONF = "oversize_threshold:0,dirty_decay_ms:5000,muzzy_decay_ms:5000"


def keep_freed_memory() -> None:
    """Configure polars' allocator for this process and those it starts, unless the user did
    (`_RJEM_MALLOC_CONF`); no effect once polars is loaded."""
    os.environ.setdefault(JEMALLOC_VARIABLE, JEMALLOC_CONF)
