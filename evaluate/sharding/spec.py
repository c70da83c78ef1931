"""The `--shard K/N` spec: which sentences a shard holds, and its folder.

A shard holds the items of the sentences whose stable hash (blake2b of `treebank␟sent_id`) is K
modulo N: a sentence never straddles two shards, so the sentence bootstrap of the merged run is
that of an unsharded run. Shard K of N writes `<run folder>/shard-KK-of-NN/`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ud_agree.errors import UserError

FOLDER = re.compile(r"shard-(\d+)-of-(\d+)")
SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
# Options that say how a shard ran, not what it scored: shards may differ in these and still merge
# (a rerun adds --resume; a node with less memory may take a smaller --batch-size).
RUN_ONLY_OPTIONS = frozenset(
    {"shard", "resume", "progress", "out", "device", "batch_size", "max_tokens", "chunk_size"}
)


class ShardError(UserError):
    """A shard spec that is not K/N, or a run folder whose shards cannot be read as one run."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (0-based, as SLURM_ARRAY_TASK_ID) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def folder(self) -> str:
        """`shard-03-of-16`: zero-padded so that folders sort in shard order."""
        width = max(2, len(str(self.count)))
        return f"shard-{self.index:0{width}d}-of-{self.count:0{width}d}"

    def as_dict(self) -> dict[str, int]:
        """The manifest's `shard` entry."""
        return {"index": self.index, "count": self.count}


def parse_shard(text: str) -> Shard:
    """`K/N` with 0 ≤ K < N, else a one-line usage error."""
    match = SPEC.fullmatch(text)
    if not match or not int(match[1]) < int(match[2]):
        raise ShardError(
            f"--shard {text!r}: expected K/N with 0 ≤ K < N, K counted from 0 as "
            "SLURM_ARRAY_TASK_ID is (e.g. 3/16)"
        )
    return Shard(int(match[1]), int(match[2]))


def sentence_shard(treebank: str, sent_id: str, count: int) -> int:
    """The shard of a sentence: stable across processes, machines and library versions."""
    # Python's hash() is salted per process and polars' hash may change between versions.
    digest = hashlib.blake2b(f"{treebank}\x1f{sent_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count


def select_shard(items: pl.DataFrame, shard: Shard | None) -> pl.DataFrame:
    """The items of the shard's sentences (all items when `shard` is None), in their order."""
    if shard is None:
        return items
    sentence = [pl.col("treebank").fill_null(""), pl.col("sent_id").fill_null("")]
    keys = items.select(pl.concat_str(sentence, separator="\x1f").alias("key"))["key"]
    # Hash each distinct sentence once; items of a sentence share it.
    pairs = items.select(sentence).unique().iter_rows()
    lookup = {f"{t}\x1f{s}": sentence_shard(t, s, shard.count) for t, s in pairs}
    return items.filter(keys.replace_strict(lookup, return_dtype=pl.Int64) == shard.index)


def shard_folder(run: Path, shard: Shard) -> Path:
    """Where a shard of the run folder `run` writes."""
    return run / shard.folder


def shard_entry(shard: Shard | None, whole_run_counts: list[str]) -> dict[str, Any]:
    """The manifest's `shard` entry (nothing for an unsharded run), with the counts that were
    made before the split: they are the whole run's in every shard, so merging must not sum them."""
    if shard is None:
        return {}
    return {"shard": {**shard.as_dict(), "whole_run_counts": sorted(whole_run_counts)}}
