"""Scoring back-ends, one module per model kind behind the one interface of `api.py`, and a
name → class registry (`BACKENDS`: kind → module and class, imported on first use, so that the
frequency baseline never imports torch).

A back-end loads its model and answers per-token log-probabilities (`TokenScorer`: causal.py's
`CausalLM`, masked.py's `MaskedPLL`) and distributions over candidate forms (`FormScorer`:
`CausalBackend`, `MaskedBackend`, frequency.py's `FrequencyBackend`). It never builds items,
candidates or decisions and never sums over tokens: the readings (`evaluate/readings/`) do.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Literal

from .api import (
    CountScorer,
    FormBatch,
    Forms,
    FormScorer,
    SentenceScorer,
    TokenScorer,
    TokenScores,
)
from .loading import load_scorer
from .spec import FREQUENCY, ModelSpec

__all__ = [
    "BACKENDS",
    "PAIR_SCORERS",
    "CountScorer",
    "FormBatch",
    "FormScorer",
    "Forms",
    "SentenceScorer",
    "TokenScorer",
    "TokenScores",
    "backend_kind",
    "load_scorer",
    "open_backend",
    "open_pair_scorer",
    "open_token_scorer",
    "registered",
]

if TYPE_CHECKING:
    from ..corpus import Corpus

BackendKind = Literal["frequency", "masked", "causal"]

# kind → (module of this package, class): the class-average reading's form scorers, and the pair
# reading's scorers (an LM's token scorer, the baseline's counts). An LM's kind (masked or causal)
# is read from its config (evaluate.run).
BACKENDS: dict[BackendKind, tuple[str, str]] = {
    "frequency": ("frequency", "FrequencyBackend"),
    "masked": ("masked", "MaskedBackend"),
    "causal": ("causal", "CausalBackend"),
}
PAIR_SCORERS: dict[BackendKind, tuple[str, str]] = {
    "frequency": ("frequency", "FrequencyPairs"),
    "masked": ("masked", "MaskedPLL"),
    "causal": ("causal", "CausalLM"),
}


def backend_kind(spec: ModelSpec) -> BackendKind:
    """The registry key of `spec.model`: the frequency baseline, or the LM's kind."""
    if spec.model == FREQUENCY:
        return "frequency"
    return "causal" if spec.kind == "causal" else "masked"


def registered(registry: dict[BackendKind, tuple[str, str]], kind: BackendKind) -> Any:
    """The class registered under `kind`, its module imported now."""
    module, name = registry[kind]
    return getattr(importlib.import_module(f".{module}", __name__), name)


def open_backend(spec: ModelSpec, corpus: Corpus) -> FormScorer:
    """The class-average form scorer of `spec.model`: frequency baseline, masked or causal LM."""
    backend: FormScorer = registered(BACKENDS, backend_kind(spec))(spec, corpus)
    return backend


def open_pair_scorer(spec: ModelSpec, corpus: Corpus) -> TokenScorer | CountScorer:
    """The pair reading's scorer of `spec.model`, loaded now: the baseline's lexicon counts, or
    an LM's token scorer."""
    if backend_kind(spec) == "frequency":
        counts: CountScorer = registered(PAIR_SCORERS, "frequency")(corpus.lexicon)
        return counts
    return open_token_scorer(spec, corpus)


def open_token_scorer(spec: ModelSpec, corpus: Corpus) -> TokenScorer:
    """The token scorer of `spec.model`, loaded now (`tiny-random`: built from the corpus' words)."""
    return load_scorer(spec.model, corpus=corpus, **spec.loading())
