"""The one interface of the back-ends (as lm-evaluation-harness's `api/model.py`): a back-end loads
its model and answers two questions about texts, in batches; tasks turn their items into texts and
spans, readings choose candidates, decide, and do every sum over tokens (DESIGN.md §1.5, §5).

- `TokenScorer.token_scores`: per-token log-probabilities of texts, each with its character span
  (causal: each token given BOS and its prefix; masked: the within-word PLL term of each token of
  the words asked for, §5);
- `FormScorer.form_scores`: the distribution at a `Blank` of a text (a masked word, or the word
  after a prefix), read over given candidate forms (each form the vocabulary ids of its
  casings): probability and logit per form.

A back-end never sees an item, a corpus table or a lexicon count (the frequency baseline is a
reading over counts: readings/frequency.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

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


@dataclass(frozen=True)
class Blank:
    """One question of a `FormScorer`: which word of `text` its distribution is asked at
    (`hidden[scored]`) and which words the model may not read (`hidden`: a masked LM reads its
    mask token in their place; a causal LM reads the text before the scored word)."""

    text: str
    hidden: tuple[Span, ...]  # character spans, in text order
    scored: int = 0  # index in `hidden` of the word asked at

    @property
    def span(self) -> Span:
        """The character span of the word asked at."""
        return self.hidden[self.scored]


@dataclass(frozen=True)
class FormBatch:
    """One batch of a `FormScorer`'s answers: item rows and, per row, each form's probability and
    logit (numpy arrays or device tensors, float64; a batch whose distribution is the same for
    every row, as the frequency baseline's, has one row for all)."""

    rows: np.ndarray  # indices of the questions encoded
    prob: Any  # (len(rows) or 1, n_forms)
    logit: Any  # (len(rows) or 1, n_forms)


# Which context a distribution sees: both sides of the blank, the words before it, or none (the
# frequency baseline's).
Context = Literal["both", "left", "none"]


class FormScorer(Protocol):
    """A model's distribution over candidate forms at a blank of a text (the class-average
    reading's model kinds)."""

    context: Context  # which side of the blank it reads: both (masked) or left (causal)
    tokenizer: Any  # its vocabulary decides the candidates
    forwards: int  # distinct inputs scored so far (not forward passes: `forward_inputs`)

    def ready(self) -> dict[str, Any]:
        """Wait until the model can score; facts for the manifest (random weights, device…)."""
        ...

    def encode(self, blanks: Sequence[Blank]) -> tuple[Any, int]:
        """The blanks' inputs as the model reads them (or None), and how many were windowed."""
        ...

    def subset(self, encoded: Any, keep: np.ndarray) -> Any:
        """The encoded inputs of the blanks kept."""
        ...

    def form_scores(
        self, encoded: Any, forms: Sequence[Sequence[int]], n_items: int
    ) -> Iterator[FormBatch]:
        """Each encoded blank's distribution over `forms` (each form the vocabulary ids of its
        casings, their probabilities summed), batch by batch; every row once."""
        ...
