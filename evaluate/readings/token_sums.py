"""Sums over a back-end's tokens (DESIGN.md §5): a sentence's score is the sum of its scored tokens'
log-probabilities; which tokens a masked LM scores (one word, every UD word, every tokenizer word)
is asked here. Every reading and suite sums through this module."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..backends.api import Span, TokenScorer, TokenScores


def words_to_score(
    scorer: TokenScorer,
    count: int,
    spans: Sequence[Span] | None = None,
    words: Sequence[Sequence[Span] | None] | None = None,
) -> list[tuple[Span, ...] | None]:
    """What a masked LM scores in each text (§5): the word at `spans[i]` (word PLL), else the words
    `words[i]` (sentence PLL over given words), else None (every token, or the tokenizer's words)."""
    if scorer.method == "pll-word":
        if spans is None:
            raise ValueError("word PLL needs the span of the word to score")
        return [((int(a), int(b)),) for a, b in spans]
    if scorer.method == "pll-sentence" and words is not None:
        return [None if w is None else tuple((int(a), int(b)) for a, b in w) for w in words]
    return [None] * count


def with_leading_space(
    texts: Sequence[str],
    spans: Sequence[Span],
    words: Sequence[Sequence[Span] | None],
) -> tuple[list[str], list[Span], list[list[Span] | None]]:
    """ " " + each text, as lm-eval's `blimp_*` tasks score it (their default target delimiter,
    §5.1), with the spans of its word and of its words one character later."""

    def later(span: Span) -> Span:
        return (span[0] + 1, span[1] + 1)

    return (
        [" " + t for t in texts],
        [later(s) for s in spans],
        [None if w is None else [later(s) for s in w] for w in words],
    )


def token_scores(
    scorer: TokenScorer, texts: Sequence[str], words: Sequence[tuple[Span, ...] | None]
) -> list[TokenScores]:
    """The scorer's tokens of each text; each distinct (text, words) asked once."""
    keys = list(zip(texts, words, strict=True))
    index: dict[tuple[str, tuple[Span, ...] | None], int] = {}
    where = [index.setdefault(key, len(index)) for key in keys]
    distinct = list(index)
    asked = [w for _, w in distinct]
    found = scorer.token_scores(
        [t for t, _ in distinct], None if all(w is None for w in asked) else asked
    )
    if len(found) != len(distinct):
        raise ValueError(f"the scorer gave {len(found)} answers for {len(distinct)} texts")
    return [found[i] for i in where]


def sentence_scores(
    scorer: TokenScorer,
    texts: Sequence[str],
    spans: Sequence[Span] | None = None,
    words: Sequence[Sequence[Span] | None] | None = None,
) -> np.ndarray:
    """§5 score of each text (float64, natural log): the sum of its scored tokens' log-probabilities
    (a causal LM's every token; a masked LM's word PLL at `spans`, or its sentence PLL over
    `words`); NaN where the scorer could not score it."""
    asked = words_to_score(scorer, len(texts), spans, words)
    scored = token_scores(scorer, texts, asked)
    return np.asarray([float(np.sum(s.logprobs)) for s in scored], dtype=np.float64)


def score_sentences(
    scorer: TokenScorer,
    texts: Sequence[str],
    spans: Sequence[Span] | None = None,
) -> np.ndarray:
    """Scores of `texts` (float64, natural log): a causal LM's log-probability, a masked LM's PLL
    (of the word at `spans` when given); `scorer` from `load_scorer`."""
    return sentence_scores(scorer, list(texts), spans)


def same_tokens(tokenizer: Any, good: Sequence[str], bad: Sequence[str]) -> np.ndarray:
    """Pairs whose two sentences differ as text but not as the model's tokens (a double space, a
    zero-width character or an accent the tokenizer normalizes away): no model can prefer one, so
    they are skipped (`same-tokens`), never counted as a tie. False everywhere without a
    tokenizer."""
    flags = np.zeros(len(good), dtype=bool)
    differ = [i for i, (g, b) in enumerate(zip(good, bad, strict=True)) if g != b]
    if tokenizer is None or not differ:
        return flags
    texts = [good[i] for i in differ] + [bad[i] for i in differ]
    ids = tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]
    n = len(differ)
    for k, i in enumerate(differ):
        flags[i] = list(ids[k]) == list(ids[n + k])
    return flags
