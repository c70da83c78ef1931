"""The pair reading (DESIGN.md §4–5): one minimal pair per row of `pairs.parquet`, right when
score(good) > score(bad), with a causal LM (sentence log-probability), a masked LM (PLL) or the
frequency baseline (lexicon counts)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import polars as pl

from ud_agree.schemas.corpus import SENTENCE_KEY
from ud_agree.surface import Span, surface_text, word_spans

from ..backends.api import TokenScorer
from ..corpus import Corpus
from ..output.writer import ChunkWriter
from ..readings.class_decisions import congruence
from ..readings.distance import sentence_distances
from ..readings.frequency import PAIR_FACTS, CountBaseline, count_pair_columns, pair_counts
from ..readings.pair_scores import pair_scores
from ..readings.scoring_rules import TokenUnigram, token_unigram
from ..sources.corpus import build_pair_items
from .pair_chunks import score_pair_chunks
from .spec import Pace, Scoring

# Loads the pair scorer (the model's, or the baseline's counts) when the run is ready for it.
PairScorerLoader = Callable[[], "TokenScorer | CountBaseline"]


class PairReading:
    """§5: score(good) vs score(bad) for every minimal pair; distinct sentences scored once."""

    def __init__(
        self, scoring: Scoring, pace: Pace, corpus: Corpus, load: PairScorerLoader
    ) -> None:
        self.scoring, self.pace, self.corpus, self.load = scoring, pace, corpus, load
        self.scorer: TokenScorer | CountBaseline | None = None  # loaded by ready()
        self.extra: dict[str, Any] = {}
        self._unigram: TokenUnigram | None = None  # counted once per run, on first use
        # Sentence PLL: pairs whose sentences the UD words could not serve (their words absent,
        # or not the sentence's), scored over the tokenizer's words instead, counted.
        self.tokenizer_words = 0

    def items(self) -> tuple[pl.DataFrame, dict[str, int]]:
        """One item per pair, with its sentence's surface words (for the token distance)."""
        items, counts = build_pair_items(self.corpus)
        sentence_cols = [
            c for c in (*SENTENCE_KEY, "words", "space_after") if c in self.corpus.sentences.columns
        ]
        sentences = self.corpus.sentences.select(sentence_cols).unique(list(SENTENCE_KEY))
        items = items.join(sentences, on=list(SENTENCE_KEY), how="left").sort("item")
        # §10: what the frequency heuristic decides on each pair, whatever the model.
        good, bad = pair_counts(items, self.corpus.lexicon)
        items = items.with_columns(
            pl.Series("good_count", good.astype(np.int64)),
            pl.Series("bad_count", bad.astype(np.int64)),
            pl.Series("frequency", congruence(good, bad), dtype=pl.String),
        )
        if "space_after" not in items.columns:
            items = items.with_columns(pl.lit(None, dtype=pl.List(pl.Boolean)).alias("space_after"))
        return items, counts

    def ready(self) -> dict[str, Any]:
        """Load the scorer (the model's, or the one given); its facts for the manifest."""
        if self.scorer is None:
            self.scorer = self.load()
        if isinstance(self.scorer, CountBaseline):
            return dict(PAIR_FACTS)
        return self.scorer.facts()

    @property
    def forwards(self) -> int:
        """Inputs the scorer has scored so far (not forward passes)."""
        return 0 if self.scorer is None else self.scorer.forwards

    def pair_columns(self, pairs: pl.DataFrame) -> dict[str, pl.Series]:
        """Each pair's scores and rule columns (§5, §5.1), in one call (a sentence shared by pairs
        scored once): lexicon counts, or the §5 sentence score (a masked LM's word PLL at the
        varied word, or its sentence PLL over the UD surface words) with the ingredients of every
        rule; `right` is the run's rule. A NaN score: the pair cannot be scored."""
        assert self.scorer is not None, "ready() loads the scorer"
        if isinstance(self.scorer, CountBaseline):
            # The items carry their forms' counts (§10's heuristic reads them too).
            return count_pair_columns(pairs["good_count"].to_numpy(), pairs["bad_count"].to_numpy())
        words = pair_words(pairs)
        if self.scorer.method == "pll-sentence":
            self.tokenizer_words += sum(w is None for w in words[: pairs.height])
        scoring = self.scoring
        return pair_scores(
            self.scorer, pairs, scoring.rule, scoring.leading_space, words, self.unigram()
        )

    def unigram(self) -> TokenUnigram | None:
        """The scorer's tokens counted over every sentence of the language (§5.1's token
        unigram), once per run; None for a scorer without a tokenizer."""
        tokenizer = None if self.scorer is None else self.scorer.tokenizer
        if self._unigram is None and tokenizer is not None:
            sentences = self.corpus.sentences
            space = (
                sentences["space_after"].to_list()
                if "space_after" in sentences.columns
                else [None] * sentences.height
            )
            texts = [
                surface_text(words, after)[0]
                for words, after in zip(sentences["words"].to_list(), space, strict=True)
            ]
            self._unigram = token_unigram(tokenizer, texts)
        return self._unigram

    def encode(self, items: pl.DataFrame) -> tuple[pl.DataFrame, Any, int]:
        """`distance_tokens` from the scorer's tokenizer (null without one); nothing else to encode."""
        tokenizer = None if self.scorer is None else self.scorer.tokenizer
        return items.with_columns(sentence_distances(items, tokenizer)), None, 0

    def subset(self, encoded: Any, keep: np.ndarray) -> Any:
        """Nothing is encoded ahead."""
        return encoded

    def score(self, items: pl.DataFrame, encoded: Any, writer: ChunkWriter) -> dict[str, int]:
        """Scores of both sentences, chunk by chunk (a sentence's pairs never straddle two chunks,
        so each distinct sentence is scored once); pairs a model cannot score are `too-long`."""
        assert self.scorer is not None, "ready() loads the scorer"
        scoring = self.scoring
        # The frequency baseline compares counts, not sentences: no tokens to compare.
        tokenizer = None if isinstance(self.scorer, CountBaseline) else self.scorer.tokenizer

        def score(pairs: pl.DataFrame) -> dict[str, pl.Series]:
            before = self.forwards
            columns = self.pair_columns(pairs)
            writer.forwards += self.forwards - before
            return columns

        def write(rows: np.ndarray, columns: dict[str, pl.Series]) -> None:
            rule = pl.Series("rule", [scoring.rule] * len(rows), dtype=pl.String)
            writer.add(rows, {**columns, "rule": rule}, items)

        counts = score_pair_chunks(
            items,
            sentence_chunks(items, self.pace.chunk_size),
            score,
            write,
            tokenizer,
            scoring.leading_space,
            f"right_{scoring.rule}",
            {"disable": not self.pace.progress},
        )
        writer.flush(items)
        reasons = ("too-long", "undecided", "identical", "same-tokens")
        return {
            **{reason: counts[reason] for reason in reasons},
            # Not a skip (no hyphen): a fallback, scored all the same.
            "words_from_tokenizer": self.tokenizer_words,
        }


def sentence_chunks(items: pl.DataFrame, size: int) -> Iterator[np.ndarray]:
    """Row indices in chunks of about `size`, cut only where the sentence changes."""
    keys = items.select(SENTENCE_KEY).with_columns(pl.all().fill_null(""))
    change = (
        np.r_[True, (keys[1:].to_numpy() != keys[:-1].to_numpy()).any(axis=1)]
        if items.height
        else np.zeros(0, bool)
    )
    starts = np.flatnonzero(change)
    begin = 0
    for at in starts[1:]:
        if at - begin >= size:
            yield np.arange(begin, at)
            begin = at
    if begin < items.height:
        yield np.arange(begin, items.height)


def split_token(spans: list[Span], start: int, end: int) -> list[Span] | None:
    """The surface words' spans with the one that holds the varied word's part [start, end)
    (a transparent multiword token, §4: *is* of *isn't*) split at it into its words; None when
    no surface word holds it."""
    for i, (a, b) in enumerate(spans):
        if a <= start and end <= b:
            parts = [(x, y) for x, y in ((a, start), (start, end), (end, b)) if x < y]
            return spans[:i] + parts + spans[i + 1 :]
    return None


def pair_words(pairs: pl.DataFrame) -> list[list[Span] | None]:
    """The surface words' spans in each good, then each bad sentence (DESIGN.md §5: sentence
    PLL's words are UD's for the corpus's pairs; a nonce variant's are its original's, replaced;
    a token holding the varied word is split at it). None where the sentence cannot be split so
    (no `words` known): the tokenizer's words."""
    good: list[list[Span] | None] = []
    bad: list[list[Span] | None] = []
    if "words" not in pairs.columns:
        return [None] * (2 * pairs.height)
    for words, space_after, text, start, end_good, end_bad in pairs.select(
        "words", "space_after", "sentence_good", "start", "end_good", "end_bad"
    ).iter_rows():
        spans = None if words is None else word_spans(text, words, space_after)
        if spans is not None and (start, end_good) not in spans:
            spans = split_token(spans, start, end_good)
        if spans is None:
            good.append(None)
            bad.append(None)
            continue
        shift = end_bad - end_good
        good.append(spans)
        bad.append(
            [
                (a, end_bad)
                if (a, b) == (start, end_good)
                else (a + shift, b + shift)
                if a >= end_good
                else (a, b)
                for a, b in spans
            ]
        )
    return good + bad
