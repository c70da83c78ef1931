"""The SyntaxGym task's reading (DESIGN.md §7): a condition's regions' surprisals from its
sentence's scored tokens, and each prediction of an item tested on them."""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Sequence

from ..backends.api import TokenScorer, TokenScores
from ..sources import formula
from ..sources.syntaxgym import Condition, GymSuite, Item


def region_surprisals(condition: Condition, tokens: TokenScores) -> dict[int, float]:
    """Surprisal in bits of each region of a condition, from its sentence's scored tokens."""
    _, spans = condition.layout()
    totals = {number: 0.0 for number, _ in condition.regions}
    starts = [start for _, start, _ in spans]
    for (start, end), logprob in zip(tokens.spans, tokens.logprobs, strict=True):
        last = max(end - 1, start)  # the token's last character decides its region
        k = bisect.bisect_right(starts, last) - 1
        if k >= 0 and last < spans[k][2]:
            totals[spans[k][0]] -= float(logprob) / math.log(2)
    return totals


def score_items(
    suite: GymSuite, items: Sequence[Item], scorer: TokenScorer
) -> list[dict[str, object]]:
    """One result row per (item, prediction): whether the prediction holds, with all surprisals."""
    texts = list(dict.fromkeys(c.layout()[0] for item in items for c in item.conditions.values()))
    scored = dict(zip(texts, scorer.token_scores(texts), strict=True))
    rows: list[dict[str, object]] = []
    for item in items:
        bits = {
            name: region_surprisals(condition, scored[condition.layout()[0]])
            for name, condition in item.conditions.items()
        }

        def surprisal(name: str, region: int | None, bits=bits) -> float:
            return sum(bits[name].values()) if region is None else bits[name][region]

        record = json.dumps({c: {str(r): v for r, v in b.items()} for c, b in bits.items()})
        # A condition longer than the model's window has no surprisals (NaN): not decidable.
        finite = all(math.isfinite(v) for b in bits.values() for v in b.values())
        for prediction in suite.predictions:
            rows.append(
                {
                    "suite": suite.name,
                    "format": suite.format,
                    "pair_id": str(item.number),
                    "line": item.line,
                    "prediction": prediction.index,
                    "formula": prediction.formula,
                    "right": bool(formula.evaluate(prediction.tree, surprisal)),
                    "surprisals": record,
                    "finite": finite,
                }
            )
    return rows
