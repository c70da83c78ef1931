"""What a worker is given to mine one CoNLL-U file (`FileJob`) and what it returns (`FileResult`).

The engine is `mine.columnar.mine_file_columnar`; the readable reference implementation that
the tests compare it with lives in `tests/reference/`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from .languages import ValueSets, VerbContext
from .read import Malformed, MalformedError


@dataclass
class FileJob:
    """What a worker needs to mine one file: the file, and the language's facts as data (§1.1,
    §1.2, §1.6), so that no rule looks a language up."""

    path: Path
    label: str  # path shown to users and kept in `file`: relative to --ud-dir
    lang: str
    treebank: str
    valid_types: frozenset[str]  # §1.6: candidates of other types drop as `invalid-type`
    strict: bool = False
    # §1.1 verb forms: the language's active participles agree with their subject
    # (`mine/data/participle_languages.tsv`).
    participle_agreement: bool = False
    # §1.2: values that stand for several values when compared (`mine/data/value_sets.tsv`):
    # feature → value → the values it stands for.
    value_sets: ValueSets = field(default_factory=dict)
    # §1.7: the types in which the language's Definite is in F (`mine/data/definite_languages.tsv`).
    definite_types: frozenset[str] = frozenset()
    # §1.7 subject-participle: the lemmas of the language's *have* auxiliary, whose participles
    # agree with no subject (`mine/data/have_auxiliaries.tsv`).
    have_lemmas: frozenset[str] = frozenset()
    # §1.7 object-verb (b): the lemmas of the language's ergative case markers (Hindi, Urdu *ne*,
    # `mine/data/ergative_markers.tsv`).
    ergative_lemmas: frozenset[str] = frozenset()
    # §1.7 object-verb (b): the *have* lemmas whose participle agrees with an object before it
    # (French *avoir*, Italian *avere*: `mine/data/object_participle_auxiliaries.tsv`).
    object_have_lemmas: frozenset[str] = frozenset()
    # §4 implicit third person: a plural noun subject may take a first- or second-person verb
    # (`mine/data/unagreement_languages.tsv`), so a plural target's Person is not varied.
    unagreement: bool = False
    # §4.2: the language drops subjects (`mine/data/pro_drop_languages.tsv`), so a copular
    # clause's noun subject could be the predicate of a dropped first or second person.
    pro_drop: bool = False
    # §4.3: the language's modals, the verbs they make non-finite, its mandative heads
    # (`mine/data/modal_chain.tsv`, `mine/data/mandative_heads.tsv`).
    verb_context: VerbContext = field(default_factory=VerbContext)
    # `sent_id`s an earlier file of the treebank holds: a sentence with one is dropped, counted
    # as a duplicate (`FileResult.duplicate_sent_ids`), as a repeat within the file is.
    taken: frozenset[str] = frozenset()


@dataclass
class FileResult:
    """A mined file: tables plus counts that the language's manifest sums."""

    label: str
    sha256: str
    size: int
    relations: pa.Table  # schema RELATIONS_MINED
    sentences: pa.Table  # schema SENTENCES
    lexicon_counts: pa.Table | None  # mine.lexicon.COUNTS: (form, lemma, upos, FEATS) → occurrences
    drops: Counter = field(default_factory=Counter)
    agree: Counter = field(default_factory=Counter)
    disagree: Counter = field(default_factory=Counter)
    # §4.1: per configuration (`rules.relations.Configuration`), candidates carrying its
    # feature, and those agreeing.
    rated: Counter = field(default_factory=Counter)
    rated_agree: Counter = field(default_factory=Counter)
    # ... and per configuration and the target's (form lower-cased, lemma), those disagreeing.
    rated_disagree: Counter = field(default_factory=Counter)
    # §4.2 values from an antecedent, measured: per (relative pronoun lemma, feature), relations
    # where the pronoun lacks the feature and its antecedent has one value, and those agreeing.
    lent: Counter = field(default_factory=Counter)
    lent_agree: Counter = field(default_factory=Counter)
    # §4.2 unmarked cells: finite VERB/AUX tokens per (Tense, Mood, feature), feature "" for
    # all of them, else those carrying the feature (of Number, Gender, Person).
    finite_cells: Counter = field(default_factory=Counter)
    malformed: list[tuple[int, str]] = field(default_factory=list)
    words: int = 0
    # Well-formed sentences dropped for repeating the `sent_id` of an earlier one (in the file,
    # or in an earlier file of the treebank: `FileJob.taken`); the first is kept.
    duplicate_sent_ids: int = 0
    dropped: pa.Table | None = None  # schema DROPS: `drops` row by row
    # Multiword tokens as written, lower-cased (§4.1: a rebuilt token must be one of the
    # language's): gathered as the file is read, so that pairs need no second read.
    tokens: frozenset[str] = frozenset()
    # §1.7 possessive: the forms (lower-cased) of its candidates' targets, kept or dropped: a
    # possessive's bad form must be one (`rules.possessives.not_possessive`).
    possessive_forms: frozenset[str] = frozenset()
    # §1.7 numeral: the forms (lower-cased) of multiplicative adverbs (`NumType=Mult` on a word
    # of no member UPOS: Czech *jednou* 'once'), which a numeral's bad form must not be.
    multiplicative_forms: frozenset[str] = frozenset()
    # One-letter surface words (lower-cased, multiword tokens included): §4.3, a one-letter bad
    # form never written alone is a clitic (`rules.verb_context.clitic_form`).
    letters: frozenset[str] = frozenset()


def strict_error(job: FileJob, malformed: Malformed) -> MalformedError:
    """The --strict stop: the file as the user gave it, the sentence's first line, the fault."""
    return MalformedError(f"{job.path}:{malformed.line}: malformed sentence: {malformed.reason}")
