"""Reference (test oracle): agreement relations of one sentence, written plainly from DESIGN.md —
candidates (§1.1), agreement and drops (§1.2), context (§1.3). The package's engine
(`mine.rules`, run by `mine.columnar`) must give exactly what this gives."""

from __future__ import annotations

from dataclasses import dataclass, field

from ud_agree.mine.features import Bundle, parse_feats, parse_layer
from ud_agree.mine.languages import ValueSets
from ud_agree.mine.read import Sentence

from ud_agree.schemas.corpus import FEATURES, TYPES

SUBJECT_UPOS = frozenset({"NOUN", "PRON"})
OUTER = "nsubj:outer"
_RANK = {name: rank for rank, name in enumerate(TYPES)}
_TARGET_UPOS = frozenset({"DET", "ADJ", "VERB", "AUX", "NUM"})
# §1.7: the layers of the target's features each layered type compares (the first carried).
LAYERED = {
    "object-verb": ("abs", "obj"),
    "indirect-object-verb": ("dat",),
    "ergative-verb": ("erg",),
    "possessor": ("psor",),
}


def ergative_clause_verb(
    sentence: Sentence,
    t: int,
    dependents: dict[int, list[int]],
    ergative_lemmas: frozenset[str] = frozenset(),
) -> bool:
    """A VERB with a subject in `Case=Erg` or with a `case` dependent in `Case=Erg` (Hindi *ne*),
    or an aux/cop AUX whose head is such a VERB."""
    upos, deprels, heads, ids = sentence.upos, sentence.deprels, sentence.heads, sentence.ids
    if upos[t] == "AUX":
        if base(deprels[t]) not in ("aux", "cop") or heads[t] == 0:
            return False
        verb = ids.index(heads[t])
        if upos[verb] != "VERB":
            return False
    elif upos[t] == "VERB":
        verb = t
    else:
        return False

    if parse_feats(sentence.feats[verb]).case:  # a verb in a case is a nominalisation
        return False

    def ergative(i: int) -> bool:
        return "Erg" in parse_feats(sentence.feats[i]).case

    def marker(i: int) -> bool:
        return ergative(i) or sentence.lemmas[i] in ergative_lemmas

    for s in dependents.get(ids[verb], []):
        if base(deprels[s]) != "nsubj" or deprels[s] == OUTER or upos[s] not in SUBJECT_UPOS:
            continue
        markers = dependents.get(ids[s], [])
        if ergative(s) or any(base(deprels[m]) == "case" and marker(m) for m in markers):
            return True
    return False


def _rank(kind: str) -> int:
    """Which type wins a pair two rules find: a layered one (§1.7, it compares what a plain one
    cannot), then the first in table order."""
    return -1 if kind in LAYERED else _RANK[kind]


def carried_layer(feats: str, layers: tuple[str, ...]) -> str | None:
    """The first of `layers` in which the FEATS give some feature of F a value."""
    for layer in layers:
        if any(parse_layer(feats, layer)):
            return layer
    return None


def pron_types(feats: str) -> list[str]:
    """The values of PronType (`Int,Rel` → Int, Rel)."""
    values = dict(item.partition("=")[::2] for item in feats.split("|"))
    return values.get("PronType", "").split(",")


def base(deprel: str) -> str:
    """`nsubj:pass` → `nsubj`."""
    return deprel.partition(":")[0]


@dataclass(frozen=True)
class Facts:
    """A language's facts (§1.1 participle languages, §1.2 value sets, §1.6 valid types)."""

    valid_types: frozenset[str] = frozenset(TYPES)
    participle_agreement: bool = False
    value_sets: ValueSets = field(default_factory=dict)
    have_lemmas: frozenset[str] = frozenset()  # §1.7: the language's *have* auxiliary
    ergative_lemmas: frozenset[str] = frozenset()  # §1.7: its ergative markers (Hindi *ne*)
    # §1.7: the *have* whose participle agrees with an object before it (French *avoir*)
    object_have_lemmas: frozenset[str] = frozenset()
    # §1.7: the types in which Definite joins F (`mine/data/definite_languages.tsv`)
    definite_types: frozenset[str] = frozenset()

    @property
    def definite(self) -> bool:
        """Whether the language's Definite is in F (read from FEATS at all)."""
        return bool(self.definite_types)


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
    coordinated: bool
    listed: bool = True  # kept; False: a §4.2 pair-only candidate (subject-verb, no agreeing)


def subjects_by_head(sentence: Sentence, outer: bool) -> dict[int, list[int]]:
    """For each head ID, its dependents with base deprel nsubj and upos NOUN or PRON (PROPN never):
    the `nsubj:outer` ones if outer, else the others (§1.1 Subjects)."""
    found: dict[int, list[int]] = {}
    for index, deprel in enumerate(sentence.deprels):
        if base(deprel) != "nsubj" or (deprel == OUTER) != outer:
            continue
        if sentence.upos[index] in SUBJECT_UPOS:
            found.setdefault(sentence.heads[index], []).append(index)
    return found


def finite(target: Bundle) -> bool:
    """VerbForm=Fin, or no VerbForm and a Mood or Person value (§1.1 Verb forms)."""
    if target.verbform:
        return "Fin" in target.verbform
    return bool(target.mood or target.person)


def verb_form_allowed(
    upos: str, target: Bundle, controller_deprel: str, participle_agreement: bool
) -> bool:
    """VERB/AUX targets must be finite; a participle only as a VERB with an `nsubj:pass`
    controller, or in a participle-agreement language (§1.1 Verb forms)."""
    if upos not in ("VERB", "AUX") or finite(target):
        return True
    if target.verbform != {"Part"}:
        return False
    return participle_agreement or (upos == "VERB" and controller_deprel == "nsubj:pass")


def participle_marked(sentence: Sentence, t: int, have_lemmas: frozenset[str]) -> bool:
    """§1.7 subject-participle: t has an `aux:pass` or `cop` dependent, or an `aux` whose lemma
    is not the language's *have*."""
    for i, (head, deprel) in enumerate(zip(sentence.heads, sentence.deprels, strict=True)):
        if head != sentence.ids[t]:
            continue
        if deprel == "aux:pass" or base(deprel) == "cop":
            return True
        if base(deprel) == "aux" and sentence.lemmas[i] not in have_lemmas:
            return True
    return False


def candidates(
    sentence: Sentence,
    participle_agreement: bool = False,
    have_lemmas: frozenset[str] = frozenset(),
    ergative_lemmas: frozenset[str] = frozenset(),
    object_have_lemmas: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Every (t, c) pair of §1.1 and §1.7, subject-verb ones where the verb-form rule allows,
    once each; the first type in table order wins."""
    upos, deprels, heads, ids = sentence.upos, sentence.deprels, sentence.heads, sentence.ids
    index_of = {word_id: index for index, word_id in enumerate(ids)}
    subjects = subjects_by_head(sentence, outer=False)
    outer = subjects_by_head(sentence, outer=True)
    found: dict[tuple[int, int], str] = {}

    def add(kind: str, target: int, controller: int) -> None:
        if kind == "subject-verb" and not verb_form_allowed(
            upos[target],
            parse_feats(sentence.feats[target]),
            deprels[controller],
            participle_agreement,
        ):
            return
        key = (target, controller)
        if key not in found or _rank(kind) < _rank(found[key]):
            found[key] = kind

    for t, tag in enumerate(upos):
        if tag not in _TARGET_UPOS:
            continue
        relation = base(deprels[t])
        if tag == "NUM":
            # §1.7 numeral: a NUM with base deprel nummod, its head a NOUN.
            head = index_of.get(heads[t]) if heads[t] else None
            if relation == "nummod" and head is not None and upos[head] == "NOUN":
                add("numeral", t, head)
        elif tag in ("DET", "ADJ"):
            head = index_of.get(heads[t]) if heads[t] else None
            if head is not None and upos[head] == "NOUN":
                if tag == "DET" and relation == "det":
                    add("determiner", t, head)
                elif tag == "ADJ" and relation == "amod":
                    add("attributive", t, head)
            if tag == "ADJ":
                for c in subjects.get(ids[t], ()):
                    add("predicative", t, c)
        elif tag == "VERB" or relation not in ("aux", "cop"):
            # (a) a VERB, or an AUX heading its clause: its own subjects.
            for c in subjects.get(ids[t], ()):
                add("subject-verb", t, c)
        elif heads[t] != 0:
            # (b) an aux/cop AUX: the subjects of its head; a cop whose head has outer
            # subjects takes those, and only those.
            if relation == "cop" and heads[t] in outer:
                controllers = outer[heads[t]]
            else:
                controllers = subjects.get(heads[t], [])
            for c in controllers:
                add("subject-verb", t, c)
    dependents: dict[int, list[int]] = {}
    for index, head in enumerate(heads):
        dependents.setdefault(head, []).append(index)
    for t, tag in enumerate(upos):
        # §1.7 layered types: a VERB or AUX carrying a layer and its arguments (those of its
        # head for an aux/cop AUX); a NOUN carrying [psor] and its nmod:poss dependents.
        feats = sentence.feats[t]
        if tag in ("VERB", "AUX"):
            auxiliary = tag == "AUX" and base(deprels[t]) in ("aux", "cop") and heads[t] != 0
            arguments = dependents.get(heads[t] if auxiliary else ids[t], [])
            for c in arguments:
                if upos[c] not in SUBJECT_UPOS:
                    continue
                case = parse_feats(sentence.feats[c]).case
                relation = base(deprels[c])
                if relation == "obj" and carried_layer(feats, LAYERED["object-verb"]):
                    add("object-verb", t, c)
                dative = relation == "iobj" or (relation == "obl" and "Dat" in case)
                if dative and carried_layer(feats, LAYERED["indirect-object-verb"]):
                    add("indirect-object-verb", t, c)
                ergative = relation == "nsubj" and deprels[c] != OUTER and "Erg" in case
                if ergative and carried_layer(feats, LAYERED["ergative-verb"]):
                    add("ergative-verb", t, c)
        if tag in ("VERB", "AUX") and ergative_clause_verb(
            sentence, t, dependents, ergative_lemmas
        ):
            # §1.7 object-verb (b): the verb of a clause with an ergative subject, or its
            # aux/cop AUX, and the verb's objects (plain features).
            verb = index_of[heads[t]] if tag == "AUX" and heads[t] != 0 else t
            for c in dependents.get(ids[verb], []):
                if base(deprels[c]) == "obj" and upos[c] in SUBJECT_UPOS:
                    add("object-verb", t, c)
        if tag == "NOUN" and carried_layer(feats, LAYERED["possessor"]):
            for c in dependents.get(ids[t], []):
                genitive = "Gen" in parse_feats(sentence.feats[c]).case
                if deprels[c] == "nmod:poss" and upos[c] in SUBJECT_UPOS and genitive:
                    add("possessor", t, c)
    for t, tag in enumerate(upos):
        # §1.7 possessive: a possessive pronoun or determiner of a noun, or the adposition of a
        # genitive phrase (nmod:poss; nmod where it carries Number or Gender) of a noun.
        head = index_of.get(heads[t]) if heads[t] else None
        if head is None:
            continue
        if tag in ("PRON", "DET") and deprels[t] in ("nmod:poss", "det:poss"):
            if upos[head] == "NOUN":
                add("possessive", t, head)
        elif tag == "ADP" and base(deprels[t]) == "case":
            phrase = deprels[head]
            marked = parse_feats(sentence.feats[t])
            if phrase == "nmod:poss" or (
                base(phrase) == "nmod" and (marked.number or marked.gender)
            ):
                noun = index_of.get(heads[head]) if heads[head] else None
                if noun is not None and upos[noun] == "NOUN":
                    add("possessive", t, noun)
    for t, tag in enumerate(upos):
        # §1.7 object-verb (b), French and Italian: a VERB participle with an `aux` *avoir*, and
        # its object before it: a personal PRON `obj`, a clitic (*je les ai vues*), or, for a
        # relative pronoun `obj` of an `acl:relcl` participle, the noun the clause modifies.
        if tag != "VERB" or parse_feats(sentence.feats[t]).verbform != {"Part"}:
            continue
        own = dependents.get(ids[t], [])
        if not any(
            base(deprels[a]) == "aux" and sentence.lemmas[a] in object_have_lemmas for a in own
        ):
            continue
        if any(base(deprels[d]) == "xcomp" for d in own):
            continue  # *les airs qu'il a laissé jouer*: before an infinitive, none
        for c in own:
            if base(deprels[c]) != "obj" or upos[c] != "PRON" or ids[c] >= ids[t]:
                continue
            types = pron_types(sentence.feats[c])
            if "Prs" in types and "Rel" not in types:
                add("object-verb", t, c)
            elif "Rel" in types and deprels[t] == "acl:relcl" and heads[t] != 0:
                antecedent = index_of[heads[t]]
                if upos[antecedent] in SUBJECT_UPOS:
                    add("object-verb", t, antecedent)
    for t, tag in enumerate(upos):
        # §1.7 subject-participle: a VERB participle marked by its auxiliary or copula.
        if tag != "VERB" or parse_feats(sentence.feats[t]).verbform != {"Part"}:
            continue
        if participle_marked(sentence, t, have_lemmas):
            for c in subjects.get(ids[t], ()):
                add("subject-participle", t, c)
    kept = [Candidate(kind, t, c) for (t, c), kind in found.items()]
    kept.sort(key=lambda cand: (cand.target, cand.controller))
    return kept


def compared(
    bundle: Bundle | tuple[frozenset[str], ...], value_sets: ValueSets
) -> tuple[frozenset[str], ...]:
    """val(w, f) for f in FEATURES with the language's value sets applied (§1.2: Norwegian
    Gender=Com stands for {Masc, Fem})."""
    given = bundle.values() if isinstance(bundle, Bundle) else bundle
    if not value_sets:
        return given
    out = []
    for name, values in zip(FEATURES, given, strict=True):
        sets = value_sets.get(name, {})
        out.append(frozenset().union(*(sets.get(v, frozenset({v})) for v in values)))
    return tuple(out)


def compare(
    target: tuple[frozenset[str], ...], controller: tuple[frozenset[str], ...]
) -> tuple[list[str], bool]:
    """Agreeing features (sorted) and whether some feature disagrees (§1.2); a Definite that
    differs is no disagreement (§1.7: Swedish *mitt stora hus*, the weak form after a
    possessive), its certainty is measured instead."""
    agreeing = []
    disagrees = False
    for name, t, c in zip(FEATURES, target, controller, strict=True):
        if t and c:
            if t & c:
                agreeing.append(name)
            elif name != "Definite":
                disagrees = True
    agreeing.sort()
    return agreeing, disagrees


def drop_reason(
    target: Bundle,
    controller: Bundle,
    type_valid: bool,
    value_sets: ValueSets,
    target_values: tuple[frozenset[str], ...] | None = None,
    controller_values: tuple[frozenset[str], ...] | None = None,
) -> tuple[str | None, list[str]]:
    """First drop reason of §1.2 that applies (None if kept) and the agreeing features; the
    values compared are the members' own unless given (§1.7 layers)."""
    agreeing, disagrees = compare(
        compared(target if target_values is None else target_values, value_sets),
        compared(controller if controller_values is None else controller_values, value_sets),
    )
    if target.typo or controller.typo:
        return "typo", agreeing
    if disagrees:
        return "disagree", agreeing
    if not agreeing:
        return "no-agreeing-feature", agreeing
    if not type_valid:
        return "invalid-type", agreeing
    return None, agreeing


Noun = tuple[int, tuple[frozenset[str], ...]]  # (ID, compared feature values in FEATURES order)


def nouns_of(sentence: Sentence, value_sets: ValueSets, definite: bool = False) -> list[Noun]:
    """The sentence's NOUN words with their agreement feature values (value sets applied)."""
    return [
        (sentence.ids[index], compared(parse_feats(sentence.feats[index], definite), value_sets))
        for index, tag in enumerate(sentence.upos)
        if tag == "NOUN"
    ]


def distractor_ids(
    nouns: list[Noun],
    target_id: int,
    controller_id: int,
    controller: tuple[frozenset[str], ...],
    agreeing: list[str],
) -> set[int]:
    """IDs of nouns other than t and c whose value of some agreeing feature is disjoint from c's."""
    found: set[int] = set()
    for name in agreeing:
        slot = FEATURES.index(name)
        value = controller[slot]
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


def conjunct_heads(sentence: Sentence) -> set[int]:
    """IDs of the words that have a dependent with base deprel `conj` (§1.1 Notes,
    `coordinated`: the controller is one of them)."""
    return {
        head
        for head, deprel in zip(sentence.heads, sentence.deprels, strict=True)
        if base(deprel) == "conj"
    }


def measure(
    sentence: Sentence,
    candidate: Candidate,
    agreeing: list[str],
    nouns: list[Noun],
    value_sets: ValueSets,
    coordinated: set[int],
    definite: bool = False,
) -> Relation:
    """Context measures of a kept relation (§1.3)."""
    target_id = sentence.ids[candidate.target]
    controller_id = sentence.ids[candidate.controller]
    low, high = (
        (target_id, controller_id) if target_id < controller_id else (controller_id, target_id)
    )
    controller = compared(parse_feats(sentence.feats[candidate.controller], definite), value_sets)
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
        coordinated=controller_id in coordinated,
    )


@dataclass(slots=True)
class Outcome:
    """Kept relations of a sentence, drops by reason and, per type, agree/disagree candidate counts."""

    relations: list[Relation]
    drops: dict[str, int]
    agree: dict[str, int]
    disagree: dict[str, int]


def extract(sentence: Sentence, facts: Facts | frozenset[str] = Facts()) -> Outcome:
    """Kept relations of one sentence; candidates of types not valid for the language drop as
    invalid-type (a frozenset stands for Facts with those valid types)."""
    if not isinstance(facts, Facts):
        facts = Facts(valid_types=facts)
    outcome = Outcome([], {}, {}, {})
    nouns: list[Noun] | None = None
    coordinated: set[int] = set()
    for candidate in candidates(
        sentence,
        facts.participle_agreement,
        facts.have_lemmas,
        facts.ergative_lemmas,
        facts.object_have_lemmas,
    ):
        target = parse_feats(sentence.feats[candidate.target], facts.definite)
        controller = parse_feats(sentence.feats[candidate.controller], facts.definite)
        reason, agreeing = drop_reason(
            target,
            controller,
            candidate.type in facts.valid_types,
            facts.value_sets,
            compared_target_values(
                sentence, candidate, facts.definite, candidate.type in facts.definite_types
            ),
            controller_values(sentence, candidate, facts.definite),
        )
        if reason == "disagree":
            outcome.disagree[candidate.type] = outcome.disagree.get(candidate.type, 0) + 1
        elif reason in (None, "invalid-type"):
            outcome.agree[candidate.type] = outcome.agree.get(candidate.type, 0) + 1
        # §4.2: a subject-verb candidate without an agreeing feature goes on to the pairs.
        pair_only = (
            reason == "no-agreeing-feature"
            and candidate.type == "subject-verb"
            and candidate.type in facts.valid_types
        )
        if reason is None or pair_only:
            if nouns is None:
                nouns = nouns_of(sentence, facts.value_sets, facts.definite)
                coordinated = conjunct_heads(sentence)
            relation = measure(
                sentence, candidate, agreeing, nouns, facts.value_sets, coordinated, facts.definite
            )
            relation.listed = reason is None
            outcome.relations.append(relation)
        if reason is not None:
            outcome.drops[reason] = outcome.drops.get(reason, 0) + 1
    return outcome


def target_values(
    sentence: Sentence, candidate: Candidate, definite: bool = False
) -> tuple[frozenset[str], ...]:
    """The target's values compared: its layer's for a §1.7 layered type, else its own."""
    feats = sentence.feats[candidate.target]
    layer = carried_layer(feats, LAYERED.get(candidate.type, ()))
    return parse_layer(feats, layer) if layer else parse_feats(feats, definite).values()


def compared_target_values(
    sentence: Sentence, candidate: Candidate, definite: bool = False, compares: bool = False
) -> tuple[frozenset[str], ...]:
    """The target's values compared (§1.2): `target_values`, less what a possessive carries of
    its possessor (§1.7: its Person, and a genitive adposition's Case=Gen, the case it marks),
    and less Definite where the type does not compare it (`compares`, §1.7)."""
    number, gender, case, person, definiteness = target_values(sentence, candidate, definite)
    if candidate.type == "possessive":
        person = frozenset()
        if sentence.upos[candidate.target] == "ADP" and case == {"Gen"}:
            case = frozenset()
    if not compares:
        definiteness = frozenset()
    return (number, gender, case, person, definiteness)


def controller_values(
    sentence: Sentence, candidate: Candidate, definite: bool = False
) -> tuple[frozenset[str], ...]:
    """The controller's values compared: its own, a NOUN possessor's Person 3 where it has none
    (§1.7)."""
    feats = sentence.feats[candidate.controller]
    number, gender, case, person, definiteness = parse_feats(feats, definite).values()
    noun = sentence.upos[candidate.controller] == "NOUN"
    if candidate.type == "possessor" and noun and not person:
        person = frozenset({"3"})
    return (number, gender, case, person, definiteness)
