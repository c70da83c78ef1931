"""Scoring back-ends, one module per model kind, behind narrow typed protocols and a name → class
registry (`BACKENDS`, `PAIR_SCORERS`: kind → module and class, imported on first use, so that the
frequency baseline never imports torch).

- `Backend`, the class-average reading's model: candidates (forms it can score), which items it can
  read, their encoding (token distance, windowing) and their scores into a `ChunkWriter`;
- `PairScorer`, the pair reading's model: the scores of each pair's good and bad sentence;
- `SentenceScorer` (sentences.py), an LM scoring whole sentences: the pair reading's LMs and
  peers' suites.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from .loading import load_scorer
from .sentences import SentenceScorer, TokenScores

__all__ = [
    "BACKENDS",
    "PAIR_SCORERS",
    "Backend",
    "PairScorer",
    "SentenceScorer",
    "TokenScores",
    "backend_kind",
    "load_scorer",
    "open_backend",
    "open_pair_scorer",
    "score_sentences",
]

if TYPE_CHECKING:
    import polars as pl

    from ..corpus import Corpus
    from ..options import Options
    from ..output.writer import ChunkWriter
    from ..readings.candidates import CandidateSet
    from ..readings.decide import Splits

BackendKind = Literal["frequency", "masked", "causal"]


class Backend(Protocol):
    """What the class-average reading needs from a model kind."""

    candidates: CandidateSet

    def __init__(self, options: Options, corpus: Corpus) -> None: ...

    def usable(self, items: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, int]]:
        """The items this kind can read, and the others counted by reason."""
        ...

    def ready(self) -> dict[str, Any]:
        """Wait until the model can score; facts for the manifest (random weights, device…)."""
        ...

    def encode(self, items: pl.DataFrame) -> tuple[pl.DataFrame, Any, int]:
        """Items with `distance_tokens`, the encoded inputs (or None) and how many were windowed."""
        ...

    def subset(self, encoded: Any, keep: np.ndarray) -> Any:
        """The encoded inputs of the items kept."""
        ...

    def score(self, items: pl.DataFrame, encoded: Any, splits: Splits, writer: ChunkWriter) -> None:
        """Score the items and hand each batch to the writer."""
        ...


class PairScorer(Protocol):
    """What the pair reading needs from a model kind (§5): both sentences' scores per pair."""

    tokenizer: Any  # for `distance_tokens`; None: no tokenizer (null distances)

    @property
    def forwards(self) -> int:
        """Model inputs run so far (the manifest's `forward_inputs`)."""
        ...

    def facts(self) -> dict[str, Any]:
        """What the manifest records (random weights, BOS, window, device…)."""
        ...

    def pair_scores(self, pairs: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Scores (float64) of each pair's good and bad sentence; NaN: cannot be scored."""
        ...


# kind → (module of this package, class): the class-average reading's back-ends and the pair
# reading's scorers. An LM's kind (masked or causal) is read from its config (evaluate.run).
BACKENDS: dict[BackendKind, tuple[str, str]] = {
    "frequency": ("frequency", "FrequencyBackend"),
    "masked": ("masked", "MaskedBackend"),
    "causal": ("causal", "CausalBackend"),
}
PAIR_SCORERS: dict[BackendKind, tuple[str, str]] = {
    "frequency": ("frequency", "FrequencyPairs"),
    "masked": ("pairs", "SentencePairs"),
    "causal": ("pairs", "SentencePairs"),
}


def backend_kind(options: Options) -> BackendKind:
    """The registry key of `options.model`: the frequency baseline, or the LM's kind."""
    from ..options import FREQUENCY

    if options.model == FREQUENCY:
        return "frequency"
    return "causal" if options.kind == "causal" else "masked"


def registered(registry: dict[BackendKind, tuple[str, str]], kind: BackendKind) -> Any:
    """The class registered under `kind`, its module imported now."""
    module, name = registry[kind]
    return getattr(importlib.import_module(f".{module}", __name__), name)


def open_backend(options: Options, corpus: Corpus) -> Backend:
    """The class-average back-end of `options.model`: frequency baseline, masked or causal LM."""
    backend: Backend = registered(BACKENDS, backend_kind(options))(options, corpus)
    return backend


def open_pair_scorer(
    options: Options, corpus: Corpus, scorer: SentenceScorer | None = None
) -> PairScorer:
    """The pair reading's scorer of `options.model` (loaded now), or `scorer` (a sentence scorer
    standing in for the model, e.g. a test's oracle) read pair by pair."""
    if scorer is not None:
        from .pairs import SentencePairs

        return SentencePairs(scorer)
    pairs: PairScorer = registered(PAIR_SCORERS, backend_kind(options)).open(options, corpus)
    return pairs


def score_sentences(
    scorer: SentenceScorer | str,
    texts: Sequence[str],
    spans: Sequence[tuple[int, int]] | None = None,
) -> np.ndarray:
    """Scores of `texts` (float64, natural log): a causal LM's log-probability, a masked LM's PLL
    (of the word at `spans` when given); `scorer` is a scorer or a model name to load."""
    if isinstance(scorer, str):
        scorer = load_scorer(scorer)
    return np.asarray(scorer.sentence_scores(list(texts), spans), dtype=np.float64)
