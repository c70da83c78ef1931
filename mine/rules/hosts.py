"""Another host (§4.3): an attributive bad form that agrees with a noun between target and
controller."""

from __future__ import annotations

import polars as pl

from .features import value_list

# A bad form that could attach to another noun: attributive adjectives. Determiners were
# measured too broad (1 of 9 refused pairs judged invalid: *these sample questions*, the noun
# between a compound).
HOST_TYPES = ("attributive",)


def agrees_with_another_host(tries: pl.DataFrame) -> pl.Series:
    """§4.3 per try (a varied target's `type`, `feature`, `bad_value`, its values `k_number`,
    `k_gender`, `k_case`, and `between_feats`, the FEATS of the nouns between it and its
    controller): whether the bad form's bundle agrees with one of those nouns in the feature
    varied and meets it on every other feature both carry, so that it reads as that noun's
    (French *comptes d'épargne et d'investissement national*, Spanish *fuentes de energía
    basada*). Attributive targets only (HOST_TYPES): a predicative adjective does not attach to
    a noun inside its subject."""
    hosted = pl.col("type").is_in(HOST_TYPES) & (pl.col("varied") == "target")
    hosted = hosted & (pl.col("between_feats").list.len() > 0)
    host_features = ("Number", "Gender", "Case")
    asked = (
        tries.with_row_index("_t")
        .filter(hosted)
        .select(
            "_t",
            "feature",
            *(
                pl.when(pl.col("feature") == name)
                .then(pl.col("bad_value"))
                .otherwise(pl.col(f"k_{name.lower()}"))
                .fill_null("")
                .alias(f"_bad_{name}")
                for name in host_features
            ),
            pl.col("between_feats").alias("host"),
        )
        .explode("host")
        .with_columns(
            pl.col("host")
            .str.extract(rf"(?:^|\|){name}=([^|]+)", 1)
            .fill_null("")
            .alias(f"_host_{name}")
            for name in host_features
        )
    )
    if asked.height == 0:
        return pl.Series([False] * tries.height, dtype=pl.Boolean)
    varied: pl.Expr = pl.lit(False)
    others: pl.Expr = pl.lit(True)
    for name in host_features:
        host, bad = value_list(f"_host_{name}"), value_list(f"_bad_{name}")
        meet = host.list.set_intersection(bad).list.len() > 0
        varied = pl.when(pl.col("feature") == name).then(meet).otherwise(varied)
        others = others & (meet | (host.list.len() == 0) | (bad.list.len() == 0))
    agreeing = asked.filter(varied & others).get_column("_t")
    return tries.select(
        pl.int_range(pl.len(), dtype=pl.UInt32).is_in(agreeing.implode())
    ).to_series()
