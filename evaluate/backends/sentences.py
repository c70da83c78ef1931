"""The interface of sentence scorers (DESIGN.md §5, §7): whole-sentence and per-token log-probabilities.

Every model kind of the pair reading and of peers' suites implements `SentenceScorer`; tests use
stub scorers with known scores. Log-probabilities are natural logs; SyntaxGym converts to bits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class TokenScores:
    """One text's scored tokens: character span in the text and log-probability of each."""

    spans: list[tuple[int, int]]  # [start, end) character offsets in the text, in token order
    logprobs: np.ndarray  # float64, one per span (a token that is not scored is left out)


class SentenceScorer(Protocol):
    """A language model (or baseline) that scores whole sentences."""

    name: str  # the `model` column
    method: str  # the `method` column: causal | pll-word | pll-sentence | frequency
    tokenizer: Any  # the model's tokenizer (token distances); None: none, as a test's stub
    forwards: int  # inputs run through the model so far

    def sentence_scores(
        self, texts: Sequence[str], spans: Sequence[tuple[int, int]] | None = None
    ) -> np.ndarray:
        """Log-probability (float64) of each text, batched; order and batch size never matter.
        `spans` (character offsets of one word per text) restrict a masked LM's word PLL to that
        word; causal scores are always of the whole text. NaN: the text cannot be scored (longer
        than the model's window)."""
        ...

    def token_scores(self, texts: Sequence[str]) -> list[TokenScores]:
        """Per-token log-probabilities of each text, for region surprisals."""
        ...

    def facts(self) -> dict[str, Any]:
        """What the manifest records: BOS used, window, device, dtype, random weights…"""
        ...


@runtime_checkable
class KnownWordsScorer(Protocol):
    """A sentence-PLL scorer that can be told each text's words (DESIGN.md §5: the corpus's pairs
    use their UD surface words; without them a masked LM uses its tokenizer's own words)."""

    def sentence_scores_of_words(
        self, texts: Sequence[str], words: Sequence[Sequence[tuple[int, int]] | None]
    ) -> np.ndarray:
        """Sentence PLL of each text, the within-word rule over `words[i]` (character spans of its
        words; None: the tokenizer's words)."""
        ...
