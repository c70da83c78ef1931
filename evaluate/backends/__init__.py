"""Scoring back-ends, one module per model kind behind the one interface of `api.py`, and a
name → class registry (`BACKENDS`: kind → module and class, imported on first use, so that the
frequency baseline never imports torch).

A back-end loads its model and answers questions about texts: per-token log-probabilities
(`TokenScorer`: causal.py's `CausalLM`, masked.py's `MaskedPLL`) and distributions over
candidate forms at a blank (`FormScorer`: `CausalBackend`, `MaskedBackend`). It is built from a
`ModelSpec` (and, for `tiny-random`, the words of its vocabulary); it never reads an item, a
corpus or a lexicon count, never builds candidates or decisions and never sums over tokens: the
tasks (`evaluate/tasks/`) and readings (`evaluate/readings/`) do. The frequency baseline is no
back-end: a reading over counts (`evaluate/readings/frequency.py`).
"""

from __future__ import annotations

import importlib
from collections.abc import Collection
from typing import Any

from .api import (
    Blank,
    FormBatch,
    FormScorer,
    SentenceScorer,
    TokenScorer,
    TokenScores,
)
from .loading import load_scorer
from .spec import KINDS, Kind, ModelSpec

__all__ = [
    "BACKENDS",
    "Blank",
    "FormBatch",
    "FormScorer",
    "SentenceScorer",
    "TokenScorer",
    "TokenScores",
    "backend_kind",
    "load_scorer",
    "open_backend",
    "open_token_scorer",
    "open_tokenizer",
    "registered",
]

BackendKind = Kind

# kind → (module of this package, class): the class-average reading's form scorers, read off the
# kinds table (`spec.KINDS`). An LM's kind (masked or causal) is read from its config
# (evaluate.plan).
BACKENDS: dict[BackendKind, tuple[str, str]] = {
    kind: (family.module, family.form_scorer)
    for kind, family in KINDS.items()
    if family.form_scorer is not None
}


def backend_kind(spec: ModelSpec) -> BackendKind:
    """The registry key of `spec.model`: the LM's kind (masked where none is known)."""
    return spec.kind if spec.kind in BACKENDS else "masked"


def registered(registry: dict[BackendKind, tuple[str, str]], kind: BackendKind) -> Any:
    """The class registered under `kind`, its module imported now."""
    module, name = registry[kind]
    return getattr(importlib.import_module(f".{module}", __name__), name)


def open_backend(spec: ModelSpec, vocabulary: Collection[str] = ()) -> FormScorer:
    """The form scorer of `spec.model`, a masked or causal LM (`vocabulary`: `tiny-random`'s
    words)."""
    kind = backend_kind(spec)
    cls = registered(BACKENDS, kind)
    backend: FormScorer = cls(spec, vocabulary) if kind == "masked" else cls(spec)
    return backend


def open_token_scorer(spec: ModelSpec, vocabulary: Collection[str] | None = None) -> TokenScorer:
    """The token scorer of `spec.model`, loaded now (`vocabulary`: `tiny-random`'s words)."""
    return load_scorer(spec.model, vocabulary=vocabulary, **spec.loading())


def open_tokenizer(model: str, trust_remote_code: bool = False) -> Any:
    """A model's tokenizer alone (the frequency baseline's `--vocab-of`)."""
    from .models import load_tokenizer

    return load_tokenizer(model, trust_remote_code)
