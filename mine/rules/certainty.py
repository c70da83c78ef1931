"""§4.1 Does agreement hold here? A language's agreement rates per configuration and controller
value (§4.3), measured from its candidates (counted by `rules.relations.agreement_rates` in the
miner's one pass), and the decision each pair's configuration gets: made, made after backing
off, made unmeasured, or skipped as `uncertain-agreement`."""

from __future__ import annotations

from collections import Counter

import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import AGREEMENT

from ..questions import first_asking, numbered

MIN_CANDIDATES = 20  # n below which a configuration backs off to the next level
MIN_RATE = 0.90  # (agree + 1) / (n + 2) at least this: agreement holds
CONFIGURATION = ("controller_case", "target_upos", "target_verbform", "order")
# §4.3: optional agreement is one-sided (Turkish plural subjects take a plural verb 25% of the
# time, singular ones 98%), so each rate is measured per value of the controller too.
VALUE = "controller_value"
KEYS = (VALUE, *CONFIGURATION)  # a rate row's columns besides (type, feature)
# The back-off, finest first: order is dropped first, then VerbForm, then the target's upos, as
# in §4.1, the controller's value kept; then the value (Case pooled over values decides before
# a value pooled over cases: an oblique subject's rate is Case's, 0.04-0.62 where it is
# optional), then Case, keeping the value, and last (type, feature) (docs/choices.md).
LEVELS: tuple[tuple[str, ...], ...] = (
    *((VALUE, *CONFIGURATION[:k]) for k in range(len(CONFIGURATION), 0, -1)),
    CONFIGURATION[:1],
    (VALUE,),
    (),
)
BACKED_OFF = "backed-off"
UNMEASURED = "agreement-unmeasured"


def rate_table(lang: str, rated: Counter, rated_agree: Counter) -> pl.DataFrame:
    """AGREEMENT rows at every level of the back-off, so that a reader can follow each decision:
    a level's dropped columns are null; `certain` is null where n is too small to decide
    (`rated` keys: type, feature, then KEYS)."""
    base = pl.DataFrame(
        [(*config, n, rated_agree.get(config, 0)) for config, n in rated.items()],
        schema=[("type", pl.String), ("feature", pl.String)]
        + [(name, pl.String) for name in KEYS]
        + [("n", pl.Int64), ("agree", pl.Int64)],
        orient="row",
    )
    levels = [
        base.group_by("type", "feature", *kept)
        .agg(pl.col("n", "agree").sum())
        .with_columns(pl.lit(None, pl.String).alias(c) for c in KEYS if c not in kept)
        .select(base.columns)
        for kept in LEVELS
    ]
    table = pl.concat(levels).with_columns(
        pl.lit(lang).alias("lang"),
        (pl.col("agree") / pl.col("n")).alias("rate"),
        pl.when(measured(pl.col("n"))).then(holds(pl.col("n"), pl.col("agree"))).alias("certain"),
    )
    return table.select(AGREEMENT.names).sort(
        "type", "feature", *CONFIGURATION, VALUE, nulls_last=True, maintain_order=True
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
    """The attempts (with `type`, `feature` and the KEYS columns: `controller_value` is the
    controller's value in the bad sentence) with `certain` (false: skip as
    `uncertain-agreement`) and `agreement_flag`: null where the finest level decided,
    `backed-off` where a coarser level did, `agreement-unmeasured` where even (type, feature)
    has fewer than MIN_CANDIDATES candidates (made, flagged)."""
    keys = ["type", "feature", *KEYS]
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
    """A rate row's level of the back-off, from the columns it keeps (a kept column is never
    null: no value is `_`)."""
    level: pl.Expr = pl.lit(None, pl.Int32)
    for index, kept in enumerate(LEVELS):
        pattern = pl.all_horizontal(pl.col(c).is_null() != (c in kept) for c in KEYS)
        level = pl.when(pattern).then(pl.lit(index, pl.Int32)).otherwise(level)
    return level


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
