"""One row per bad sentence (§4.1): a bad sentence's contrasts folded into one pair, its others in
`also`; and back, a row per contrast."""

from __future__ import annotations

import polars as pl

from ud_agree.schemas.corpus import FEATURES


def every_contrast(pairs: pl.DataFrame) -> pl.DataFrame:
    """Pairs as one row per contrast they make: each row again for each `also` entry, with that
    `feature` and `bad_value` (a reader asking for a contrast finds its folded pair)."""
    if "also" not in pairs.columns:
        return pairs
    folded = (
        pairs.filter(pl.col("also").list.len() > 0)
        .explode("also")
        .with_columns(
            pl.col("also").str.split_exact("=", 1).struct.rename_fields(["feature", "bad_value"])
        )
        .drop("feature", "bad_value")
        .unnest("also")
        .with_columns(pl.lit([], pl.List(pl.String)).alias("also"))
    )
    return pl.concat([pairs, folded.select(pairs.columns)])


_FEATURE_RANK = {feature: rank for rank, feature in enumerate(FEATURES)}


def one_row_per_bad_sentence(pairs: pl.DataFrame) -> pl.DataFrame:
    """§4.1: pairs (in the relations' order) that give the same bad sentence are one row, the
    first contrast in F's order (*has* → *have*: Number before Person), the others in `also`
    as `Feature=Value`; rows stay in their order."""
    key = ["lang", "treebank", "sent_id", "variant", "sentence_bad"]
    # Most bad sentences are made once: only those made more than once are ranked.
    repeated = pairs.select(pl.struct(key).is_duplicated()).to_series()
    if not repeated.any():
        return pairs
    member = ["lang", "treebank", "sent_id", "variant", "target_id", "controller_id", "varied"]
    rows = pairs.with_row_index("_row")
    ranked = rows.filter(repeated).with_columns(
        pl.struct(member).rle_id().alias("_member"),
        pl.col("feature").replace_strict(_FEATURE_RANK, return_dtype=pl.Int8).alias("_rank"),
    )
    ranked = ranked.sort("_member", "_rank", "bad_value").with_columns(
        pl.int_range(pl.len()).over(key).alias("_nth"),
        pl.concat_str("feature", pl.lit("="), "bad_value").alias("_contrast"),
    )
    others = ranked.group_by(key, maintain_order=True).agg(
        pl.col("_contrast").slice(1).alias("_others")
    )
    kept = (
        ranked.filter(pl.col("_nth") == 0)
        .join(others, on=key, nulls_equal=True)
        .with_columns(pl.col("_others").alias("also"))
        .select("_row", *pairs.columns)
    )
    return pl.concat([rows.filter(~repeated), kept]).sort("_row").drop("_row")
