"""A subject before its own clause's subordinator (§4.3, a dropped subject's reading): Czech *Ty
že děláš zástupce?* ('you [say] that you are the representative?') puts *ty* outside the clause
*že* opens, a topic. Where subjects are dropped, *Ty že dělám / dělá zástupce?* ('you [say]
that I am / he is …?') reads with a dropped subject of its own, so a Person or Number pair of
that verb claims no violation. Read from the tree over a file's words at once (numpy); the
particles tagged otherwise than `mark`, and the `mark`s that open no clause (Persian *هم*
'too'), are data (`mine/data/subordinator_particles.tsv`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow.compute as pc

from . import words as vocab

if TYPE_CHECKING:
    from ..columnar import Table

DISLOCATED = "dislocated-subject"
_MARK = "mark"


def dislocated_subjects(
    table: Table,
    words: vocab.Words,
    features: vocab.Features,
    t: np.ndarray,
    c: np.ndarray,
    particles: frozenset[str],
    focus: frozenset[str] = frozenset(),
) -> np.ndarray:
    """Per relation (target t, controller c): whether c is a personal pronoun subject of t's
    clause (t, or t's head where t is its `aux` or `cop`) standing before a subordinator of that
    clause (deprel `mark`, less the lemmas of `focus`, or a lemma of `particles`) that stands
    before t."""
    found = np.zeros(len(t), bool)
    if len(t) == 0:
        return found
    personal = np.array(["PronType=Prs" in feats for feats in features.strings], bool)
    auxiliary = words.has(vocab.AUX_REL | vocab.COP)[t] & (words.head[t] >= 0)
    clause = np.where(auxiliary, words.head[t], t)
    # Words of a sentence are consecutive: c < w < t is the stretch between them.
    asked = np.flatnonzero(
        (c < t - 1)
        & (words.upos[c] == vocab.PRON)
        & personal[words.feats[c]]
        & words.has(vocab.NSUBJ)[c]
        & (words.head[c] == clause)
    )
    if len(asked) == 0:
        return found
    gap = t[asked] - c[asked] - 1
    relation = np.repeat(asked, gap)
    within = np.arange(gap.sum()) - np.repeat(np.cumsum(gap) - gap, gap)
    between = c[relation] + 1 + within
    own = (words.head[between] == clause[relation]) | (words.head[between] == t[relation])
    relation, between = relation[own], between[own]
    if len(between) == 0:
        return found
    rows = table.word_rows[between]
    deprel = pc.utf8_lower(table.rows.strings(7, rows)).to_numpy(zero_copy_only=False)
    lemma = pc.utf8_lower(table.rows.strings(2, rows)).to_numpy(zero_copy_only=False)
    marks = np.array([d.split(":")[0] == _MARK for d in deprel], bool)
    if focus:  # UD_Persian-Seraji tags *هم* 'too' `mark`
        marks &= ~np.isin(lemma, list(focus))
    if particles:
        marks |= np.isin(lemma, list(particles))
    found[relation[marks]] = True
    return found
