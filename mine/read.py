"""Reading CoNLL-U (plain or compressed) into validated sentences (DESIGN.md §1.0, §1.4).

A hand-written reader: splitting on TAB and validating is several times faster than the
`conllu` library's parser, which builds a dict per token; `tests/test_read.py` checks that it
reads every shared treebank exactly as `conllu` does.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from io import BufferedIOBase
from pathlib import Path
from typing import Literal

from ud_agree.errors import UserError
from ud_agree.surface import misc_spacing, surface_text

CONLLU_SUFFIXES = (".conllu", ".conllu.gz", ".conllu.xz", ".conllu.bz2")
_OPENERS: dict[str, Callable[[Path, Literal["rb"]], BufferedIOBase]] = {
    ".gz": gzip.open,
    ".xz": lzma.open,
    ".bz2": bz2.open,
}
_SURROGATE = re.compile("[\udc80-\udcff]")
MAX_ID = 2**31  # IDs from here on are malformed: relation IDs are int32 (DESIGN.md §3)


@dataclass(slots=True)
class Sentence:
    """A well-formed sentence: syntactic words (parallel lists) and surface words."""

    sent_id: str
    line: int  # 1-based line of the sentence's first line
    ids: list[int]
    forms: list[str]
    lemmas: list[str]
    upos: list[str]
    feats: list[str]
    heads: list[int]  # CoNLL-U HEAD (0 = root)
    deprels: list[str]
    surface: list[int]  # per syntactic word, index of its surface word
    in_mwt: list[bool]
    words: list[str]  # surface words
    space_after: list[bool]
    spaces_after: list[str | None]  # MISC `SpacesAfter=`'s whitespace, decoded; None: absent


@dataclass(slots=True)
class Malformed:
    """A sentence skipped whole, with the reason and the line of its first line."""

    line: int
    reason: str


class MalformedError(UserError):
    """Raised under --strict: the first malformed sentence of a file."""


class UnreadableError(UserError):
    """A file that cannot be read or decompressed."""


def read_bytes(path: Path) -> bytes:
    """Whole file, decompressed by suffix (.gz, .xz, .bz2) or plain."""
    opener = _OPENERS.get(path.suffix)
    if opener is None:
        return path.read_bytes()
    with opener(path, "rb") as handle:
        return handle.read()


def stem(path: Path) -> str:
    """File name without suffixes: `fr_pud-ud-test.conllu.xz` → `fr_pud-ud-test`."""
    return path.name.split(".")[0]


def decode(data: bytes) -> tuple[str, bool]:
    """Text of the file and whether some bytes were invalid UTF-8 (kept as lone surrogates)."""
    try:
        text = data.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
        valid = False
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text, valid


def parse(data: bytes, file_stem: str) -> Iterator[Sentence | Malformed]:
    """Sentences of a CoNLL-U file in order; a malformed one is yielded as `Malformed`."""
    text, valid_utf8 = decode(data)
    line_no = 1
    position = 0
    for block in text.split("\n\n"):
        lines = block.split("\n")
        start = 0
        # Extra blank lines between sentences leave empty strings at a block's start.
        while start < len(lines) and not lines[start].strip():
            start += 1
        first = line_no + start
        line_no += len(lines) + 1
        end = len(lines)
        while end > start and not lines[end - 1].strip():
            end -= 1
        if start == end:
            continue
        body = lines[start:end]
        if all(line.startswith("#") for line in body):
            continue
        position += 1
        if not valid_utf8 and _SURROGATE.search(block):
            yield Malformed(first, "invalid UTF-8")
            continue
        yield parse_sentence(body, first, f"{file_stem}:{position}")


def parse_sentence(lines: list[str], first_line: int, default_id: str) -> Sentence | Malformed:
    """One sentence's lines (comments and tokens) → `Sentence`, or `Malformed` naming the fault."""
    sent_id = _sent_id(lines, default_id)
    rows = [line.split("\t") for line in lines if line[0] != "#"]
    if set(map(len, rows)) != {10}:
        bad = next(i for i, row in enumerate(rows) if len(row) != 10)
        return Malformed(
            first_line,
            f"line {_line_of(lines, bad, first_line)} has {len(rows[bad])} fields, not 10",
        )
    surfaced = _surface_words(rows, lines, first_line)
    if isinstance(surfaced, Malformed):
        return surfaced
    word_rows, words, spacing, surface, in_mwt = surfaced
    if not word_rows:
        return Malformed(first_line, "sentence has no words")
    id_col, forms, lemmas, upos, _, feats, head_col, deprels, _, _ = zip(*word_rows, strict=True)
    ids = list(map(int, id_col))
    if max(ids) >= MAX_ID:
        index = next(i for i, word_id in enumerate(ids) if word_id >= MAX_ID)
        at = _line_of(lines, rows.index(word_rows[index]), first_line)
        return Malformed(first_line, f"line {at}: ID {id_col[index]!r} is 2^31 or more")
    if not (all(head_col) and is_integer("".join(head_col))):
        index = next(i for i, head in enumerate(head_col) if not is_integer(head))
        at = _line_of(lines, rows.index(word_rows[index]), first_line)
        return Malformed(first_line, f"line {at}: HEAD {head_col[index]!r} is not an integer")
    heads = list(map(int, head_col))
    fault = tree_fault(ids, heads)
    if fault:
        return Malformed(first_line, fault)
    return Sentence(
        sent_id,
        first_line,
        ids,
        list(forms),
        list(lemmas),
        list(upos),
        list(feats),
        heads,
        list(deprels),
        surface,
        in_mwt,
        words,
        [space for space, _ in spacing],
        [spaces for _, spaces in spacing],
    )


def _sent_id(lines: list[str], default_id: str) -> str:
    """The last non-empty `# sent_id` before the sentence's first token line, else default_id."""
    sent_id = default_id
    for line in lines:
        if line[0] != "#":
            break
        if line.startswith("# sent_id"):
            value = line[9:].strip().removeprefix("=").strip()
            if value:
                sent_id = value
    return sent_id


def _surface_words(
    rows: list[list[str]], lines: list[str], first_line: int
) -> tuple[list[list[str]], list[str], list, list[int], list[bool]] | Malformed:
    """The word rows, the surface words (§1.4) with their spacing, each word's surface word and
    whether it is inside a multiword token; or the malformed ID."""
    token_ids = [row[0] for row in rows]
    if all(token_ids) and is_integer("".join(token_ids)):
        # Common case: no multiword tokens or empty nodes, every token is one surface word.
        word_rows = rows
        words = [row[1] for row in rows]
        spacing = [misc_spacing(row[9]) for row in rows]
        surface = list(range(len(rows)))
        in_mwt = [False] * len(rows)
    else:
        word_rows, words, spacing, surface, in_mwt = [], [], [], [], []
        mwt_end = 0
        for index, row in enumerate(rows):
            token_id = row[0]
            if is_integer(token_id):
                word_rows.append(row)
                if int(token_id) <= mwt_end:
                    in_mwt.append(True)
                else:
                    in_mwt.append(False)
                    words.append(row[1])
                    spacing.append(misc_spacing(row[9]))
                surface.append(len(words) - 1)
                continue
            low, dash, high = token_id.partition("-")
            if dash and is_integer(low) and is_integer(high):
                mwt_end = int(high)
                words.append(row[1])
                spacing.append(misc_spacing(row[9]))
                continue
            major, dot, minor = token_id.partition(".")
            if not (dot and is_integer(major) and is_integer(minor)):
                at = _line_of(lines, index, first_line)
                return Malformed(
                    first_line, f"line {at}: ID {token_id!r} is not an integer, range or decimal"
                )
    return word_rows, words, spacing, surface, in_mwt


def is_integer(field: str) -> bool:
    """ASCII digits only: `isdecimal` alone would accept other scripts' digits and `int` signs."""
    return field.isascii() and field.isdecimal()


def _line_of(lines: list[str], token_index: int, first_line: int) -> int:
    """File line of the token_index-th non-comment line of a sentence."""
    seen = -1
    for offset, line in enumerate(lines):
        if not line.startswith("#"):
            seen += 1
            if seen == token_index:
                return first_line + offset
    return first_line


def tree_fault(ids: list[int], heads: list[int]) -> str | None:
    """Why IDs and HEADs do not form a tree rooted in 0 (duplicate, out of range, cycle), or None."""
    n = len(ids)
    if ids[0] == 1 and ids[-1] == n and ids == list(range(1, n + 1)):
        # IDs 1..n: heads index a list directly.
        if max(heads) > n:
            word_id, head = next((i + 1, h) for i, h in enumerate(heads) if h > n)
            return f"HEAD {head} of word {word_id} is not a word of the sentence"
        parent = [0, *heads]
    else:
        known = set(ids)
        if len(known) != n:
            duplicate = next(i for i in ids if ids.count(i) > 1)
            return f"word ID {duplicate} repeats"
        for word_id, head in zip(ids, heads, strict=True):
            if head != 0 and head not in known:
                return f"HEAD {head} of word {word_id} is not a word of the sentence"
        if ids.count(0):
            return "word ID 0 is not allowed"
        remap = {word_id: index for index, word_id in enumerate(ids, 1)}
        parent = [0, *(remap[h] if h else 0 for h in heads)]
    # Pointer doubling: after k rounds each word points to its 2^k-th ancestor (0 absorbs), so
    # within log2(n)+1 rounds every word that reaches the root points to 0; a cycle never does.
    for _ in range(n.bit_length() + 1):
        if not any(parent):
            return None
        parent = [parent[p] for p in parent]
    cyclic = next(i for i, p in enumerate(parent) if p)
    return f"heads form a cycle through word {ids[cyclic - 1]}"


def rebuild_text(
    words: list[str], space_after: list[bool], spaces_after: list[str | None] | None = None
) -> str:
    """Sentence text from surface words, honouring SpaceAfter=No and SpacesAfter=."""
    return surface_text(words, space_after, spaces_after=spaces_after)[0]
