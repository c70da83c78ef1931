"""Accuracy and balanced accuracy (DESIGN.md §6) with 95% bootstrap intervals that resample whole
sentences (items of one sentence are not independent). One resampling scheme serves every
statistic: a replicate gives each sentence a multinomial weight (how often it was drawn)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
import polars as pl

from ud_agree.schemas.corpus import SENTENCE_KEY

MIN_VALUE_ITEMS = 20  # §6: a value counts towards balanced accuracy from this many items
N_BOOT = 1000
LEVEL = 0.95


def sentence_weights(k: int, n_boot: int = N_BOOT, seed: int = 0) -> Iterator[np.ndarray]:
    """Bootstrap replicates over k sentences, as blocks of (replicates, k) draw counts."""
    rng = np.random.default_rng(seed)
    # Blocks keep memory near 8 MB whatever the number of sentences.
    block = max(1, min(n_boot, 1_000_000 // max(k, 1)))
    for start in range(0, n_boot, block):
        yield rng.multinomial(k, np.full(k, 1.0 / k), size=min(block, n_boot - start)).astype(
            np.float64
        )


def bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    k: int,
    n_boot: int = N_BOOT,
    level: float = LEVEL,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile interval of `statistic(weights)` (one value per replicate row) over sentences."""
    if k == 0:
        return (float("nan"), float("nan"))
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.concatenate([statistic(w) for w in sentence_weights(k, n_boot, seed)])
    values = values[np.isfinite(values)]
    if not len(values):
        return (float("nan"), float("nan"))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return (float(low), float(high))


def bootstrap_interval(
    successes: np.ndarray,
    totals: np.ndarray,
    n_boot: int = N_BOOT,
    level: float = LEVEL,
    seed: int = 0,
) -> tuple[float, float]:
    """Interval of sum(successes)/sum(totals) when sentences (rows) are resampled."""
    successes = np.asarray(successes, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    if totals.sum() == 0:
        return (float("nan"), float("nan"))
    return bootstrap(lambda w: (w @ successes) / (w @ totals), len(totals), n_boot, level, seed)


def balanced(right: np.ndarray, total: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """§6 per replicate row of weighted sums: each contrast's unweighted mean of its values'
    accuracies, averaged over contrasts weighted by their values' items."""
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = right / total
        estimate = np.zeros(accuracy.shape[:-1])
        weight = np.zeros(accuracy.shape[:-1])
        for group in np.unique(groups):
            columns = groups == group
            items = total[..., columns].sum(axis=-1)
            estimate += items * np.nanmean(accuracy[..., columns], axis=-1)
            weight += items
        return estimate / weight


def counted_values(total: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """§6: the values (columns) that count: at least MIN_VALUE_ITEMS items, in a contrast where at
    least two values have that many (a value with no counterpart cannot lift the figure)."""
    enough = total.sum(axis=0) >= MIN_VALUE_ITEMS
    counted = np.zeros_like(enough)
    for group in np.unique(groups):
        columns = (groups == group) & enough
        if columns.sum() >= 2:
            counted |= columns
    return counted


def balanced_accuracy(
    right: np.ndarray,
    total: np.ndarray,
    groups: np.ndarray | None = None,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> tuple[float, float, float, int, int]:
    """Balanced accuracy (§6) of a (sentences × values) table of right and total counts whose
    values belong to contrasts `groups` (one per column; one contrast when None): (estimate,
    low, high, values counted, items left out)."""
    groups = np.zeros(total.shape[1], dtype=np.int64) if groups is None else np.asarray(groups)
    counted = counted_values(total, groups)
    left_out = int(total.sum() - total[:, counted].sum())
    if not counted.any():
        return (float("nan"), float("nan"), float("nan"), 0, left_out)
    right, total = right[:, counted].astype(np.float64), total[:, counted].astype(np.float64)
    groups = groups[counted]
    estimate = float(balanced(right.sum(axis=0), total.sum(axis=0), groups))
    low, high = bootstrap(
        lambda w: balanced(w @ right, w @ total, groups), len(total), n_boot, seed=seed
    )
    return (estimate, low, high, int(counted.sum()), left_out)


def contrast_of(columns: Sequence[str]) -> pl.Expr:
    """§6 contrast of an item: the varied `feature` (pair reading), else the `agreeing` features
    (class-average); one contrast for items that have neither."""
    parts = []
    if "feature" in columns:
        parts.append(pl.col("feature"))
    if "agreeing" in columns:
        parts.append(pl.col("agreeing").list.sort().list.join("+"))
    return pl.coalesce([*parts, pl.lit("")]) if parts else pl.lit("")


def paired_difference(
    right_a: np.ndarray,
    total_a: np.ndarray,
    right_b: np.ndarray,
    total_b: np.ndarray,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Accuracy of a minus that of b over the same sentences (rows), with its interval."""
    ra, na, rb, nb = (np.asarray(x, dtype=np.float64) for x in (right_a, total_a, right_b, total_b))
    if na.sum() == 0 or nb.sum() == 0:
        return (float("nan"), float("nan"), float("nan"))
    diff = ra.sum() / na.sum() - rb.sum() / nb.sum()
    low, high = bootstrap(
        lambda w: (w @ ra) / (w @ na) - (w @ rb) / (w @ nb), len(na), n_boot, seed=seed
    )
    return (float(diff), low, high)


def accuracy_table(
    items: pl.DataFrame | pl.LazyFrame,
    by: Sequence[str] = (),
    verdict: str = "right",
    cluster: Sequence[str] = SENTENCE_KEY,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> pl.DataFrame:
    """Accuracy of `verdict` per group of `by`: columns by…, n, accuracy, ci_low, ci_high, and,
    when the items have a `value` column, balanced_accuracy, ba_ci_low, ba_ci_high, values and
    ba_left_out (§6: items of values or contrasts that could not be balanced)."""
    frame = items.lazy() if isinstance(items, pl.DataFrame) else items
    by = list(by)
    names = frame.collect_schema().names()
    # Grouped by value itself, each group has one value: balanced accuracy would be accuracy.
    has_value = "value" in names and "value" not in by
    if has_value:
        frame = frame.with_columns(contrast_of(names).alias("_contrast"))
    keys = [*by, *cluster, *(["_contrast", "value"] if has_value else [])]
    counted = (
        frame.group_by(keys)
        .agg(pl.col(verdict).cast(pl.Int64).sum().alias("_right"), pl.len().alias("_n"))
        .collect()
        .sort(
            keys, nulls_last=True
        )  # group_by order varies; a fixed order makes intervals reproducible
    )
    groups = counted.partition_by(by, as_dict=True, maintain_order=True) if by else {(): counted}
    rows = []
    for key, group in groups.items():
        per_sentence = group.group_by(list(cluster), maintain_order=True).agg(
            pl.col("_right").sum(), pl.col("_n").sum()
        )
        right = per_sentence["_right"].to_numpy()
        total = per_sentence["_n"].to_numpy()
        low, high = bootstrap_interval(right, total, n_boot=n_boot, seed=seed)
        row = dict(zip(by, key, strict=True))
        row.update(
            n=int(total.sum()), accuracy=float(right.sum() / total.sum()), ci_low=low, ci_high=high
        )
        if has_value:
            r, t, contrasts = _by_value(group, cluster)
            estimate, b_low, b_high, used, left_out = balanced_accuracy(
                r, t, contrasts, n_boot=n_boot, seed=seed
            )
            row.update(
                balanced_accuracy=estimate,
                ba_ci_low=b_low,
                ba_ci_high=b_high,
                values=used,
                ba_left_out=left_out,
            )
        rows.append(row)
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        **{c: counted.schema[c] for c in by},
        "n": pl.Int64,
        "accuracy": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
    }
    if has_value:
        schema |= {
            "balanced_accuracy": pl.Float64,
            "ba_ci_low": pl.Float64,
            "ba_ci_high": pl.Float64,
            "values": pl.Int64,
            "ba_left_out": pl.Int64,
        }
    table = pl.DataFrame(rows, schema=schema, orient="row")
    return table.sort(by) if by else table


def _by_value(
    group: pl.DataFrame, cluster: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sentences × values) matrices of right and total counts of one group, and each value
    column's contrast."""
    joined = pl.concat_str(
        [pl.col(c).cast(pl.String).fill_null("") for c in cluster], separator="\x1f"
    )
    value_key = pl.concat_str(
        [pl.col("_contrast").fill_null(""), pl.col("value").fill_null("")], separator="\x1f"
    )
    ranks = group.select(
        (joined.rank("dense").cast(pl.Int64) - 1).alias("sentence"),
        (value_key.rank("dense").cast(pl.Int64) - 1).alias("value"),
        (pl.col("_contrast").fill_null("").rank("dense").cast(pl.Int64) - 1).alias("contrast"),
    )
    sentence, value = ranks["sentence"].to_numpy(), ranks["value"].to_numpy()
    # Dense ranks from 0: the largest rank + 1 is the number of distinct keys.
    shape = (int(sentence.max()) + 1, int(value.max()) + 1) if group.height else (0, 0)
    right, total = np.zeros(shape), np.zeros(shape)
    np.add.at(right, (sentence, value), group["_right"].to_numpy())
    np.add.at(total, (sentence, value), group["_n"].to_numpy())
    contrasts = np.zeros(shape[1], dtype=np.int64)
    contrasts[value] = ranks["contrast"].to_numpy()
    return right, total, contrasts


def grouped_accuracy(
    frame: pl.LazyFrame | pl.DataFrame, by: Sequence[str], seed: int = 0
) -> pl.DataFrame:
    """`accuracy_table` by any columns, sentence-key columns such as `lang` included."""
    # accuracy_table groups by the sentence key too, so a key column in `by` must travel under another name.
    renames = {c: f"__{c}" for c in by if c in SENTENCE_KEY}
    lazy = frame.lazy().with_columns(pl.col(c).alias(alias) for c, alias in renames.items())
    table = accuracy_table(lazy, by=[renames.get(c, c) for c in by], seed=seed)
    return table.rename({alias: c for c, alias in renames.items()})
