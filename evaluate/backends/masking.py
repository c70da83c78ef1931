"""Where a mask lies (DESIGN.md §1.4–1.5): in a text, the words a masked LM reads its mask token
in place of; in its tokens, the mask token of the word asked at. Plain text and offsets, shared by
the masked back-end (its inputs) and the readings (token distances in the text the model reads)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ud_agree.surface import Span


def hide(text: str, spans: Sequence[Span], token: str) -> tuple[str, list[Span]]:
    """`text` with the words at `spans` (in text order, not overlapping) replaced by `token`; the
    span of each replacement in the new text."""
    # The text between the hidden words, joined by the token: one slice per word, no other work
    # per word (a no-context blank hides every word of its sentence).
    ends = [0, *(end for _, end in spans)]
    starts = [*(start for start, _ in spans), len(text)]
    between = [text[end:start] for end, start in zip(ends, starts, strict=True)]
    width = len(token)
    found: list[Span] = []
    at = 0
    for gap in between[:-1]:
        at += len(gap)
        found.append((at, at + width))
        at += width
    return token.join(between), found


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


def with_offsets(tokenizer: Any, texts: Sequence[str], special_tokens_mask: bool = False) -> Any:
    """The tokenizer's ids and character offsets of each text as the model reads it (special
    tokens added, never truncated: a long text is windowed by its caller, so the length warning
    would mislead)."""
    return tokenizer(
        list(texts),
        add_special_tokens=True,
        return_offsets_mapping=True,
        return_special_tokens_mask=special_tokens_mask,
        truncation=False,
        verbose=False,
    )
