"""Items of both readings (DESIGN.md §1.4–1.5, §4): a relation's roles as rows, the value of its
agreeing features."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ud_agree.schemas.corpus import FEATURES


def expand_roles(
    relations: pl.DataFrame, roles: Sequence[str], role_column: str = "masked"
) -> pl.DataFrame:
    """One row per (relation, role) with that word's form, upos, features, surfaces; the role in
    `role_column` (`masked` for the class-average reading, `varied` for pairs)."""
    frames = []
    for role in roles:
        other = "target" if role == "controller" else "controller"
        frames.append(
            relations.with_columns(
                pl.lit(role).alias(role_column),
                pl.col(f"{role}_form").alias("form"),
                pl.col(f"{role}_lemma").alias("lemma"),
                pl.col(f"{role}_upos").alias("upos"),
                pl.col(f"{role}_surface").alias("masked_surface"),
                pl.col(f"{other}_surface").alias("other_surface"),
                pl.col(f"in_mwt_{role}").alias("in_mwt"),
                pl.col(f"{role}_number").alias("m_number"),
                pl.col(f"{role}_gender").alias("m_gender"),
                pl.col(f"{role}_case").alias("m_case"),
                pl.col(f"{role}_person").alias("m_person"),
            ).with_columns(value_of_agreeing().alias("value"))
        )
    return pl.concat(frames, how="vertical")


def value_of_agreeing() -> pl.Expr:
    """§6 `value`: the masked or varied word's values of the agreeing features,
    `Gender=Fem|Number=Plur` (features sorted, a multi-valued feature's values joined by `,`)."""
    parts = [
        pl.when(pl.col("agreeing").list.contains(name)).then(
            pl.lit(f"{name}=") + pl.col(f"m_{name.lower()}").list.sort().list.join(",")
        )
        for name in sorted(FEATURES)
    ]
    return pl.concat_str(parts, separator="|", ignore_nulls=True)
