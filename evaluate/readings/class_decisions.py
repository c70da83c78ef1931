"""Correct/incorrect candidate sets (DESIGN.md §1.5) and the vectorised decision."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ud_agree.schemas.corpus import FEATURES

from .candidates import FEATURE_COLUMNS, Bundle, CandidateSet
from .frequency import count_shares

# Key of one correct/incorrect split: (upos, compared feature indices, masked word's values there).
SplitKey = tuple[str, tuple[int, ...], tuple[frozenset[str], ...]]


def split_key(upos: str, bundle: Bundle, agreeing: Sequence[str], match: str) -> SplitKey:
    """The part of an item that decides its candidate split: upos, compared features, their values."""
    if match == "exact":
        compared = tuple(range(len(FEATURES)))
    else:
        compared = tuple(sorted(FEATURES.index(f) for f in agreeing if f in FEATURES))
    return (upos, compared, tuple(bundle[i] for i in compared))


def classify(bundles: frozenset[Bundle], key: SplitKey, match: str) -> int:
    """1 correct, -1 incorrect, 0 not used — for one candidate's bundles under one split key."""
    _, compared, values = key
    if any(all(b[i] == v for i, v in zip(compared, values, strict=True)) for b in bundles):
        return 1
    if match == "exact":
        return -1
    # Agreement: incorrect only when some bundle has a value for every compared feature.
    if any(all(b[i] for i in compared) for b in bundles):
        return -1
    return 0


@dataclass(frozen=True)
class Splits:
    """Boolean masks over the global candidate list, one row per distinct split key."""

    keys: list[SplitKey]
    correct: np.ndarray  # (K, n_forms) bool
    incorrect: np.ndarray  # (K, n_forms) bool

    @property
    def n_correct(self) -> np.ndarray:
        """Number of correct candidates per key."""
        return self.correct.sum(axis=1)

    @property
    def n_incorrect(self) -> np.ndarray:
        """Number of incorrect candidates per key."""
        return self.incorrect.sum(axis=1)


def build_splits(keys: Sequence[SplitKey], candidates: CandidateSet, match: str) -> Splits:
    """Correct/incorrect masks for each distinct key, over the forms of the key's upos only."""
    n = len(candidates)
    correct = np.zeros((len(keys), n), dtype=bool)
    incorrect = np.zeros((len(keys), n), dtype=bool)
    # Many forms share one set of bundles: classify each distinct set once per key.
    groups: dict[str, tuple[np.ndarray, list[frozenset[Bundle]], np.ndarray]] = {}
    for upos, forms in candidates.by_upos.items():
        distinct: dict[frozenset[Bundle], int] = {}
        which = np.asarray(
            [distinct.setdefault(candidates.bundles[i], len(distinct)) for i in forms],
            dtype=np.int64,
        )
        groups[upos] = (forms, list(distinct), which)
    for row, key in enumerate(keys):
        if key[0] not in groups:
            continue
        forms, sets, which = groups[key[0]]
        labels = np.asarray([classify(b, key, match) for b in sets], dtype=np.int8)[which]
        correct[row, forms] = labels == 1
        incorrect[row, forms] = labels == -1
    return Splits(list(keys), correct, incorrect)


@dataclass(frozen=True)
class Decisions:
    """Per-item means of probabilities and logits over correct/incorrect candidates."""

    p_correct: np.ndarray
    p_incorrect: np.ndarray
    logit_correct: np.ndarray
    logit_incorrect: np.ndarray

    @property
    def right(self) -> np.ndarray:
        """Mean probability of the correct candidates strictly higher (a tie is not right)."""
        return self.p_correct > self.p_incorrect

    @property
    def right_logit(self) -> np.ndarray:
        """The same decision on mean raw logits, as the reference code compared."""
        return self.logit_correct > self.logit_incorrect

    def finite(self) -> np.ndarray:
        """Per item, whether all four means are finite (a NaN would decide `right` as False)."""
        means: tuple[Any, ...] = (
            self.p_correct, self.p_incorrect, self.logit_correct, self.logit_incorrect,
        )  # fmt: skip
        if hasattr(self.p_correct, "detach"):
            import torch

            return torch.stack([torch.isfinite(m) for m in means]).all(0).cpu().numpy()
        return np.logical_and.reduce([np.isfinite(np.asarray(m, dtype=np.float64)) for m in means])

    def kept(self, keep: np.ndarray) -> Decisions:
        """The decisions of the items `keep` marks."""
        index: Any = keep
        if hasattr(self.p_correct, "detach"):
            import torch

            index = torch.from_numpy(keep).to(self.p_correct.device)
        return Decisions(
            self.p_correct[index],
            self.p_incorrect[index],
            self.logit_correct[index],
            self.logit_incorrect[index],
        )


def decide(form_prob, form_logit, correct, incorrect) -> Decisions:
    """Means over the masked forms; all arguments (B, n_forms) arrays or tensors of one kind."""
    if hasattr(form_prob, "detach"):
        import torch

        c, i = correct.to(form_prob.dtype), incorrect.to(form_prob.dtype)
        nc, ni = c.sum(1), i.sum(1)
        # 0 * -inf would give nan: logits of unused forms are zeroed before the weighted sum.
        logits = torch.nan_to_num(form_logit, neginf=0.0)
        # Tensors stay on the device: the writer moves a whole chunk to the host at once.
        return Decisions(
            (form_prob * c).sum(1) / nc,
            (form_prob * i).sum(1) / ni,
            (logits * c).sum(1) / nc,
            (logits * i).sum(1) / ni,
        )
    c, i = correct.astype(np.float64), incorrect.astype(np.float64)
    nc, ni = c.sum(1), i.sum(1)
    logits = np.nan_to_num(form_logit, neginf=0.0)
    return Decisions(
        (form_prob * c).sum(1) / nc,
        (form_prob * i).sum(1) / ni,
        (logits * c).sum(1) / nc,
        (logits * i).sum(1) / ni,
    )


CONGRUENCE = ("congruent", "incongruent", "tie")


def congruence(good: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """§10: `congruent` where the frequency heuristic prefers the right side, `incongruent` where
    it prefers the wrong one, `tie` where it cannot choose (equal, or undefined)."""
    good, bad = np.asarray(good, dtype=np.float64), np.asarray(bad, dtype=np.float64)
    return np.where(good > bad, "congruent", np.where(good < bad, "incongruent", "tie"))


def frequency_decisions(candidates: CandidateSet, correct: np.ndarray, incorrect: np.ndarray):
    """The frequency baseline's §1.5 decision over these candidates: count shares as the
    'probabilities' (exactly what the baseline's run computes: readings/frequency.py)."""
    prob, logit = count_shares(candidates.counts)
    return decide(prob, logit, correct, incorrect)


def class_average_congruence(candidates: CandidateSet, splits: Splits) -> np.ndarray:
    """§10 for the class-average reading, one label per split key: would the frequency baseline
    get an item of this key right over the same candidates?"""
    if not len(splits.keys):
        return np.zeros(0, dtype=object)
    # A key with no candidate on one side has a NaN mean (`tie`); its items are then skipped
    # as too-few-candidates, so the label is never read.
    with np.errstate(invalid="ignore", divide="ignore"):
        decisions = frequency_decisions(candidates, splits.correct, splits.incorrect)
    return congruence(decisions.p_correct, decisions.p_incorrect)


def item_keys(items: pl.DataFrame, match: str) -> list:
    """Split key of every item (upos, compared features, masked word's values)."""
    names = [f"m_{name}" for name in FEATURE_COLUMNS]
    rows = items.select("upos", *names, "agreeing").rows()
    return [
        split_key(upos, tuple(_set(v) for v in values), agreeing or (), match)
        for upos, *values, agreeing in rows
    ]


def _set(values: Sequence[str] | None) -> frozenset[str]:
    return frozenset(values or ())


def attach_splits(
    items: pl.DataFrame, candidates: CandidateSet, match: str
) -> tuple[pl.DataFrame, Splits]:
    """Add `key_index`, `n_correct`, `n_incorrect` columns; splits computed once per distinct key."""
    keys = item_keys(items, match)
    distinct = sorted(set(keys), key=repr)
    position = {k: i for i, k in enumerate(distinct)}
    splits = build_splits(distinct, candidates, match)
    index = np.asarray([position[k] for k in keys], dtype=np.int64)
    frequency = class_average_congruence(candidates, splits)
    items = items.with_columns(
        pl.Series("key_index", index),
        pl.Series("n_correct", splits.n_correct[index].astype(np.int32)),
        pl.Series("n_incorrect", splits.n_incorrect[index].astype(np.int32)),
        pl.Series("frequency", frequency[index] if len(index) else [], dtype=pl.String),
    )
    return items, splits


def enough_candidates(minimum: int) -> pl.Expr:
    """Items with at least `minimum` correct and `minimum` incorrect candidates."""
    return (pl.col("n_correct") >= minimum) & (pl.col("n_incorrect") >= minimum)
