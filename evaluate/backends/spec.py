"""What a back-end is asked to load and how to run it (`ModelSpec`), resolved once from a run's
options; and the names of models that every layer shares. Back-ends read this, never the run's
options (a test checks it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

FREQUENCY = "frequency"  # the frequency baseline, no model
TINY_RANDOM = "tiny-random"  # an offline random-weight BERT built from the corpus' words

Pll = Literal["word", "sentence"]  # masked LMs in the pair reading: PLL of the word or sentence
# Compute precision: float32, autocast to bfloat16/float16, or `auto`: the checkpoint's stored
# precision, no autocast (lm-evaluation-harness's default `dtype=auto`).
Dtype = Literal["float32", "bfloat16", "float16", "auto"]


@dataclass(frozen=True)
class Family:
    """A model kind: its module of `evaluate.backends`, whose `token_scorer(model, **loading)`
    loads the pair reading's and suites' scorer; its form scorer class there (the class-average
    reading; None: pairs only); the `method` of its pair runs (None: a masked LM's `pll-<pll>`)."""

    module: str
    form_scorer: str | None
    pair_method: str | None


# The model kinds, one row each: the one place a kind is registered (the `--kind` choices, loading,
# the class-average back-ends and the pair runs' `method` read it). Masked and causal LMs are
# told apart by their config (`models.model_kind`); another kind is asked for with `--kind`.
KINDS: dict[str, Family] = {
    "masked": Family("masked", "MaskedBackend", None),
    "causal": Family("causal", "CausalBackend", "causal"),
}
Kind = str  # a key of KINDS


@dataclass(frozen=True)
class ModelSpec:
    """One run's model, resolved: which (its kind read from its config), on what, how batched,
    and what the run will ask of it."""

    model: str
    kind: Kind | None = None  # None: the frequency baseline
    device: str = "auto"
    batch_size: int = 32
    max_tokens: int | None = None
    dtype: Dtype = "float32"
    trust_remote_code: bool = False
    progress: bool = False
    seed: int = 0
    pll: Pll = "word"
    method: str = "context"  # the results column `method`
    chunk_size: int = 4096
    vocab_of: str | None = None  # the frequency baseline's vocabulary
    native: bool = False  # §5.1: the `minicons` rule's own forward is asked for

    def loading(self) -> dict[str, Any]:
        """`load_scorer`'s keyword arguments for this model (its kind already read: no config is
        read again), spelled here once for every caller."""
        return {
            "pll": self.pll,
            "device": self.device,
            "batch_size": self.batch_size,
            "max_tokens": self.max_tokens,
            "dtype": self.dtype,
            "kind": self.kind,
            "seed": self.seed,
            "trust_remote_code": self.trust_remote_code,
            "native": self.native,
        }


def name_of(model: str) -> str:
    """A hub name as given, a local directory's folder name, or a local file's name (GGUF)."""
    path = Path(model)
    return path.resolve().name if path.is_dir() or path.is_file() else model


def safe_name(name: str) -> str:
    """A model name or local folder made safe for a path (`org/name` → `org--name`)."""
    path = Path(name)
    if path.is_dir() or path.is_file():
        name = path.resolve().name
    name = name.replace("/", "--")
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", name).strip("-") or "model"


# What transformers raises on model files it cannot read (a folder's or a GGUF file's): OSError
# (no file, not in the cache, no network, a config that is not JSON), ValueError (an unknown or
# missing model type or architecture; json's errors), KeyError, TypeError and AttributeError (a
# file or tensor of the wrong shape), RuntimeError (torch on a truncated checkpoint).
MODEL_FILE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    RuntimeError,
)
