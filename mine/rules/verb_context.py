"""What the words around a target say about it (§4.3, the uniform draw's failures), read from
the tree over all words of a file at once (numpy): a finite *have*, *be* or *do* just after a
modal of its own verb chain (a mis-tagged plain form: *they must have been*), a determiner
doubled (*la la familia*), a clause complement of a mandative head, where the plain form is a
subjunctive (*I ask that the Commission ensure*), a subject that is one's own elder, whom a plural
verb may honour (Turkish *Annem geldiler*), a word quoted after a noun that names words (*el
término "histórico"*), a controller whose possessive suffix hides its Number (Finnish *työmme*);
and a one-letter bad form written only on a host. The language's words are data
(`mine/data/modal_chain.tsv`, `mine/data/mandative_heads.tsv`, `mine/data/respect_kinship.tsv`,
`mine/data/metalinguistic_nouns.tsv`, `mine/data/possessive_number_languages.tsv`, each row
citing its grammar)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ..features import LAYERS
from ..languages import VerbContext, load_pro_drop_languages
from . import words as vocab
from .dislocated import DISLOCATED, dislocated_subjects

if TYPE_CHECKING:
    from ..columnar import Table

ADVERB_READING = "adverb-reading"
AFTER_MODAL = "after-modal"
DOUBLED_WORD = "doubled-word"
MANDATIVE = "mandative"
RESPECT = "respect-plural"
NOTIONAL_SUBJECT = "notional-subject"
REFLEXIVE_OBJECT = "reflexive-object"
MENTIONED = "mentioned-word"
HIDDEN_NUMBER = "hidden-number"
# Quotation marks, as UD writes them as words of their own.
QUOTES = frozenset('"“”«»„‟‚‘’‹›「」『』') | {"``", "''"}
# The types whose target takes a notional subject's gender and number (French *on est partis*),
# and the type whose participle a reflexive's direct object takes (*se sont partagées*).
NOTIONAL_TYPES = ("subject-participle", "predicative")
REFLEXIVE_TYPES = ("subject-participle",)
_REFLEX = re.compile(r"(?:^|\|)Reflex=Yes(?:\||$)")
# How far before its chain's next verb a modal stands: negation, an adverb or an inverted subject
# between (*would not have*, *would I have*); one farther away is another clause's, mis-attached
# (*one answer might be: the quality doesn't decline*).
MODAL_REACH = 3

# The deprels of a clause complement a mandative head governs (*ask that …* `ccomp`, *it is
# important that …* `csubj`, *the requirement that …* `acl`; a relative clause is none).
_COMPLEMENTS = (b"ccomp", b"csubj", b"csubj:pass", b"acl")


def target_context(
    table: Table,
    words: vocab.Words,
    features: vocab.Features,
    t: np.ndarray,
    c: np.ndarray,
    context: VerbContext,
) -> pa.Array:
    """Per relation (target t, controller c): `doubled-word`, `after-modal`, `respect-plural`
    (the subject is one's own elder: the pair rules skip only its plural), `mandative` (the
    target's clause is a complement of a mandative head; the pair rules skip it only where the
    bad form is the plain form), `notional-subject` (the subject takes notional agreement: French
    *on*), `reflexive-object` (a participle with a reflexive and a direct object),
    `mentioned-word` (the target alone in quotation marks after a noun that names words),
    `hidden-number` (the controller is a nominative with a possessive suffix, which hides its
    Number where the language says so, and nothing else shows it: the pair rules skip only its
    Number),
    `dislocated-subject` (a pronoun subject before its clause's subordinator: skipped only for
    Person and Number where subjects are dropped), `adverb-reading` (an adjective before its noun
    with another modifier of the noun between them; the pair rules skip only a Definite
    contrast), or null."""
    reason = np.full(len(t), None, object)
    if len(t) == 0:
        return pa.array(reason, pa.string())
    if context.possessive_hides_number:
        reason[_hidden_number(words, features, t, c)] = HIDDEN_NUMBER
    reason[_before_modifier(words, features, t, c)] = ADVERB_READING
    dislocated = dislocated_subjects(
        table, words, features, t, c, context.subordinators, context.focus_particles
    )
    reason[dislocated] = DISLOCATED
    if context != VerbContext():  # the lemmas are read only where a rule has words to look for
        lemma = _lower(table.rows.strings(2, table.word_rows))
        reason[_mandative(table, words, t, lemma, context.mandative_heads)] = MANDATIVE
        reason[_own_elder(words, features, c, lemma, context.respect_kin)] = RESPECT
        reason[_after_modal(words, t, lemma, context)] = AFTER_MODAL
        if context.notional_subjects:
            notional = lemma.gather(c).is_in(list(context.notional_subjects)).to_numpy()
            reason[notional] = NOTIONAL_SUBJECT
        if context.reflexive_object:
            reason[_reflexive_object(words, features, t)] = REFLEXIVE_OBJECT
        if context.metalinguistic_nouns:
            reason[_mentioned(table, words, t, c, lemma, context.metalinguistic_nouns)] = MENTIONED
    reason[_doubled(table, words, t)] = DOUBLED_WORD
    if not any(reason):  # the common case: a column of nulls, not built value by value
        return pa.nulls(len(t), pa.string())
    return pa.array(reason, pa.string())


def _hidden_number(
    words: vocab.Words, features: vocab.Features, t: np.ndarray, c: np.ndarray
) -> np.ndarray:
    """Whether each controller is a nominative with a possessive suffix (`Person[psor]` or
    `Number[psor]`) whose Number nothing else shows: Finnish loses the nominative plural's *-t*
    before the suffix, so *työmme* is "our work" or "our works", and *työmme jatkuu* →
    *jatkuvat* is as grammatical. A modifier with a Number (*monet hänen sukulaisensa*, other
    than the target) or a copula's predicate in the nominative or partitive (*tuloksesi olivat
    kovia*) shows it."""
    feats = words.feats[c]
    hidden = features.carries[LAYERS.index("psor"), feats] & (features.case_key[feats] == "Nom")
    asked = np.flatnonzero(hidden)
    if len(asked) == 0:
        return hidden
    numbered = features.compared[vocab.NUMBER, words.feats] != 0
    modifier = words.has(vocab.AMOD | vocab.DET_REL | vocab.NUMMOD) & numbered
    position, dependent = vocab.dependents_of(words, c[asked], modifier)
    shown = dependent != t[asked][position]
    hidden[asked[np.unique(position[shown])]] = False
    predicate = np.maximum(words.head[t], 0)
    case = features.case_key[words.feats[predicate]]
    shows = (case == "Nom") | (case == "Par")
    return hidden & ~(words.has(vocab.COP)[t] & (words.head[t] >= 0) & numbered[predicate] & shows)


def _before_modifier(
    words: vocab.Words, features: vocab.Features, t: np.ndarray, c: np.ndarray
) -> np.ndarray:
    """Whether each ADJ target stands before its noun c with another adjective or participle of
    c between them: a Swedish neuter strong form is also an adverb, so *det traditionella i
    hemmet utförda arbetet* → *traditionellt* reads "traditionally done" (§1.7 Definite)."""
    found = np.zeros(len(t), bool)
    asked = np.flatnonzero((words.upos[t] == vocab.ADJ) & (words.id[c] - words.id[t] > 1))
    if len(asked) == 0:
        return found
    participle = (words.upos == vocab.VERB) & features.participle[words.feats]
    modifier = (words.upos == vocab.ADJ) | participle
    position, dependent = vocab.dependents_of(words, c[asked], modifier)
    between = (words.id[dependent] > words.id[t[asked]][position]) & (
        words.id[dependent] < words.id[c[asked]][position]
    )
    found[asked[np.unique(position[between])]] = True
    return found


def _lower(strings: pa.Array) -> pl.Series:
    return pl.Series(pc.utf8_lower(strings)).cast(pl.String)


def _after_modal(
    words: vocab.Words, t: np.ndarray, lemma: pl.Series, context: VerbContext
) -> np.ndarray:
    """Whether each target is one of the chain's verbs at most MODAL_REACH words after a modal
    `aux` of its own verb chain: a sibling `aux` where the target is `aux` or `cop` (*they must
    have been*, *must be happy*), or its own `aux` (*they must have it*)."""
    found = np.zeros(len(t), bool)
    if not context.modals:
        return found
    modal = (lemma.is_in(list(context.modals)).to_numpy() & words.has(vocab.AUX_REL)) & (
        words.head >= 0
    )
    dependent = words.has(vocab.AUX_REL | vocab.COP)[t] & (words.head[t] >= 0)
    chain = np.where(dependent, words.head[t], t)
    for back in range(1, MODAL_REACH + 1):
        # Words of a sentence are consecutive, their IDs too: t - back is ID(t) - back.
        m = np.maximum(t - back, 0)
        same = (t >= back) & (words.sentence[m] == words.sentence[t])
        found |= same & modal[m] & (words.head[m] == chain)
    verb = lemma.gather(t).is_in(list(context.chain_verbs)).to_numpy()
    return verb & found


def _mentioned(
    table: Table,
    words: vocab.Words,
    t: np.ndarray,
    c: np.ndarray,
    lemma: pl.Series,
    nouns: frozenset[str],
) -> np.ndarray:
    """Whether each target stands alone between quotation marks and its controller is a noun
    that names words: *el término "histórico"* mentions the word, which agrees with nothing
    (*el término "históricos"* is as grammatical); a word in scare quotes (*una reforma
    "protestante"*) is used, and agrees."""
    n = len(words.head)
    found = lemma.gather(c).is_in(list(nouns)).to_numpy() & (t >= 1) & (t + 1 < n)
    at = np.flatnonzero(found)
    if len(at) == 0:
        return found
    before, after = t[at] - 1, t[at] + 1
    sentence = words.sentence[t[at]]
    forms = table.rows.strings(1, table.word_rows[np.concatenate([before, after])])
    quote = pc.is_in(forms, value_set=pa.array(sorted(QUOTES))).to_numpy(zero_copy_only=False)
    found[at] = (
        quote[: len(at)]
        & quote[len(at) :]
        & (words.sentence[before] == sentence)
        & (words.sentence[after] == sentence)
    )
    return found


def _reflexive_object(words: vocab.Words, features: vocab.Features, t: np.ndarray) -> np.ndarray:
    """Whether each target is a participle with a reflexive dependent and a direct object (`obj`)
    that is not reflexive: the reflexive is then indirect, and the participle agrees with that
    object where it comes first (*les commissions que se sont partagées les partis*), else with
    nothing (*elle s'est lavé les mains*); never with the subject."""
    reflexive = np.array([bool(_REFLEX.search(feats)) for feats in features.strings], bool)
    reflexive = reflexive[words.feats] & (words.head >= 0)
    direct = words.has(vocab.OBJ) & ~reflexive & (words.head >= 0)
    found = np.zeros((2, len(words.head)), bool)
    found[0, words.head[reflexive]] = True
    found[1, words.head[direct]] = True
    return found[0, t] & found[1, t] & features.participle[words.feats[t]]


def _doubled(table: Table, words: vocab.Words, t: np.ndarray) -> np.ndarray:
    """Whether a determiner target has a word beside it of its form (lower-cased), head and
    deprel: the sentence repeats it (*la la familia*, *pelo o fato*), so neither sentence is as
    written. Other words may be doubled on purpose (*le premier premier ministre*; spoken *c'est
    est-ce que*, both *est* tagged `cop`)."""
    doubled = np.zeros(len(t), bool)
    n = len(words.head)
    determiner = words.upos[t] == vocab.DET
    for step in (-1, 1):
        other = t + step
        inside = (other >= 0) & (other < n)
        other = np.clip(other, 0, n - 1)
        inside &= (
            determiner
            & (words.sentence[other] == words.sentence[t])
            & (words.head[other] == words.head[t])
        )
        at = np.flatnonzero(inside)
        if len(at) == 0:
            continue
        rows, others = table.word_rows[t[at]], table.word_rows[other[at]]
        same = np.ones(len(at), bool)
        for field in (1, 7):
            mine_ = table.rows.strings(field, rows)
            theirs = table.rows.strings(field, others)
            if field == 1:
                mine_, theirs = pc.utf8_lower(mine_), pc.utf8_lower(theirs)
            same &= pc.equal(mine_, theirs).to_numpy(zero_copy_only=False)
        doubled[at[same]] = True
    return doubled


def _mandative(
    table: Table, words: vocab.Words, t: np.ndarray, lemma: pl.Series, heads: frozenset[str]
) -> np.ndarray:
    """Whether each target verb heads a clause complement of a mandative head (a later
    conjunct, its first conjunct's), or has a mandative head as `discourse` (*god forbid
    something goes wrong*: English-EWT attaches *forbid* to the clause)."""
    if not heads:
        return np.zeros(len(t), bool)
    mandative = lemma.is_in(list(heads)).to_numpy()
    deprel = table.rows.field(7, table.word_rows)
    clause = np.where(words.has(vocab.CONJ)[t] & (words.head[t] >= 0), words.head[t], t)
    complement = np.logical_or.reduce([deprel.equals(name) for name in _COMPLEMENTS])
    head = words.head[clause]
    governed = complement[clause] & (head >= 0) & mandative[np.maximum(head, 0)]
    # A mandative word attached to the clause as `discourse` marks its head.
    discourse = np.flatnonzero(mandative & deprel.base_is(b"discourse") & (words.head >= 0))
    marked = np.zeros(len(words.head), bool)
    marked[words.head[discourse]] = True
    return (words.upos[t] == vocab.VERB) & (governed | marked[clause])


_OWN = re.compile(r"(?:^|\|)Person\[psor\]=[12](?:\||$)")


def _own_elder(
    words: vocab.Words,
    features: vocab.Features,
    c: np.ndarray,
    lemma: pl.Series,
    kin: frozenset[str],
) -> np.ndarray:
    """Whether each controller is a kinship word with a first- or second-person possessor
    (Turkish *annem* 'my mother', *babanız* 'your father'): one's own elder, whom the plural
    of respect may honour (*Annem geldiler*)."""
    if not kin:
        return np.zeros(len(c), bool)
    own = np.array([bool(_OWN.search(feats)) for feats in features.strings], bool)
    return lemma.gather(c).is_in(list(kin)).to_numpy() & own[words.feats[c]]


def verb_context_skip(tries: pl.DataFrame) -> pl.Series:
    """Per try: whether its target's context refuses it (`target_context`, its reason); a
    mandative clause only where the bad form is the verb's plain form (its lemma): the
    subjunctive (*that the Commission ensure*); one's own elder only where the bad value is the
    verb's plural (*Annem geldiler* honours her); a notional subject or a reflexive's object
    only in the types they touch (*on est partis*, but *on est* → *on sont* stays); an adjective
    before another modifier of its noun only where it varies Definite (its strong form may be
    that modifier's adverb); a mentioned word always; a controller whose suffix hides its
    Number only where Number is varied."""
    context = pl.col("target_context")
    plain = pl.col("bad_key") == pl.col("lemma").str.to_lowercase()
    # The plural of respect is the verb's: a predicate noun's plural is a plural noun.
    respect = (
        (pl.col("type") == "subject-verb")
        & (pl.col("feature") == "Number")
        & (pl.col("bad_value") == "Plur")
    )
    # A topic before its clause's subordinator: the verb may have a dropped subject of its own.
    dislocated = (
        (pl.col("type") == "subject-verb")
        & pl.col("feature").is_in(["Person", "Number"])
        & pl.col("lang").is_in(sorted(load_pro_drop_languages()))
    )
    refused = (
        context.is_in([AFTER_MODAL, DOUBLED_WORD, MENTIONED])
        | ((context == MANDATIVE) & plain)
        | ((context == RESPECT) & respect)
        | ((context == NOTIONAL_SUBJECT) & pl.col("type").is_in(NOTIONAL_TYPES))
        | ((context == REFLEXIVE_OBJECT) & pl.col("type").is_in(REFLEXIVE_TYPES))
        | ((context == DISLOCATED) & dislocated)
        | ((context == ADVERB_READING) & (pl.col("feature") == "Definite"))
        | ((context == HIDDEN_NUMBER) & (pl.col("feature") == "Number"))
    )
    return tries.select(((pl.col("varied") == "target") & refused).fill_null(False)).to_series()


def one_letter_words(forms: pa.Array) -> frozenset[str]:
    """The one-letter surface words of a file, lower-cased (a multiword token is one word)."""
    short = pc.filter(forms, pc.equal(pc.utf8_length(forms), 1))
    return frozenset(pc.unique(pc.utf8_lower(short)).to_pylist())


def clitic_form(tries: pl.DataFrame, free_letters: frozenset[str]) -> pl.Series:
    """Per try: whether its bad form is one letter that the language writes only inside
    multiword tokens (`free_letters`: those written alone), put as a word of its own: a clitic
    written apart (Persian *این حرف دل آن‌ها هم هست* → *م*, UD_Persian-Seraji's *م* only on its
    host)."""
    alone = pl.col("token_start").is_null()
    letter = pl.col("bad_key").str.len_chars() == 1
    return tries.select(
        (alone & letter & ~pl.col("bad_key").is_in(sorted(free_letters))).fill_null(False)
    ).to_series()
