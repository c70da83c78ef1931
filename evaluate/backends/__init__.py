"""Scoring back-ends, one module per model kind, behind one interface (`Backend`).

A back-end of the class-average reading gives the candidates (forms it can score), encodes the
items it will score (token distance, windowing) and scores them into a `ChunkWriter`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .sentences import SentenceScorer, TokenScores

__all__ = [
    "Backend",
    "SentenceScorer",
    "TokenScores",
    "load_scorer",
    "open_backend",
    "score_sentences",
]

if TYPE_CHECKING:
    import polars as pl

    from ..corpus import Corpus
    from ..options import Options
    from ..output.writer import ChunkWriter
    from ..readings.candidates import CandidateSet
    from ..readings.decide import Splits


class Backend(Protocol):
    """What the run needs from a model kind."""

    candidates: CandidateSet

    def ready(self) -> dict[str, Any]:
        """Wait until the model can score; facts for the manifest (random weights, device…)."""

    def encode(self, items: pl.DataFrame) -> tuple[pl.DataFrame, Any, int]:
        """Items with `distance_tokens`, the encoded inputs (or None) and how many were windowed."""

    def subset(self, encoded: Any, keep: np.ndarray) -> Any:
        """The encoded inputs of the items kept."""

    def score(self, items: pl.DataFrame, encoded: Any, splits: Splits, writer: ChunkWriter) -> None:
        """Score the items and hand each batch to the writer."""


def open_backend(options: Options, corpus: Corpus) -> Backend:
    """The class-average back-end for `options.model`: frequency baseline, masked or causal LM."""
    from ..options import FREQUENCY

    if options.model == FREQUENCY:
        from .frequency import FrequencyBackend

        return FrequencyBackend(options, corpus)
    if options.kind == "causal":
        from .causal import CausalBackend

        return CausalBackend(options, corpus)
    from .masked import MaskedBackend

    return MaskedBackend(options, corpus)


def load_scorer(
    model: str,
    *,
    pll: str = "word",
    device: str = "auto",
    batch_size: int = 32,
    max_tokens: int | None = None,
    dtype: str = "float32",
    kind: str | None = None,
) -> SentenceScorer:
    """A sentence scorer (§5) for a hub name or local folder: a causal LM's log-probability, or a
    masked LM's pseudo-log-likelihood (`pll` word or sentence)."""
    from .models import CAUSAL, load_model, model_kind

    kind = kind or model_kind(model)
    loaded = load_model(model, device, kind=kind)
    if kind == CAUSAL:
        from .causal import CausalLM

        return CausalLM(loaded, batch_size, max_tokens, dtype)
    from .masked import MaskedPLL

    return MaskedPLL(loaded, pll, batch_size, max_tokens, dtype)


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
