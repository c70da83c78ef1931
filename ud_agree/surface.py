"""Sentence text from surface words (DESIGN.md §1.4): the one definition every tool uses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Span = tuple[int, int]


def surface_text(
    words: Sequence[str],
    space_after: Sequence[bool] | None,
    replaced: Mapping[int, str] | None = None,
) -> tuple[str, list[Span]]:
    """Words joined by a space, none after a `SpaceAfter=No` word (all spaces when `space_after`
    is None), with some words replaced; the [start, end) character span of every word."""
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
        if i < last and (space_after is None or space_after[i]):
            parts.append(" ")
            at += 1
    return "".join(parts), spans


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
