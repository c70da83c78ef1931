"""Sentence keys that repeat across a language's files (a treebank's test and dev files sharing
`sent_id`s): a join on (treebank, sent_id) would be ambiguous there, as for a key repeated
within one file, so their attempts at pairs are skipped as `duplicate-sent-id` (DESIGN §4)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
import pyarrow as pa

KEY = ["treebank", "sent_id"]


@dataclass
class Repeats:
    """The keys found in more than one file, and how many sentences repeat an earlier key."""

    across_files: pl.DataFrame  # treebank, sent_id
    duplicate_sent_ids: int


def repeats(keys_per_file: list[pa.Table]) -> Repeats:
    """The repeats among a language's files' sentence keys (one table of KEY columns a file)."""
    if not keys_per_file:
        return Repeats(pl.DataFrame(schema={k: pl.String for k in KEY}), 0)
    frames = [
        pl.DataFrame(keys.select(KEY)).with_columns(pl.lit(index).alias("file"))
        for index, keys in enumerate(keys_per_file)
    ]
    every = pl.concat(frames, how="vertical_relaxed")
    distinct = every.select(KEY).n_unique() if every.height else 0
    files = every.unique().group_by(KEY).agg(pl.len().alias("files"))
    across = files.filter(pl.col("files") > 1).select(KEY)
    return Repeats(across, every.height - distinct)


def without_repeats(
    attempts: pl.DataFrame, repeated: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Attempts whose sentence key is not in `repeated`, and those whose key is."""
    if repeated.height == 0 or attempts.height == 0:
        return attempts, attempts.clear()
    keys = repeated.with_columns(pl.col(k).cast(attempts.schema[k]) for k in KEY)
    return attempts.join(keys, on=KEY, how="anti"), attempts.join(keys, on=KEY, how="semi")
