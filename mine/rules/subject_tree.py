"""Subjects (§4.2) read from the tree, over all words of a file at once (numpy): a relative
pronoun's antecedent, the Number a bare noun's dependents give it, what makes it determined, a
nominal predicate, the counts of lent values and of finite cells. `rules.subjects` decides over
the columns these give."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.schemas.corpus import FEATURES

from ..extract import FileResult
from . import relations as rules
from . import words as vocab
from .subjects import subject_shown
from .words import NO_VALUE, Features, Words

if TYPE_CHECKING:
    from ..columnar import Table

_NOMINAL_WRITTEN = (b"NOUN", b"PROPN", b"PRON", b"NUM")


# Number and Person of features.compared: what a finite verb agrees in (Gender left out: *het
# volk, dat … behoefte had* is not ambiguous for its verb).
_AGREEING_FIELDS = (0, 3)


def _nominal(table: Table, words: Words, at: np.ndarray) -> np.ndarray:
    """Whether the words `at` are nominals as written (NOUN, PROPN, PRON, NUM)."""
    field = table.rows.field(3, table.word_rows[at])
    return np.logical_or.reduce([field.equals(tag) for tag in _NOMINAL_WRITTEN])


def _nmod_of_another(
    table: Table, words: Words, features: Features, antecedent: np.ndarray
) -> np.ndarray:
    """§4.2: whether an antecedent is the `nmod` of a nominal head with other values (*one of
    those people who has*): the relative clause may be about the head, so the antecedent lends
    nothing (as a coordinated one)."""
    if len(antecedent) == 0:
        return np.zeros(0, bool)
    nmod = table.rows.field(7, table.word_rows[antecedent]).base_is(b"nmod")
    head = words.head[antecedent]
    at = np.maximum(head, 0)
    other = np.zeros(len(antecedent), bool)
    for f in _AGREEING_FIELDS:
        mine_, theirs = (
            features.compared[f][words.feats[antecedent]],
            features.compared[f][words.feats[at]],
        )
        other |= mine_ != theirs
    return nmod & (head >= 0) & _nominal(table, words, at) & other


def _object_reading(
    table: Table, words: Words, features: Features, pronoun: np.ndarray, antecedent: np.ndarray
) -> np.ndarray:
    """§4.2: whether a relative pronoun without Case shares its clause with another nominal core
    dependent (`obj`, or another subject) between it and the verb, of another Number or Person
    than its antecedent: the clause then reads as an object relative about that nominal (Dutch
    *…, die de gezondheid van een kind kunnen → kan bedreigen*), so the antecedent lends
    nothing."""
    found = np.zeros(len(pronoun), bool)
    if len(pronoun) == 0:
        return found
    caseless = features.compared[2][words.feats[pronoun]] == 0
    deprels = table.rows.field(7, table.word_rows)
    # An object pronoun (a clitic: French *ce qui m'a intriguée*) could not be the subject.
    everyone = np.arange(len(words.head))
    obj = deprels.base_is(b"obj") & (words.upos != vocab.PRON)
    core = (obj | deprels.base_is(b"nsubj")) & (words.head >= 0) & _nominal(table, words, everyone)
    k = np.flatnonzero(core)
    # Per pronoun, the clause's other core nominals (few per clause: a sorted search).
    order = np.argsort(words.head[k], kind="stable")
    k, heads = k[order], words.head[k][order]
    clause = words.head[pronoun]
    lo, hi = np.searchsorted(heads, clause, "left"), np.searchsorted(heads, clause, "right")
    for i in np.flatnonzero(caseless & (clause >= 0) & (hi > lo)):
        for other in k[lo[i] : hi[i]]:
            # Only a nominal between the pronoun and its verb can be the subject of an object
            # relative (*who the man saw*); one after the verb is its object.
            if not pronoun[i] < other < clause[i]:
                continue
            for f in _AGREEING_FIELDS:
                a = features.compared[f][words.feats[antecedent[i]]]
                b = features.compared[f][words.feats[other]]
                if a and b and not (a & b):
                    found[i] = True
    return found


def tree_facts(
    table: Table, words: Words, features: Features, c: np.ndarray
) -> dict[str, pa.Array]:
    """What §4.2 reads about each controller beyond its own FEATS: the antecedent of a relative
    pronoun subject of an `acl:relcl` clause, the one Number of its det/amod dependents that do
    not disagree with it, and whether it or a det dependent is `Definite=Def`."""
    strings = pa.array(features.strings, pa.string())
    relative = _has_value(strings, "PronType", "Rel")
    definite = _has_value(strings, "Definite", "Def")
    clause = words.head[c]
    relcl = np.zeros(len(c), bool)
    has_clause = clause >= 0
    if has_clause.any():
        rows = table.word_rows[clause[has_clause]]
        relcl[has_clause] = table.rows.field(7, rows).equals(b"acl:relcl")
    head_noun = words.head[np.maximum(clause, 0)]
    # An antecedent with a conjunct before the pronoun may stand for the coordination as a
    # whole (*een aantal ruiters en publiek die stonden*): the clause's verb may agree with
    # either, so it lends nothing (as §4 skips a coordinated controller). A conjunct after the
    # clause (*the Pyramid of the Sun (which is …) and the Pyramid of the Moon*) leaves it the
    # first conjunct's.
    conj = np.flatnonzero(words.has(vocab.CONJ) & (words.head >= 0))
    first_conj = np.full(len(words.head), np.iinfo(np.int64).max, np.int64)
    np.minimum.at(first_conj, words.head[conj], conj)
    single = first_conj[np.maximum(head_noun, 0)] > c
    candidate = relcl & relative[words.feats[c]] & single
    lends = ~_nmod_of_another(table, words, features, np.maximum(head_noun, 0))
    lends[candidate] &= ~_object_reading(
        table, words, features, c[candidate], np.maximum(head_noun, 0)[candidate]
    )
    antecedent = np.where(candidate & lends, head_noun, -1)
    none = antecedent < 0
    codes = pa.array(words.feats[np.maximum(antecedent, 0)], mask=none)
    # The antecedent's UPOS as written (PROPN too: the rules' classes leave it out).
    found = np.flatnonzero(~none)
    upos_written = table.rows.strings(3, table.word_rows[antecedent[found]])
    at = np.full(len(c), -1, np.int64)
    at[found] = np.arange(len(found))
    upos = upos_written.cast(pa.string()).take(pa.array(np.maximum(at, 0), mask=none))
    return {
        "antecedent_upos": upos,
        "antecedent_number": features.lists[0].take(codes),
        "antecedent_gender": features.lists[1].take(codes),
        "antecedent_person": features.lists[3].take(codes),
        "controller_det_number": _dependent_number(words, features, c),
        "controller_determined": pa.array(
            definite[words.feats[c]] | _determined(table, words, strings, definite)[c]
        ),
        "controller_nominal_predicate": pa.array(
            _nominal_predicate(words, strings, c, clause, has_clause)
        ),
    }


def _dependent_number(words: Words, features: Features, c: np.ndarray) -> pa.Array:
    """Per controller, the one Number its det/amod dependents give it (empty: none or two)."""
    # A det/amod dependent's Number counts where it has one value and no Gender or Case of its
    # own disagrees with its head's; a head with two such Numbers takes none.
    numbers = features.lists[0].to_pylist()
    single = np.array([len(v) == 1 for v in numbers], bool)
    names = sorted({v[0] for v in numbers if len(v) == 1})
    code_of = np.array([names.index(v[0]) if len(v) == 1 else -1 for v in numbers], np.int64)
    dependent = words.has(vocab.DET_REL | vocab.AMOD) & (words.head >= 0)
    dependent &= np.isin(words.upos, [vocab.DET, vocab.ADJ]) & single[words.feats]
    d = np.flatnonzero(dependent)
    head = words.head[d]
    for f in (1, 2):  # Gender, Case
        md, mh = features.compared[f][words.feats[d]], features.compared[f][words.feats[head]]
        disagree = (md != 0) & (mh != 0) & ((md & mh) == 0)
        d, head = d[~disagree.astype(bool)], head[~disagree.astype(bool)]
    low = np.full(len(words.head), len(names), np.int64)
    high = np.full(len(words.head), -1, np.int64)
    np.minimum.at(low, head, code_of[words.feats[d]])
    np.maximum.at(high, head, code_of[words.feats[d]])
    one = low[c] == high[c]
    # A list of one Number where `one`, else empty (built from offsets, not per row).
    offsets = pa.array(np.concatenate([[0], np.cumsum(one)]).astype(np.int32))
    numbers_taken = pa.array(names, pa.string()).take(pa.array(low[c][one]))
    det_number = pa.ListArray.from_arrays(offsets, numbers_taken)
    return det_number


def _determined(table: Table, words: Words, strings: pa.Array, definite: np.ndarray) -> np.ndarray:
    """Per word, whether a determiner or numeral dependent makes it definite or quantified."""
    # A determiner that makes the noun phrase definite or quantified (an article with
    # Definite=Def, a possessive, a demonstrative, a quantifier), or a numeral: the plural is
    # not bare (unagreement may be licit, §4.2).
    determining = definite | _determines(strings)
    definite_det = np.zeros(len(words.head), bool)
    det = words.has(vocab.DET_REL) & (words.head >= 0) & determining[words.feats]
    definite_det[words.head[det]] = True
    numeral = table.rows.field(7, table.word_rows).base_is(b"nummod") & (words.head >= 0)
    definite_det[words.head[numeral]] = True
    return definite_det


def _nominal_predicate(
    words: Words, strings: pa.Array, c: np.ndarray, clause: np.ndarray, has_clause: np.ndarray
) -> np.ndarray:
    """Per controller, whether it reads as the predicate of a dropped subject (§4.2)."""
    # A nominative noun subject of a copular clause whose predicate is a noun in an oblique
    # case (not Nom, nor the predicative Ins): the subject is the clause's only nominative, and
    # where the language drops subjects it reads as the predicate of a dropped first or second
    # person (Czech *že by toho roku byl výjimečný přestupný rok*, §4.2).
    with_cop = np.zeros(len(words.head), bool)
    cop = words.has(vocab.COP) & (words.head >= 0)
    with_cop[words.head[cop]] = True
    at_clause = np.maximum(clause, 0)
    oblique = _has_value(strings, "Case", "[^|,]+") & ~_has_value(strings, "Case", "Nom|Ins")
    nominative_noun = (words.upos[c] == vocab.NOUN) & _has_value(strings, "Case", "Nom")[
        words.feats[c]
    ]
    nominal_predicate = (
        has_clause
        & nominative_noun
        & (words.upos[at_clause] == vocab.NOUN)
        & with_cop[at_clause]
        & oblique[words.feats[at_clause]]
    )
    # §4.3: a nominative noun whose head is the copula itself (existential *být*: *Jsou
    # rozchody*, *kolem nás je ostrůvek milosti*) is the clause's only nominal: with a dropped
    # first or second person subject it reads as the predicate (*Jste rozchody*, "you are
    # break-ups"), so a Person contrast there is no violation.
    existential = has_clause & nominative_noun & (words.upos[at_clause] == vocab.AUX)
    return nominal_predicate | existential


def count_lent(
    result: FileResult,
    table: Table,
    words: Words,
    features: Features,
    found: rules.Relations,
    pro_drop: bool,
) -> None:
    """§4.2 measured as §4.1 measures agreement (`mine.lent`): per (relative pronoun lemma,
    feature), the subject relations whose pronoun could lend its antecedent's values (an
    antecedent found by `tree_facts`; its Case Nom alone, or none where subjects are not
    dropped: `rules.subjects.subject_shown`), lacks the feature, whose antecedent has one value and
    whose target has the feature; and those where the target's values meet the antecedent's."""
    antecedent = result.relations.column("antecedent_upos")
    if antecedent.null_count == len(antecedent):
        return
    rows = np.flatnonzero(pc.is_valid(antecedent).to_numpy(zero_copy_only=False))
    kind = found.kind[rows]
    subject = (kind == vocab.SUBJECT_VERB) | (kind == vocab.PREDICATIVE)
    rows = rows[subject & (words.upos[found.controller[rows]] == vocab.PRON)]
    if len(rows) == 0:
        return
    c, t = found.controller[rows], found.target[rows]
    a = words.head[words.head[c]]  # the antecedent (`tree_facts`)
    case = features.case_key[words.feats[c]]
    shown = subject_shown(case == "Nom", case == NO_VALUE, pro_drop)
    lemmas = result.relations.column("controller_lemma").take(rows).to_numpy()
    for f, feature in ((0, "Number"), (1, "Gender"), (3, "Person")):
        length = pc.list_value_length(features.lists[f]).to_numpy(zero_copy_only=False)
        counted = (
            shown
            & (length[words.feats[c]] == 0)
            & (length[words.feats[a]] == 1)
            & (length[words.feats[t]] > 0)
        )
        if not counted.any():
            continue
        masks = features.compared[f]
        meets = (masks[words.feats[a]] & masks[words.feats[t]]) != 0
        names, lemma = np.unique(lemmas[counted].astype(str), return_inverse=True)
        n, agree = np.bincount(lemma), np.bincount(lemma, weights=meets[counted])
        for code, name in enumerate(names.tolist()):
            result.lent[name, feature] += int(n[code])
            result.lent_agree[name, feature] += int(agree[code])


def finite_cells(words: Words, features: Features) -> Counter:
    """§4.2: finite VERB/AUX tokens per (Tense, Mood, ""), and those carrying each of Number,
    Gender, Person per (Tense, Mood, feature); Tense and Mood as written (`_` for none)."""
    verbs = np.isin(words.upos, [vocab.VERB, vocab.AUX])
    tokens = np.bincount(words.feats[verbs], minlength=len(features.strings))
    cells: Counter = Counter()
    for code in np.flatnonzero((tokens > 0) & features.finite).tolist():
        items = dict(item.partition("=")[::2] for item in features.strings[code].split("|"))
        tense, mood = items.get("Tense", NO_VALUE), items.get("Mood", NO_VALUE)
        n = int(tokens[code])
        cells[(tense, mood, "")] += n
        for f in (0, 1, 3):  # Number, Gender, Person
            if features.compared[f][code]:
                cells[(tense, mood, FEATURES[f])] += n
    return cells


def _determines(feats: pa.Array) -> np.ndarray:
    """Per FEATS string: a possessive, demonstrative or quantifying determiner's (§4.2
    unagreement)."""
    return _has_value(feats, "Poss", "Yes") | _has_value(feats, "PronType", "Dem|Ind|Tot")


def _has_value(feats: pa.Array, name: str, values: str) -> np.ndarray:
    """Per FEATS string, whether it gives feature `name` one of `values` (`|`-separated), among
    others (a value set is `,`-joined)."""
    pattern = f"(?:^|\\|){name}=(?:[^|]*,)?(?:{values})(?:,[^|]*)?(?:\\||$)"
    found = pc.match_substring_regex(feats, pattern)
    return np.asarray(found.fill_null(False).to_numpy(zero_copy_only=False), bool)
