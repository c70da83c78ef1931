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
