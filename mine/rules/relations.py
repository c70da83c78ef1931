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
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.schemas.corpus import FEATURES, TYPES

from ..features import LAYERS, parse_feats, parse_layer
from ..languages import ValueSets

# UPOS classes the rules read (0: any other tag).
UPOS = ("", "NOUN", "PRON", "DET", "ADJ", "VERB", "AUX", "NUM", "ADP")
NOUN, PRON, DET, ADJ, VERB, AUX, NUM, ADP = range(1, 9)

# Deprels the rules read, one bit each: base deprels (`nsubj` covers `nsubj:pass`), then full
# deprels. `Words.deprel` is as wide as they need (`DEPREL_DTYPE`).
BASE_DEPRELS = (
    b"det", b"amod", b"nsubj", b"aux", b"cop", b"conj", b"nummod", b"obj", b"iobj", b"obl",
    b"case", b"nmod",
)  # fmt: skip
FULL_DEPRELS = (b"nsubj:pass", b"nsubj:outer", b"aux:pass", b"nmod:poss", b"det:poss")
(
    DET_REL, AMOD, NSUBJ, AUX_REL, COP, CONJ, NUMMOD, OBJ, IOBJ, OBL, CASE, NMOD,
    NSUBJ_PASS, NSUBJ_OUTER, AUX_PASS, NMOD_POSS, DET_POSS,
) = (1 << i for i in range(len(BASE_DEPRELS) + len(FULL_DEPRELS)))  # fmt: skip
DEPREL_DTYPE = next(
    np.dtype(unsigned)
    for unsigned in (np.uint8, np.uint16, np.uint32, np.uint64)
    if len(BASE_DEPRELS) + len(FULL_DEPRELS) <= 8 * np.dtype(unsigned).itemsize
)


def deprel_bits(deprel: bytes) -> int:
    """The bits of one deprel as written (`nsubj:pass` sets NSUBJ and NSUBJ_PASS)."""
    base = deprel.split(b":")[0]
    bits = sum(1 << i for i, name in enumerate(BASE_DEPRELS) if name == base)
    full = enumerate(FULL_DEPRELS, len(BASE_DEPRELS))
    return bits | sum(1 << i for i, name in full if name == deprel)


# TYPES, in table order
(
    DETERMINER, ATTRIBUTIVE, PREDICATIVE, SUBJECT_VERB, NUMERAL, SUBJECT_PARTICIPLE, POSSESSIVE,
    OBJECT_VERB, INDIRECT_OBJECT_VERB, ERGATIVE_VERB, POSSESSOR,
) = range(11)  # fmt: skip
assert TYPES[SUBJECT_VERB] == "subject-verb" and TYPES[SUBJECT_PARTICIPLE] == "subject-participle"
assert TYPES[POSSESSIVE] == "possessive"
assert TYPES[OBJECT_VERB] == "object-verb" and TYPES[POSSESSOR] == "possessor"
CASE_SLOT, PERSON = FEATURES.index("Case"), FEATURES.index("Person")

# Drop reasons of §1.2 by code, in the order they apply (0: kept).
REASONS = (None, "typo", "disagree", "no-agreeing-feature", "invalid-type")
TYPO, DISAGREE, NO_AGREEING_FEATURE, INVALID_TYPE = range(1, 5)

_STR_LIST = pa.list_(pa.string())

Pairs = tuple[np.ndarray, np.ndarray]  # (targets, controllers) as word indices


@dataclass
class Words:
    """Every syntactic word of a file's well-formed sentences, in file order."""

    sentence: np.ndarray  # int64: 0-based sentence of the word
    id: np.ndarray  # int64: CoNLL-U ID
    head: np.ndarray  # int64: index of the head word, -1 for the root
    upos: np.ndarray  # int8: class in UPOS
    deprel: np.ndarray  # DEPREL_DTYPE: bit set of the deprels above
    feats: np.ndarray  # int64: code of the FEATS string in `Features`
    have: np.ndarray  # bool: the lemma is the language's *have* (`mine/data/have_auxiliaries.tsv`)
    # bool: the lemma is one of the language's ergative markers (`mine/data/ergative_markers.tsv`)
    ergative_marker: np.ndarray

    def has(self, bits: int) -> np.ndarray:
        """Words whose deprel is (one of) the given bits."""
        return (self.deprel & self.deprel.dtype.type(bits)) != 0

    @cached_property
    def head_upos(self) -> np.ndarray:
        """UPOS class of each word's head (0 for the root)."""
        return np.where(self.head >= 0, self.upos[np.maximum(self.head, 0)], 0)

    @cached_property
    def nouns(self) -> tuple[np.ndarray, np.ndarray]:
        """The NOUN words in (sentence, ID) order, and their keys (sentence << 32) + ID."""
        nouns = np.flatnonzero(self.upos == NOUN)
        key = (self.sentence[nouns] << 32) + self.id[nouns]
        order = np.argsort(key, kind="stable")
        return nouns[order], key[order]


@dataclass(frozen=True)
class Facts:
    """A language's facts that the rules read, as data."""

    valid_types: frozenset[str] = frozenset(TYPES)  # §1.6
    participle_agreement: bool = False  # §1.1 verb forms: active participles agree


@dataclass
class Features:
    """Per distinct FEATS string of a file: what the rules read, and the values as written."""

    strings: list[str]
    compared: np.ndarray  # (4, n) bit masks of val(w, f), value sets applied (§1.2)
    typo: np.ndarray  # Typo=Yes
    finite: np.ndarray  # §1.1 verb forms
    participle: np.ndarray  # VerbForm=Part
    has_value: np.ndarray  # some value in F (the lexicon's entry condition, §2)
    lists: list[pa.Array]  # per feature of F: the values as written, sorted
    person3: np.ndarray  # Person is 3, one value (§4 implicit third person)
    case_key: np.ndarray  # str: Case as a configuration key (§4.1, `set_key`)
    verbform_key: np.ndarray  # str: VerbForm as a configuration key
    # §1.7 layered features: per layer of LAYERS, (4, n) masks of val(w, f[layer]) (the plain
    # values' bits), the values as written, and whether the word carries the layer.
    layered: np.ndarray  # (len(LAYERS), 4, n)
    layer_lists: list[list[pa.Array]]
    carries: np.ndarray  # (len(LAYERS), n) bool
    dative: np.ndarray  # Case has Dat (an `obl` controller of indirect-object-verb)
    ergative: np.ndarray  # Case has Erg (the subject of ergative-verb)
    genitive: np.ndarray  # Case has Gen (the possessor of possessor)
    genitive_only: np.ndarray  # Case=Gen, one value (possessive: a genitive adposition's own)
    person3_bit: int  # the mask of Person 3 (a NOUN possessor's implicit Person)

    @cached_property
    def masks(self) -> np.ndarray:
        """(1 + len(LAYERS), 4, n): the plain masks (`compared`), then each layer's."""
        return np.concatenate([self.compared[None], self.layered])

    @classmethod
    def build(cls, strings: list[str], value_sets: ValueSets) -> Features:
        """Parse each distinct FEATS string once; a value gets a bit per feature (masks as wide
        as the values need: Python integers past 64)."""
        n = len(strings)
        masks = [[0] * n for _ in FEATURES]
        bits: list[dict[str, int]] = [{} for _ in FEATURES]
        bits[PERSON]["3"] = 0  # a NOUN possessor's implicit Person has a bit in every file
        lists: list[list[list[str]]] = [[] for _ in FEATURES]
        layer_masks = [[[0] * n for _ in FEATURES] for _ in LAYERS]
        layer_lists: list[list[list[list[str]]]] = [[[] for _ in FEATURES] for _ in LAYERS]
        typo, finite_, participle, has_value, person3 = (np.zeros(n, bool) for _ in range(5))
        dative, ergative, genitive, genitive_only = (np.zeros(n, bool) for _ in range(4))
        carries = np.zeros((len(LAYERS), n), bool)
        case_key, verbform_key = np.empty(n, object), np.empty(n, object)

        def mask_of(f: int, values: frozenset[str]) -> int:
            mask = 0
            for value in compared_values(FEATURES[f], values, value_sets):
                mask |= 1 << bits[f].setdefault(value, len(bits[f]))
            return mask

        for i, feats in enumerate(strings):
            bundle = parse_feats(feats)
            for f, values in enumerate(bundle.values()):
                masks[f][i] = mask_of(f, values)
                lists[f].append(sorted(values))
            layered_value = False
            for layer, name in enumerate(LAYERS):
                in_layer = parse_layer(feats, name) if "[" in feats else (frozenset(),) * 4
                for f, values in enumerate(in_layer):
                    layer_masks[layer][f][i] = mask_of(f, values)
                    layer_lists[layer][f].append(sorted(values))
                carries[layer, i] = any(in_layer)
                layered_value |= carries[layer, i]
            typo[i] = bundle.typo
            # The lexicon's entry condition (§2): a value of F, plain or layered (§1.7).
            has_value[i] = bundle.has_value() or layered_value
            dative[i], ergative[i] = "Dat" in bundle.case, "Erg" in bundle.case
            genitive[i], genitive_only[i] = "Gen" in bundle.case, bundle.case == {"Gen"}
            finite_[i] = is_finite(bundle.verbform, bundle.mood, bundle.person)
            participle[i] = bundle.verbform == {"Part"}
            person3[i] = bundle.person == {"3"}
            case_key[i], verbform_key[i] = set_key(bundle.case), set_key(bundle.verbform)
        widest = max(len(b) for b in bits)
        dtype: type = object
        for unsigned in (np.uint8, np.uint16, np.uint32, np.uint64):
            if widest <= 8 * np.dtype(unsigned).itemsize:
                dtype = unsigned  # the narrowest that holds every mask
                break
        compared: np.ndarray = np.array(masks, dtype=dtype).reshape(len(FEATURES), n)
        layered: np.ndarray = np.array(layer_masks, dtype=dtype).reshape(
            len(LAYERS), len(FEATURES), n
        )
        written = [pa.array(values, _STR_LIST) for values in lists]
        return cls(
            strings,
            compared,
            typo,
            finite_,
            participle,
            has_value,
            written,
            person3,
            case_key,
            verbform_key,
            layered,
            [[pa.array(values, _STR_LIST) for values in layer] for layer in layer_lists],
            carries,
            dative,
            ergative,
            genitive,
            genitive_only,
            1 << bits[PERSON]["3"],
        )


NO_VALUE = "_"  # a configuration key for a word without the feature (CoNLL-U's empty field)


def set_key(values: frozenset[str]) -> str:
    """A value set as a configuration key of §4.1: its values sorted and joined by `,`
    (`Acc,Nom` is a configuration of its own), or `_` without a value."""
    return ",".join(sorted(values)) or NO_VALUE


def _dependents(words: Words, heads: np.ndarray, chosen: np.ndarray) -> Pairs:
    """For each word index in heads, every chosen word whose head it is: (position in heads,
    dependent), grouped by position."""
    dependents = np.flatnonzero(chosen & (words.head >= 0))
    dependents = dependents[np.argsort(words.head[dependents], kind="stable")]
    of = words.head[dependents]
    low = np.searchsorted(of, heads, "left")
    position, offset = runs(low, np.searchsorted(of, heads, "right") - low)
    return position, dependents[offset]


def runs(first: np.ndarray, count: np.ndarray) -> Pairs:
    """Runs of a sorted array, run i being `count[i]` items from `first[i]`, as (i, index)
    pairs grouped by i."""
    owner = np.repeat(np.arange(len(first)), count)
    return owner, np.repeat(first - (np.cumsum(count) - count), count) + np.arange(len(owner))


# §1.1 Relation candidates: one function per row of the table, then the subject and
# verb-form rules.


def determiner(words: Words) -> Pairs:
    """§1.1 `determiner`: t has upos DET and base deprel `det`; c = head(t), upos NOUN."""
    t = np.flatnonzero((words.upos == DET) & words.has(DET_REL) & (words.head_upos == NOUN))
    return t, words.head[t]


def attributive(words: Words) -> Pairs:
    """§1.1 `attributive`: t has upos ADJ and base deprel `amod`; c = head(t), upos NOUN."""
    t = np.flatnonzero((words.upos == ADJ) & words.has(AMOD) & (words.head_upos == NOUN))
    return t, words.head[t]


def predicative(words: Words) -> Pairs:
    """§1.1 `predicative`: t has upos ADJ; c = every subject of t."""
    c = np.flatnonzero(subjects(words) & (words.head_upos == ADJ))
    return words.head[c], c


def subject_verb_a(words: Words) -> Pairs:
    """§1.1 `subject-verb` (a): t is a VERB, or an AUX heading its clause (base deprel other
    than `aux`/`cop`: Russian *Был момент*); c = every subject of t."""
    heading = (words.upos == VERB) | ((words.upos == AUX) & ~words.has(AUX_REL | COP))
    c = np.flatnonzero(subjects(words) & (words.head >= 0))
    c = c[heading[words.head[c]]]
    return words.head[c], c


def subject_verb_b(words: Words) -> Pairs:
    """§1.1 `subject-verb` (b): t is an AUX with base deprel `aux` or `cop` and head h; c = every
    subject of h — but a `cop` whose head has outer subjects takes those, and only those."""
    t = np.flatnonzero((words.upos == AUX) & words.has(AUX_REL | COP) & (words.head >= 0))
    h = words.head[t]
    outer = outer_subjects(words)
    has_outer = np.zeros(len(words.head), bool)
    has_outer[words.head[outer & (words.head >= 0)]] = True
    takes_outer = words.has(COP)[t] & has_outer[h]
    plain = np.flatnonzero(~takes_outer)
    position, c = _dependents(words, h[plain], subjects(words))
    position_outer, c_outer = _dependents(words, h[takes_outer], outer)
    targets = np.concatenate([t[plain][position], t[takes_outer][position_outer]])
    return targets, np.concatenate([c, c_outer])


def numeral(words: Words) -> Pairs:
    """§1.7 `numeral`: t has upos NUM and base deprel `nummod`; c = head(t), upos NOUN (Czech
    *dva stoly*)."""
    t = np.flatnonzero((words.upos == NUM) & words.has(NUMMOD) & (words.head_upos == NOUN))
    return t, words.head[t]


def subject_participle(words: Words, features: Features) -> Pairs:
    """§1.7 `subject-participle`: t is a VERB participle (`VerbForm=Part`) with an `aux:pass` or
    `cop` dependent, or an `aux` whose lemma is not the language's *have* (*elles sont parties*,
    not *elle a travaillé*); c = every subject of t. Where §1.1 finds the same pair, it wins."""
    marking = (words.has(COP | AUX_PASS) | (words.has(AUX_REL) & ~words.have)) & (words.head >= 0)
    marked = np.zeros(len(words.head), bool)
    marked[words.head[marking]] = True
    target = marked & (words.upos == VERB) & features.participle[words.feats]
    c = np.flatnonzero(subjects(words) & (words.head >= 0))
    c = c[target[words.head[c]]]
    return words.head[c], c


def _argument_heads(words: Words, t: np.ndarray) -> np.ndarray:
    """Where a verbal target's arguments hang (§1.7): on t, or on the head of an AUX with base
    deprel `aux` or `cop` (Basque *ditu* under *ikusi*)."""
    auxiliary = (words.upos[t] == AUX) & words.has(AUX_REL | COP)[t] & (words.head[t] >= 0)
    return np.where(auxiliary, words.head[t], t)


def _layered_verbs(
    words: Words, features: Features, layers: tuple[str, ...], chosen: np.ndarray
) -> Pairs:
    """§1.7: every VERB or AUX t carrying one of `layers`, with each `chosen` dependent of t,
    or of its head where t is an `aux`/`cop` AUX."""
    rows = [LAYERS.index(name) for name in layers]
    carried = np.any(features.carries[rows], axis=0)
    verbal = (words.upos == VERB) | (words.upos == AUX)
    t = np.flatnonzero(verbal & carried[words.feats])
    position, c = _dependents(words, _argument_heads(words, t), chosen)
    return t[position], c


def _nominal(words: Words) -> np.ndarray:
    """NOUN or PRON words (PROPN is never a controller)."""
    return (words.upos == NOUN) | (words.upos == PRON)


def object_verb(words: Words, features: Features) -> Pairs:
    """§1.7 `object-verb` (a): t is a VERB or AUX carrying `f[abs]` or `f[obj]` (Basque *ditu*:
    `Number[abs]=Plur`); c = each `obj` of t (or of the AUX's head), NOUN or PRON."""
    return _layered_verbs(words, features, OBJECT_LAYERS, words.has(OBJ) & _nominal(words))


def ergative_clause_object(words: Words, features: Features) -> Pairs:
    """§1.7 `object-verb` (b): t is a VERB without Case (a verb in a case is a nominalisation) in a
    clause whose subject is ergative (`Case=Erg`, or a `case` dependent in `Case=Erg` or of the
    language's ergative markers: Hindi, Urdu *ne*), or an `aux`/`cop` AUX of such a verb; c = each
    `obj` of the verb, NOUN or PRON (*laṛke ne kitāb paṛhī*); plain features compared."""
    n = len(words.head)
    ergative = features.ergative[words.feats]
    marking = ergative | words.ergative_marker
    marker = np.flatnonzero(words.has(CASE) & marking & (words.head >= 0))
    marked = np.zeros(n, bool)
    marked[words.head[marker]] = True
    subject = np.flatnonzero(subjects(words) & (ergative | marked) & (words.head >= 0))
    clause = np.zeros(n, bool)
    clause[words.head[subject]] = True
    caseless = features.compared[FEATURES.index("Case")][words.feats] == 0
    verbs = np.flatnonzero(clause & (words.upos == VERB) & caseless)
    auxiliaries = np.flatnonzero((words.upos == AUX) & words.has(AUX_REL | COP) & (words.head >= 0))
    head = words.head[auxiliaries]
    auxiliaries = auxiliaries[clause[head] & (words.upos[head] == VERB) & caseless[head]]
    t = np.concatenate([verbs, auxiliaries])
    position, c = _dependents(words, _argument_heads(words, t), words.has(OBJ) & _nominal(words))
    return t[position], c


def indirect_object_verb(words: Words, features: Features) -> Pairs:
    """§1.7 `indirect-object-verb`: t is a VERB or AUX carrying `f[dat]` (Basque *dizkiot*);
    c = each `iobj`, or `obl` in `Case=Dat`, of t (or of the AUX's head), NOUN or PRON."""
    dative = words.has(IOBJ) | (words.has(OBL) & features.dative[words.feats])
    return _layered_verbs(words, features, ("dat",), dative & _nominal(words))


def ergative_verb(words: Words, features: Features) -> Pairs:
    """§1.7 `ergative-verb`: t is a VERB or AUX carrying `f[erg]`; c = each subject of t (or of
    the AUX's head) in `Case=Erg`."""
    ergative = subjects(words) & features.ergative[words.feats]
    return _layered_verbs(words, features, ("erg",), ergative)


def possessor(words: Words, features: Features) -> Pairs:
    """§1.7 `possessor`: t is a NOUN carrying `f[psor]` (Turkish *evim*, Finnish *taloni*);
    c = each `nmod:poss` dependent of t, NOUN or PRON, in `Case=Gen` (a bare noun of a Turkish
    compound is no possessor: *dağ evi* "mountain house" → *dağ evim* "my mountain house")."""
    carried = features.carries[LAYERS.index("psor")][words.feats] & (words.upos == NOUN)
    t = np.flatnonzero(carried)
    genitive = features.genitive[words.feats]
    position, c = _dependents(words, t, words.has(NMOD_POSS) & _nominal(words) & genitive)
    return t[position], c


def possessive(words: Words, features: Features) -> Pairs:
    """§1.7 `possessive`: (a) t is a PRON or DET with deprel `nmod:poss` or `det:poss`, c =
    head(t), a NOUN (Hindi *merī kitāb*; a `det` possessive is a determiner first); (b) t is an
    ADP with base deprel `case` whose head h is an `nmod:poss`, or an `nmod` when t carries
    Number or Gender (Urdu *kā*: a locative *meṁ* is no genitive), and c = head(h), a NOUN."""
    pronoun = ((words.upos == PRON) | (words.upos == DET)) & words.has(NMOD_POSS | DET_POSS)
    t_pronoun = np.flatnonzero(pronoun & (words.head_upos == NOUN))
    number, gender = (FEATURES.index(f) for f in ("Number", "Gender"))
    marked = (features.compared[number] != 0) | (features.compared[gender] != 0)
    adposition = (words.upos == ADP) & words.has(CASE) & (words.head >= 0)
    t_adposition = np.flatnonzero(adposition)
    h = words.head[t_adposition]
    phrase = words.has(NMOD_POSS)[h] | (words.has(NMOD)[h] & marked[words.feats[t_adposition]])
    phrase &= words.head_upos[h] == NOUN
    t_adposition, h = t_adposition[phrase], h[phrase]
    return (
        np.concatenate([t_pronoun, t_adposition]),
        np.concatenate([words.head[t_pronoun], words.head[h]]),
    )


def subjects(words: Words) -> np.ndarray:
    """§1.1 Subjects: words with base deprel `nsubj`, not `nsubj:outer`, and upos NOUN or PRON
    (PROPN is never a controller)."""
    return (
        words.has(NSUBJ) & ~words.has(NSUBJ_OUTER) & ((words.upos == NOUN) | (words.upos == PRON))
    )


def outer_subjects(words: Words) -> np.ndarray:
    """§1.1 Subjects: the `nsubj:outer` words with upos NOUN or PRON — the controllers of a `cop`
    whose head has them (an outer subject of another upos does not count: its head is treated
    as having none)."""
    return words.has(NSUBJ_OUTER) & ((words.upos == NOUN) | (words.upos == PRON))


def is_finite(verbform: frozenset[str], mood: frozenset[str], person: frozenset[str]) -> bool:
    """§1.1 Verb forms: `VerbForm=Fin`, or no VerbForm and a Mood or Person value."""
    return "Fin" in verbform if verbform else bool(mood or person)


def verb_form_allowed(
    words: Words, features: Features, t: np.ndarray, c: np.ndarray, participle_agreement: bool
) -> np.ndarray:
    """§1.1 Verb forms, for subject-verb candidates: t finite; or a VERB participle whose
    controller is `nsubj:pass`; or, in a participle-agreement language, any participle."""
    code = words.feats[t]
    participle = features.participle[code]
    allowed = features.finite[code]
    allowed |= participle & (words.upos[t] == VERB) & words.has(NSUBJ_PASS)[c]
    if participle_agreement:
        allowed |= participle
    return allowed


@dataclass(frozen=True)
class Row:
    """A row of the §1.1 table: its type (index into TYPES), the rule finding its (t, c) pairs,
    and the UPOS its targets and controllers may have."""

    kind: int
    find: Callable[[Words, Features], Pairs]
    targets: tuple[str, ...]
    controllers: tuple[str, ...]
    # §1.7: the layers of the target's features compared with the controller's plain ones (the
    # first the target carries); none: the plain features.
    layers: tuple[str, ...] = ()


_SUBJECTS = ("NOUN", "PRON")
OBJECT_LAYERS = ("abs", "obj")  # §1.7 object-verb (a): `f[abs]` or `f[obj]`


def _words_only(find: Callable[[Words], Pairs]) -> Callable[[Words, Features], Pairs]:
    """A row's rule that reads the words alone."""
    return lambda words, _features: find(words)


# The §1.1 table in its order (the first type wins a pair two rows find).
ROWS = (
    Row(DETERMINER, _words_only(determiner), ("DET",), ("NOUN",)),
    Row(ATTRIBUTIVE, _words_only(attributive), ("ADJ",), ("NOUN",)),
    Row(PREDICATIVE, _words_only(predicative), ("ADJ",), _SUBJECTS),
    Row(SUBJECT_VERB, _words_only(subject_verb_a), ("VERB", "AUX"), _SUBJECTS),
    Row(SUBJECT_VERB, _words_only(subject_verb_b), ("AUX",), _SUBJECTS),
    Row(NUMERAL, _words_only(numeral), ("NUM",), ("NOUN",)),
    Row(SUBJECT_PARTICIPLE, subject_participle, ("VERB",), _SUBJECTS),
    Row(POSSESSIVE, possessive, ("PRON", "DET", "ADP"), ("NOUN",)),
    Row(OBJECT_VERB, object_verb, ("VERB", "AUX"), _SUBJECTS, OBJECT_LAYERS),
    Row(OBJECT_VERB, ergative_clause_object, ("VERB", "AUX"), _SUBJECTS),
    Row(INDIRECT_OBJECT_VERB, indirect_object_verb, ("VERB", "AUX"), _SUBJECTS, ("dat",)),
    Row(ERGATIVE_VERB, ergative_verb, ("VERB", "AUX"), _SUBJECTS, ("erg",)),
    Row(POSSESSOR, possessor, ("NOUN",), _SUBJECTS, ("psor",)),
)

# The UPOS a relation's members have: the lexicon keeps these (a varied word's bad forms, the
# other member's ambiguity come from it), each a class of UPOS.
MEMBER_UPOS = frozenset(tag for row in ROWS for tag in row.targets + row.controllers)
assert MEMBER_UPOS.issubset(UPOS)


def layer_of(features: Features, codes: np.ndarray, layers: tuple[str, ...]) -> np.ndarray:
    """§1.7: per word (FEATS code), the index in LAYERS of the first of `layers` it carries,
    -1 where none (or no layers: a type comparing plain features)."""
    layer = np.full(len(codes), -1, np.int64)
    for name in reversed(layers):
        index = LAYERS.index(name)
        layer[features.carries[index][codes]] = index
    return layer


def candidates(
    words: Words, features: Features, facts: Facts
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """§1.1: (t, c, type, layer) of every row of the table (layer: index into LAYERS of the
    target's features compared, -1 for plain ones), subject-verb pairs kept only where the
    verb-form rule allows, then once per pair (a layered type first, then the first in table
    order: a participle §1.1 takes is no subject-participle target); sorted by t, c."""
    rows = [(row, row.find(words, features)) for row in ROWS]
    t = np.concatenate([pair[0] for _, pair in rows]).astype(np.int64)
    c = np.concatenate([pair[1] for _, pair in rows]).astype(np.int64)
    kind = np.concatenate([np.full(len(pair[0]), row.kind, np.int64) for row, pair in rows])
    layer = np.concatenate(
        [layer_of(features, words.feats[pair[0]], row.layers) for row, pair in rows]
    )
    verb = kind == SUBJECT_VERB
    keep = ~verb
    keep[verb] = verb_form_allowed(words, features, t[verb], c[verb], facts.participle_agreement)
    t, c, kind, layer = t[keep], c[keep], kind[keep], layer[keep]
    # A layered type compares what a plain one cannot (a Basque auxiliary has no plain Number):
    # where both find a pair, the layered one wins.
    order = np.lexsort((np.where(layer >= 0, -1, kind), c, t))
    t, c, kind, layer = t[order], c[order], kind[order], layer[order]
    once = np.ones(len(t), bool)
    once[1:] = (t[1:] != t[:-1]) | (c[1:] != c[:-1])
    return t[once], c[once], kind[once], layer[once]


# §1.2 Agreement and drops.


def compared_values(feature: str, values: frozenset[str], value_sets: ValueSets) -> frozenset[str]:
    """§1.2: the values compared for val(w, f), each value that stands for a set in the
    language (Norwegian `Gender=Com` = {Masc, Fem}) replaced by that set."""
    sets = value_sets.get(feature)
    if not sets or sets.keys().isdisjoint(values):
        return values
    return frozenset().union(*(sets.get(value, frozenset({value})) for value in values))


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
    """(4, k) masks of the values compared (§1.2): the target's plain ones or, for a §1.7
    layered type, its layer's (`layer`, -1: plain), less what a possessive carries of its
    possessor, which plays no part: its Person (*mio*, *merā* are first person, their noun is
    not), and an adposition's `Case=Gen`, the case it marks (Hindi *kā*); the controller's
    plain ones, a NOUN possessor's Person 3 added."""
    mt = features.masks[layer + 1, :, words.feats[t]].T
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
    layered types compare the target's layer."""
    mt, mc = member_masks(words, features, t, c, kind, layer)
    both = (mt != 0) & (mc != 0)
    meet = (mt & mc) != 0
    agreeing = ((both & meet).astype(np.int64) << np.arange(len(FEATURES))[:, None]).sum(axis=0)
    return agreeing, (both & ~meet).any(axis=0)


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
