"""Reference (test oracle): one CoNLL-U file → its relation and sentence tables, lexicon counts
and drop counts, sentence by sentence with `mine.read.parse` and `tests.reference.relations`.
`mine.columnar.mine_file_columnar` must return exactly what `mine_file` returns."""

from __future__ import annotations

import hashlib
import lzma
import zlib
from collections import Counter

import pyarrow as pa
from ud_agree.mine.extract import FileJob, FileResult, strict_error
from ud_agree.mine.features import parse_feats
from ud_agree.mine.languages import ValueSets, VerbContext
from ud_agree.mine.lexicon import count_ud_words
from ud_agree.mine.read import (
    Malformed,
    Sentence,
    UnreadableError,
    parse,
    read_bytes,
    rebuild_text,
    stem,
)
from ud_agree.mine.rules.bad_forms import transparent_offsets

from tests.reference.relations import (
    LAYERED,
    Candidate,
    Facts,
    Relation,
    carried_layer,
    compared,
    extract,
    target_values,
)
from ud_agree.schemas.corpus import RELATIONS_MINED, SENTENCES

# Relation columns in the order rows are built; `lang` and `treebank` are added per file.
_ROW_COLUMNS = [name for name in RELATIONS_MINED.names if name not in ("lang", "treebank")]


def mine_file(job: FileJob) -> FileResult:
    """Read, validate and extract one file; under strict, the first malformed sentence raises."""
    try:
        data = read_bytes(job.path)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as error:
        raise UnreadableError(f"{job.path}: cannot read: {error}") from None
    relation_rows: list[tuple] = []
    sent: dict[str, list] = {name: [] for name in SENTENCES.names}
    lexicon_counts: Counter = Counter()
    result = FileResult(
        job.label, hashlib.sha256(data).hexdigest(), len(data), None, None, lexicon_counts
    )  # type: ignore[arg-type]
    seen_ids: set[str] = set()
    facts = Facts(
        job.valid_types,
        job.participle_agreement,
        job.value_sets,
        job.have_lemmas,
        job.ergative_lemmas,
        job.object_have_lemmas,
        job.definite_types,
    )
    for sentence in parse(data, stem(job.path)):
        if isinstance(sentence, Malformed):
            if job.strict:
                raise strict_error(job, sentence)
            result.malformed.append((sentence.line, sentence.reason))
            continue
        if sentence.sent_id in seen_ids or sentence.sent_id in job.taken:
            result.duplicate_sent_ids += 1  # the first sentence of a sent_id is kept
            continue
        seen_ids.add(sentence.sent_id)
        result.words += len(sentence.ids)
        count_ud_words(lexicon_counts, sentence)
        sent["sent_id"].append(sentence.sent_id)
        sent["text"].append(
            rebuild_text(sentence.words, sentence.space_after, sentence.spaces_after)
        )
        sent["words"].append(sentence.words)
        sent["space_after"].append(sentence.space_after)
        sent["spaces_after"].append(sentence.spaces_after)
        sent["line"].append(sentence.line)
        outcome = extract(sentence, facts)
        result.drops.update(outcome.drops)
        result.agree.update(outcome.agree)
        result.disagree.update(outcome.disagree)
        for relation in outcome.relations:
            t, c = relation.target, relation.controller
            controller = parse_feats(sentence.feats[c], facts.definite)
            relation_rows.append(
                (
                    sentence.sent_id,
                    relation.type,
                    sentence.ids[t],
                    sentence.ids[c],
                    sentence.surface[t],
                    sentence.surface[c],
                    sentence.forms[t],
                    sentence.forms[c],
                    sentence.lemmas[t],
                    sentence.lemmas[c],
                    sentence.upos[t],
                    sentence.upos[c],
                    *map(sorted, relation_target_values(sentence, relation, facts.definite)),
                    *map(sorted, controller.values()),
                    relation.agreeing,
                    relation.distance,
                    relation.order,
                    relation.intervening_nouns,
                    relation.distractors,
                    relation.attractors,
                    sentence.in_mwt[t],
                    sentence.in_mwt[c],
                    relation.coordinated,
                    sentence.feats[t],
                    sentence.feats[c],
                    carried_layer(sentence.feats[t], LAYERED.get(relation.type, ())),
                    mwt_offset(sentence, t),
                    mwt_offset(sentence, c),
                    relation.listed,
                    *subject_facts(sentence, c, job.value_sets),
                    between_feats(sentence, t, c) if relation.type == "attributive" else [],
                    target_context(sentence, t, c, job.verb_context),
                )
            )
    rel = (
        dict(zip(_ROW_COLUMNS, map(list, zip(*relation_rows, strict=True)), strict=True))
        if relation_rows
        else {name: [] for name in _ROW_COLUMNS}
    )
    n_rel, n_sent = len(rel["sent_id"]), len(sent["sent_id"])
    rel.update(lang=[job.lang] * n_rel, treebank=[job.treebank] * n_rel)
    sent.update(
        lang=[job.lang] * n_sent, treebank=[job.treebank] * n_sent, file=[job.label] * n_sent
    )
    result.relations = pa.Table.from_pydict(rel, schema=RELATIONS_MINED)
    result.sentences = pa.Table.from_pydict(sent, schema=SENTENCES)
    return result


def _values(feats: str, name: str) -> set[str]:
    for item in feats.split("|"):
        key, _, value = item.partition("=")
        if key == name and value:
            return set(value.split(","))
    return set()


def subject_facts(sentence: Sentence, c: int, value_sets: ValueSets) -> tuple:
    """§4.2 about a controller, word by word: its antecedent's UPOS, Number, Gender, Person
    (a PronType=Rel subject of an `acl:relcl` clause), the one Number of its det/amod
    dependents that do not disagree with it in Gender or Case, whether it is Definite=Def or
    has a definite, possessive, demonstrative or quantifying det, or a nummod."""
    position = {word_id: i for i, word_id in enumerate(sentence.ids)}
    clause = position.get(sentence.heads[c])
    antecedent = None
    if (
        clause is not None
        and sentence.deprels[clause] == "acl:relcl"
        and "Rel" in _values(sentence.feats[c], "PronType")
    ):
        antecedent = position.get(sentence.heads[clause])
    # An antecedent with a conjunct (a `conj` dependent) before the pronoun lends nothing.
    if antecedent is not None and any(
        head == sentence.ids[antecedent] and deprel.partition(":")[0] == "conj" and i < c
        for i, (head, deprel) in enumerate(zip(sentence.heads, sentence.deprels, strict=True))
    ):
        antecedent = None
    nominal = ("NOUN", "PROPN", "PRON", "NUM")
    agreeing = (0, 3)  # Number, Person
    if antecedent is not None:
        ante_values = compared(parse_feats(sentence.feats[antecedent]), value_sets)
        # The nmod of a nominal head of other values lends nothing (*one of those people who*).
        head = position.get(sentence.heads[antecedent])
        if (
            head is not None
            and sentence.deprels[antecedent].partition(":")[0] == "nmod"
            and sentence.upos[head] in nominal
        ):
            head_values = compared(parse_feats(sentence.feats[head]), value_sets)
            if any(ante_values[f] != head_values[f] for f in agreeing):
                antecedent = None
        # A caseless pronoun beside another core nominal of other values: an object relative.
        if antecedent is not None and not _values(sentence.feats[c], "Case"):
            for i, h in enumerate(sentence.heads):
                if (
                    c < i < position.get(h, -1)
                    and h == sentence.heads[c]
                    and sentence.upos[i] in nominal
                    and (
                        sentence.deprels[i].partition(":")[0] == "nsubj"
                        or (
                            sentence.deprels[i].partition(":")[0] == "obj"
                            and sentence.upos[i] != "PRON"
                        )
                    )
                ):
                    other = compared(parse_feats(sentence.feats[i]), value_sets)
                    if any(
                        ante_values[f] and other[f] and not ante_values[f] & other[f]
                        for f in agreeing
                    ):
                        antecedent = None
    if antecedent is None:
        ante: tuple = (None, None, None, None)
    else:
        bundle = parse_feats(sentence.feats[antecedent])
        ante = (
            sentence.upos[antecedent],
            sorted(bundle.number),
            sorted(bundle.gender),
            sorted(bundle.person),
        )
    own = compared(parse_feats(sentence.feats[c]), value_sets)
    numbers: set[str] = set()
    definite = "Def" in _values(sentence.feats[c], "Definite")
    for i, head in enumerate(sentence.heads):
        if head != sentence.ids[c]:
            continue
        relation = sentence.deprels[i].partition(":")[0]
        dependent = parse_feats(sentence.feats[i])
        values = compared(dependent, value_sets)
        determiner = _values(sentence.feats[i], "PronType") & {"Dem", "Ind", "Tot"}
        if relation == "det" and (
            "Def" in _values(sentence.feats[i], "Definite")
            or "Yes" in _values(sentence.feats[i], "Poss")
            or determiner
        ):
            definite = True
        if relation == "nummod":
            definite = True
        if relation not in ("det", "amod") or sentence.upos[i] not in ("DET", "ADJ"):
            continue
        if len(dependent.number) != 1:
            continue
        if any(
            mine and theirs and mine.isdisjoint(theirs)
            for mine, theirs in ((own[1], values[1]), (own[2], values[2]))
        ):
            continue
        numbers |= dependent.number
    # A nominative noun subject of a copular clause whose noun predicate is in another case
    # than Nom or Ins (§4.2 pro-drop: it could be the predicate).
    nominal = ("NOUN",)  # the columnar engine codes PROPN apart, never a controller
    predicate = (
        clause is not None
        and sentence.upos[c] in nominal
        and "Nom" in _values(sentence.feats[c], "Case")
        and sentence.upos[clause] in nominal
        and bool(_values(sentence.feats[clause], "Case"))
        and not _values(sentence.feats[clause], "Case") & {"Nom", "Ins"}
        and any(
            head == sentence.ids[clause] and deprel.partition(":")[0] == "cop"
            for head, deprel in zip(sentence.heads, sentence.deprels, strict=True)
        )
    )
    # §4.3: or the subject of the copula itself, heading its clause (existential *být*).
    existential = (
        clause is not None
        and sentence.upos[c] in nominal
        and "Nom" in _values(sentence.feats[c], "Case")
        and sentence.upos[clause] == "AUX"
    )
    predicate = predicate or existential
    return (*ante, sorted(numbers) if len(numbers) == 1 else [], definite, predicate)


def between_feats(sentence: Sentence, t: int, c: int) -> list[str]:
    """The FEATS of the NOUN words whose ID lies strictly between t's and c's (§4.3 hosts)."""
    low, high = sorted((sentence.ids[t], sentence.ids[c]))
    inside = [i for i, word_id in enumerate(sentence.ids) if low < word_id < high]
    return [sentence.feats[i] for i in sorted(inside, key=lambda i: sentence.ids[i])
            if sentence.upos[i] == "NOUN"]  # fmt: skip


# Quotation marks written as words (the miner's list, written again).
QUOTES = {
    '"',
    "“",
    "”",
    "«",
    "»",
    "„",
    "‟",
    "‚",
    "‘",
    "’",
    "‹",
    "›",
    "「",
    "」",
    "『",
    "』",
    "``",
    "''",
}


def target_context(sentence: Sentence, t: int, c: int, context: VerbContext) -> str | None:
    """What the words around target t say of it (§4.3): `doubled-word`, `mentioned-word` (alone in
    quotation marks after a noun that names words), `notional-subject`,
    `reflexive-object`, `after-modal`, `respect-plural`, `mandative`, `dislocated-subject` (a
    personal pronoun subject before a subordinator of its clause), `adverb-reading` (an adjective
    before its noun with another modifier of the noun between), `hidden-number` (a nominative
    controller with a possessive suffix, where that hides its Number and nothing else shows it),
    or None; read word by
    word."""
    lemma = [lem.lower() for lem in sentence.lemmas]
    at = {word_id: i for i, word_id in enumerate(sentence.ids)}

    def head(i: int) -> int | None:
        return at.get(sentence.heads[i]) if sentence.heads[i] else None

    base = [d.split(":")[0] for d in sentence.deprels]
    for other in (t - 1, t + 1):
        if (
            0 <= other < len(lemma)
            and sentence.upos[t] == "DET"
            and sentence.forms[other].lower() == sentence.forms[t].lower()
            and sentence.heads[other] == sentence.heads[t]
            and sentence.deprels[other] == sentence.deprels[t]
        ):
            return "doubled-word"
    if (
        lemma[c] in context.metalinguistic_nouns
        and 0 < t < len(lemma) - 1
        and sentence.forms[t - 1] in QUOTES
        and sentence.forms[t + 1] in QUOTES
    ):
        return "mentioned-word"
    if lemma[c] in context.notional_subjects:
        return "notional-subject"
    reflexive = ["Yes" in _values(feats, "Reflex") for feats in sentence.feats]
    dependents = [w for w in range(len(lemma)) if head(w) == t]
    if (
        context.reflexive_object
        and _values(sentence.feats[t], "VerbForm") == {"Part"}
        and any(reflexive[w] for w in dependents)
        and any(base[w] == "obj" and not reflexive[w] for w in dependents)
    ):
        return "reflexive-object"
    chain = head(t) if base[t] in ("aux", "cop") and head(t) is not None else t
    modal_before = any(
        lemma[m] in context.modals
        and base[m] == "aux"
        and head(m) == chain
        and 1 <= sentence.ids[t] - sentence.ids[m] <= 3
        for m in range(len(lemma))
    )
    if lemma[t] in context.chain_verbs and modal_before:
        return "after-modal"
    psor = _values(sentence.feats[c], "Person[psor]")
    if lemma[c] in context.respect_kin and len(psor) == 1 and psor <= {"1", "2"}:
        return "respect-plural"
    clause = head(t) if base[t] == "conj" and head(t) is not None else t
    governor = head(clause)
    complement = sentence.deprels[clause] in ("ccomp", "csubj", "csubj:pass", "acl")
    governed = complement and governor is not None and lemma[governor] in context.mandative_heads
    discourse = any(
        lemma[w] in context.mandative_heads and base[w] == "discourse" and head(w) == clause
        for w in range(len(lemma))
    )
    if sentence.upos[t] == "VERB" and (governed or discourse):
        return "mandative"
    own = head(t) if base[t] in ("aux", "cop") and head(t) is not None else t
    subject = (
        sentence.upos[c] == "PRON"
        and "PronType=Prs" in sentence.feats[c]
        and base[c] == "nsubj"
        and head(c) == own
    )
    opens = any(
        head(w) in (own, t)
        and (
            (base[w].lower() == "mark" and lemma[w] not in context.focus_particles)
            or lemma[w] in context.subordinators
        )
        for w in range(c + 1, t)
    )
    if subject and opens:
        return "dislocated-subject"
    # An adjective before its noun with another adjective or participle of the noun between.
    for w in range(len(lemma)):
        modifier = sentence.upos[w] == "ADJ" or (
            sentence.upos[w] == "VERB" and _values(sentence.feats[w], "VerbForm") == {"Part"}
        )
        if (
            sentence.upos[t] == "ADJ"
            and modifier
            and head(w) == c
            and sentence.ids[t] < sentence.ids[w] < sentence.ids[c]
        ):
            return "adverb-reading"
    # A nominative with a possessive suffix, where the suffix hides its Number (Finnish *työmme*)
    # and no modifier but the target, nor a copula's nominative or partitive predicate, shows it.
    if (
        context.possessive_hides_number
        and _values(sentence.feats[c], "Case") == {"Nom"}
        and "[psor]=" in sentence.feats[c]
    ):
        shown = any(
            head(w) == c
            and w != t
            and base[w] in ("amod", "det", "nummod")
            and _values(sentence.feats[w], "Number")
            for w in range(len(lemma))
        )
        predicate = head(t) if base[t] == "cop" else None
        if predicate is not None and _values(sentence.feats[predicate], "Number"):
            shown |= _values(sentence.feats[predicate], "Case") in ({"Nom"}, {"Par"})
        if not shown:
            return "hidden-number"
    return None


def mwt_offset(sentence: Sentence, word: int) -> int | None:
    """Where a word begins in its multiword token when the token is transparent (§4), else
    None (a word of its own, or an opaque token)."""
    if not sentence.in_mwt[word]:
        return None
    surface = sentence.surface[word]
    parts = [i for i, s in enumerate(sentence.surface) if s == surface and sentence.in_mwt[i]]
    offsets = transparent_offsets(sentence.words[surface], [sentence.forms[i] for i in parts])
    return None if offsets is None else offsets[parts.index(word)]


def relation_target_values(
    sentence: Sentence, relation: Relation, definite: bool = False
) -> tuple[frozenset[str], ...]:
    """The target's values a relation row holds: its layer's for a §1.7 layered type."""
    candidate = Candidate(relation.type, relation.target, relation.controller)
    return target_values(sentence, candidate, definite)
