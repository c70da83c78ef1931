"""Sentence text from surface words (DESIGN.md §1.4): the one definition every tool uses."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

Span = tuple[int, int]


def surface_text(
    words: Sequence[str],
    space_after: Sequence[bool] | None,
    replaced: Mapping[int, str] | None = None,
    spaces_after: Sequence[str | None] | None = None,
) -> tuple[str, list[Span]]:
    """Words joined by a space, none after a `SpaceAfter=No` word (all spaces when `space_after`
    is None) and the whitespace of `SpacesAfter=` where `spaces_after` has it, with some words
    replaced; the [start, end) character span of every word."""
    replaced = replaced or {}
    parts: list[str] = []
    spans: list[Span] = []
    at = 0
    last = len(words) - 1
    for i, word in enumerate(words):
        shown = replaced.get(i, word)
        parts.append(shown)
        spans.append((at, at + len(shown)))
        at += len(shown)
        if i < last:
            space = whitespace_after(i, space_after, spaces_after)
            parts.append(space)
            at += len(space)
    return "".join(parts), spans


def whitespace_after(
    i: int, space_after: Sequence[bool] | None, spaces_after: Sequence[str | None] | None
) -> str:
    """What is written after surface word i (not the sentence's last): MISC `SpacesAfter=`'s
    whitespace where given, else one space or, after `SpaceAfter=No`, none."""
    if spaces_after is not None and spaces_after[i] is not None:
        return spaces_after[i] or ""
    return " " if space_after is None or space_after[i] else ""


_UNESCAPE = re.compile(r"\\(s|t|r|n|p|\\|u[0-9A-Fa-f]{4})")
_ESCAPES = {"s": " ", "t": "\t", "r": "\r", "n": "\n", "p": "|", "\\": "\\"}


def decode_spaces(value: str) -> str:
    """A `SpacesAfter=` value as the whitespace it stands for (UD's escapes: \\s space, \\t, \\r,
    \\n, \\p for |, \\\\ for a backslash, \\uXXXX a code point); other text is kept as written."""
    return _UNESCAPE.sub(
        lambda m: chr(int(m[1][1:], 16)) if m[1][0] == "u" else _ESCAPES[m[1]], value
    )


def misc_spacing(misc: str) -> tuple[bool, str | None]:
    """MISC read as whole keys: whether anything is written after the token (`SpaceAfter=No`,
    not `CorrectSpaceAfter=No`, says nothing is), and `SpacesAfter=`'s whitespace (None: absent)."""
    space, spaces = True, None
    for item in misc.split("|"):
        if item == "SpaceAfter=No":
            space = False
        elif item.startswith("SpacesAfter="):
            spaces = decode_spaces(item[len("SpacesAfter=") :])
    if spaces is not None:
        space = spaces != ""
    return space, spaces


def word_spans(
    text: str, words: Sequence[str], space_after: Sequence[bool] | None
) -> list[Span] | None:
    """The spans of `words` in `text`, a sentence written from them with some words replaced by
    forms without spaces (a §9 nonce variant); None when `text` is not such a sentence.

    Words glued together (`SpaceAfter=No`) are split with the fewest replaced words, and a word
    without letters or digits (punctuation) is never taken as replaced: *précédents,* is
    *précédents* + *,*, not *précédent* + *s,*."""
    joined, spans = surface_text(words, space_after)
    if joined == text:
        return spans
    found: list[Span] = []
    at = 0
    pieces = text.split(" ")
    groups = _glued(words, space_after)
    if len(pieces) != len(groups):
        return None
    for piece, group in zip(pieces, groups, strict=True):
        split = _split_glued(piece, [words[i] for i in group])
        if split is None:
            return None
        found.extend((at + a, at + b) for a, b in split)
        at += len(piece) + 1
    return found


def _glued(words: Sequence[str], space_after: Sequence[bool] | None) -> list[list[int]]:
    """Word indices in runs written without a space between them."""
    groups: list[list[int]] = [[]]
    for i in range(len(words)):
        groups[-1].append(i)
        if i < len(words) - 1 and (space_after is None or space_after[i]):
            groups.append([])
    return groups


def _split_glued(piece: str, words: Sequence[str]) -> list[Span] | None:
    """Spans of `words` in `piece` (no spaces), each word as written or replaced by a non-empty
    text, with the fewest replaced; punctuation as written; earlier words as written on a tie."""
    if "".join(words) == piece:
        spans, at = [], 0
        for word in words:
            spans.append((at, at + len(word)))
            at += len(word)
        return spans
    # best[j][p]: (replaced words, ends) for words[j:] written in piece[p:].
    best: dict[tuple[int, int], tuple[int, tuple[int, ...]] | None] = {}

    def solve(j: int, p: int) -> tuple[int, tuple[int, ...]] | None:
        if j == len(words):
            return (0, ()) if p == len(piece) else None
        if (j, p) in best:
            return best[(j, p)]
        options = []
        word = words[j]
        if piece.startswith(word, p):
            rest = solve(j + 1, p + len(word))
            if rest is not None:
                options.append((rest[0], (p + len(word), *rest[1])))
        if any(ch.isalnum() for ch in word):
            for end in range(p + 1, len(piece) + 1):
                rest = solve(j + 1, end)
                if rest is not None:
                    options.append((rest[0] + 1, (end, *rest[1])))
        chosen = min(options, key=lambda o: o[0]) if options else None  # first: literal on a tie
        best[(j, p)] = chosen
        return chosen

    solved = solve(0, 0)
    if solved is None:
        return None
    starts = (0, *solved[1][:-1])
    return list(zip(starts, solved[1], strict=True))
