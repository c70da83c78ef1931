"""Expressions over a relation's feature value lists, shared by the pair rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from ud_agree.schemas.corpus import FEATURES

from ..paradigms import LIST_COLUMNS

if TYPE_CHECKING:
    import numpy as np


def of_feature(expression: Callable[[str, str], pl.Expr]) -> pl.Expr:
    """Per row, `expression` of the row's `feature`, given the feature's name and its column
    name (`number`, `gender`, …)."""
    return pl.coalesce(
        pl.when(pl.col("feature") == feature).then(expression(feature, name))
        for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
    )


def value_list(joined: str) -> pl.Expr:
    """A `,`-joined value set (a join key) as a list."""
    return pl.col(joined).str.split(",").list.eval(pl.element().filter(pl.element() != ""))


def meets(a: str, b: str) -> pl.Expr:
    """Whether two (expanded) value lists share a value."""
    return pl.col(a).list.set_intersection(pl.col(b)).list.len() > 0


# A rule written once over either a polars expression or a numpy mask.
Shown = TypeVar("Shown", pl.Expr, "np.ndarray")
