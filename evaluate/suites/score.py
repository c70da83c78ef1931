"""Scoring pair suites (DESIGN.md §5, §7): a pair is right when score(good) > score(bad)."""

from __future__ import annotations

import numpy as np
import polars as pl

from ..backends.sentences import SentenceScorer


def score_pairs(pairs: pl.DataFrame, scorer: SentenceScorer) -> pl.DataFrame:
    """The pairs with `score_good`, `score_bad` (log-probabilities) and `right` (a tie is not right)."""
    # A CLAMS True sentence serves several pairs: each distinct sentence is scored once.
    texts = list(dict.fromkeys([*pairs["sentence_good"], *pairs["sentence_bad"]]))
    scores = np.asarray(scorer.sentence_scores(texts), dtype=np.float64)
    if scores.shape != (len(texts),):
        raise ValueError(f"the scorer gave {scores.shape} scores for {len(texts)} sentences")
    lookup = dict(zip(texts, scores.tolist(), strict=True))
    good = np.array([lookup[t] for t in pairs["sentence_good"]], dtype=np.float64)
    bad = np.array([lookup[t] for t in pairs["sentence_bad"]], dtype=np.float64)
    return pairs.with_columns(
        pl.Series("score_good", good), pl.Series("score_bad", bad), pl.Series("right", good > bad)
    )
