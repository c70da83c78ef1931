"""A file's tables from its arrays: relations (in-memory columns included), drops, sentences and
lexicon counts, and the counts the language's rates are made of."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.schemas.corpus import DROPS, FEATURES, RELATIONS_MINED, SENTENCES, TYPES
from ud_agree.surface import surface_text

from .extract import FileJob, FileResult
from .features import LAYERS
from .lexicon import COUNTS, LEXICON_UPOS
from .rules import relations as rules
from .rules import words as vocab
from .rules.subject_tree import count_lent, finite_cells, tree_facts
from .rules.verb_context import one_letter_words, target_context
from .rules.words import UPOS, Facts, Features, Words
from .surface_words import Surface, mwt_offsets, surface_words, texts

if TYPE_CHECKING:
    from .columnar import Rows, Table

_LEXICON_CLASS = np.array([name in LEXICON_UPOS for name in UPOS])


_UPOS_NAMES = np.array(UPOS, dtype=object)


# Agreeing features as a bit set (bit i = FEATURES[i]) → the sorted list of names.
_AGREEING = [
    sorted(f for i, f in enumerate(FEATURES) if bits >> i & 1) for bits in range(1 << len(FEATURES))
]


_STR_LIST = pa.list_(pa.string())


_ORDER = ["controller-first", "target-first"]


def no_tables(result: FileResult) -> None:
    """A file without a well-formed sentence: its tables empty."""
    result.relations = RELATIONS_MINED.empty_table()
    result.dropped = DROPS.empty_table()
    result.sentences = SENTENCES.empty_table()


def build_tables(
    job: FileJob, result: FileResult, table: Table, words: Words, features: Features
) -> None:
    """Build the tables and counts from the well-formed sentences' rows and words."""
    surface = surface_words(table)
    result.sentences = _sentences_table(job, table, surface)
    ranges = np.flatnonzero(table.is_range)
    if len(ranges):
        written = pc.unique(pc.utf8_lower(table.rows.strings(1, ranges)))
        result.tokens = frozenset(written.to_pylist())
    result.letters = one_letter_words(surface.forms)
    result.words = len(words.id)
    _count_lexicon(result, table.rows, table.word_rows, words.upos, words.feats, features)
    result.finite_cells.update(finite_cells(words, features))
    found = rules.relations(words, features, Facts(job.valid_types, job.participle_agreement))
    result.drops.update(found.drops)
    result.agree.update(found.agree)
    result.disagree.update(found.disagree)
    result.rated.update(found.rated)
    result.rated_agree.update(found.rated_agree)
    result.rated_disagree.update(_disagreeing_forms(table, words, features, found.rated_disagree))
    result.relations = _relations_table(job, table, surface, words, features, found)
    result.possessive_forms = _possessive_forms(table, found)
    result.multiplicative_forms = _multiplicative_forms(table, words, features)
    count_lent(result, table, words, features, found, job.pro_drop)
    result.dropped = _drops_table(job, table, words, found)


def _possessive_forms(table: Table, found: rules.Relations) -> frozenset[str]:
    """§1.7: the lower-cased forms of the possessive candidates' targets, kept or dropped."""
    targets = np.concatenate(
        [
            found.target[found.kind == vocab.POSSESSIVE],
            found.dropped[0][found.dropped[2] == vocab.POSSESSIVE],
        ]
    )
    if not len(targets):
        return frozenset()
    forms = table.rows.strings(1, table.word_rows[np.unique(targets)])
    return frozenset(pc.unique(pc.utf8_lower(forms)).to_pylist())


def _multiplicative_forms(table: Table, words: Words, features: Features) -> frozenset[str]:
    """§1.7: the lower-cased forms of the words with `NumType=Mult` and no member UPOS (the
    adverbs *jednou* 'once', *dvakrát* 'twice')."""
    mult = np.array(["NumType=Mult" in feats for feats in features.strings], bool)
    which = np.flatnonzero(mult[words.feats] & (words.upos == 0))
    if not len(which):
        return frozenset()
    forms = table.rows.strings(1, table.word_rows[which])
    return frozenset(pc.unique(pc.utf8_lower(forms)).to_pylist())


def _disagreeing_forms(
    table: Table, words: Words, features: Features, disagreeing: Counter
) -> Counter:
    """The disagreeing candidates of the rates keyed by configuration and the target's form
    (lower-cased), lemma and FEATS, in place of its word (`rules.relations.agreement_rates`)."""
    if not disagreeing:
        return Counter()
    word = np.array([key[-1] for key in disagreeing], np.int64)
    rows = table.word_rows[word]
    form = pc.utf8_lower(table.rows.strings(1, rows)).to_pylist()
    lemma = table.rows.strings(2, rows).to_pylist()
    feats = [features.strings[code] for code in words.feats[word].tolist()]
    named: Counter = Counter()
    for (key, count), f, lem, bundle in zip(disagreeing.items(), form, lemma, feats, strict=True):
        target = (*key[:-1], f, lem, bundle)
        named[target] += count
    return named


def _drops_table(job: FileJob, table: Table, words: Words, found: rules.Relations) -> pa.Table:
    """The dropped candidates (DROPS), a row each, in (sentence, target, controller) order."""
    t, c, kind, reason = found.dropped
    columns = [
        _repeat(job.lang, len(t)),
        _repeat(job.treebank, len(t)),
        table.sent_id.take(pa.array(words.sentence[t])),
        pa.array(TYPES, pa.string()).take(pa.array(kind)),
        pa.array(words.id[t]),
        pa.array(words.id[c]),
        pa.array(rules.REASONS[1:], pa.string()).take(pa.array(reason - 1)),
    ]
    return pa.Table.from_arrays(
        [column.cast(f.type) for column, f in zip(columns, DROPS, strict=True)], schema=DROPS
    )


def _sentences_table(job: FileJob, table: Table, surface: Surface) -> pa.Table:
    """The `sentences` table (§3): one row per well-formed sentence."""
    n_sent = len(table.line)
    offsets = pa.array(surface.first.astype(np.int32))
    columns = {
        "lang": _repeat(job.lang, n_sent),
        "treebank": _repeat(job.treebank, n_sent),
        "sent_id": table.sent_id,
        "text": texts(surface.forms, surface.form_length, surface.space_after, surface.first),
        "words": pa.ListArray.from_arrays(offsets, surface.forms),
        "space_after": pa.ListArray.from_arrays(offsets, pa.array(surface.space_after)),
        "spaces_after": pa.ListArray.from_arrays(offsets, surface.spaces_after),
        "file": _repeat(job.label, n_sent),
        "line": pa.array(table.line),
    }
    if surface.spaces_after.null_count < len(surface.spaces_after):
        columns["text"] = _texts_with_spaces(columns, surface)
    return pa.Table.from_arrays([columns[f.name].cast(f.type) for f in SENTENCES], schema=SENTENCES)


def _texts_with_spaces(columns: dict[str, pa.Array], surface: Surface) -> pa.Array:
    """The texts, rebuilt again where a sentence has `SpacesAfter=` whitespace (rare: Python)."""
    given = ~surface.spaces_after.is_null().to_numpy(zero_copy_only=False)
    row_sentence = np.repeat(np.arange(len(surface.first) - 1), np.diff(surface.first))
    texts = columns["text"].to_pylist()
    words, space, spaces = (columns[n] for n in ("words", "space_after", "spaces_after"))
    for i in np.unique(row_sentence[given]).tolist():
        texts[i] = surface_text(words[i].as_py(), space[i].as_py(), spaces_after=spaces[i].as_py())[
            0
        ]
    return pa.array(texts, pa.large_string())


def _relations_table(
    job: FileJob,
    table: Table,
    surface: Surface,
    words: Words,
    features: Features,
    found: rules.Relations,
) -> pa.Table:
    """The `relations` table (§3) with the in-memory FEATS columns (RELATIONS_MINED), rows in
    (sentence, target, controller) order."""
    t, c = found.target, found.controller
    k = len(t)
    both = np.concatenate([t, c])
    both_rows = table.word_rows[both]
    distinct, where = np.unique(both, return_inverse=True)  # strings are built in file order
    where = pa.array(where.ravel())
    form, lemma = (table.rows.strings(f, table.word_rows[distinct]).take(where) for f in (1, 2))
    # Members' UPOS are classes (`rules.candidates.MEMBER_UPOS`).
    upos_name = pa.array(UPOS, pa.string()).take(pa.array(words.upos[both]))
    surface_index = surface.of_row[both_rows]
    in_mwt = surface.in_mwt_row[both_rows]
    mwt_offset = mwt_offsets(table, surface, both_rows[in_mwt])
    offsets = np.full(2 * k, -1, np.int64)
    offsets[in_mwt] = mwt_offset
    columns = {
        "lang": _repeat(job.lang, k),
        "treebank": _repeat(job.treebank, k),
        "sent_id": table.sent_id.take(pa.array(words.sentence[t])),
        "type": pa.array(TYPES, pa.string()).take(pa.array(found.kind)),
        "target_id": pa.array(words.id[t]),
        "controller_id": pa.array(words.id[c]),
        "target_surface": pa.array(surface_index[:k]),
        "controller_surface": pa.array(surface_index[k:]),
        "target_form": form[:k],
        "controller_form": form[k:],
        "target_lemma": lemma[:k],
        "controller_lemma": lemma[k:],
        "target_upos": upos_name[:k],
        "controller_upos": upos_name[k:],
        "agreeing": pa.array(_AGREEING, _STR_LIST).take(pa.array(found.agreeing)),
        "distance": pa.array(found.distance),
        "order": pa.array(_ORDER).take(pa.array(found.target_first.astype(np.int64))),
        "intervening_nouns": pa.array(found.intervening_nouns),
        "distractors": pa.array(found.distractors),
        "attractors": pa.array(found.attractors),
        "in_mwt_target": pa.array(in_mwt[:k]),
        "in_mwt_controller": pa.array(in_mwt[k:]),
        "coordinated": pa.array(found.coordinated),
        "target_mwt_offset": pa.array(offsets[:k], mask=offsets[:k] < 0),
        "controller_mwt_offset": pa.array(offsets[k:], mask=offsets[k:] < 0),
    }
    feats_strings = pa.array(features.strings, pa.string())
    columns.update(_value_columns(words, features, found, feats_strings))
    columns["listed"] = pa.array(found.listed)
    # §4.3 hosts are read for attributive targets only (`rules.hosts.HOST_TYPES`).
    attributive = np.flatnonzero(found.kind == vocab.ATTRIBUTIVE)
    relation, noun = rules.nouns_between(words, t[attributive], c[attributive])
    relation = attributive[relation]
    starts = np.searchsorted(relation, np.arange(k + 1), "left").astype(np.int32)
    columns["between_feats"] = pa.ListArray.from_arrays(
        pa.array(starts), feats_strings.take(pa.array(words.feats[noun]))
    )
    columns.update(tree_facts(table, words, features, c))
    # §4.3: what the words around the target say of it (a modal, a doubled word, a mandative).
    columns["target_context"] = target_context(table, words, features, t, c, job.verb_context)
    return pa.Table.from_arrays(
        [columns[f.name].cast(f.type) for f in RELATIONS_MINED], schema=RELATIONS_MINED
    )


def _value_columns(
    words: Words, features: Features, found: rules.Relations, feats_strings: pa.Array
) -> dict[str, pa.Array]:
    """Each member's values of F and FEATS; §1.7: a layered type's target values are its
    layer's (`Number[abs]` of Basque *ditu*), the layer named in `target_layer`."""
    columns: dict[str, pa.Array] = {}
    t = found.target
    for role, who in (("target", t), ("controller", found.controller)):
        codes = pa.array(words.feats[who])
        for f, name in enumerate(FEATURES):
            columns[f"{role}_{name.lower()}"] = features.lists[f].take(codes)
        columns[f"{role}_feats"] = feats_strings.take(codes)
    layered = np.flatnonzero(found.layer >= 0)
    if len(layered):
        for f, name in enumerate(FEATURES):
            values = columns[f"target_{name.lower()}"].to_pylist()
            layer_values = [features.layer_lists[layer][f] for layer in range(len(LAYERS))]
            for i in layered.tolist():
                code = int(words.feats[t[i]])
                values[i] = layer_values[found.layer[i]][code].as_py()
            columns[f"target_{name.lower()}"] = pa.array(values, pa.list_(pa.string()))
    layer_names = np.array([None, *LAYERS], dtype=object)[found.layer + 1]
    columns["target_layer"] = pa.array(layer_names.tolist(), pa.string())
    return columns


def _count_lexicon(
    result: FileResult,
    rows: Rows,
    words: np.ndarray,
    upos: np.ndarray,
    feats_code: np.ndarray,
    feats: Features,
) -> None:
    """Lexicon counts per (form, lemma, upos, FEATS) (COUNTS), keeping only the words that
    ud_entries keeps (so ud_entries gives the same entries from fewer rows)."""
    chosen = np.flatnonzero(_LEXICON_CLASS[upos] & feats.has_value[feats_code])
    start, end = rows.span(1, words[chosen])
    named = (end - start != 1) | (rows.buf.u8[start] != ord("_"))  # form `_` is no form
    chosen, start = chosen[named], start[named]
    if len(chosen) == 0:
        return
    # §4.1: a token whose MISC corrects it (`CorrectForm=`, a key read whole) is no candidate.
    misc = rows.strings(9, words[chosen])
    keys = pa.table(
        {
            "form": rows.strings(1, words[chosen]),
            "lemma": rows.strings(2, words[chosen]),
            "upos": pa.array(upos[chosen]),
            "feats": pa.array(feats_code[chosen]),
            "corrected": pc.match_substring_regex(misc, _CORRECTED),
        }
    )
    # polars, not `pa.Table.group_by`: that imports pyarrow.acero and pyarrow.dataset (~0.27 s
    # of CPU in each worker) for one aggregation.
    counted = pl.DataFrame(keys).group_by(keys.column_names, maintain_order=True).len().to_arrow()
    result.lexicon_counts = pa.Table.from_arrays(
        [
            counted["form"].cast(pa.string()),
            counted["lemma"].cast(pa.string()),
            pa.array(_UPOS_NAMES[counted["upos"].to_numpy()], pa.string()),
            pa.array(feats.strings, pa.string()).take(counted["feats"]),
            counted["corrected"],
            counted["len"].cast(pa.int64()),
        ],
        schema=COUNTS,
    )


_CORRECTED = r"(^|\|)CorrectForm="


def _repeat(value: str, n: int) -> pa.Array:
    """A string column holding value n times."""
    return pa.array([value], pa.string()).take(pa.array(np.zeros(n, np.int64)))
