"""Where a mask lies (DESIGN.md §1.4–1.5): in a text, the words a masked LM reads its mask token
in place of; in its tokens, the mask token of the word asked at. Plain text and offsets, shared by
the masked back-end (its inputs) and the readings (token distances in the text the model reads)."""

from __future__ import annotations

from collections.abc import Sequence

from ud_agree.surface import Span


def hide(text: str, spans: Sequence[Span], token: str) -> tuple[str, list[Span]]:
    """`text` with the words at `spans` (in text order, not overlapping) replaced by `token`; the
    span of each replacement in the new text."""
    parts: list[str] = []
    found: list[Span] = []
    at = shift = 0
    for start, end in spans:
        parts += [text[at:start], token]
        found.append((start + shift, start + shift + len(token)))
        shift += len(token) - (end - start)
        at = end
    parts.append(text[at:])
    return "".join(parts), found


def first_token_at(offsets: Sequence[tuple[int, int]], span: tuple[int, int]) -> int:
    """Index of the first non-special token overlapping a character span (-1 if none)."""
    start, end = span
    for k, (a, b) in enumerate(offsets):
        if b > a and b > start and a < end:
            return k
    return -1


def mask_position(
    ids: Sequence[int],
    offsets: Sequence[tuple[int, int]],
    span: tuple[int, int],
    mask_id: int,
    ordinal: int = 0,
) -> int:
    """The mask token whose characters overlap the masked word at `span`; where offsets
    disagree, the `ordinal`-th mask token, else the first token at the span."""
    mask_at = [k for k, t in enumerate(ids) if t == mask_id]
    inside = [k for k in mask_at if offsets[k][1] > span[0] and offsets[k][0] < span[1]]
    if inside:
        return inside[0]
    return mask_at[ordinal] if ordinal < len(mask_at) else first_token_at(offsets, span)
