"""The rules of DESIGN.md §1.1–1.3, written once, as array operations over a file's words.

`Words` holds one entry per syntactic word of a file's well-formed sentences (numbered across
the file); a candidate or relation is a pair of word indices, target t and controller c. Each
rule of DESIGN.md is one function below, in DESIGN.md's order: the rows of the §1.1 table, the
subject rule, the verb-form rule, agreement and the drop reasons of §1.2, and each context
measure of §1.3. `relations` runs them in turn. What differs between languages (valid types,
participle agreement, value sets) is data handed in (`Facts`, `Features.build`), never looked
up here. The readable sentence-by-sentence oracle these functions are tested against lives in
`tests/reference/`. The rules of §4 (minimal pairs) are the other modules of `rules/`, one per rule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pyarrow.compute as pc

from ud_agree.schemas.corpus import FEATURES, TYPES

from .candidates import (
    candidates,
)
from .words import (
    ADP,
    CASE_SLOT,
    CONJ,
    DEFINITE,
    NO_VALUE,
    NOUN,
    PERSON,
    POSSESSIVE,
    POSSESSOR,
    SUBJECT_VERB,
    UPOS,
    Facts,
    Features,
    Pairs,
    Words,
    runs,
)

# Drop reasons of §1.2 by code, in the order they apply (0: kept).
REASONS = (None, "typo", "disagree", "no-agreeing-feature", "invalid-type")
TYPO, DISAGREE, NO_AGREEING_FEATURE, INVALID_TYPE = range(1, 5)


# §1.2 Agreement and drops.


def implicit_possessor_person(
    words: Words, features: Features, c: np.ndarray, kind: np.ndarray
) -> np.ndarray:
    """§1.7 `possessor`: a NOUN possessor without Person is Person 3."""
    no_person = features.compared[PERSON][words.feats[c]] == 0
    return (kind == POSSESSOR) & (words.upos[c] == NOUN) & no_person


def member_masks(
    words: Words,
    features: Features,
    t: np.ndarray,
    c: np.ndarray,
    kind: np.ndarray,
    layer: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(len(FEATURES), k) masks of the values compared (§1.2): the target's plain ones or, for a
    §1.7 layered type, its layer's (`layer`, -1: plain), less what a possessive carries of its
    possessor, which plays no part: its Person (*mio*, *merā* are first person, their noun is
    not), and an adposition's `Case=Gen`, the case it marks (Hindi *kā*), and less Definite
    outside the types where the language compares it (§1.7); the controller's plain ones, a
    NOUN possessor's Person 3 added."""
    mt = features.masks[layer + 1, :, words.feats[t]].T
    plain_definite = ~features.definite_kinds[kind]
    if plain_definite.any() and mt[DEFINITE].any():
        mt = mt.copy()
        mt[DEFINITE, plain_definite] = 0
    possessive = kind == POSSESSIVE
    if possessive.any():
        mt = mt.copy()
        mt[PERSON, possessive] = 0
        genitive = possessive & (words.upos[t] == ADP) & features.genitive_only[words.feats[t]]
        mt[CASE_SLOT, genitive] = 0
    mc = features.compared[:, words.feats[c]].copy()
    implicit = implicit_possessor_person(words, features, c, kind)
    mc[PERSON][implicit] = features.person3_bit
    return mt, mc


def agreement(
    words: Words,
    features: Features,
    t: np.ndarray,
    c: np.ndarray,
    kind: np.ndarray,
    layer: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """§1.2: per pair, the agreeing features (bit i = FEATURES[i]: both non-empty and
    intersecting) and whether some feature disagrees (both non-empty and disjoint); §1.7's
    layered types compare the target's layer. Definite that differs is no disagreement: the weak
    adjective follows the determiner, not the noun (Swedish *mitt stora hus*), so whether it
    agrees is left to the measured certainty per direction."""
    mt, mc = member_masks(words, features, t, c, kind, layer)
    both = (mt != 0) & (mc != 0)
    meet = (mt & mc) != 0
    agreeing = ((both & meet).astype(np.int64) << np.arange(len(FEATURES))[:, None]).sum(axis=0)
    against = both & ~meet
    against[DEFINITE] = False
    return agreeing, against.any(axis=0)


def drop_reasons(
    words: Words,
    features: Features,
    t: np.ndarray,
    c: np.ndarray,
    kind: np.ndarray,
    agreeing: np.ndarray,
    disagrees: np.ndarray,
    valid_types: frozenset[str],
) -> np.ndarray:
    """§1.2: the first drop reason that applies (code into REASONS, 0 = kept), in order typo,
    disagree, no-agreeing-feature, invalid-type."""
    typo = features.typo[words.feats[t]] | features.typo[words.feats[c]]
    valid = np.array([name in valid_types for name in TYPES])[kind]
    return np.select(
        [typo, disagrees, agreeing == 0, ~valid],
        [TYPO, DISAGREE, NO_AGREEING_FEATURE, INVALID_TYPE],
        0,
    )


# §4.1 Does agreement hold here? Candidates agreeing and disagreeing per configuration.

# A configuration of §4.1: (type, feature, the controller's value of it (§4.3), the controller's
# Case, the target's upos, the target's VerbForm, order), values as written (`set_key`).
Configuration = tuple[str, str, str, str, str, str, str]


def agreement_rates(
    words: Words,
    features: Features,
    t: np.ndarray,
    c: np.ndarray,
    kind: np.ndarray,
    layer: np.ndarray | None = None,
) -> tuple[Counter, Counter, Counter]:
    """§4.1: per configuration and controller value (§4.3), the candidates whose members both
    carry its feature (§1.2's comparison), those of them that agree, and those that disagree
    keyed by configuration and target word (`(*configuration, word)`: whether its form shows
    the controller's value elsewhere is the lexicon's to say, `certainty.syncretic_agree`). A
    NOUN controller without Person of a subject-verb target with Person 3 counts as Person 3
    where §4's implicit third person applies (so it agrees: a target of another Person is no
    evidence, as in `rules.subjects.implicit_person`). §1.7's layered types compare the target's
    layer (`layer`, -1 or None: plain), a NOUN possessor with its Person 3."""
    ft, fc = words.feats[t], words.feats[c]
    layer = np.full(len(t), -1, np.int64) if layer is None else layer
    mt, mc = member_masks(words, features, t, c, kind, layer)
    possessor3 = implicit_possessor_person(words, features, c, kind)
    carried = (mt != 0) & (mc != 0)
    agrees = carried & ((mt & mc) != 0)
    person = PERSON
    implicit = (kind == SUBJECT_VERB) & (words.upos[c] == NOUN) & (mc[person] == 0)
    implicit &= features.person3[ft]
    carried[person] |= implicit
    agrees[person] |= implicit
    # Keys per distinct FEATS string first (few), then per candidate.
    cases, case_of = np.unique(features.case_key.astype(str), return_inverse=True)
    verbforms, verbform_of = np.unique(features.verbform_key.astype(str), return_inverse=True)
    n: Counter = Counter()
    agree: Counter = Counter()
    disagreeing: Counter = Counter()
    orders = ("controller-first", "target-first")
    for f, feature in enumerate(FEATURES):
        keyed = pc.binary_join(features.lists[f], ",").fill_null(NO_VALUE)
        values, value_of = np.unique(
            np.append(keyed.to_numpy(zero_copy_only=False).astype(str), "3"), return_inverse=True
        )
        value = value_of.ravel()[fc]
        if f == person:  # the implicit Person is 3 (the last key appended)
            value = np.where(implicit | possessor3, value_of.ravel()[-1], value)
        shape = (len(TYPES), len(values), len(cases), len(UPOS), len(verbforms), 2)
        key = np.ravel_multi_index(
            (
                kind,
                value,
                case_of.ravel()[fc],
                words.upos[t].astype(np.int64),
                verbform_of.ravel()[ft],
                target_first(words, t, c).astype(np.int64),
            ),
            shape,
        )
        found, where = np.unique(key[carried[f]], return_inverse=True)
        counts = np.bincount(where.ravel(), minlength=len(found))
        agreeing = np.bincount(where.ravel(), agrees[f][carried[f]], minlength=len(found))
        names = {}
        for k, total, yes in zip(found.tolist(), counts.tolist(), agreeing.tolist(), strict=True):
            kd, val, case, upos, verbform, order = np.unravel_index(k, shape)
            config = (
                TYPES[kd],
                feature,
                values[val],
                cases[case],
                UPOS[upos],
                verbforms[verbform],
                orders[order],
            )
            names[k] = config
            n[config] = total
            agree[config] = int(yes)
        against = carried[f] & ~agrees[f]  # few: the candidates that disagree in f
        for k, word in zip(key[against].tolist(), t[against].tolist(), strict=True):
            counted = (*names[k], word)
            disagreeing[counted] += 1
    return n, agree, disagreeing


# §1.3 Context measures of kept relations (and the `coordinated` column of §1.1 Notes).


def distance(words: Words, t: np.ndarray, c: np.ndarray) -> np.ndarray:
    """§1.3 `distance`: |ID(t) − ID(c)|."""
    return np.abs(words.id[t] - words.id[c])


def target_first(words: Words, t: np.ndarray, c: np.ndarray) -> np.ndarray:
    """§1.3 `order`: `target-first` (True) when ID(t) < ID(c), else `controller-first`."""
    return words.id[t] < words.id[c]


def intervening_nouns(words: Words, t: np.ndarray, c: np.ndarray) -> np.ndarray:
    """§1.3 `intervening_nouns`: NOUN words strictly between t and c (by ID, which need not be
    in file order)."""
    return _between(words, t, c)[1]


def nouns_between(words: Words, t: np.ndarray, c: np.ndarray) -> Pairs:
    """The NOUN words strictly between t and c, as (relation, noun) pairs grouped by relation
    (§4.3: another host a bad form could agree with)."""
    relation, offset = runs(*_between(words, t, c))
    return relation, words.nouns[0][offset]


def _between(words: Words, t: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per relation, the first of the NOUN words (`Words.nouns` order) strictly between t and c
    by ID, and how many there are."""
    _, key = words.nouns
    low = np.minimum(words.id[t], words.id[c])
    high = np.maximum(words.id[t], words.id[c])
    sentence = words.sentence[t] << 32
    first = np.searchsorted(key, sentence + low, "right")
    return first, np.searchsorted(key, sentence + high, "left") - first


def distractor_nouns(
    words: Words, features: Features, t: np.ndarray, c: np.ndarray, agreeing: np.ndarray
) -> Pairs:
    """§1.3 `distractors`, as (relation, noun) pairs: NOUN words n of the relation's sentence,
    n ≠ c, n ≠ t, whose value of some agreeing feature is non-empty and disjoint from c's."""
    nouns, _ = words.nouns
    noun_sentence = words.sentence[nouns]
    sentence = words.sentence[t]
    first = np.searchsorted(noun_sentence, sentence, "left")
    relation, offset = runs(first, np.searchsorted(noun_sentence, sentence, "right") - first)
    noun = nouns[offset]
    mn = features.compared[:, words.feats[noun]]
    mc = features.compared[:, words.feats[c[relation]]]
    wanted = ((agreeing[relation] >> np.arange(len(FEATURES))[:, None]) & 1).astype(bool)
    distractor = (wanted & (mn != 0) & ((mn & mc) == 0)).any(axis=0)
    distractor &= (noun != t[relation]) & (noun != c[relation])
    return relation[distractor], noun[distractor]


def distractors(n_relations: int, relation: np.ndarray) -> np.ndarray:
    """§1.3 `distractors`: the number of distractor nouns per relation."""
    return np.bincount(relation, minlength=n_relations)


def attractors(
    words: Words, t: np.ndarray, c: np.ndarray, relation: np.ndarray, noun: np.ndarray
) -> np.ndarray:
    """§1.3 `attractors`: the distractors strictly between t and c."""
    low = np.minimum(words.id[t], words.id[c])[relation]
    high = np.maximum(words.id[t], words.id[c])[relation]
    inside = (words.id[noun] > low) & (words.id[noun] < high)
    return np.bincount(relation[inside], minlength=len(t))


def coordinated(words: Words, c: np.ndarray) -> np.ndarray:
    """§1.1 Notes, `coordinated`: the controller has a dependent with base deprel `conj`."""
    conjunct_of = np.zeros(len(words.head), bool)
    conjunct_of[words.head[words.has(CONJ) & (words.head >= 0)]] = True
    return conjunct_of[c]


_NONE = np.zeros(0, np.int64)


@dataclass
class Relations:
    """Kept relations (sorted by target, controller) with their measures, and the candidates'
    counts: drops per reason, agreeing and disagreeing candidates per type."""

    target: np.ndarray
    controller: np.ndarray
    kind: np.ndarray  # index into TYPES
    agreeing: np.ndarray  # bit set over FEATURES
    distance: np.ndarray
    target_first: np.ndarray
    intervening_nouns: np.ndarray
    distractors: np.ndarray
    attractors: np.ndarray
    coordinated: np.ndarray
    listed: np.ndarray  # kept (§1.2); the others are pair-only candidates (§4.2)
    layer: np.ndarray  # §1.7: index into LAYERS of the target's values compared, -1: plain
    drops: Counter = field(default_factory=Counter)
    agree: Counter = field(default_factory=Counter)
    disagree: Counter = field(default_factory=Counter)
    # The dropped candidates, each with its reason (code into REASONS): `drops` row by row.
    dropped: tuple[np.ndarray, ...] = (
        _NONE,
        _NONE,
        _NONE,
        _NONE,
    )  # target, controller, kind, reason
    # §4.1 per configuration: candidates carrying its feature, and those agreeing.
    rated: Counter = field(default_factory=Counter)
    rated_agree: Counter = field(default_factory=Counter)
    # ... and those disagreeing, by configuration and target word (`agreement_rates`).
    rated_disagree: Counter = field(default_factory=Counter)


def _count(names: tuple, codes: np.ndarray) -> Counter:
    """Occurrences of each code, keyed by its name."""
    values, counts = np.unique(codes, return_counts=True)
    return Counter(
        {names[v]: int(n) for v, n in zip(values.tolist(), counts.tolist(), strict=True)}
    )


def relations(words: Words, features: Features, facts: Facts) -> Relations:
    """§1.1–1.3 over all words: candidates, drops, and the context of each kept relation."""
    t, c, kind, layer = candidates(words, features, facts)
    agreeing, disagrees = agreement(words, features, t, c, kind, layer)
    reason = drop_reasons(words, features, t, c, kind, agreeing, disagrees, facts.valid_types)
    # Candidates that agree are those kept or dropped only as invalid-type.
    agree = _count(TYPES, kind[(reason == 0) | (reason == INVALID_TYPE)])
    disagree = _count(TYPES, kind[reason == DISAGREE])
    # Rates over every candidate but those with a Typo word (its features are no evidence).
    counted = reason != TYPO
    rated, rated_agree, rated_disagree = agreement_rates(
        words, features, t[counted], c[counted], kind[counted], layer[counted]
    )
    kept = reason == 0
    dropped = (t[~kept], c[~kept], kind[~kept], reason[~kept])
    # §4.2: subject-verb candidates without an agreeing feature go on to the pairs (a relative
    # pronoun's antecedent, an unmarked paradigm cell may give them one), never to `relations`.
    valid = np.array([name in facts.valid_types for name in TYPES])[kind]
    chosen = kept | ((reason == NO_AGREEING_FEATURE) & (kind == SUBJECT_VERB) & valid)
    t, c, kind, agreeing, listed, layer = (
        t[chosen],
        c[chosen],
        kind[chosen],
        agreeing[chosen],
        kept[chosen],
        layer[chosen],
    )
    relation, noun = distractor_nouns(words, features, t, c, agreeing)
    return Relations(
        target=t,
        controller=c,
        kind=kind,
        agreeing=agreeing,
        distance=distance(words, t, c),
        target_first=target_first(words, t, c),
        intervening_nouns=intervening_nouns(words, t, c),
        distractors=distractors(len(t), relation),
        attractors=attractors(words, t, c, relation, noun),
        coordinated=coordinated(words, c),
        listed=listed,
        layer=layer,
        drops=_count(REASONS, reason[reason > 0]),
        agree=agree,
        disagree=disagree,
        dropped=dropped,
        rated=rated,
        rated_agree=rated_agree,
        rated_disagree=rated_disagree,
    )
