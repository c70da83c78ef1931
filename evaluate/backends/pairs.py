"""The pair reading's LM scorer (DESIGN.md §5): a sentence scorer read pair by pair."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ..corpus import Corpus
from ..options import Options
from .loading import load_scorer
from .sentences import SentenceScorer


class SentencePairs:
    """The pair reading with a sentence scorer (§5): the good and the bad sentence scored whole,
    a masked LM's word PLL at the varied word's span in each."""

    def __init__(self, scorer: SentenceScorer) -> None:
        self.scorer = scorer
        self.tokenizer = scorer.tokenizer

    @classmethod
    def open(cls, options: Options, corpus: Corpus) -> SentencePairs:
        """The LM of `options.model` loaded (`tiny-random`: built from the corpus' own words)."""
        o = options
        scorer = load_scorer(
            o.model,
            pll=o.pll,
            device=o.device,
            batch_size=o.batch_size,
            max_tokens=o.max_tokens,
            dtype=o.dtype,
            kind=o.kind,
            corpus=corpus,
            seed=o.seed,
        )
        return cls(scorer)

    @property
    def forwards(self) -> int:
        """The scorer's count of inputs run."""
        return self.scorer.forwards

    def facts(self) -> dict[str, Any]:
        """The scorer's facts."""
        return self.scorer.facts()

    def pair_scores(self, pairs: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Both sentences of every pair in one call (a sentence shared by pairs scored once)."""
        texts = pairs["sentence_good"].to_list() + pairs["sentence_bad"].to_list()
        spans = list(zip(pairs["start"], pairs["end_good"], strict=True)) + list(
            zip(pairs["start"], pairs["end_bad"], strict=True)
        )
        scores = np.asarray(self.scorer.sentence_scores(texts, spans), dtype=np.float64)
        return scores[: pairs.height], scores[pairs.height :]
