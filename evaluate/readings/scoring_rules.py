"""Scoring rules side by side (DESIGN.md §5.1): each pair's ingredients for its good and its bad
sentence, read off the back-end's token log-probabilities, and every rule's decision from them.
The rules are one table (`RULE_TABLE`: name → value, peer); an unknown name is refused.

A decision is value(good) > value(bad): a tie is not right (lm-eval's argmax counts it right).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ud_agree.schemas.results import INGREDIENT_FIELDS, RULE_NAMES, Rule

from ..backends.api import Span, TokenScores

INGREDIENTS = tuple(name for name, _, _ in INGREDIENT_FIELDS)
Columns = dict[str, np.ndarray]


@dataclass(frozen=True)
class ScoringRule:
    """One rule of §5.1: its value from a sentence's ingredients, and the peer it reproduces."""

    value: Callable[[Mapping[str, np.ndarray]], np.ndarray]
    peer: str


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return numerator / denominator


RULE_TABLE: dict[str, ScoringRule] = {
    "sum": ScoringRule(
        lambda c: c["lp_sum"], "lm-evaluation-harness `acc` (no context, no delimiter)"
    ),
    "minicons": ScoringRule(
        lambda c: c["lp_native"], "minicons `sequence_score` summed (MultiBLiMP's scorer)"
    ),
    "mean": ScoringRule(
        lambda c: _ratio(c["lp_sum"], c["n_tokens"]),
        "minicons' mean reduction where the tokenizer adds BOS",
    ),
    "chars": ScoringRule(
        lambda c: _ratio(c["lp_sum"], c["n_chars"]), "lm-evaluation-harness `acc_norm`"
    ),
    "bytes": ScoringRule(
        lambda c: _ratio(c["lp_sum"], c["n_bytes"]), "lm-evaluation-harness `acc_bytes`"
    ),
    "word": ScoringRule(
        lambda c: c["lp_word"], "BLiMP's one-prefix method, critical-word surprisal"
    ),
    "slor": ScoringRule(
        lambda c: _ratio(c["lp_sum"] - c["lp_unigram"], c["n_tokens"]),
        "SLOR (Lau et al. 2017; token unigram as Lau et al. 2020)",
    ),
}
RULES: tuple[Rule, ...] = RULE_NAMES
assert tuple(RULE_TABLE) == RULES, "the table and the Rule type name the same rules"


def ingredients(
    scored: Sequence[TokenScores],
    texts: Sequence[str],
    words: Sequence[Span | None],
    unigram: TokenUnigram | None = None,
    covered: Sequence[Span] | None = None,
) -> Columns:
    """The §5.1 ingredients of each text (float64; NaN for null), each over the span `lp_sum`
    covers (`covered[i]`: a masked LM's word under `--pll word`; None: the whole text): its
    scored tokens' sum, the sum of the tokenizer's own encoding (`lp_native`, NaN where not run),
    how many tokens were scored, the span's characters and UTF-8 bytes, the sum over the tokens
    of the word at `words[i]`, and the scored tokens' unigram log-probability."""
    spans = [
        t if covered is None else t[covered[i][0] : covered[i][1]] for i, t in enumerate(texts)
    ]
    columns: Columns = {
        "lp_sum": np.asarray([float(np.sum(s.logprobs)) for s in scored], dtype=np.float64),
        "lp_native": np.asarray(
            [math.nan if s.native is None else float(np.sum(s.native)) for s in scored],
            dtype=np.float64,
        ),
        "n_tokens": np.asarray([len(s.logprobs) for s in scored], dtype=np.float64),
        "n_chars": np.asarray([len(t) for t in spans], dtype=np.float64),
        "n_bytes": np.asarray([len(t.encode("utf-8")) for t in spans], dtype=np.float64),
        "lp_word": np.asarray(
            [word_logprob(s, w) for s, w in zip(scored, words, strict=True)], dtype=np.float64
        ),
    }
    columns["lp_unigram"] = unigram_logprobs(scored, unigram)
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


def rule_values(columns: Mapping[str, np.ndarray], rule: str) -> np.ndarray:
    """Each sentence's value under `rule` (NaN where its ingredients are missing); an unknown
    rule is a ValueError."""
    found = RULE_TABLE.get(rule)
    if found is None:
        raise ValueError(f"unknown scoring rule {rule!r}: expected one of {', '.join(RULE_TABLE)}")
    return found.value(columns)


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


@dataclass(frozen=True)
class TokenUnigram:
    """The model's own tokens counted over a language's sentences (Lau et al. 2020, §5.1)."""

    counts: np.ndarray  # c(t), one per vocabulary id
    total: int  # N: every token counted

    @property
    def denominator(self) -> float:
        """log(N + V), V the tokenizer's vocabulary size."""
        return math.log(self.total + len(self.counts))


def token_unigram(tokenizer: Any, texts: Sequence[str], batch: int = 4096) -> TokenUnigram:
    """Each vocabulary id's count over `texts` as `tokenizer` splits them (no special tokens)."""
    size = len(tokenizer)
    counts = np.zeros(size, dtype=np.int64)
    for start in range(0, len(texts), batch):
        encoded = tokenizer(list(texts[start : start + batch]), add_special_tokens=False)
        flat = np.fromiter(itertools.chain.from_iterable(encoded["input_ids"]), dtype=np.int64)
        counts += np.bincount(flat, minlength=size)[:size]
    return TokenUnigram(counts, int(counts.sum()))


def unigram_logprobs(scored: Sequence[TokenScores], unigram: TokenUnigram | None) -> np.ndarray:
    """Σ over each text's scored tokens of log((c(t) + 1) / (N + V)); NaN where the tokens' ids
    or the counts are unknown (a suite scored without a corpus, a stub scorer)."""
    out = np.full(len(scored), math.nan)
    if unigram is None:
        return out
    for i, s in enumerate(scored):
        if s.ids is not None:
            out[i] = float(np.sum(np.log(unigram.counts[s.ids] + 1.0))) - len(s.ids) * (
                unigram.denominator
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
