"""Every sentence's tree checked at once over the reader's arrays (`read.tree_fault`'s rule):
HEADs that are numbers naming a word of the sentence, and no cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .arrays import MAX_DIGITS, pick
from .read import MAX_ID, is_integer

if TYPE_CHECKING:
    from .columnar import Bytes, Ids, TokenRows

_ID_SHIFT = 32  # (sentence << 32) + ID keys: IDs are below MAX_ID = 2**31


def check_trees(
    buf: Bytes, tokens: TokenRows, ids: Ids, n_sent: int
) -> tuple[np.ndarray, np.ndarray]:
    """Words' HEADs and the tree (read.tree_fault), checked for all sentences at once: each
    word's head word (-1: the root, or not found) and sentence; faulty sentences suspect."""
    suspect = tokens.suspect
    words = np.flatnonzero(ids.is_word)
    w_sent = tokens.row_sent[words]
    w_id = ids.word_id[words]
    head_field = tokens.rows.field(6)
    head, head_ok = head_field.uint()
    for row in np.flatnonzero(~head_ok & (head_field.length > MAX_DIGITS) & ids.is_word).tolist():
        text = buf.text(head_field.start[row], head_field.end[row])
        if is_integer(text) and int(text) < MAX_ID:  # larger: no word's ID, so malformed
            head[row], head_ok[row] = np.int64(text), True
    w_head, head_ok = pick(head, words), pick(head_ok, words)
    suspect[w_sent[~head_ok]] = True
    suspect[w_sent[w_id == 0]] = True
    per_sentence = np.bincount(w_sent, minlength=n_sent)
    suspect[per_sentence == 0] = True
    first_word = np.cumsum(per_sentence) - per_sentence
    rooted = w_head == 0
    if (w_id == np.arange(len(w_id)) - first_word[w_sent] + 1).all():
        # Usual case, IDs 1..n in every sentence: a HEAD is an offset from the first word.
        found = w_head <= per_sentence[w_sent]
        head_word = np.where(~rooted & found, first_word[w_sent] + w_head - 1, -1)
    else:
        key = (w_sent << _ID_SHIFT) + w_id
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        suspect[w_sent[order[1:][sorted_key[1:] == sorted_key[:-1]]]] = True
        head_key = (w_sent << _ID_SHIFT) + w_head
        at = np.minimum(np.searchsorted(sorted_key, head_key), max(len(key) - 1, 0))
        found = sorted_key[at] == head_key if len(key) else np.zeros(0, bool)
        head_word = np.where(~rooted & found, order[at] if len(key) else at, -1)
    suspect[w_sent[~rooted & ~found]] = True
    # Pointer doubling: after k rounds a word points to its 2^k-th ancestor (0 = root absorbs).
    parent = np.concatenate([[0], head_word + 1])
    longest = int(per_sentence.max())
    for _ in range(longest.bit_length() + 1):
        if not parent.any():
            break
        parent = parent[parent]
    suspect[w_sent[parent[1:] != 0]] = True
    return head_word, w_sent
