"""The class-average reading (DESIGN.md §1.5): one masked role per relation, mean probability of
the correct vs the incorrect candidates, with a masked LM, a causal LM (next token) or the
frequency baseline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from ud_agree.schemas.corpus import SENTENCE_KEY

from ..backends import open_backend
from ..corpus import Corpus
from ..options import Options
from ..output.writer import ChunkWriter
from .candidates import coverage
from .decide import attach_splits, enough_candidates
from .items import expand_roles


def build_items(corpus: Corpus, roles: Sequence[str]) -> tuple[pl.DataFrame, dict[str, int]]:
    """Items joined to their sentence's words; same-surface-word and sentence-less ones counted out."""
    counts: dict[str, int] = {"relations": corpus.relations.height}
    items = expand_roles(corpus.relations, roles).with_row_index("item")
    counts["items_built"] = items.height
    same = pl.col("target_surface") == pl.col("controller_surface")
    counts["same-surface-word"] = items.filter(same).height
    items = items.filter(~same)
    sentence_cols = ["lang", "treebank", "sent_id", "words"]
    if "space_after" in corpus.sentences.columns:
        sentence_cols.append("space_after")
    sentences = corpus.sentences.select(sentence_cols).unique(list(SENTENCE_KEY))
    joined = items.join(sentences, on=list(SENTENCE_KEY), how="left")
    missing = joined["words"].is_null()
    counts["missing-sentence"] = int(missing.sum())
    joined = joined.filter(~missing).sort("item")
    if "space_after" not in joined.columns:
        joined = joined.with_columns(pl.lit(None, dtype=pl.List(pl.Boolean)).alias("space_after"))
    return joined, counts


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
