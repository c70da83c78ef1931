"""Accuracy with 95% bootstrap intervals that resample whole sentences (items of one sentence are not independent)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

SENTENCE_KEY = ("lang", "treebank", "sent_id")


def bootstrap_interval(
    successes: np.ndarray,
    totals: np.ndarray,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile interval of sum(successes)/sum(totals) when clusters are resampled with replacement."""
    successes = np.asarray(successes, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    k = len(totals)
    if k == 0 or totals.sum() == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    # Index draws in blocks keep memory at ~8 MB whatever the number of sentences.
    block = max(1, min(n_boot, 1_000_000 // k))
    stats = []
    for start in range(0, n_boot, block):
        draws = rng.integers(0, k, size=(min(block, n_boot - start), k))
        with np.errstate(invalid="ignore", divide="ignore"):
            stats.append(successes[draws].sum(axis=1) / totals[draws].sum(axis=1))
    values = np.concatenate(stats)
    values = values[np.isfinite(values)]
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return (float(low), float(high))


def accuracy_table(
    items: pl.DataFrame | pl.LazyFrame,
    by: Sequence[str] = (),
    value: str = "right",
    cluster: Sequence[str] = SENTENCE_KEY,
    n_boot: int = 1000,
    seed: int = 0,
) -> pl.DataFrame:
    """Accuracy of `value` per group of `by`: columns by…, n, accuracy, ci_low, ci_high."""
    frame = items.lazy() if isinstance(items, pl.DataFrame) else items
    by = list(by)
    per_sentence = (
        frame.group_by([*by, *cluster])
        .agg(pl.col(value).cast(pl.Int64).sum().alias("_right"), pl.len().alias("_n"))
        .collect()
        .sort([*by, *cluster])  # group_by order varies; a fixed order makes intervals reproducible
    )
    groups = (
        per_sentence.partition_by(by, as_dict=True, maintain_order=True)
        if by
        else {(): per_sentence}
    )
    rows = []
    for key, group in groups.items():
        right = group["_right"].to_numpy()
        total = group["_n"].to_numpy()
        low, high = bootstrap_interval(right, total, n_boot=n_boot, seed=seed)
        row = dict(zip(by, key, strict=True))
        row.update(
            n=int(total.sum()), accuracy=float(right.sum() / total.sum()), ci_low=low, ci_high=high
        )
        rows.append(row)
    schema = {
        **{c: per_sentence.schema[c] for c in by},
        "n": pl.Int64,
        "accuracy": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
    }
    return (
        pl.DataFrame(rows, schema=schema, orient="row").sort(by)
        if by
        else pl.DataFrame(rows, schema=schema)
    )
