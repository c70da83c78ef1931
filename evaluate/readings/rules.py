"""Scoring rules side by side (DESIGN.md §5.1): each pair's ingredients for its good and its bad
sentence, read off one forward's token log-probabilities, and every rule's decision from them.

| rule     | value                          | the peer that uses it                              |
|----------|--------------------------------|----------------------------------------------------|
| `sum`    | lp_sum                         | lm-evaluation-harness `acc`; BLiMP's simple method |
| `no_bos` | lp_sum − lp_first              | minicons `sequence_score` (MultiBLiMP's scorer)    |
| `mean`   | lp_sum / n_tokens              | minicons with a mean reduction                     |
| `chars`  | lp_sum / n_chars               | lm-evaluation-harness `acc_norm`                   |
| `bytes`  | lp_sum / n_bytes               | lm-evaluation-harness `acc_bytes`                  |
| `word`   | lp_word                        | BLiMP's one-prefix method, critical-word surprisal |
| `slor`   | (lp_sum − lp_unigram)/n_tokens | SLOR (Lau, Clark & Lappin 2017)                    |

A decision is value(good) > value(bad): a tie is not right (lm-eval's argmax counts it right).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import get_args

import numpy as np
import polars as pl

from ..backends.api import Span, TokenScores
from ..options import Rule

RULES: tuple[Rule, ...] = get_args(Rule)
INGREDIENTS = ("lp_sum", "lp_first", "n_tokens", "n_chars", "n_bytes", "lp_word", "lp_unigram")
Columns = dict[str, np.ndarray]


def ingredients(
    scored: Sequence[TokenScores],
    texts: Sequence[str],
    words: Sequence[Span | None],
    unigram: np.ndarray | None = None,
) -> Columns:
    """The §5.1 ingredients of each text (float64; NaN for null): its scored tokens' sum, the
    first token's given BOS, how many tokens were scored, its characters and UTF-8 bytes, the sum
    over the tokens of the word at `words[i]`, and its unigram log-probability (`unigram`)."""
    columns: Columns = {
        "lp_sum": np.asarray([float(np.sum(s.logprobs)) for s in scored], dtype=np.float64),
        "lp_first": np.asarray(
            [
                float(s.logprobs[0]) if s.first_given_bos and len(s.logprobs) else math.nan
                for s in scored
            ],
            dtype=np.float64,
        ),
        "n_tokens": np.asarray([len(s.logprobs) for s in scored], dtype=np.float64),
        "n_chars": np.asarray([len(t) for t in texts], dtype=np.float64),
        "n_bytes": np.asarray([len(t.encode("utf-8")) for t in texts], dtype=np.float64),
        "lp_word": np.asarray(
            [word_logprob(s, w) for s, w in zip(scored, words, strict=True)], dtype=np.float64
        ),
    }
    columns["lp_unigram"] = (
        np.full(len(texts), math.nan) if unigram is None else np.asarray(unigram, np.float64)
    )
    return columns


def word_logprob(scored: TokenScores, word: Span | None) -> float:
    """The sum over the scored tokens that overlap the word's characters (NaN: no word given)."""
    if word is None:
        return math.nan
    start, end = word
    inside = [
        float(lp)
        for (a, b), lp in zip(scored.spans, scored.logprobs, strict=True)
        if (a < end and b > start) or (a == b and start <= a < end)
    ]
    return float(np.sum(inside))


def rule_values(columns: Mapping[str, np.ndarray], rule: Rule) -> np.ndarray:
    """Each sentence's value under `rule` (NaN where its ingredients are missing)."""
    lp_sum = columns["lp_sum"]
    with np.errstate(divide="ignore", invalid="ignore"):
        if rule == "sum":
            return lp_sum
        if rule == "no_bos":
            return lp_sum - np.nan_to_num(columns["lp_first"], nan=0.0)
        if rule == "mean":
            return lp_sum / columns["n_tokens"]
        if rule == "chars":
            return lp_sum / columns["n_chars"]
        if rule == "bytes":
            return lp_sum / columns["n_bytes"]
        if rule == "word":
            return columns["lp_word"]
        return (lp_sum - columns["lp_unigram"]) / columns["n_tokens"]


def decisions(
    good: Mapping[str, np.ndarray], bad: Mapping[str, np.ndarray]
) -> dict[str, pl.Series]:
    """`right_<rule>` for every rule: value(good) > value(bad); null where a value is missing."""
    out: dict[str, pl.Series] = {}
    for rule in RULES:
        g, b = rule_values(good, rule), rule_values(bad, rule)
        known = pl.Series(np.isfinite(g) & np.isfinite(b))
        right = pl.Series(f"right_{rule}", g > b)
        out[right.name] = pl.select(pl.when(known).then(right)).to_series().alias(right.name)
    return out


def rule_columns(good: Columns, bad: Columns) -> dict[str, pl.Series]:
    """The result columns of pairs: each ingredient `_good` and `_bad` (null for NaN), and every
    rule's decision."""
    out: dict[str, pl.Series] = {}
    for name in INGREDIENTS:
        for side, columns in (("good", good), ("bad", bad)):
            out[f"{name}_{side}"] = pl.Series(f"{name}_{side}", columns[name]).fill_nan(None)
    return {**out, **decisions(good, bad)}


def unigram_logprobs(
    texts: Sequence[str], words: Sequence[Sequence[Span] | None], lexicon: pl.DataFrame
) -> np.ndarray:
    """Σ over each text's words of log((count(w) + 1) / (N + V)), counts from the lexicon
    case-folded (N all counts, V all folded forms); NaN where a text's words are unknown."""
    counts = (
        lexicon.select(pl.col("form").str.to_lowercase().alias("key"), "count")
        .filter(pl.col("key").is_not_null() & (pl.col("key") != "_"))
        .group_by("key")
        .agg(pl.col("count").sum())
    )
    table = dict(zip(counts["key"].to_list(), counts["count"].to_list(), strict=True))
    denominator = math.log(float(sum(table.values())) + len(table))
    out = np.full(len(texts), math.nan)
    for i, (text, spans) in enumerate(zip(texts, words, strict=True)):
        if spans is not None:
            out[i] = sum(
                math.log(table.get(text[a:b].lower(), 0) + 1) - denominator for a, b in spans
            )
    return out


def differing_span(good: str, bad: str) -> tuple[Span, Span]:
    """The words where two sentences differ: their characters after the common prefix and before
    the common suffix, widened to whitespace on both sides (a peer's pair names no word)."""
    limit = min(len(good), len(bad))
    start = next((i for i in range(limit) if good[i] != bad[i]), limit)
    tail = 0
    while tail < limit - start and good[-1 - tail] == bad[-1 - tail]:
        tail += 1
    spans = []
    for text in (good, bad):
        a, b = start, len(text) - tail
        while a > 0 and not text[a - 1].isspace():
            a -= 1
        while b < len(text) and not text[b].isspace():
            b += 1
        spans.append((a, b))
    return spans[0], spans[1]
