"""Scoring pair suites (DESIGN.md §5, §7): a pair is right when score(good) > score(bad)."""

from __future__ import annotations

import numpy as np
import polars as pl

from ..backends.api import TokenScorer
from ..readings.sums import sentence_scores


def score_pairs(pairs: pl.DataFrame, scorer: TokenScorer) -> pl.DataFrame:
    """The pairs with `score_good`, `score_bad` (log-probabilities) and `right` (a tie is not right);
    where the layout knows the varied word (`start`, `end_good`, `end_bad`), its span goes with
    each sentence: a masked LM scoring word PLL scores that word (§7, gevalm's blank)."""
    good_keys: list[tuple[str, tuple[int, int] | None]]
    bad_keys: list[tuple[str, tuple[int, int] | None]]
    if "start" in pairs.columns:
        start = pairs["start"].to_list()
        good_keys = list(
            zip(pairs["sentence_good"], zip(start, pairs["end_good"], strict=True), strict=True)
        )
        bad_keys = list(
            zip(pairs["sentence_bad"], zip(start, pairs["end_bad"], strict=True), strict=True)
        )
    else:
        good_keys = [(t, None) for t in pairs["sentence_good"]]
        bad_keys = [(t, None) for t in pairs["sentence_bad"]]
    # A CLAMS True sentence serves several pairs: each distinct sentence is scored once.
    keys = list(dict.fromkeys([*good_keys, *bad_keys]))
    spans = [span for _, span in keys if span is not None] if "start" in pairs.columns else None
    texts = [t for t, _ in keys]
    scores = sentence_scores(scorer, texts, spans)
    lookup = dict(zip(keys, scores.tolist(), strict=True))
    good = np.array([lookup[k] for k in good_keys], dtype=np.float64)
    bad = np.array([lookup[k] for k in bad_keys], dtype=np.float64)
    return pairs.with_columns(
        pl.Series("score_good", good), pl.Series("score_bad", bad), pl.Series("right", good > bad)
    )
