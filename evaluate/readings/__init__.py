"""The two readings (DESIGN.md §5): how items are built and scored; the run is the same for both.

- class-average (§1.5): one masked role per relation, mean probability of correct vs incorrect
  candidates, with a masked LM, a causal LM (next token) or the frequency baseline;
- pair (§4–5): one minimal pair per row of `pairs.parquet`, score(good) > score(bad), with a causal
  LM (sentence log-probability), a masked LM (PLL) or the frequency baseline (lexicon counts).
"""

from __future__ import annotations

from ..backends import SentenceScorer
from ..corpus import Corpus
from ..options import Options
from .class_average import ClassAverage
from .pair import PairReading


def open_reading(options: Options, corpus: Corpus, scorer: SentenceScorer | None = None):
    """The reading the options ask for."""
    if options.reading == "pair":
        return PairReading(options, corpus, scorer)
    return ClassAverage(options, corpus)
