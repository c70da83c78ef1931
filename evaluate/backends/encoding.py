"""Encoding masked texts for a masked LM (DESIGN.md §1.4–1.5): token ids, the scored mask's
position and the window around it (the token distance is the reading's: readings/distance.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .masking import mask_position, with_offsets


@dataclass(frozen=True)
class Encoded:
    """Token ids of masked sentences with the scored mask position."""

    input_ids: list[list[int]]
    mask_position: np.ndarray
    windowed: np.ndarray  # bool: the sentence was cut to the model's window


def window(ids: list[int], position: int, limit: int) -> tuple[list[int], int]:
    """Cut [CLS] body [SEP] to `limit` tokens keeping the position near the middle; new position."""
    if len(ids) <= limit:
        return ids, position
    head, body, tail = ids[:1], ids[1:-1], ids[-1:]
    room = limit - 2
    start = min(max(position - 1 - room // 2, 0), len(body) - room)
    return head + body[start : start + room] + tail, position - start


def encode(
    tokenizer,
    texts: Sequence[str],
    masked_spans: Sequence[tuple[int, int]],
    mask_ordinals: Sequence[int],
    limit: int,
) -> Encoded:
    """Tokenize masked texts; the scored mask is the `mask_ordinals[i]`-th mask token of text i."""
    batch = with_offsets(tokenizer, texts)
    mask_id = tokenizer.mask_token_id
    all_ids, positions, cut = [], [], []
    for ids, offsets, span, ordinal in zip(
        batch["input_ids"], batch["offset_mapping"], masked_spans, mask_ordinals, strict=True
    ):
        position = mask_position(ids, offsets, span, mask_id, ordinal)
        cut.append(len(ids) > limit)
        ids, position = window(list(ids), position, limit)
        all_ids.append(ids)
        positions.append(position)
    return Encoded(
        input_ids=all_ids,
        mask_position=np.asarray(positions, dtype=np.int64),
        windowed=np.asarray(cut, dtype=bool),
    )
