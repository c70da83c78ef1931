"""Sentences of a mined corpus read again from their CoNLL-U files (the `sentences` table names
each one's file and first line), and one sentence's words as the §1 rules read them: what the
MultiBLiMP comparison and export need beyond the corpus tables (heads, deprels, FEATS)."""

from __future__ import annotations

import hashlib
import lzma
import zlib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ud_agree.errors import UserError

from .languages import ValueSets
from .read import Malformed, Sentence, decode, parse_sentence, read_bytes, stem
from .rules import words as vocab


class ChangedSinceMining(UserError):
    """A CoNLL-U file is not the one the corpus was mined from: its sentences' lines are stale."""


def mined_from(manifest: dict) -> dict[str, str]:
    """A corpus manifest's input files (relative to its --ud-dir) and their sha256."""
    inputs = manifest.get("inputs") or []
    return {
        str(i["file"]): str(i["sha256"]) for i in inputs if isinstance(i, dict) and "sha256" in i
    }


def sentences_at(
    ud_dir: Path, places: Iterable[tuple[str, int]], mined: dict[str, str] | None = None
) -> dict[tuple[str, int], Sentence]:
    """The well-formed sentences starting at (file relative to `ud_dir`, 1-based line); each
    file read once. A place that holds no well-formed sentence is left out. A file whose sha256
    is not the one it had when mined (`mined`, from the manifest) is refused."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for file, line in places:
        wanted[file].add(line)
    found: dict[tuple[str, int], Sentence] = {}
    for file, lines in sorted(wanted.items()):
        path = ud_dir / file
        try:
            data = read_bytes(path)
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as error:
            raise UserError(
                f"{path}: cannot read the corpus's CoNLL-U file ({error}); give --ud-dir"
            ) from error
        if mined and file in mined and hashlib.sha256(data).hexdigest() != mined[file]:
            raise ChangedSinceMining(
                f"{path}: changed since the corpus was mined (its sha256 is not the manifest's): "
                "mine the corpus again, or give --ud-dir of the files it was mined from"
            )
        text, _ = decode(data)
        all_lines = text.split("\n")
        for first in sorted(lines):
            body: list[str] = []
            for row in all_lines[first - 1 :]:
                if not row.strip():
                    break
                body.append(row)
            if body:
                sentence = parse_sentence(body, first, f"{stem(path)}:?")
                if not isinstance(sentence, Malformed):
                    found[(file, first)] = sentence
    return found


def words_of(
    sentence: Sentence,
    value_sets: ValueSets,
    have_lemmas: frozenset[str] = frozenset(),
    ergative_lemmas: frozenset[str] = frozenset(),
    object_have_lemmas: frozenset[str] = frozenset(),
    definite_types: frozenset[str] = frozenset(),
) -> tuple[vocab.Words, vocab.Features]:
    """One sentence's syntactic words as the §1 rules read them (`rules.words.Words`)."""
    position = {word_id: i for i, word_id in enumerate(sentence.ids)}
    deprel = np.array(
        [vocab.deprel_bits(name.encode()) for name in sentence.deprels], vocab.DEPREL_DTYPE
    )
    strings = sorted(set(sentence.feats))
    code = {feats: i for i, feats in enumerate(strings)}
    upos = {tag: i for i, tag in enumerate(vocab.UPOS) if tag}
    words = vocab.Words(
        sentence=np.zeros(len(sentence.ids), np.int64),
        id=np.array(sentence.ids, np.int64),
        head=np.array([position.get(h, -1) for h in sentence.heads], np.int64),
        upos=np.array([upos.get(tag, 0) for tag in sentence.upos], np.int8),
        deprel=deprel,
        feats=np.array([code[f] for f in sentence.feats], np.int64),
        have=np.array([lemma in have_lemmas for lemma in sentence.lemmas], bool),
        ergative_marker=np.array([lemma in ergative_lemmas for lemma in sentence.lemmas], bool),
        object_have=np.array([lemma in object_have_lemmas for lemma in sentence.lemmas], bool),
    )
    return words, vocab.Features.build(strings, value_sets, definite_types)
