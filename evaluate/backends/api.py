"""The one interface of the back-ends (as lm-evaluation-harness's `api/model.py`): a back-end loads
its model and answers two questions in batches; readings build items, choose candidates, decide,
and do every sum over tokens (DESIGN.md §1.5, §5).

- `TokenScorer.token_scores`: per-token log-probabilities of texts, each with its character span
  (causal: each token given BOS and its prefix; masked: the within-word PLL term of each token of
  the words asked for, §5);
- `FormScorer.form_scores`: the distribution at a masked position or after a prefix, read over
  given candidate forms (each form the vocabulary ids of its casings): probability and logit per
  form. The frequency back-end answers both from lexicon counts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import polars as pl

from ud_agree.surface import Span


@dataclass(frozen=True)
class TokenScores:
    """One text's scored tokens: character span in the text and log-probability of each."""

    spans: list[Span]  # in token order
    logprobs: np.ndarray  # float64, one per span (a token that is not scored is left out)
    # §5.1's `lp_native` terms: the text as its tokenizer encodes it by default, every token after
    # the first given those before it (minicons' `sequence_score`); None where not run.
    native: np.ndarray | None = None
    ids: np.ndarray | None = None  # the scored tokens' vocabulary ids (the token unigram, §5.1)


class TokenScorer(Protocol):
    """A language model answering per-token log-probabilities (the pair reading, peers' suites)."""

    name: str  # the `model` column
    method: str  # the `method` column: causal | pll-word | pll-sentence
    tokenizer: Any  # the model's tokenizer (token distances); None: none, as a test's stub
    # Inputs scored so far (sequences, masked copies; each distinct one once), not forward
    # passes, which batch and pack them: the manifest's `forward_inputs`.
    forwards: int

    def token_scores(
        self, texts: Sequence[str], words: Sequence[Sequence[Span] | None] | None = None
    ) -> list[TokenScores]:
        """Per text, its scored tokens' spans and natural-log probabilities; order and batch size
        never matter. A causal LM scores every token (each given BOS and the tokens before it) and
        ignores `words`; a masked LM scores the tokens of `words[i]` (character spans of words) by
        the within-word rule, or of every word of its tokenizer's pre-tokenization where `words`
        or `words[i]` is None. NaN: the text is longer than the model's window."""
        ...

    def facts(self) -> dict[str, Any]:
        """What the manifest records: BOS used, window, device, dtype, random weights…"""
        ...


# Kept under its earlier public name (`ud_agree.SentenceScorer`).
SentenceScorer = TokenScorer


@runtime_checkable
class CountScorer(Protocol):
    """The pair reading's frequency baseline (§5): lexicon counts instead of log-probabilities."""

    tokenizer: None
    forwards: int

    def pair_counts(self, pairs: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """The lexicon count (float64) of each pair's good and bad form."""
        ...

    def facts(self) -> dict[str, Any]:
        """What the manifest records."""
        ...


class Forms(Protocol):
    """Candidate forms as a back-end sees them (a reading's `CandidateSet` is one)."""

    @property
    def token_ids(self) -> Sequence[Sequence[int]]:
        """Each form's vocabulary ids (its casings; their probabilities are summed)."""
        ...

    @property
    def counts(self) -> np.ndarray:
        """Each form's lexicon count (the frequency back-end's distribution)."""
        ...


@dataclass(frozen=True)
class FormBatch:
    """One batch of a `FormScorer`'s answers: item rows and, per row, each form's probability and
    logit (numpy arrays or device tensors, float64; a frequency batch has one row for all)."""

    rows: np.ndarray  # indices of the items encoded
    prob: Any  # (len(rows) or 1, n_forms)
    logit: Any  # (len(rows) or 1, n_forms)


# Which context a kind's distribution sees: both sides of the mask, the words before it, or none.
Context = Literal["both", "left", "none"]


class FormScorer(Protocol):
    """A model kind of the class-average reading: the distribution at each item's masked word."""

    context: Context
    tokenizer: Any  # its vocabulary decides the candidates; None: every lexicon form
    min_count: int  # a form it scores has at least this lexicon count (the baseline's: 1)
    forwards: int  # distinct inputs scored so far (not forward passes: `forward_inputs`)

    def ready(self) -> dict[str, Any]:
        """Wait until the model can score; facts for the manifest (random weights, device…)."""
        ...

    def encode(self, items: pl.DataFrame) -> tuple[Any, int]:
        """The items' inputs as the model reads them (or None), and how many were windowed."""
        ...

    def subset(self, encoded: Any, keep: np.ndarray) -> Any:
        """The encoded inputs of the items kept."""
        ...

    def form_scores(self, encoded: Any, forms: Forms, n_items: int) -> Iterator[FormBatch]:
        """Each encoded item's distribution over `forms`, batch by batch; every row once."""
        ...
