"""Frequency back-end: a form's 'probability' is its lexicon count share, whatever the context."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl

from ..corpus import Corpus
from .api import FormBatch, Forms
from .spec import ModelSpec


def count_shares(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The frequency baseline's distribution over forms (1, n_forms): each form's share of the
    counts as its probability, log count as its logit, whatever the context."""
    prob = (counts / (counts.sum() or 1.0))[None, :]
    with np.errstate(divide="ignore"):
        logit = np.log(counts)[None, :]
    return prob, logit


class FrequencyBackend:
    """The class-average reading's frequency baseline: no model, no context; with `--vocab-of`,
    that model's tokenizer restricts the candidates and gives token distances."""

    context = "none"
    min_count = 1  # a form never seen has share 0: it could never win
    forwards = 0

    def __init__(self, spec: ModelSpec, corpus: Corpus) -> None:
        self.spec = spec
        self.tokenizer = None
        if spec.vocab_of:
            from .models import load_tokenizer

            self.tokenizer = load_tokenizer(spec.vocab_of, spec.trust_remote_code)

    def ready(self) -> dict[str, Any]:
        """No weights to wait for."""
        family = None if self.tokenizer is None else type(self.tokenizer).__name__
        return {"random_weights": False, "model_family": family, "window_tokens": None}

    def encode(self, items: pl.DataFrame) -> tuple[None, int]:
        """Nothing to encode: counts need no input."""
        return None, 0

    def subset(self, encoded: Any, keep: np.ndarray) -> Any:
        """Nothing is encoded."""
        return encoded

    def form_scores(self, encoded: Any, forms: Forms, n_items: int) -> Iterator[FormBatch]:
        """The count shares, one chunk of items at a time (one row serves the whole chunk)."""
        prob, logit = count_shares(np.asarray(forms.counts, dtype=np.float64))
        size = self.spec.chunk_size
        for start in range(0, n_items, size):
            yield FormBatch(np.arange(start, min(start + size, n_items)), prob, logit)


class FrequencyPairs:
    """The pair reading's frequency baseline (§5): a sentence's score is its varied word's
    lexicon count; no model, no tokenizer."""

    tokenizer = None
    forwards = 0

    def __init__(self, lexicon: pl.DataFrame) -> None:
        self.lexicon = lexicon

    def facts(self) -> dict[str, Any]:
        """Nothing is random."""
        return {"random_weights": False}

    def pair_counts(self, pairs: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Lexicon counts of the good and the bad form."""
        return pair_counts(pairs, self.lexicon)


def pair_counts(items: pl.DataFrame, lexicon: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The frequency baseline of the pair reading (§5): lexicon counts of the good and the bad
    form, each for its lemma, upos and bundle (spellings summed, case-folded)."""
    keyed = (
        lexicon.select(
            pl.col("form").str.to_lowercase().alias("key"),
            "lemma",
            "upos",
            _bundle_key("number", "gender", "case", "person").alias("bundle"),
            "count",
        )
        .group_by("key", "lemma", "upos", "bundle")
        .agg(pl.col("count").sum())
    )
    bad_values = {
        f"b_{name}": pl.when(pl.col("feature") == name.capitalize())
        .then(pl.concat_list(pl.col("bad_value")))
        .otherwise(pl.col(f"m_{name}"))
        for name in ("number", "gender", "case", "person")
    }
    frame = items.select(
        pl.col("good_form").str.to_lowercase().alias("good_key"),
        pl.col("bad_form").str.to_lowercase().alias("bad_key"),
        "lemma",
        "upos",
        _bundle_key("m_number", "m_gender", "m_case", "m_person").alias("good_bundle"),
        _bundle_key(*bad_values.values()).alias("bad_bundle"),
    ).with_row_index("row")
    counts = []
    for side in ("good", "bad"):
        joined = frame.join(
            keyed,
            left_on=[f"{side}_key", "lemma", "upos", f"{side}_bundle"],
            right_on=["key", "lemma", "upos", "bundle"],
            how="left",
        ).sort("row")
        counts.append(joined["count"].fill_null(0).to_numpy().astype(np.float64))
    return counts[0], counts[1]


def _bundle_key(*columns: str | pl.Expr) -> pl.Expr:
    """A bundle's four value sets as one comparable string."""
    parts = [(pl.col(c) if isinstance(c, str) else c).list.sort().list.join(",") for c in columns]
    return pl.concat_str(parts, separator="|")
