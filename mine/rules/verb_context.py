"""What the words around a target say about it (§4.3, the uniform draw's failures), read from
the tree over all words of a file at once (numpy): a finite *have*, *be* or *do* after a modal of
its own verb chain (a mis-tagged infinitive: *they must have been*), a word doubled beside the
target (*la la familia*), a clause complement of a mandative head, where the base form is a
subjunctive (*I ask that the Commission ensure*). The language's words are data
(`mine/data/modal_chain.tsv`, `mine/data/mandative_heads.tsv`, each row citing its grammar)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ..resources import read_rows
from . import relations as rules

if TYPE_CHECKING:
    from ..columnar import Table

AFTER_MODAL = "after-modal"
DOUBLED_WORD = "doubled-word"
MANDATIVE = "mandative"

# The deprels of a clause complement a mandative head governs (*ask that …* `ccomp`, *it is
# important that …* `csubj`, *the requirement that …* `acl`; a relative clause is none).
_COMPLEMENTS = (b"ccomp", b"csubj", b"csubj:pass", b"acl")


@dataclass(frozen=True)
class VerbContext:
    """A language's words for these rules: its modals, the verbs a modal makes non-finite, and
    its mandative heads (empty: the rule does not apply)."""

    modals: frozenset[str] = frozenset()
    chain_verbs: frozenset[str] = frozenset()
    mandative_heads: frozenset[str] = frozenset()


def load_verb_contexts() -> dict[str, VerbContext]:
    """UD code → its VerbContext, from `mine/data/modal_chain.tsv` and
    `mine/data/mandative_heads.tsv`."""
    modals: dict[str, set[str]] = defaultdict(set)
    verbs: dict[str, set[str]] = defaultdict(set)
    heads: dict[str, set[str]] = defaultdict(set)
    for row in read_rows("modal_chain.tsv"):
        words = {w.strip() for w in row["lemmas"].split(",") if w.strip()}
        (modals if row["role"].strip() == "modal" else verbs)[row["code"].strip()] |= words
    for row in read_rows("mandative_heads.tsv"):
        heads[row["code"].strip()].add(row["lemma"].strip())
    return {
        code: VerbContext(frozenset(modals[code]), frozenset(verbs[code]), frozenset(heads[code]))
        for code in {*modals, *verbs, *heads}
    }


def target_context(
    table: Table, words: rules.Words, t: np.ndarray, context: VerbContext
) -> pa.Array:
    """Per relation (its target t): `doubled-word`, `after-modal`, `mandative` (the target's
    clause is a complement of a mandative head; the pair rules skip it only where the bad form
    is the base form), or null."""
    reason = np.full(len(t), None, object)
    if len(t) == 0:
        return pa.array(reason, pa.string())
    lemma = _lower(table.rows.strings(2, table.word_rows))
    reason[_after_modal(words, t, lemma, context)] = AFTER_MODAL
    return pa.array(reason, pa.string())


def _lower(strings: pa.Array) -> pl.Series:
    return pl.Series(pc.utf8_lower(strings)).cast(pl.String)


def _after_modal(
    words: rules.Words, t: np.ndarray, lemma: pl.Series, context: VerbContext
) -> np.ndarray:
    """Whether each target is one of the chain's verbs after a modal `aux` of its own verb
    chain: a sibling `aux` before it where the target is `aux` or `cop` (*they must have been*,
    *must be happy*), or its own `aux` (*they must have it*)."""
    if not context.modals:
        return np.zeros(len(t), bool)
    modal = (lemma.is_in(list(context.modals)).to_numpy() & words.has(rules.AUX_REL)) & (
        words.head >= 0
    )
    first = np.full(len(words.head), np.iinfo(np.int64).max, np.int64)
    m = np.flatnonzero(modal)
    np.minimum.at(first, words.head[m], words.id[m])
    dependent = words.has(rules.AUX_REL | rules.COP)[t] & (words.head[t] >= 0)
    chain = np.where(dependent, words.head[t], t)
    verb = lemma.gather(t).is_in(list(context.chain_verbs)).to_numpy()
    return verb & (first[chain] < words.id[t])


def verb_context_skip(tries: pl.DataFrame) -> pl.Series:
    """Per try: whether its target's context refuses it (`target_context`, its reason)."""
    return tries.select(
        (pl.col("varied") == "target")
        & pl.col("target_context").is_in([AFTER_MODAL]).fill_null(False)
    ).to_series()
