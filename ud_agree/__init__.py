"""ud-agree: agreement relations and minimal pairs from UD, and language-model scoring over them.

The public API (names load on first use: mining never imports torch):

    read_corpus(corpus, lang, pairs=False)   a mined language's tables (`Corpus`)
    corpus_words(corpus)                     its words (the vocabulary of `tiny-random`)
    load_scorer(model, pll="word", …)        a sentence scorer for a hub name or local folder
    score_sentences(scorer, texts, spans)    log-probabilities (causal) or PLL (masked) of texts
    load_results(path)                       evaluator results as one polars LazyFrame
    load_suite_results(path)                 suite results as one polars LazyFrame
    read_suite(path, fmt=None, …)            a peer's suite file as a table of pairs
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

try:
    __version__ = version("ud-agree")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

# In a source checkout the miner and the evaluator are the folders `mine/` and `evaluate/` beside
# this one (an installation puts them inside it): `ud_agree.mine` then finds the checkout's own
# folder, not that of another checkout installed in editable mode.
_CHECKOUT = Path(__file__).resolve().parent.parent
if not (Path(__file__).parent / "mine").is_dir() and (_CHECKOUT / "pyproject.toml").is_file():
    __path__.append(str(_CHECKOUT))

_PUBLIC = {
    "Corpus": "ud_agree.evaluate.corpus",
    "read_corpus": "ud_agree.evaluate.corpus",
    "corpus_words": "ud_agree.evaluate.corpus",
    "SentenceScorer": "ud_agree.evaluate.backends.api",
    "load_scorer": "ud_agree.evaluate.backends",
    "score_sentences": "ud_agree.evaluate.readings.token_sums",
    "load_results": "ud_agree.evaluate.output.results",
    "load_suite_results": "ud_agree.evaluate.output.results",
    "read_suite": "ud_agree.evaluate.sources.files",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'ud_agree' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])
