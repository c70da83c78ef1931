"""Scoring pair suites (DESIGN.md §5, §7): a pair is right when score(good) > score(bad)."""

from __future__ import annotations

import polars as pl

from ..backends.api import TokenScorer
from ..readings.scoring_rules import differing_span, ingredients, rule_columns
from ..readings.token_sums import token_scores, with_leading_space, words_to_score


def score_pairs(
    pairs: pl.DataFrame, scorer: TokenScorer, rule: str = "sum", leading_space: bool = False
) -> pl.DataFrame:
    """The pairs with `score_good`, `score_bad` (log-probabilities), `right` (`rule`'s decision;
    a tie is not right) and every rule's ingredients and decision (§5.1), each sentence scored
    as written or, `leading_space`, after a space (lm-eval's BLiMP); where the layout knows the varied word
    (`start`, `end_good`, `end_bad`), its span goes with each sentence: a masked LM scoring word
    PLL scores that word (§7, gevalm's blank). The `word` rule reads that word, else the words
    where the two sentences differ. Each distinct sentence is scored once (a CLAMS True sentence
    serves several pairs)."""
    n = pairs.height
    good_texts, bad_texts = pairs["sentence_good"].to_list(), pairs["sentence_bad"].to_list()
    known = "start" in pairs.columns
    if known:
        # Offsets read from a text layout arrive as strings.
        offsets = pairs.select(pl.col("start", "end_good", "end_bad").cast(pl.Int64))
        starts = offsets["start"].to_list()
        good_words = list(zip(starts, offsets["end_good"].to_list(), strict=True))
        bad_words = list(zip(starts, offsets["end_bad"].to_list(), strict=True))
    else:
        differing = [differing_span(g, b) for g, b in zip(good_texts, bad_texts, strict=True)]
        good_words = [g for g, _ in differing]
        bad_words = [b for _, b in differing]
    texts, words = good_texts + bad_texts, good_words + bad_words
    if leading_space:
        texts, words, _ = with_leading_space(texts, words, [None] * len(texts))
    asked = words_to_score(scorer, 2 * n, words if known else None)
    # §5.1: a word PLL's ingredients are its word's; no corpus, no token unigram (null).
    covered = words if known and scorer.method == "pll-word" else None
    columns = ingredients(token_scores(scorer, texts, asked), texts, words, covered=covered)
    good = {k: v[:n] for k, v in columns.items()}
    bad = {k: v[n:] for k, v in columns.items()}
    rules = rule_columns(good, bad)
    return pairs.with_columns(
        pl.Series("score_good", good["lp_sum"]),
        pl.Series("score_bad", bad["lp_sum"]),
        rules[f"right_{rule}"].alias("right"),
        *rules.values(),
    )
