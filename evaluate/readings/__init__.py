"""The two readings (DESIGN.md §5): how items are built and scored; the run is the same for both.

- class-average (§1.5): one masked role per relation, mean probability of correct vs incorrect
  candidates, with a masked LM, a causal LM (next token) or the frequency baseline;
- pair (§4–5): one minimal pair per row of `pairs.parquet`, score(good) > score(bad), with a causal
  LM (sentence log-probability), a masked LM (PLL) or the frequency baseline (lexicon counts).

A reading owns its items, candidates, decisions and every sum over tokens (sums.py); it asks a
back-end (`evaluate.backends.api`) only for token log-probabilities or distributions over forms.
"""

from __future__ import annotations

from ..backends import TokenScorer
from ..corpus import Corpus
from ..options import Options
from .class_average import ClassAverage
from .pair import PairReading


def open_reading(options: Options, corpus: Corpus, scorer: TokenScorer | None = None):
    """The reading the options ask for."""
    if options.reading == "pair":
        return PairReading(options, corpus, scorer)
    return ClassAverage(options, corpus)
