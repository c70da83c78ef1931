"""Sentence keys that repeat across a treebank's files (its test and dev files sharing
`sent_id`s): a join on (treebank, sent_id) would be ambiguous there, so the first sentence of a
key is kept, in the order of the language's files, and the rest are dropped and counted, as
within one file (`mine.columnar`)."""

from __future__ import annotations

import polars as pl
import pyarrow as pa

KEY = ["treebank", "sent_id"]


def taken_earlier(keys_per_file: list[pa.Table]) -> list[frozenset[str]]:
    """Per file (one table of KEY columns each, in the language's order), the `sent_id`s of its
    sentences that an earlier file of the same treebank holds; empty for almost every file."""
    taken: list[frozenset[str]] = [frozenset() for _ in keys_per_file]
    if len(keys_per_file) < 2:
        return taken
    every = pl.concat(
        [
            pl.DataFrame(keys.select(KEY)).with_columns(pl.lit(index, pl.Int32).alias("file"))
            for index, keys in enumerate(keys_per_file)
        ],
        how="vertical_relaxed",
    ).unique()
    first = every.group_by(KEY).agg(pl.col("file").min().alias("first"))
    later = every.join(first, on=KEY).filter(pl.col("file") > pl.col("first"))
    for (index,), rows in later.partition_by("file", as_dict=True).items():
        taken[int(index)] = frozenset(rows.get_column("sent_id").to_list())
    return taken
