"""Loading a token scorer (DESIGN.md §5) by model name: the public `load_scorer`."""

from __future__ import annotations

import importlib
from collections.abc import Collection

from ud_agree.errors import UsageError

from .api import TokenScorer
from .spec import KINDS, TINY_RANDOM, Dtype, Kind, Pll


def load_scorer(
    model: str,
    *,
    pll: Pll = "word",
    device: str = "auto",
    batch_size: int = 32,
    max_tokens: int | None = None,
    dtype: Dtype = "float32",
    kind: Kind | None = None,
    vocabulary: Collection[str] | None = None,
    seed: int = 0,
    trust_remote_code: bool = False,
    native: bool = False,
) -> TokenScorer:
    """A token scorer (§5) for a hub name or local folder: a causal LM's log-probabilities, or a
    masked LM's pseudo-log-likelihood terms (`pll` word or sentence). `tiny-random`: an offline
    random 1-layer BERT whose vocabulary is the words of `vocabulary` (a corpus's: `corpus_words`;
    weights from `seed`). `trust_remote_code`: let transformers run the model repository's own
    code. `native`: run §5.1's `lp_native` where it costs a forward of its own (the `minicons`
    rule asked for)."""
    from .models import model_kind, tiny_random_model

    if model == TINY_RANDOM:
        if vocabulary is None:
            raise UsageError(
                f"{TINY_RANDOM} builds its vocabulary from a corpus's words: pass "
                "vocabulary=corpus_words(corpus)"
            )
        from .masked import MaskedPLL

        return MaskedPLL(tiny_random_model(vocabulary, device, seed), pll, batch_size, max_tokens,
                         dtype)  # fmt: skip
    kind = kind or model_kind(model, trust_remote_code)
    module = importlib.import_module(f".{KINDS[kind].module}", __package__)
    scorer: TokenScorer = module.token_scorer(
        model, pll=pll, device=device, batch_size=batch_size, max_tokens=max_tokens, dtype=dtype,
        trust_remote_code=trust_remote_code, native=native,
    )  # fmt: skip
    return scorer
