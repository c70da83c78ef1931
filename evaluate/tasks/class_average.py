"""The class-average reading (DESIGN.md §1.5): one masked role per relation, mean probability of
the correct vs the incorrect candidates, with a masked LM, a causal LM (next token) or the
frequency baseline."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import polars as pl

from ud_agree.schemas.corpus import SENTENCE_KEY
from ud_agree.surface import surface_text

from ..backends.api import Blank, FormBatch, FormScorer
from ..corpus import Corpus
from ..output.writer import ChunkWriter
from ..readings.candidates import CandidateSet, build_candidates, coverage, whole_word_vocab
from ..readings.class_decisions import Splits, attach_splits, decide, enough_candidates
from ..readings.distance import token_distances
from ..readings.frequency import CountBaseline, count_batches
from ..readings.items import expand_roles
from .spec import ItemChoice


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


def left_context(items: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, int]]:
    """§5, a causal LM: the items whose other member lies before the masked word, and whose masked
    word begins a token after a space (the candidates are marker-initial whole-word tokens: a word
    glued to the one before it, SpaceAfter=No, begins with another token); the others counted."""
    prefix = pl.col("other_surface") < pl.col("masked_surface")
    counts = {"no-left-context": items.filter(~prefix).height}
    items = items.filter(prefix)
    glued = [
        space is not None and not space[m - 1]
        for space, m in items.select("space_after", "masked_surface").iter_rows()
    ]
    counts["no-space-before"] = int(sum(glued))
    return items.filter(~pl.Series(glued, dtype=pl.Boolean)), counts


def blanks(items: pl.DataFrame, control: str) -> list[Blank]:
    """Each item's sentence as a text with the blank the model is asked at: its masked word
    hidden (`context`), or every word hidden, the masked one asked at (`no-context`)."""
    found = []
    for words, space_after, m in items.select("words", "space_after", "masked_surface").iter_rows():
        text, spans = surface_text(words, space_after)
        if control == "no-context":
            found.append(Blank(text, tuple(spans), m))
        else:
            found.append(Blank(text, (spans[m],)))
    return found


Scorer = FormScorer | CountBaseline  # a model's distributions, or the baseline's counts


def model_candidates(choice: ItemChoice, corpus: Corpus, scorer: Scorer) -> CandidateSet:
    """§1.5: lexicon forms that are one whole-word token of the model (every form without a
    tokenizer); the baseline's, forms seen at least once (a form never seen could never win)."""
    tokenizer = scorer.tokenizer
    words = None if tokenizer is None else whole_word_vocab(tokenizer)
    fold = choice.case == "fold"
    min_count = scorer.min_count if isinstance(scorer, CountBaseline) else 0
    return build_candidates(corpus.lexicon, words, fold, min_count=min_count)


class ClassAverage:
    """§1.5: candidates of the model, correct/incorrect splits, means at the mask."""

    def __init__(self, choice: ItemChoice, corpus: Corpus, scorer: Scorer) -> None:
        self.choice, self.corpus, self.backend = choice, corpus, scorer
        self.candidates = model_candidates(choice, corpus, scorer)
        self.extra: dict[str, Any] = {}
        # The context the distribution reads: the baseline's, none.
        self.context = "none" if isinstance(scorer, CountBaseline) else scorer.context

    def items(self) -> tuple[pl.DataFrame, dict[str, int]]:
        """Items that can be scored; the others counted by reason."""
        choice = self.choice
        items, counts = build_items(self.corpus, choice.roles)
        if self.context == "left":
            items, skipped = left_context(items)
            counts.update(skipped)
        fold = choice.case == "fold"
        masked_words = items.select("upos", "form").iter_rows()
        cover = coverage(self.corpus.lexicon, self.candidates, masked_words, fold)
        self.extra = {"coverage": cover.as_dict(), "candidates": len(self.candidates)}
        items, self.splits = attach_splits(items, self.candidates, choice.match)
        enough = enough_candidates(choice.min_candidates)
        counts["too-few-candidates"] = items.filter(~enough).height
        return items.filter(enough), counts

    def ready(self) -> dict[str, Any]:
        """Wait for the model; its facts for the manifest."""
        if isinstance(self.backend, CountBaseline):
            return self.backend.facts()
        return self.backend.ready()

    def encode(self, items: pl.DataFrame) -> tuple[pl.DataFrame, Any, int]:
        """The items with their `distance_tokens` (counted here, in the text the model reads), the
        back-end's inputs of their blanks (none for the baseline), and how many were windowed."""
        distance = token_distances(items, self.backend.tokenizer, self.context)
        encoded, windowed = None, 0
        if not isinstance(self.backend, CountBaseline):
            encoded, windowed = self.backend.encode(blanks(items, self.choice.control))
        return items.with_columns(distance), encoded, windowed

    def subset(self, encoded: Any, keep: np.ndarray) -> Any:
        """Encoded inputs of the items kept (resume)."""
        if encoded is None or isinstance(self.backend, CountBaseline):
            return encoded
        return self.backend.subset(encoded, keep)

    def distributions(self, encoded: Any, n_items: int) -> Iterator[FormBatch]:
        """Each item's distribution over the candidates, batch by batch: the model's at its blank,
        or the baseline's count shares."""
        if isinstance(self.backend, CountBaseline):
            return count_batches(self.candidates.counts, n_items, self.backend.chunk_size)
        return self.backend.form_scores(encoded, self.candidates.token_ids, n_items)

    def score(self, items: pl.DataFrame, encoded: Any, writer: ChunkWriter) -> dict[str, int]:
        """The back-end's distributions over the candidates, decided item by item (§1.5); an item
        whose means are not finite (a model's overflow) is skipped and counted, never wrong."""
        keys = items["key_index"].to_numpy()
        masks = SplitMasks(self.splits)
        before = self.backend.forwards
        non_finite = 0
        for batch in self.distributions(encoded, items.height):
            correct, incorrect = masks.of(keys[batch.rows], batch.prob)
            decisions = decide(batch.prob, batch.logit, correct, incorrect)
            finite = decisions.finite()
            rows = batch.rows
            if not finite.all():
                non_finite += int((~finite).sum())
                decisions, rows = decisions.kept(finite), rows[finite]
            if len(rows):
                writer.add(rows, decisions, items)
        writer.forwards += self.backend.forwards - before
        writer.flush(items)
        return {"non-finite": non_finite}


class SplitMasks:
    """The correct/incorrect masks of items' split keys, as arrays or as tensors on the device of
    the back-end's answers (moved there once)."""

    def __init__(self, splits: Splits) -> None:
        self.splits = splits
        self.on_device: Any = None

    def of(self, keys: np.ndarray, like: Any) -> tuple[Any, Any]:
        """The masks of the items of `keys`, of the same kind as `like`."""
        if not hasattr(like, "detach"):
            return self.splits.correct[keys], self.splits.incorrect[keys]
        import torch

        if self.on_device is None:
            self.on_device = tuple(
                torch.from_numpy(m).to(like.device)
                for m in (self.splits.correct, self.splits.incorrect)
            )
        k = torch.as_tensor(keys, device=like.device)
        return self.on_device[0][k], self.on_device[1][k]
