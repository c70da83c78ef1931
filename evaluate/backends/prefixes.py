"""Each shared token prefix computed once (DESIGN.md §5): sequences that share a prefix with another
are packed as suffixes behind it in one row, each suffix attending to its root's tokens before
its first differing token and to its own earlier tokens (a 4D attention mask with explicit
position ids); a sequence that is a prefix of another is read off the longer one's forward.

Plain data only (token ids and positions): causal.py runs the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

# A suffix joins a root only when it shares at least this many tokens (BOS included): sharing BOS
# alone saves one token and lengthens the row, whose attention grows with its square.
MIN_SHARED = 3
# Children join a row while it holds at most this many tokens (measured on a CPU with
# tiny-fr-ud-gpt2: longer rows' attention costs more than their shared prefixes save).
ROW_TOKENS = 96
# Members of one run considered together: choosing each row's root compares every pair of them.
RUN_MEMBERS = 64


@dataclass
class Family:
    """A root sequence and the sequences packed behind it: (sequence, tokens shared with root)."""

    root: int
    children: list[tuple[int, int]] = field(default_factory=list)

    def packed_length(self, sequences: Sequence[Sequence[int]]) -> int:
        """Tokens in the row: the root's, then each child's suffix."""
        root = len(sequences[self.root])
        return root + sum(len(sequences[c]) - shared for c, shared in self.children)


def shared_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Tokens of the longest common prefix."""
    limit = min(len(a), len(b))
    return next((i for i in range(limit) if a[i] != b[i]), limit)


def families(sequences: Sequence[Sequence[int]], max_length: int) -> list[Family]:
    """Sequences (distinct) grouped behind roots that share a prefix of MIN_SHARED tokens or more
    with them; a row never exceeds `max_length` tokens, nor ROW_TOKENS once its root is shorter.
    Lexicographic order puts sequences that share a prefix side by side (a run); within a run,
    each row's root is the member sharing the most with the others left, its children those
    sharing the most with it, and members left over start the next row of the run."""
    order = sorted(range(len(sequences)), key=lambda i: tuple(sequences[i]))
    runs: list[list[int]] = []
    for index in order:
        if (
            runs
            and len(runs[-1]) < RUN_MEMBERS
            and shared_length(sequences[runs[-1][0]], sequences[index]) >= MIN_SHARED
        ):
            runs[-1].append(index)
        else:
            runs.append([index])
    found = []
    for run in runs:
        while run:
            family, run = _fill_row(run, sequences, max_length)
            found.append(family)
    return found


def _fill_row(
    run: list[int], sequences: Sequence[Sequence[int]], max_length: int
) -> tuple[Family, list[int]]:
    """One row from a run: the root sharing the most with the rest, then children by tokens
    shared, while the row has room; the members that did not fit."""

    def shared(a: int, b: int) -> int:
        return shared_length(sequences[a], sequences[b])

    root = max(run, key=lambda r: (sum(shared(r, o) for o in run), -r))
    family = Family(root)
    length = len(sequences[root])
    # A row's attention grows with its square: children join while the row is short.
    limit = min(max_length, max(ROW_TOKENS, length))
    common = {o: shared(root, o) for o in run if o != root}
    left = []
    for index in sorted(common, key=lambda o: (-common[o], o)):
        suffix = len(sequences[index]) - common[index]
        # A child must share enough and add at least one token; one that would not fit waits
        # for the run's next row.
        if common[index] < MIN_SHARED or suffix < 1 or length + suffix > limit:
            left.append(index)
        else:
            family.children.append((index, common[index]))
            length += suffix
    return family, left


@dataclass
class PackedRow:
    """One family as a row: token ids, position ids, what each position may attend to, and where
    to read each sequence's token log-probabilities."""

    ids: list[int]
    positions: list[int]
    allowed: np.ndarray  # (L, L) bool: query row attends to key column
    # Per sequence, root first: (sequence index, how many of its first token log-probabilities
    # are the root's, [(row position whose output predicts a later token, its id), …]).
    reads: list[tuple[int, int, list[tuple[int, int]]]]


def pack(family: Family, sequences: Sequence[Sequence[int]]) -> PackedRow:
    """The row of a family: the root whole, each child's tokens after the shared prefix."""
    root = list(sequences[family.root])
    ids, positions = list(root), list(range(len(root)))
    length = family.packed_length(sequences)
    allowed = np.zeros((length, length), dtype=bool)
    allowed[: len(root), : len(root)] = np.tril(np.ones((len(root), len(root)), dtype=bool))
    reads = [(family.root, 0, [(k - 1, root[k]) for k in range(1, len(root))])]
    for child, shared in family.children:
        sequence = sequences[child]
        start = len(ids)
        suffix = list(sequence[shared:])
        ids += suffix
        positions += list(range(shared, len(sequence)))
        for i in range(len(suffix)):
            allowed[start + i, :shared] = True
            allowed[start + i, start : start + i + 1] = True
        # Tokens 1…shared-1 are the root's (read once); token `shared` is predicted by the root's
        # output at shared-1 (the same context); later ones by the suffix's own outputs.
        own = [(shared - 1, sequence[shared])]
        own += [(start + i - 1, sequence[shared + i]) for i in range(1, len(suffix))]
        reads.append((child, shared - 1, own))
    return PackedRow(ids, positions, allowed, reads)


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
