"""The pair reading (DESIGN.md §5, §5.1), written once for every source of pairs: both sentences of
each pair scored by a token scorer, every rule's ingredients, and its decisions; a pair is right
when its rule's value is higher for the good sentence (a tie is not right)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ..backends.api import Span, TokenScorer
from .scoring_rules import TokenUnigram, differing_span, ingredients, rule_columns
from .token_sums import token_scores, with_leading_space, words_to_score

# The characters of the varied word in a pair table, where its source knows them (a mined pair,
# gevalm's blank): `start` in both sentences, `end_good` and `end_bad`.
SPAN_COLUMNS = ("start", "end_good", "end_bad")


def varied_spans(pairs: pl.DataFrame) -> list[Span] | None:
    """The varied word's span in each good, then each bad sentence; None where the table does not
    say (a peer's pair names no word)."""
    if not set(SPAN_COLUMNS) <= set(pairs.columns):
        return None
    # Offsets read from a text layout arrive as strings.
    offsets = pairs.select(pl.col(*SPAN_COLUMNS).cast(pl.Int64))
    starts = offsets["start"].to_list()
    good = zip(starts, offsets["end_good"].to_list(), strict=True)
    bad = zip(starts, offsets["end_bad"].to_list(), strict=True)
    return [*good, *bad]


def pair_scores(
    scorer: TokenScorer,
    pairs: pl.DataFrame,
    rule: str = "sum",
    leading_space: bool = False,
    words: Sequence[Sequence[Span] | None] | None = None,
    unigram: TokenUnigram | None = None,
) -> dict[str, pl.Series]:
    """`score_good`, `score_bad` (log-probabilities), `right` (`rule`'s decision) and every rule's
    ingredients and decision for each pair (`sentence_good`, `sentence_bad`). Where the table
    gives the varied word (SPAN_COLUMNS), a masked LM's word PLL scores it and the `word` rule
    reads it; else the `word` rule reads the words where the sentences differ. `words`: the
    surface words a sentence PLL scores in each good, then each bad sentence (None: the
    tokenizer's). Each distinct sentence is scored once; a NaN score: it could not be scored."""
    n = pairs.height
    texts = pairs["sentence_good"].to_list() + pairs["sentence_bad"].to_list()
    known = varied_spans(pairs)
    if known is None:
        differing = [differing_span(g, b) for g, b in zip(texts[:n], texts[n:], strict=True)]
        spans = [g for g, _ in differing] + [b for _, b in differing]
    else:
        spans = known
    given: list[Sequence[Span] | None] = [None] * (2 * n) if words is None else list(words)
    if leading_space:
        texts, spans, given = with_leading_space(texts, spans, given)  # type: ignore[assignment]
    asked = words_to_score(scorer, 2 * n, None if known is None else spans, given)
    # §5.1: a word PLL's ingredients are its word's.
    covered = spans if known is not None and scorer.method == "pll-word" else None
    columns = ingredients(token_scores(scorer, texts, asked), texts, spans, unigram, covered)
    good = {k: v[:n] for k, v in columns.items()}
    bad = {k: v[n:] for k, v in columns.items()}
    rules = rule_columns(good, bad)
    return {
        "score_good": pl.Series("score_good", good["lp_sum"]),
        "score_bad": pl.Series("score_bad", bad["lp_sum"]),
        "right": rules[f"right_{rule}"].alias("right"),
        **rules,
    }
