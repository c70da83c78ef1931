"""Batches of token sequences: sorted by length, cut by count or token budget, padded on either side.

Results never depend on the batches: every scorer puts each sequence's score back at its index,
and padding is masked out (tests score the same inputs at several batch sizes and both sides).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch  # the evaluate extra; imported where a batch is built


def length_batches(
    lengths: Sequence[int] | np.ndarray,
    batch_size: int,
    max_tokens: int | None = None,
    groups: np.ndarray | None = None,
) -> list[np.ndarray]:
    """Indices sorted by length (stable), cut every `batch_size` rows or before the padded batch
    would exceed `max_tokens`; rows of one of `groups` stay in one batch where they fit."""
    lengths = np.asarray(lengths, dtype=np.int64)
    index = np.arange(len(lengths))
    if groups is None:
        order = np.argsort(lengths, kind="stable")
        run_starts = index
    else:
        order = np.lexsort((index, groups, lengths))
        ordered = np.asarray(groups)[order]
        run_starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    run_ends = np.r_[run_starts[1:], len(order)]

    def full(count: int, width: int) -> bool:
        return count > batch_size or (max_tokens is not None and count * width > max_tokens)

    batches: list[np.ndarray] = []
    current: list[int] = []
    for begin, end in zip(run_starts, run_ends, strict=True):
        run = order[begin:end].tolist()
        # Ascending lengths: the widest row of a batch is its last one.
        if current and full(len(current) + len(run), int(lengths[run[-1]])):
            batches.append(np.asarray(current, dtype=np.int64))
            current = []
        for row in run:  # a run larger than a batch is cut like any rows
            if current and full(len(current) + 1, int(lengths[row])):
                batches.append(np.asarray(current, dtype=np.int64))
                current = []
            current.append(row)
    if current:
        batches.append(np.asarray(current, dtype=np.int64))
    return batches


@dataclass
class Padded:
    """A batch as tensors: token ids, attention mask, position ids, and each row's left offset."""

    input_ids: torch.Tensor  # int64 (B, L)
    attention_mask: torch.Tensor
    position_ids: torch.Tensor
    offsets: np.ndarray  # first real token of each row (0 with right padding)
    lengths: np.ndarray


def pad(
    sequences: Sequence[Sequence[int]], pad_id: int, side: str = "right", device=None
) -> Padded:
    """Pad sequences to one width; position ids count real tokens only, so either side scores alike."""
    import torch

    lengths = np.asarray([len(s) for s in sequences], dtype=np.int64)
    width = int(lengths.max())
    ids = np.full((len(sequences), width), pad_id, dtype=np.int64)
    attention = np.zeros((len(sequences), width), dtype=np.int64)
    offsets = width - lengths if side == "left" else np.zeros(len(sequences), dtype=np.int64)
    for row, (sequence, offset) in enumerate(zip(sequences, offsets, strict=True)):
        ids[row, offset : offset + len(sequence)] = sequence
        attention[row, offset : offset + len(sequence)] = 1
    positions = np.clip(np.cumsum(attention, axis=1) - 1, 0, None)
    tensors = [torch.from_numpy(a) for a in (ids, attention, positions)]
    if device is not None and torch.device(device).type == "cuda":
        # Pinned host memory lets the copy overlap the previous batch's compute.
        tensors = [t.pin_memory().to(device, non_blocking=True) for t in tensors]
    elif device is not None:
        tensors = [t.to(device) for t in tensors]
    input_ids, attention_mask, position_ids = tensors
    return Padded(input_ids, attention_mask, position_ids, offsets=offsets, lengths=lengths)
