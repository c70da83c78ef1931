"""Each shared token prefix computed once (DESIGN.md §5): sequences that share a prefix are laid
out in one row as a token tree (a trie), each distinct prefix's last token once, every token
attending to the tokens on its own path (a 4D attention mask, positions the tokens' depths); a
sequence that is a prefix of another is read off the longer one's forward.

Plain data only (token ids and positions): causal.py runs the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# A sequence joins the row of the one before it only when they share at least this many tokens
# (BOS included): sharing BOS alone saves one token and lengthens the row.
MIN_SHARED = 3
# Sequences join a row while it holds at most this many tokens, or the first one's length: a
# row's attention and mask grow with the square of its length. With batches held to the tokens of
# `batch_size` sentences, rows of 256 tokens ran as fast as longer ones on a CPU (bench/pairs.py:
# tiny-fr-ud-gpt2, a gpt2-sized model), rows of 96 slower (fewer prefixes shared).
ROW_TOKENS = 256


def shared_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Tokens of the longest common prefix."""
    limit = min(len(a), len(b))
    return next((i for i in range(limit) if a[i] != b[i]), limit)


def rows(sequences: Sequence[Sequence[int]], max_length: int) -> list[list[int]]:
    """Sequences grouped into rows, in lexicographic order (which puts sequences sharing a prefix
    side by side, and makes the one before a sequence the earlier one sharing the most with it);
    a sequence joins the row of the one before it when they share MIN_SHARED tokens or more and
    its own tokens fit (a row holds at most `max_length` tokens, nor ROW_TOKENS once its first
    sequence is shorter)."""
    order = sorted(range(len(sequences)), key=lambda i: tuple(sequences[i]))
    found: list[list[int]] = []
    length = limit = 0
    before: Sequence[int] = []
    for index in order:
        sequence = sequences[index]
        shared = shared_length(before, sequence)
        if found and shared >= MIN_SHARED and length + len(sequence) - shared <= limit:
            found[-1].append(index)
            length += len(sequence) - shared
        else:
            found.append([index])
            length, limit = len(sequence), min(max_length, max(ROW_TOKENS, len(sequence)))
        before = sequence
    return found


@dataclass
class PackedRow:
    """One row: token ids, position ids, what each position may attend to, and where each member
    sequence's token log-probabilities are read."""

    ids: list[int]
    positions: list[int]
    allowed: np.ndarray  # (L, L) bool: query row attends to key column
    members: list[int]  # sequence indices, in the row's order
    # Concatenated over the members: the row position whose output predicts each token after a
    # member's first, and that token; `counts` says how many are each member's.
    read_at: np.ndarray
    read_tokens: np.ndarray
    counts: list[int]


def pack(members: Sequence[int], sequences: Sequence[Sequence[int]]) -> PackedRow:
    """The row of a group from `rows`: each member's tokens after what it shares with the one
    before it, every token attending to its own path (the shared prefix's tokens and its own)."""
    ids: list[int] = []
    positions: list[int] = []
    paths: list[np.ndarray] = []
    path = np.zeros(0, dtype=np.int64)
    before: Sequence[int] = []
    for at, index in enumerate(members):
        sequence = sequences[index]
        shared = shared_length(before, sequence)
        # A member's last token predicts nothing: it is run only where a later member goes on
        # from it (in lexicographic order, the next one does if any does).
        after = sequences[members[at + 1]] if at + 1 < len(members) else ()
        end = len(sequence) - (shared_length(sequence, after) < len(sequence))
        # In lexicographic order, what a member shares with any earlier one it shares with the
        # one just before it: the tokens on its path up to `shared` are that one's.
        own = np.arange(len(ids), len(ids) + max(end - shared, 0))
        path = np.concatenate([path[: min(shared, end)], own])
        ids += sequence[shared:end]
        positions += range(shared, end)
        paths.append(path)
        before = sequence
    allowed = np.zeros((len(ids), len(ids)), dtype=bool)
    for path in paths:
        allowed[np.ix_(path, path)] |= np.tri(len(path), dtype=bool)
    # Token k of a member is predicted by the output at its path's position k - 1 (the path
    # holds every token but a last one that predicts nothing).
    read_at = np.concatenate(
        [p[: len(sequences[i]) - 1] for p, i in zip(paths, members, strict=True)]
    )
    read_tokens = np.concatenate([np.asarray(sequences[i][1:], dtype=np.int64) for i in members])
    counts = [max(len(sequences[i]) - 1, 0) for i in members]
    return PackedRow(ids, positions, allowed, list(members), read_at, read_tokens, counts)


def longest_holders(sequences: Sequence[Sequence[int]]) -> np.ndarray:
    """For each sequence, a sequence that starts with it and is a prefix of no other (itself when
    none is longer): the next-token distribution after it is read off that one's forward."""
    order = sorted(range(len(sequences)), key=lambda i: tuple(sequences[i]))
    holder = np.arange(len(sequences))
    # In lexicographic order a sequence that is a prefix of another is a prefix of the next one.
    for here, after in zip(order[-2::-1], order[:0:-1], strict=True):
        following = sequences[after]
        current = sequences[here]
        if len(following) > len(current) and list(following[: len(current)]) == list(current):
            holder[here] = holder[after]
    return holder
