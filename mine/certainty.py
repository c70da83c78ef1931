"""§4.1 Does agreement hold here? A language's agreement rates per configuration, measured from
its candidates (counted by `rules.relations.agreement_rates` in the miner's one pass), and the
decision each pair's configuration gets: made, made after backing off, made unmeasured, or
skipped as `uncertain-agreement`."""

from __future__ import annotations

from collections import Counter

import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import AGREEMENT

from .questions import first_asking, numbered

MIN_CANDIDATES = 20  # n below which a configuration backs off to the next level
MIN_RATE = 0.90  # (agree + 1) / (n + 2) at least this: agreement holds
CONFIGURATION = ("controller_case", "target_upos", "target_verbform", "order")
# The back-off: level k keeps the first 4 - k columns (order is dropped first, then VerbForm,
# then the target's upos, then Case; the last level is (type, feature)).
LEVELS = tuple(CONFIGURATION[:k] for k in range(len(CONFIGURATION), -1, -1))
BACKED_OFF = "backed-off"
UNMEASURED = "agreement-unmeasured"


def rate_table(lang: str, rated: Counter, rated_agree: Counter) -> pl.DataFrame:
    """AGREEMENT rows at every level of the back-off, so that a reader can follow each decision:
    a level's dropped columns are null; `certain` is null where n is too small to decide."""
    base = pl.DataFrame(
        [(*config, n, rated_agree.get(config, 0)) for config, n in rated.items()],
        schema=[("type", pl.String), ("feature", pl.String)]
        + [(name, pl.String) for name in CONFIGURATION]
        + [("n", pl.Int64), ("agree", pl.Int64)],
        orient="row",
    )
    levels = [
        base.group_by("type", "feature", *kept)
        .agg(pl.col("n", "agree").sum())
        .with_columns(pl.lit(None, pl.String).alias(c) for c in CONFIGURATION if c not in kept)
        .select(base.columns)
        for kept in LEVELS
    ]
    table = pl.concat(levels).with_columns(
        pl.lit(lang).alias("lang"),
        (pl.col("agree") / pl.col("n")).alias("rate"),
        pl.when(measured(pl.col("n"))).then(holds(pl.col("n"), pl.col("agree"))).alias("certain"),
    )
    return table.select(AGREEMENT.names).sort(
        "type", "feature", *CONFIGURATION, nulls_last=True, maintain_order=True
    )


def measured(n: pl.Expr) -> pl.Expr:
    """Whether `n` candidates are enough to decide."""
    return n >= MIN_CANDIDATES


def holds(n: pl.Expr, agree: pl.Expr) -> pl.Expr:
    """Whether agreement holds: (agree + 1) / (n + 2) at least MIN_RATE."""
    return (agree + 1) / (n + 2) >= MIN_RATE


def as_arrow(table: pl.DataFrame) -> pa.Table:
    """The rate table in its declared schema."""
    return table.to_arrow().cast(AGREEMENT)


def decide(attempts: pl.DataFrame, rates: pl.DataFrame) -> pl.DataFrame:
    """The attempts (with `type`, `feature` and the CONFIGURATION columns) with `certain`
    (false: skip as `uncertain-agreement`) and `agreement_flag`: null where the configuration
    itself decided, `backed-off` where a coarser level did, `agreement-unmeasured` where even
    (type, feature) has fewer than MIN_CANDIDATES candidates (made, flagged)."""
    keys = ["type", "feature", *CONFIGURATION]
    # A configuration is decided once, and joined back on its number.
    attempts = numbered(attempts, "_configuration", keys)
    asked = attempts.filter(first_asking("_configuration")).select("_configuration", *keys)
    decided = [f"certain_{level}" for level in range(len(LEVELS))]
    for level, kept in enumerate(LEVELS):
        at_level = rates.filter((level_of() == level) & pl.col("certain").is_not_null()).select(
            "type", "feature", *kept, pl.col("certain").alias(decided[level])
        )
        asked = asked.join(at_level, on=["type", "feature", *kept], how="left")
    first = pl.coalesce(
        pl.when(pl.col(name).is_not_null()).then(pl.lit(level))
        for level, name in enumerate(decided)
    )
    asked = asked.select(
        "_configuration",
        pl.coalesce(decided).fill_null(True).alias("certain"),
        pl.when(first.is_null())
        .then(pl.lit(UNMEASURED))
        .when(first > 0)
        .then(pl.lit(BACKED_OFF))
        .alias("agreement_flag"),
    )
    return attempts.join(asked, on="_configuration", how="left").drop("_configuration")


def level_of() -> pl.Expr:
    """A rate row's level of the back-off: how many configuration columns it drops (a kept
    column is never null: no value is `_`)."""
    return pl.sum_horizontal(pl.col(c).is_null() for c in CONFIGURATION)


def summary(rates: pl.DataFrame) -> dict:
    """The manifest's account of the rates: thresholds, the table's rows, and every row where
    agreement was found not to hold (`certain` false)."""
    uncertain = rates.filter(pl.col("certain").not_()).drop("lang", "certain")
    return {
        "min_candidates": MIN_CANDIDATES,
        "min_rate": MIN_RATE,
        "rows": rates.height,
        "uncertain": uncertain.with_columns(pl.col("rate").round(4)).to_dicts(),
    }
