"""The words the relation rules read, as arrays: a file's syntactic words (`Words`), the
language facts handed in (`Facts`), each distinct FEATS string's values as bit masks
(`Features`), and the UPOS, deprel and type codes the rules of `candidates` and `relations`
test. What differs between languages is data handed in, never looked up here."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
import pyarrow as pa

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
    b"case", b"nmod", b"xcomp",
)  # fmt: skip
FULL_DEPRELS = (
    b"nsubj:pass", b"nsubj:outer", b"aux:pass", b"nmod:poss", b"det:poss", b"acl:relcl",
)  # fmt: skip
(
    DET_REL, AMOD, NSUBJ, AUX_REL, COP, CONJ, NUMMOD, OBJ, IOBJ, OBL, CASE, NMOD, XCOMP,
    NSUBJ_PASS, NSUBJ_OUTER, AUX_PASS, NMOD_POSS, DET_POSS, ACL_RELCL,
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
DEFINITE, NUMBER = FEATURES.index("Definite"), FEATURES.index("Number")

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
    # bool: the lemma is a *have* whose participle agrees with an object before it (French
    # *avoir*, `mine/data/object_participle_auxiliaries.tsv`)
    object_have: np.ndarray

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
    compared: np.ndarray  # (len(FEATURES), n) bit masks of val(w, f), value sets applied (§1.2)
    typo: np.ndarray  # Typo=Yes
    finite: np.ndarray  # §1.1 verb forms
    participle: np.ndarray  # VerbForm=Part
    has_value: np.ndarray  # some value in F (the lexicon's entry condition, §2)
    lists: list[pa.Array]  # per feature of F: the values as written, sorted
    person3: np.ndarray  # Person is 3, one value (§4 implicit third person)
    case_key: np.ndarray  # str: Case as a configuration key (§4.1, `set_key`)
    verbform_key: np.ndarray  # str: VerbForm as a configuration key
    # §1.7 layered features: per layer of LAYERS, (len(FEATURES), n) masks of val(w, f[layer]) (the plain
    # values' bits), the values as written, and whether the word carries the layer.
    layered: np.ndarray  # (len(LAYERS), len(FEATURES), n)
    layer_lists: list[list[pa.Array]]
    carries: np.ndarray  # (len(LAYERS), n) bool
    dative: np.ndarray  # Case has Dat (an `obl` controller of indirect-object-verb)
    ergative: np.ndarray  # Case has Erg (the subject of ergative-verb)
    genitive: np.ndarray  # Case has Gen (the possessor of possessor)
    genitive_only: np.ndarray  # Case=Gen, one value (possessive: a genitive adposition's own)
    relative: np.ndarray  # PronType has Rel (object-verb (b): *les lettres qu'il a écrites*)
    personal: np.ndarray  # PronType has Prs (object-verb (b): the clitic of *je les ai vues*)
    person3_bit: int  # the mask of Person 3 (a NOUN possessor's implicit Person)
    # §1.7: per type of TYPES, whether Definite is compared (`mine/data/definite_languages.tsv`)
    definite_kinds: np.ndarray = field(default_factory=lambda: np.zeros(len(TYPES), bool))

    @cached_property
    def masks(self) -> np.ndarray:
        """(1 + len(LAYERS), len(FEATURES), n): the plain masks (`compared`), then each layer's."""
        return np.concatenate([self.compared[None], self.layered])

    @classmethod
    def build(
        cls,
        strings: list[str],
        value_sets: ValueSets,
        definite_types: frozenset[str] = frozenset(),
    ) -> Features:
        """Parse each distinct FEATS string once; a value gets a bit per feature (masks as wide
        as the values need: Python integers past 64); Definite is read only in a language where
        it is in F for some types (`definite_types`, §1.7)."""
        definite = bool(definite_types)
        n = len(strings)
        masks = [[0] * n for _ in FEATURES]
        bits: list[dict[str, int]] = [{} for _ in FEATURES]
        bits[PERSON]["3"] = 0  # a NOUN possessor's implicit Person has a bit in every file
        lists: list[list[tuple[str, ...]]] = [[] for _ in FEATURES]
        layer_masks = [[[0] * n for _ in FEATURES] for _ in LAYERS]
        layer_lists: list[list[list[tuple[str, ...]]]] = [[[] for _ in FEATURES] for _ in LAYERS]
        carries = np.zeros((len(LAYERS), n), bool)
        facts = np.zeros((len(_FLAGS), n), bool)
        case_key, verbform_key = np.empty(n, object), np.empty(n, object)

        def mask_of(f: int, values: frozenset[str]) -> int:
            mask = 0
            for value in compared_values(FEATURES[f], values, value_sets):
                mask |= 1 << bits[f].setdefault(value, len(bits[f]))
            return mask

        for i, feats in enumerate(strings):
            parsed = _parsed(feats, definite)
            for f, values in enumerate(parsed.values):
                masks[f][i] = mask_of(f, values) if values else 0
                lists[f].append(parsed.written[f])
            for layer in range(len(LAYERS)):
                for f, values in enumerate(parsed.layers[layer]):
                    layer_masks[layer][f][i] = mask_of(f, values) if values else 0
                    layer_lists[layer][f].append(parsed.layers_written[layer][f])
            carries[:, i] = parsed.carries
            facts[:, i] = parsed.flags
            case_key[i], verbform_key[i] = parsed.case_key, parsed.verbform_key
        (
            typo,
            finite_,
            participle,
            has_value,
            person3,
            dative,
            ergative,
            genitive,
            genitive_only,
            relative,
            personal,
        ) = facts  # the rows in _FLAGS' order
        dtype = _mask_dtype(max(len(b) for b in bits))
        compared: np.ndarray = np.array(masks, dtype=dtype).reshape(len(FEATURES), n)
        layered: np.ndarray = np.array(layer_masks, dtype=dtype).reshape(
            len(LAYERS), *compared.shape
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
            relative,
            personal,
            1 << bits[PERSON]["3"],
            np.array([name in definite_types for name in TYPES]),
        )


_FLAGS = (
    "typo", "finite", "participle", "has_value", "person3",
    "dative", "ergative", "genitive", "genitive_only", "relative", "personal",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Parsed:
    """What `Features.build` reads of one FEATS string, before a file's bits are given."""

    values: tuple[frozenset[str], ...]  # val(w, f) for f in FEATURES
    written: tuple[tuple[str, ...], ...]  # the same, sorted
    layers: tuple[tuple[frozenset[str], ...], ...]  # per layer of LAYERS
    layers_written: tuple[tuple[tuple[str, ...], ...], ...]
    carries: tuple[bool, ...]  # per layer: the word carries it
    flags: tuple[bool, ...]  # _FLAGS
    case_key: str
    verbform_key: str


@lru_cache(maxsize=1 << 14)
def _parsed(feats: str, definite: bool) -> _Parsed:
    """One FEATS string read once per worker, not once per file: a language's files share most
    of them (an entry is ~2 KiB: at most ~32 MiB held)."""
    bundle = parse_feats(feats, definite)
    values = _shared(tuple(bundle.values()))
    layers = tuple(_shared(_layer_values(feats, name)) for name in LAYERS)
    carries = tuple(any(in_layer) for in_layer in layers)
    flags = (
        bundle.typo,
        is_finite(bundle.verbform, bundle.mood, bundle.person),
        bundle.verbform == {"Part"},
        # The lexicon's entry condition (§2): a value of F, plain or layered (§1.7).
        bundle.has_value() or any(carries),
        bundle.person == {"3"},
        "Dat" in bundle.case,
        "Erg" in bundle.case,
        "Gen" in bundle.case,
        bundle.case == {"Gen"},
        pron_type(feats, "Rel"),
        pron_type(feats, "Prs"),
    )
    return _Parsed(
        values,
        _written(values),
        layers,
        tuple(_written(in_layer) for in_layer in layers),
        carries,
        flags,
        set_key(bundle.case),
        set_key(bundle.verbform),
    )


def _written(values: tuple[frozenset[str], ...]) -> tuple[tuple[str, ...], ...]:
    return _shared(tuple(tuple(sorted(v)) for v in values))


_SHARED: dict[tuple, tuple] = {}


def _shared(values: tuple) -> tuple:
    """One object per distinct value tuple (few recur across thousands of FEATS strings)."""
    return _SHARED.setdefault(values, values)


def _layer_values(feats: str, layer: str) -> tuple[frozenset[str], ...]:
    """A FEATS string's values of F in `layer` (`Number[abs]=Plur`), empty sets where none."""
    return parse_layer(feats, layer) if "[" in feats else (frozenset(),) * len(FEATURES)


def _mask_dtype(widest: int) -> type:
    """The narrowest unsigned type that holds masks of `widest` bits (object past 64)."""
    for unsigned in (np.uint8, np.uint16, np.uint32, np.uint64):
        if widest <= 8 * np.dtype(unsigned).itemsize:
            return unsigned
    return object


NO_VALUE = "_"  # a configuration key for a word without the feature (CoNLL-U's empty field)


def set_key(values: frozenset[str]) -> str:
    """A value set as a configuration key of §4.1: its values sorted and joined by `,`
    (`Acc,Nom` is a configuration of its own), or `_` without a value."""
    return ",".join(sorted(values)) or NO_VALUE


def dependents_of(words: Words, heads: np.ndarray, chosen: np.ndarray) -> Pairs:
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


def pron_type(feats: str, value: str) -> bool:
    """`PronType` has the value (`PronType=Int,Rel` has `Rel`)."""
    for item in feats.split("|"):
        name, _, values = item.partition("=")
        if name == "PronType":
            return value in values.split(",")
    return False


def is_finite(verbform: frozenset[str], mood: frozenset[str], person: frozenset[str]) -> bool:
    """§1.1 Verb forms: `VerbForm=Fin`, or no VerbForm and a Mood or Person value."""
    return "Fin" in verbform if verbform else bool(mood or person)


def compared_values(feature: str, values: frozenset[str], value_sets: ValueSets) -> frozenset[str]:
    """§1.2: the values compared for val(w, f), each value that stands for a set in the
    language (Norwegian `Gender=Com` = {Masc, Fem}) replaced by that set."""
    sets = value_sets.get(feature)
    if not sets or sets.keys().isdisjoint(values):
        return values
    return frozenset().union(*(sets.get(value, frozenset({value})) for value in values))
