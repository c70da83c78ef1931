"""Loading a sentence scorer (DESIGN.md §5) by model name: the public `load_scorer`."""

from __future__ import annotations

from .sentences import SentenceScorer


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
