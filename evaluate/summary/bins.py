"""Bins of the ordered measures (distance, distractors, attractors): one scheme for the summary,
the figures and the docs' recipes."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

# Lower edges; the last bin is open ("16+").
DISTANCE_EDGES = (1, 2, 3, 5, 9, 16)
COUNT_EDGES = (0, 1, 2, 3, 4)  # distractors and attractors
# The group of items whose measure is null (a §4.2 pair without a relation row has no distractors
# or agreeing set): shown apart, never binned with a value.
UNKNOWN = "unknown"


def bin_labels(edges: Sequence[int]) -> list[str]:
    """Human labels of the bins whose lower edges are `edges`: 1, 2, 3-4, 16+."""
    labels = []
    for low, high in zip(edges, [*edges[1:], None], strict=True):
        if high is None:
            labels.append(f"{low}+")
        elif high - low == 1:
            labels.append(str(low))
        else:
            labels.append(f"{low}-{high - 1}")
    return labels


def bin_edge(column: str, edges: Sequence[int]) -> pl.Expr:
    """Lower edge of the bin holding each value (values below the first edge join the first bin)."""
    expr = pl.lit(edges[0], dtype=pl.Int32)
    for edge in edges[1:]:
        expr = pl.when(pl.col(column) >= edge).then(pl.lit(edge, dtype=pl.Int32)).otherwise(expr)
    return pl.when(pl.col(column).is_not_null()).then(expr).alias(column)


def bin_label(column: str, edges: Sequence[int]) -> pl.Expr:
    """The label of each value's bin (null stays null)."""
    labels = dict(zip(edges, bin_labels(edges), strict=True))
    return bin_edge(column, edges).replace_strict(labels, return_dtype=pl.String).alias(column)
