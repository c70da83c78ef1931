"""Accuracy and balanced accuracy (DESIGN.md §6) with 95% bootstrap intervals that resample whole
sentences (items of one sentence are not independent). One resampling scheme serves every
statistic: a replicate gives each sentence a multinomial weight (how often it was drawn)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Contrast:
    """One §6 group of cells (value combinations): the cells, and for each feature it balances the
    index of each cell's value of it (class-average: every agreeing feature; pair: the varied one)."""

    cells: np.ndarray  # column indices into the (sentences × cells) tables
    features: tuple[np.ndarray, ...]  # per feature, one value index per cell


def _one_hot(index: np.ndarray) -> np.ndarray:
    """(cells × values) indicator of each cell's value."""
    matrix = np.zeros((len(index), int(index.max()) + 1 if len(index) else 0))
    matrix[np.arange(len(index)), index] = 1.0
    return matrix


def balanced(
    right: np.ndarray, total: np.ndarray, contrasts: Sequence[Contrast]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """§6 for each row of (replicates × cells) right and total counts: (balanced accuracy, items it
    balances, values counted). A feature's figure is the mean accuracy of its values with
    MIN_VALUE_ITEMS items; a group needs two such values of every feature and scores its weakest
    feature; groups are weighted by their items whose every value counts."""
    rows = right.shape[0]
    weighted, items, values = np.zeros(rows), np.zeros(rows), np.zeros(rows)
    with np.errstate(invalid="ignore", divide="ignore"):
        for contrast in contrasts:
            r, t = right[:, contrast.cells], total[:, contrast.cells]
            has_figure = np.ones(rows, dtype=bool)
            weakest = np.full(rows, np.inf)
            cell_counts = np.ones(t.shape, dtype=bool)
            counted_values = np.zeros(rows)
            for index in contrast.features:
                one_hot = _one_hot(index)
                value_right, value_total = r @ one_hot, t @ one_hot
                counted = value_total >= MIN_VALUE_ITEMS
                accuracy = np.where(counted, value_right / np.where(counted, value_total, 1), 0.0)
                n_counted = counted.sum(axis=1)
                weakest = np.minimum(weakest, accuracy.sum(axis=1) / n_counted)
                has_figure &= n_counted >= 2
                cell_counts &= counted[:, index]
                counted_values += n_counted
            weight = np.where(has_figure, (t * cell_counts).sum(axis=1), 0.0)
            weighted += np.where(weight > 0, weight * weakest, 0.0)
            items += weight
            values += np.where(has_figure, counted_values, 0.0)
        return weighted / items, items, values


def one_feature_contrasts(groups: np.ndarray) -> list[Contrast]:
    """Contrasts whose cells are the values of one feature: `groups[c]` is cell c's group."""
    groups = np.asarray(groups)
    found = []
    for group in np.unique(groups):
        cells = np.flatnonzero(groups == group)
        found.append(Contrast(cells, (np.arange(len(cells)),)))
    return found


def balanced_accuracy(
    right: np.ndarray,
    total: np.ndarray,
    contrasts: Sequence[Contrast] | None = None,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> tuple[float, float, float, int, int]:
    """Balanced accuracy (§6) of a (sentences × cells) table of right and total counts whose cells
    belong to `contrasts` (None: every cell a value of one feature): (estimate, low, high, values
    counted, items left out); the bootstrap recomputes groups and values in each resample."""
    if contrasts is None:
        contrasts = one_feature_contrasts(np.zeros(total.shape[1], dtype=np.int64))
    right, total = right.astype(np.float64), total.astype(np.float64)
    estimate, items, values = balanced(right.sum(axis=0)[None], total.sum(axis=0)[None], contrasts)
    left_out = int(np.rint(total.sum() - items[0]))
    if not items[0]:
        return (float("nan"), float("nan"), float("nan"), 0, left_out)
    low, high = bootstrap(
        lambda w: balanced(w @ right, w @ total, contrasts)[0], len(total), n_boot, seed=seed
    )
    return (float(estimate[0]), low, high, int(values[0]), left_out)


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


# The columns of accuracy_table, declared once: always; with `frequency`; with `value`.
ACCURACY_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "n": pl.Int64, "accuracy": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
    "undecided": pl.Int64,
}  # fmt: skip
FREQUENCY_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "frequency_congruent": pl.Float64, "incongruent_n": pl.Int64,
}  # fmt: skip
BALANCED_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "balanced_accuracy": pl.Float64, "ba_ci_low": pl.Float64, "ba_ci_high": pl.Float64,
    "values": pl.Int64, "ba_left_out": pl.Int64,
}  # fmt: skip
# §10: per cell of sentence × value, its items labelled congruent, incongruent, and at all.
FREQUENCY_LABELS = [
    (pl.col("frequency") == "congruent").cast(pl.Int64).sum().alias("_congruent"),
    (pl.col("frequency") == "incongruent").cast(pl.Int64).sum().alias("_incongruent"),
    pl.col("frequency").is_not_null().cast(pl.Int64).sum().alias("_labelled"),
]


def _frequency_columns(group: pl.DataFrame) -> dict[str, float | int | None]:
    """§10 of one row: the share of its items labelled congruent and its incongruent items (None
    where no item carries a label: older results, peers' suites)."""
    if not int(group["_labelled"].sum()):
        return {"frequency_congruent": None, "incongruent_n": None}
    return {
        "frequency_congruent": int(group["_congruent"].sum()) / int(group["_n"].sum()),
        "incongruent_n": int(group["_incongruent"].sum()),
    }


def accuracy_table(
    items: pl.DataFrame | pl.LazyFrame,
    by: Sequence[str] = (),
    verdict: str = "right",
    cluster: Sequence[str] = SENTENCE_KEY,
    n_boot: int = N_BOOT,
    seed: int = 0,
    tallies: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """Accuracy of `verdict` per group of `by`: columns by…, n, accuracy, ci_low, ci_high and
    `undecided` (§5.1: items whose verdict is null, left out of every figure); when the items have
    a `value` column, balanced_accuracy, ba_ci_low, ba_ci_high, values and ba_left_out (§6: items
    of values or groups that could not be balanced); when they have a `frequency` column,
    frequency_congruent and incongruent_n (§10); then each of `tallies` (output name → boolean
    column), the count of its true items (null where none has a value)."""
    frame = items.lazy() if isinstance(items, pl.DataFrame) else items
    by = list(by)
    tallies = dict(tallies or {})
    counts = [
        pl.col(verdict).is_null().cast(pl.Int64).sum().alias("undecided"),
        # A tally no item has a value for (a rule's ties in the class-average reading) is null.
        *(
            pl.when(pl.col(c).is_not_null().any()).then(pl.col(c).cast(pl.Int64).sum()).alias(o)
            for o, c in tallies.items()
        ),
    ]
    counted_all = (frame.group_by(by).agg(counts) if by else frame.select(counts)).collect()
    table = _decided_table(
        frame.filter(pl.col(verdict).is_not_null()), by, verdict, cluster, n_boot, seed
    )
    if by:
        # A group whose every item is undecided still has its row (n 0).
        table = counted_all.join(table, on=by, how="left", nulls_equal=True).with_columns(
            pl.col("n").fill_null(0)
        )
        table = table.sort(by)
    else:
        if not table.height:  # every item undecided: one row, n 0
            table = pl.DataFrame([{"n": 0}], schema=table.schema)
        table = table.hstack(counted_all)
    order = [*by, *ACCURACY_SCHEMA, *table.columns]
    return table.select(list(dict.fromkeys(order)))


def _decided_table(
    frame: pl.LazyFrame,
    by: list[str],
    verdict: str,
    cluster: Sequence[str],
    n_boot: int,
    seed: int,
) -> pl.DataFrame:
    """accuracy_table over items whose verdict is known, without `undecided` and tallies."""
    names = frame.collect_schema().names()
    # Grouped by value itself, each group has one value: balanced accuracy would be accuracy.
    has_value = "value" in names and "value" not in by
    if has_value:
        frame = frame.with_columns(contrast_of(names).alias("_contrast"))
    has_frequency = "frequency" in names
    keys = [*by, *cluster, *(["_contrast", "value"] if has_value else [])]
    labels = FREQUENCY_LABELS if has_frequency else []
    counted = (
        frame.group_by(keys)
        .agg(pl.col(verdict).cast(pl.Int64).sum().alias("_right"), pl.len().alias("_n"), *labels)
        .collect()
        .sort(
            keys, nulls_last=True
        )  # group_by order varies; a fixed order makes intervals reproducible
    )
    groups = counted.partition_by(by, as_dict=True, maintain_order=True) if by else {(): counted}
    rows = []
    for key, group in groups.items():
        if not group.height:
            continue
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
        if has_frequency:
            row.update(_frequency_columns(group))
        if has_value:
            r, t, contrasts = _by_value(group, cluster)
            estimate, b_low, b_high, used, left_out = balanced_accuracy(
                r, t, contrasts, n_boot=n_boot, seed=seed
            )
            row.update(balanced_accuracy=estimate, ba_ci_low=b_low, ba_ci_high=b_high,
                       values=used, ba_left_out=left_out)  # fmt: skip
        rows.append(row)
    decided = {c: t for c, t in ACCURACY_SCHEMA.items() if c != "undecided"}
    schema = {**{c: counted.schema[c] for c in by}, **decided}
    schema |= (FREQUENCY_SCHEMA if has_frequency else {}) | (BALANCED_SCHEMA if has_value else {})
    return pl.DataFrame(rows, schema=schema, orient="row")


def _by_value(
    group: pl.DataFrame, cluster: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, list[Contrast]]:
    """(sentences × cells) matrices of right and total counts of one group, a cell per (contrast,
    value), and the contrasts over those cells."""
    joined = pl.concat_str(
        [pl.col(c).cast(pl.String).fill_null("") for c in cluster], separator="\x1f"
    )
    cell_key = pl.concat_str(
        [pl.col("_contrast").fill_null(""), pl.col("value").fill_null("")], separator="\x1f"
    )
    ranks = group.select(
        (joined.rank("dense").cast(pl.Int64) - 1).alias("sentence"),
        (cell_key.rank("dense").cast(pl.Int64) - 1).alias("cell"),
        pl.col("_contrast").fill_null(""),
        pl.col("value").fill_null(""),
    )
    sentence, cell = ranks["sentence"].to_numpy(), ranks["cell"].to_numpy()
    # Dense ranks from 0: the largest rank + 1 is the number of distinct keys.
    shape = (int(sentence.max()) + 1, int(cell.max()) + 1) if group.height else (0, 0)
    right, total = np.zeros(shape), np.zeros(shape)
    np.add.at(right, (sentence, cell), group["_right"].to_numpy())
    np.add.at(total, (sentence, cell), group["_n"].to_numpy())
    labels = ranks.select("cell", "_contrast", "value").unique("cell").sort("cell")
    return right, total, contrasts_of(labels["_contrast"].to_list(), labels["value"].to_list())


def contrasts_of(contrasts: Sequence[str], values: Sequence[str]) -> list[Contrast]:
    """§6 groups of cells: a cell's contrast names the features it balances (`Gender+Number`:
    agreeing features; `Number`: a pair's varied one; empty: the whole value, one feature), its
    value string (`Gender=Fem|Number=Plur`) their values."""
    by_contrast: dict[str, list[int]] = {}
    for cell, contrast in enumerate(contrasts):
        by_contrast.setdefault(contrast, []).append(cell)
    found = []
    for contrast, cells in sorted(by_contrast.items()):
        parsed = [_feature_values(values[c]) for c in cells]
        features = contrast.split("+") if contrast else []
        indices = []
        for feature in features:
            held = [p.get(feature, "") for p in parsed]
            rank = {v: i for i, v in enumerate(sorted(set(held)))}
            indices.append(np.asarray([rank[v] for v in held], dtype=np.int64))
        if not features:
            rank = {v: i for i, v in enumerate(sorted({values[c] for c in cells}))}
            indices.append(np.asarray([rank[values[c]] for c in cells], dtype=np.int64))
        found.append(Contrast(np.asarray(cells, dtype=np.int64), tuple(indices)))
    return found


def _feature_values(value: str) -> dict[str, str]:
    """`Gender=Fem|Number=Plur` → {Gender: Fem, Number: Plur}."""
    return dict(part.split("=", 1) for part in value.split("|") if "=" in part)


def grouped_accuracy(
    frame: pl.LazyFrame | pl.DataFrame, by: Sequence[str], seed: int = 0
) -> pl.DataFrame:
    """`accuracy_table` by any columns, sentence-key columns such as `lang` included."""
    # accuracy_table groups by the sentence key too, so a key column in `by` must travel under another name.
    renames = {c: f"__{c}" for c in by if c in SENTENCE_KEY}
    lazy = frame.lazy().with_columns(pl.col(c).alias(alias) for c, alias in renames.items())
    table = accuracy_table(lazy, by=[renames.get(c, c) for c in by], seed=seed)
    return table.rename({alias: c for c, alias in renames.items()})
