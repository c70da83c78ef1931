"""Agreement relations of a sentence: candidates (§1.1), agreement and drops (§1.2), context (§1.3)."""

from __future__ import annotations

from dataclasses import dataclass

from mine.features import Bundle, compare, parse_feats
from mine.read import Sentence
from mine.schema import FEATURES, TYPES

SUBJECT_UPOS = frozenset({"NOUN", "PRON"})
_RANK = {name: rank for rank, name in enumerate(TYPES)}
_TARGET_UPOS = frozenset({"DET", "ADJ", "VERB", "AUX"})


def base(deprel: str) -> str:
    """`nsubj:pass` → `nsubj`."""
    return deprel.partition(":")[0]


@dataclass(slots=True, frozen=True)
class Candidate:
    """A (target, controller) pair found by a rule of §1.1; indices into the sentence's words."""

    type: str
    target: int
    controller: int


@dataclass(slots=True)
class Relation:
    """A kept relation with its agreeing features and context measures (§1.3)."""

    type: str
    target: int
    controller: int
    agreeing: list[str]
    distance: int
    order: str
    intervening_nouns: int
    distractors: int
    attractors: int


def subjects_by_head(sentence: Sentence) -> dict[int, list[int]]:
    """For each head ID, its dependents with base deprel nsubj and upos NOUN or PRON (PROPN never)."""
    subjects: dict[int, list[int]] = {}
    upos, heads = sentence.upos, sentence.heads
    for index in [i for i, d in enumerate(sentence.deprels) if d.startswith("nsubj")]:
        if base(sentence.deprels[index]) == "nsubj" and upos[index] in SUBJECT_UPOS:
            subjects.setdefault(heads[index], []).append(index)
    return subjects


def verb_form_allowed(upos: str, target: Bundle, controller_deprel: str) -> bool:
    """VERB/AUX targets must be finite; a VERB participle only with an `nsubj:pass` controller."""
    if upos not in ("VERB", "AUX"):
        return True
    verbform = target.verbform
    if not verbform or "Fin" in verbform:
        return True
    return upos == "VERB" and verbform == {"Part"} and controller_deprel == "nsubj:pass"


def candidates(sentence: Sentence) -> list[Candidate]:
    """Every (t, c) pair of §1.1, once each; the first type in table order wins."""
    upos, deprels, heads, ids = sentence.upos, sentence.deprels, sentence.heads, sentence.ids
    targets = [t for t, tag in enumerate(upos) if tag in _TARGET_UPOS]
    if not targets:
        return []
    if ids == list(range(1, len(ids) + 1)):
        index_of = None
    else:
        index_of = {word_id: index for index, word_id in enumerate(ids)}
    subjects = subjects_by_head(sentence)
    found: dict[tuple[int, int], str] = {}

    def add(kind: str, target: int, controller: int) -> None:
        key = (target, controller)
        if key not in found or _RANK[kind] < _RANK[found[key]]:
            found[key] = kind

    for t in targets:
        tag = upos[t]
        if tag == "DET" or tag == "ADJ":
            head = (
                (heads[t] - 1 if heads[t] else None) if index_of is None else index_of.get(heads[t])
            )
            if head is not None and upos[head] == "NOUN":
                relation = base(deprels[t])
                if tag == "DET" and relation == "det":
                    add("determiner", t, head)
                elif tag == "ADJ" and relation == "amod":
                    add("attributive", t, head)
            if tag == "ADJ":
                for c in subjects.get(ids[t], ()):
                    add("predicative", t, c)
        elif tag == "VERB":
            for c in subjects.get(ids[t], ()):
                add("subject-verb", t, c)
        elif heads[t] != 0 and base(deprels[t]) in ("aux", "cop"):
            for c in subjects.get(heads[t], ()):
                add("subject-verb", t, c)
    kept = [
        Candidate(kind, t, c)
        for (t, c), kind in found.items()
        if kind != "subject-verb"
        or verb_form_allowed(upos[t], parse_feats(sentence.feats[t]), deprels[c])
    ]
    kept.sort(key=lambda cand: (cand.target, cand.controller))
    return kept


def drop_reason(
    target: Bundle, controller: Bundle, type_valid: bool
) -> tuple[str | None, list[str]]:
    """First drop reason of §1.2 that applies (None if kept) and the agreeing features."""
    agreeing, disagrees = compare(target, controller)
    if target.typo or controller.typo:
        return "typo", agreeing
    if disagrees:
        return "disagree", agreeing
    if not agreeing:
        return "no-agreeing-feature", agreeing
    if not type_valid:
        return "invalid-type", agreeing
    return None, agreeing


Noun = tuple[int, tuple[frozenset[str], ...]]  # (ID, feature values in FEATURES order)


def nouns_of(sentence: Sentence) -> list[Noun]:
    """The sentence's NOUN words with their agreement feature values."""
    return [
        (sentence.ids[index], parse_feats(sentence.feats[index]).values())
        for index, tag in enumerate(sentence.upos)
        if tag == "NOUN"
    ]


def distractor_ids(
    nouns: list[Noun], target_id: int, controller_id: int, controller: Bundle, agreeing: list[str]
) -> set[int]:
    """IDs of nouns other than t and c whose value of some agreeing feature is disjoint from c's."""
    wanted = controller.values()
    found: set[int] = set()
    for name in agreeing:
        slot = FEATURES.index(name)
        value = wanted[slot]
        found.update(
            [
                noun_id
                for noun_id, values in nouns
                if values[slot] and value.isdisjoint(values[slot])
            ]
        )
    found.discard(target_id)
    found.discard(controller_id)
    return found


def measure(
    sentence: Sentence, candidate: Candidate, agreeing: list[str], nouns: list[Noun]
) -> Relation:
    """Context measures of a kept relation (§1.3)."""
    target_id = sentence.ids[candidate.target]
    controller_id = sentence.ids[candidate.controller]
    low, high = (
        (target_id, controller_id) if target_id < controller_id else (controller_id, target_id)
    )
    controller = parse_feats(sentence.feats[candidate.controller])
    distractors = distractor_ids(nouns, target_id, controller_id, controller, agreeing)
    return Relation(
        type=candidate.type,
        target=candidate.target,
        controller=candidate.controller,
        agreeing=agreeing,
        distance=high - low,
        order="target-first" if target_id < controller_id else "controller-first",
        intervening_nouns=sum(1 for noun_id, _ in nouns if low < noun_id < high),
        distractors=len(distractors),
        attractors=sum(1 for noun_id in distractors if low < noun_id < high),
    )


@dataclass(slots=True)
class Outcome:
    """Kept relations of a sentence, drops by reason and, per type, agree/disagree candidate counts."""

    relations: list[Relation]
    drops: dict[str, int]
    agree: dict[str, int]
    disagree: dict[str, int]


def extract(sentence: Sentence, valid_types: frozenset[str]) -> Outcome:
    """Kept relations of one sentence; candidates of types not in valid_types drop as invalid-type."""
    outcome = Outcome([], {}, {}, {})
    nouns: list[Noun] | None = None
    for candidate in candidates(sentence):
        target = parse_feats(sentence.feats[candidate.target])
        controller = parse_feats(sentence.feats[candidate.controller])
        reason, agreeing = drop_reason(target, controller, candidate.type in valid_types)
        if reason in ("disagree",):
            outcome.disagree[candidate.type] = outcome.disagree.get(candidate.type, 0) + 1
        elif reason in (None, "invalid-type"):
            outcome.agree[candidate.type] = outcome.agree.get(candidate.type, 0) + 1
        if reason is None:
            if nouns is None:
                nouns = nouns_of(sentence)
            outcome.relations.append(measure(sentence, candidate, agreeing, nouns))
        else:
            outcome.drops[reason] = outcome.drops.get(reason, 0) + 1
    return outcome
