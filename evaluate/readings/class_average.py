"""The class-average reading (DESIGN.md §1.5): one masked role per relation, mean probability of
the correct vs the incorrect candidates, with a masked LM, a causal LM (next token) or the
frequency baseline."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ..backends import open_backend
from ..corpus import Corpus
from ..options import Options
from ..output.writer import ChunkWriter
from .candidates import coverage
from .decide import attach_splits, enough_candidates
from .items import build_items


class ClassAverage:
    """§1.5: candidates of the model, correct/incorrect splits, means at the mask."""

    def __init__(self, options: Options, corpus: Corpus) -> None:
        self.options, self.corpus = options, corpus
        self.backend = open_backend(options, corpus)
        self.extra: dict[str, Any] = {}

    def items(self) -> tuple[pl.DataFrame, dict[str, int]]:
        """Items that can be scored; the others counted by reason."""
        options, backend = self.options, self.backend
        items, counts = build_items(self.corpus, options.roles)
        # A causal LM, e.g., needs the other word before the masked one.
        items, skipped = backend.usable(items)
        counts.update(skipped)
        fold = options.case == "fold"
        masked_words = items.select("upos", "form").iter_rows()
        cover = coverage(self.corpus.lexicon, backend.candidates, masked_words, fold)
        self.extra = {"coverage": cover.as_dict(), "candidates": len(backend.candidates)}
        items, self.splits = attach_splits(items, backend.candidates, options.match)
        enough = enough_candidates(options.min_candidates)
        counts["too-few-candidates"] = items.filter(~enough).height
        return items.filter(enough), counts

    def ready(self) -> dict[str, Any]:
        """Wait for the model; its facts for the manifest."""
        return self.backend.ready()

    def encode(self, items: pl.DataFrame) -> tuple[pl.DataFrame, Any, int]:
        """Inputs of the items, `distance_tokens`, and how many were windowed."""
        return self.backend.encode(items)

    def subset(self, encoded: Any, keep: np.ndarray) -> Any:
        """Encoded inputs of the items kept (resume)."""
        return encoded if encoded is None else self.backend.subset(encoded, keep)

    def score(self, items: pl.DataFrame, encoded: Any, writer: ChunkWriter) -> dict[str, int]:
        """Score every item into the writer."""
        self.backend.score(items, encoded, self.splits, writer)
        return {}
