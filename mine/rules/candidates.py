"""§1.1 and §1.7: which word pairs are relation candidates, one function per row of the tables
(`ROWS`), then the subject and verb-form rules; `candidates` runs them in turn over a file's
`Words`. The readable sentence-by-sentence oracle they are tested against lives in
`tests/reference/`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ud_agree.schemas.corpus import FEATURES, TYPE_LAYERS, TYPES

from ..features import LAYERS
from .words import (
    ACL_RELCL,
    ADJ,
    ADP,
    AMOD,
    ATTRIBUTIVE,
    AUX,
    AUX_PASS,
    AUX_REL,
    CASE,
    COP,
    DET,
    DET_POSS,
    DET_REL,
    DETERMINER,
    ERGATIVE_VERB,
    INDIRECT_OBJECT_VERB,
    IOBJ,
    NMOD,
    NMOD_POSS,
    NOUN,
    NSUBJ,
    NSUBJ_OUTER,
    NSUBJ_PASS,
    NUM,
    NUMERAL,
    NUMMOD,
    OBJ,
    OBJECT_VERB,
    OBL,
    POSSESSIVE,
    POSSESSOR,
    PREDICATIVE,
    PRON,
    SUBJECT_PARTICIPLE,
    SUBJECT_VERB,
    UPOS,
    VERB,
    XCOMP,
    Facts,
    Features,
    Pairs,
    Words,
    dependents_of,
)

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
    position, c = dependents_of(words, h[plain], subjects(words))
    position_outer, c_outer = dependents_of(words, h[takes_outer], outer)
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
    position, c = dependents_of(words, _argument_heads(words, t), chosen)
    return t[position], c


def _nominal(words: Words) -> np.ndarray:
    """NOUN or PRON words (PROPN is never a controller)."""
    return (words.upos == NOUN) | (words.upos == PRON)


def object_verb(words: Words, features: Features) -> Pairs:
    """§1.7 `object-verb` (a): t is a VERB or AUX carrying `f[abs]` or `f[obj]` (Basque *ditu*:
    `Number[abs]=Plur`); c = each `obj` of t (or of the AUX's head), NOUN or PRON."""
    return _layered_verbs(words, features, _layers(OBJECT_VERB), words.has(OBJ) & _nominal(words))


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
    position, c = dependents_of(words, _argument_heads(words, t), words.has(OBJ) & _nominal(words))
    return t[position], c


def object_participle(words: Words, features: Features) -> Pairs:
    """§1.7 `object-verb` (b), French and Italian: t is a VERB participle with an `aux` whose
    lemma is a *have* of `mine/data/object_participle_auxiliaries.tsv`; c = its object before
    it: a personal (`PronType=Prs`) `obj` PRON, the clitic of *je les ai vues*, or, where t heads
    an `acl:relcl` whose relative pronoun (`PronType=Rel`) is t's `obj`, the NOUN or PRON the
    clause modifies (*les lettres qu'il a écrites*); no participle with an `xcomp`; plain
    features compared."""
    auxiliary = np.flatnonzero(words.has(AUX_REL) & words.object_have & (words.head >= 0))
    marked = np.zeros(len(words.head), bool)
    marked[words.head[auxiliary]] = True
    # A participle before an infinitive (`xcomp`) agrees only when the object is the
    # infinitive's subject (*les airs qu'il a laissé jouer*; Le Bon Usage): not one.
    marked[words.head[np.flatnonzero(words.has(XCOMP) & (words.head >= 0))]] = False
    t = np.flatnonzero(marked & (words.upos == VERB) & features.participle[words.feats])
    pronoun = words.has(OBJ) & (words.upos == PRON)
    personal = features.personal[words.feats] & ~features.relative[words.feats]
    position, c = dependents_of(words, t, pronoun & personal)
    clitic = t[position]
    before = words.id[c] < words.id[clitic]
    position, r = dependents_of(words, t, pronoun & features.relative[words.feats])
    clause = t[position]
    antecedent = words.head[clause]
    # The relative pronoun precedes its verb; the clause hangs on the noun it modifies.
    keep = words.has(ACL_RELCL)[clause] & (antecedent >= 0) & (words.id[r] < words.id[clause])
    clause, antecedent = clause[keep], antecedent[keep]
    keep = _nominal(words)[antecedent]
    return (
        np.concatenate([clitic[before], clause[keep]]),
        np.concatenate([c[before], antecedent[keep]]),
    )


def indirect_object_verb(words: Words, features: Features) -> Pairs:
    """§1.7 `indirect-object-verb`: t is a VERB or AUX carrying `f[dat]` (Basque *dizkiot*);
    c = each `iobj`, or `obl` in `Case=Dat`, of t (or of the AUX's head), NOUN or PRON."""
    dative = words.has(IOBJ) | (words.has(OBL) & features.dative[words.feats])
    return _layered_verbs(words, features, _layers(INDIRECT_OBJECT_VERB), dative & _nominal(words))


def ergative_verb(words: Words, features: Features) -> Pairs:
    """§1.7 `ergative-verb`: t is a VERB or AUX carrying `f[erg]`; c = each subject of t (or of
    the AUX's head) in `Case=Erg`."""
    ergative = subjects(words) & features.ergative[words.feats]
    return _layered_verbs(words, features, _layers(ERGATIVE_VERB), ergative)


def possessor(words: Words, features: Features) -> Pairs:
    """§1.7 `possessor`: t is a NOUN carrying `f[psor]` (Turkish *evim*, Finnish *taloni*);
    c = each `nmod:poss` dependent of t, NOUN or PRON, in `Case=Gen` (a bare noun of a Turkish
    compound is no possessor: *dağ evi* "mountain house" → *dağ evim* "my mountain house")."""
    carried = features.carries[LAYERS.index(_layers(POSSESSOR)[0])][words.feats] & (
        words.upos == NOUN
    )
    t = np.flatnonzero(carried)
    genitive = features.genitive[words.feats]
    position, c = dependents_of(words, t, words.has(NMOD_POSS) & _nominal(words) & genitive)
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


def _layers(kind: int) -> tuple[str, ...]:
    """§1.7: the layers a layered type compares (`TYPE_LAYERS`, shared with the evaluator)."""
    return TYPE_LAYERS[TYPES[kind]]


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
    Row(OBJECT_VERB, object_verb, ("VERB", "AUX"), _SUBJECTS, _layers(OBJECT_VERB)),
    Row(OBJECT_VERB, ergative_clause_object, ("VERB", "AUX"), _SUBJECTS),
    Row(OBJECT_VERB, object_participle, ("VERB",), _SUBJECTS),
    Row(
        INDIRECT_OBJECT_VERB,
        indirect_object_verb,
        ("VERB", "AUX"),
        _SUBJECTS,
        _layers(INDIRECT_OBJECT_VERB),
    ),
    Row(ERGATIVE_VERB, ergative_verb, ("VERB", "AUX"), _SUBJECTS, _layers(ERGATIVE_VERB)),
    Row(POSSESSOR, possessor, ("NOUN",), _SUBJECTS, _layers(POSSESSOR)),
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
