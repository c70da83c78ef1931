"""The rows of `pair_skips.parquet` as the miner holds them while it decides pairs, and the
table they become, in the order of the relations."""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import PAIR_SKIPS


def skipped_rows(attempts: pl.DataFrame, reason: pl.Series | pl.Expr | str) -> pl.DataFrame:
    """Skips of attempts (bad value null unless the attempts have one) in SKIPPED columns."""
    bad_value = pl.col("bad_value") if "bad_value" in attempts.columns else pl.lit(None)
    return attempts.select(
        *SKIPPED[:-3],
        bad_value.cast(pl.String).alias("bad_value"),
        pl.lit("original").alias("variant"),
        (reason if isinstance(reason, pl.Expr) else pl.lit(reason)).alias("reason"),
    )


# A skip row as the miner holds it: PAIR_SKIPS's columns and the order of the relations.
SKIPPED = [
    "rel", "role_rank", "lang", "treebank", "sent_id", "type", "target_id", "controller_id",
    "varied", "feature", "bad_value", "variant", "reason",
]  # fmt: skip


def skip_table(parts: list[pl.DataFrame]) -> pa.Table:
    """Skip rows (SKIPPED columns) as PAIR_SKIPS, in the order of the relations, roles,
    features and bad values (the pairs' order; a skip without a bad value first)."""
    frames = [p for p in parts if p.height]
    if not frames:
        return PAIR_SKIPS.empty_table()
    rows = pl.concat(frames, how="vertical_relaxed").sort(
        "rel", "role_rank", "feature", "bad_value", nulls_last=False, maintain_order=True
    )
    return rows.select(PAIR_SKIPS.names).to_arrow().cast(PAIR_SKIPS)
