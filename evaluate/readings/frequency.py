"""The frequency baseline (DESIGN.md §5), a reading over lexicon counts, no model: a pair's
scores are the counts of its good and bad form; a class-average item's distribution is each
candidate's share of the counts, whatever the context."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ud_agree.schemas.corpus import FEATURES, TYPE_LAYERS

from ..backends.api import FormBatch
from .candidates import FEATURE_COLUMNS
from .scoring_rules import RULES


@dataclass(frozen=True)
class CountBaseline:
    """The baseline in a run's place of a model: no weights, no context; `tokenizer` (the
    class-average reading's --vocab-of) restricts the candidates and gives token distances."""

    tokenizer: Any = None
    chunk_size: int = 4096  # items per batch of the class-average reading's distributions
    forwards: int = 0  # nothing is run
    min_count: int = 1  # a form never seen has share 0: it could never win

    def facts(self) -> dict[str, Any]:
        """What a class-average manifest records of it."""
        family = None if self.tokenizer is None else type(self.tokenizer).__name__
        return {"random_weights": False, "model_family": family, "window_tokens": None}


PAIR_FACTS = {"random_weights": False}  # what a pair manifest records of the baseline
# The layers a layered type's target compares (§1.7), each a view of the lexicon's counts.
LAYERS = sorted({layer for layers in TYPE_LAYERS.values() for layer in layers})


def count_shares(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The baseline's distribution over forms (1, n_forms): each form's share of the counts as
    its probability, log count as its logit, whatever the context."""
    prob = (counts / (counts.sum() or 1.0))[None, :]
    with np.errstate(divide="ignore"):
        logit = np.log(counts)[None, :]
    return prob, logit


def count_batches(counts: np.ndarray, n_items: int, chunk_size: int) -> Iterator[FormBatch]:
    """The count shares for `n_items` items, one chunk at a time (one row serves a chunk)."""
    prob, logit = count_shares(np.asarray(counts, dtype=np.float64))
    for start in range(0, n_items, chunk_size):
        yield FormBatch(np.arange(start, min(start + chunk_size, n_items)), prob, logit)


def count_pair_columns(good: np.ndarray, bad: np.ndarray) -> dict[str, pl.Series]:
    """A pair's scores and decisions from its forms' counts: one rule (counts), so every rule's
    decision is that one."""
    good, bad = np.asarray(good, dtype=np.float64), np.asarray(bad, dtype=np.float64)
    right = pl.Series("right", good > bad)
    same = {f"right_{rule}": right.alias(f"right_{rule}") for rule in RULES}
    return {"score_good": pl.Series(good), "score_bad": pl.Series(bad), "right": right, **same}


def pair_counts(items: pl.DataFrame, lexicon: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's lexicon counts of its good and its bad form, each for its lemma, upos and
    bundle (spellings summed, case-folded): the baseline's scores and §10's heuristic. A
    layered type's bundle is its target's layer (§1.7: *ditu* `Number[abs]=Plur`), counted from
    the forms' FEATS."""
    # Only the layers the items' types compare are read, each a pass over the lexicon's FEATS (a
    # lexicon of F alone has none).
    kinds = set(items["type"].unique().to_list()) if "type" in items.columns else set()
    readable = "feats" in lexicon.columns
    layers = [layer for layer in LAYERS if readable and kinds & set(_types_of(layer))]
    keyed = pl.concat(
        [_counted(lexicon, pl.col("upos"), FEATURE_COLUMNS)]
        + [_counted(lexicon, pl.col("upos") + f"[{layer}]", _layered(layer)) for layer in layers]
    )
    bad_values = {
        f"b_{name}": pl.when(pl.col("feature") == name.capitalize())
        .then(pl.concat_list(pl.col("bad_value")))
        .otherwise(pl.col(f"m_{name}"))
        for name in FEATURE_COLUMNS
    }
    frame = items.select(
        pl.col("good_form").str.to_lowercase().alias("good_key"),
        pl.col("bad_form").str.to_lowercase().alias("bad_key"),
        "lemma",
        "upos",
        pl.col("type") if "type" in items.columns else pl.lit(None, pl.String).alias("type"),
        _bundle_key(*(f"m_{name}" for name in FEATURE_COLUMNS)).alias("good_bundle"),
        _bundle_key(*bad_values.values()).alias("bad_bundle"),
    ).with_row_index("row")
    # The plain features, and each layer the pair's type compares: a layered type's target
    # carries one of them (Hindi object-verb (b) compares plain F), so the largest count is its.
    views = [pl.col("upos")] + [
        pl.when(pl.col("type").is_in(_types_of(layer))).then(pl.col("upos") + f"[{layer}]")
        for layer in layers
    ]
    counts = []
    for side in ("good", "bad"):
        found = [
            frame.with_columns(view.alias("view"))
            .join(
                keyed,
                left_on=[f"{side}_key", "lemma", "view", f"{side}_bundle"],
                right_on=["key", "lemma", "upos", "bundle"],
                how="left",
            )
            .sort("row")["count"]
            .fill_null(0)
            .to_numpy()
            for view in views
        ]
        counts.append(np.max(found, axis=0).astype(np.float64))
    return counts[0], counts[1]


def _counted(lexicon: pl.DataFrame, upos: pl.Expr, values: Sequence[str | pl.Expr]) -> pl.DataFrame:
    """The lexicon's counts per (case-folded form, lemma, `upos`, bundle of `values`)."""
    return (
        lexicon.select(
            pl.col("form").str.to_lowercase().alias("key"),
            "lemma",
            upos.alias("upos"),
            _bundle_key(*values).alias("bundle"),
            "count",
        )
        .group_by("key", "lemma", "upos", "bundle")
        .agg(pl.col("count").sum())
    )


def _layered(layer: str) -> list[pl.Expr]:
    """A lexicon row's values of F in `layer`, from its FEATS (`Number[abs]=Plur`), as lists."""
    return [
        pl.col("feats")
        .fill_null("")
        .str.extract(rf"(?:^|\|){name}\[{layer}\]=([^|]+)", 1)
        .str.split(",")
        .fill_null([])
        for name in FEATURES
    ]


def _types_of(layer: str) -> list[str]:
    """The layered types that compare `layer`."""
    return [kind for kind, layers in TYPE_LAYERS.items() if layer in layers]


def _bundle_key(*columns: str | pl.Expr) -> pl.Expr:
    """A bundle's value sets (one per feature of F) as one comparable string."""
    parts = [(pl.col(c) if isinstance(c, str) else c).list.sort().list.join(",") for c in columns]
    return pl.concat_str(parts, separator="|")
