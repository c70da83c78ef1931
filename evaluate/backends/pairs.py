"""The pair reading's LM scorer (DESIGN.md §5): a sentence scorer read pair by pair."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ud_agree.surface import Span, word_spans

from ..corpus import Corpus
from ..options import Options
from .loading import load_scorer
from .sentences import KnownWordsScorer, SentenceScorer


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
        if self.scorer.method == "pll-sentence" and isinstance(self.scorer, KnownWordsScorer):
            found = self.scorer.sentence_scores_of_words(texts, pair_words(pairs))
        else:
            found = self.scorer.sentence_scores(texts, spans)
        scores = np.asarray(found, dtype=np.float64)
        return scores[: pairs.height], scores[pairs.height :]


def pair_words(pairs: pl.DataFrame) -> list[list[Span] | None]:
    """The surface words' spans in each good, then each bad sentence (DESIGN.md §5: sentence
    PLL's words are UD's for the corpus's pairs; a nonce variant's are its original's, replaced).
    None where the sentence cannot be split so (no `words` known): the tokenizer's words."""
    good: list[list[Span] | None] = []
    bad: list[list[Span] | None] = []
    if "words" not in pairs.columns:
        return [None] * (2 * pairs.height)
    for words, space_after, text, start, end_good, end_bad in pairs.select(
        "words", "space_after", "sentence_good", "start", "end_good", "end_bad"
    ).iter_rows():
        spans = None if words is None else word_spans(text, words, space_after)
        if spans is None or (start, end_good) not in spans:
            good.append(None)
            bad.append(None)
            continue
        shift = end_bad - end_good
        good.append(spans)
        bad.append(
            [
                (a, end_bad)
                if (a, b) == (start, end_good)
                else (a + shift, b + shift)
                if a >= end_good
                else (a, b)
                for a, b in spans
            ]
        )
    return good + bad
