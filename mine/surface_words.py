"""Surface words (§1.4) of a file's rows, all sentences at once: which rows are surface words,
their spacing read whole from MISC, the sentences' texts and where each word begins inside a
transparent multiword token."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.surface import misc_spacing

from .rules.bad_forms import transparent_offsets

if TYPE_CHECKING:
    from .columnar import Bytes, Table


def texts(
    forms: pa.Array, length: np.ndarray, space_after: np.ndarray, first: np.ndarray
) -> pa.Array:
    """Sentence texts as read.rebuild_text makes them: the surface words joined by a space,
    but none after a word with SpaceAfter=No."""
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(first.astype(np.int32)), forms), " ")
    n_words, n_sent = len(length), len(first) - 1
    sentence = np.repeat(np.arange(n_sent), np.diff(first))
    # Word i starts after the bytes of the words before it and one space per earlier word of
    # its sentence; the spaces after SpaceAfter=No words are then dropped.
    start = np.cumsum(length) - length + np.arange(n_words) - sentence
    glued = ~space_after
    glued[first[1:] - 1] = False  # no space follows a sentence's last word anyway
    total = int(length.sum()) + n_words - n_sent
    begin = int(np.frombuffer(joined.buffers()[1], np.int32, 1, 4 * joined.offset)[0])
    data = np.frombuffer(joined.buffers()[2], np.uint8, total, begin)
    keep = np.ones(total, bool)
    keep[(start + length)[glued]] = False
    dropped = np.concatenate([[0], np.cumsum(glued)])
    offsets = np.append(start[first[:-1]] - dropped[first[:-1]], total - dropped[-1])
    return pa.LargeStringArray.from_buffers(
        n_sent, pa.py_buffer(offsets.astype(np.int64)), pa.py_buffer(data[keep])
    )


@dataclass
class Surface:
    """Surface words (§1.4): per token row its surface word's index in its sentence and whether
    it is a word inside a multiword token; the surface rows, their SpaceAfter and forms."""

    of_row: np.ndarray
    in_mwt_row: np.ndarray
    mwt_row: np.ndarray  # per row inside a multiword token: the token's range row
    rows: np.ndarray
    space_after: np.ndarray
    spaces_after: pa.Array  # SpacesAfter='s whitespace per surface row, null where absent
    forms: pa.Array
    form_length: np.ndarray
    first: np.ndarray  # per sentence (and one past the last): its first surface word


def surface_words(table: Table) -> Surface:
    """§1.4: a range a-b is one surface word covering the words with ID <= b that follow it;
    other words are surface words themselves; empty nodes are none."""
    buf, rows, row_sent = table.rows.buf, table.rows, table.row_sent
    n_rows, n_sent = len(row_sent), len(table.line)
    sent_first_row = np.searchsorted(row_sent, np.arange(n_sent), "left")
    index = np.arange(n_rows)
    last_range = np.maximum.accumulate(np.where(table.is_range, index, -1))
    covered = last_range >= sent_first_row[row_sent]
    mwt_end = np.where(covered, table.range_end[np.maximum(last_range, 0)], 0)
    in_mwt_row = table.is_word & (table.word_id <= mwt_end)
    is_surface = table.is_range | (table.is_word & ~in_mwt_row)
    surface_cum = np.concatenate([[0], np.cumsum(is_surface)])
    of_row = surface_cum[index + 1] - 1 - surface_cum[sent_first_row][row_sent]
    surface_rows = np.flatnonzero(is_surface)
    misc_start, misc_end = rows.span(9, surface_rows)
    space_after, spaces_after = spacing(buf, misc_start, misc_end)
    form_start, form_end = rows.span(1, surface_rows)
    return Surface(
        of_row=of_row,
        in_mwt_row=in_mwt_row,
        mwt_row=np.where(in_mwt_row, last_range, -1),
        rows=surface_rows,
        space_after=space_after,
        spaces_after=spaces_after,
        forms=buf.strings(form_start, form_end),
        form_length=form_end - form_start,
        first=np.searchsorted(row_sent[surface_rows], np.arange(n_sent + 1), "left"),
    )


def spacing(buf: Bytes, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """Per surface token (its MISC's byte range): whether whitespace follows, MISC keys read
    whole (`CorrectSpaceAfter=No` is not `SpaceAfter=No`), and `SpacesAfter=`'s whitespace."""
    space_after = np.ones(len(start), bool)
    spaces_after = pa.nulls(len(start), pa.string())
    long = np.flatnonzero(end - start >= len("SpacesAfter="))
    if not len(long):
        return space_after, spaces_after
    misc = buf.strings(start[long], end[long])
    # Keys read whole in Arrow (`misc_spacing`'s rule); Python decodes only `SpacesAfter=`'s
    # escapes, which are rare (a SpaceAfter=No on every tenth token is not).
    no_space = pc.match_substring_regex(misc, r"(?:^|\|)SpaceAfter=No(?:\||$)")
    given = pc.match_substring_regex(misc, r"(?:^|\|)SpacesAfter=").to_numpy(zero_copy_only=False)
    space_after[long[no_space.to_numpy(zero_copy_only=False) & ~given]] = False
    odd = np.flatnonzero(given)
    spaces: dict[int, str] = {}
    for at, text in zip(long[odd].tolist(), misc.take(pa.array(odd)).to_pylist(), strict=True):
        space_after[at], given = misc_spacing(text)
        if given is not None:
            spaces[at] = given
    if spaces:
        values: list[str | None] = [None] * len(start)
        for at, given in spaces.items():
            values[at] = given
        spaces_after = pa.array(values, pa.string())
    return space_after, spaces_after


def mwt_offsets(table: Table, surface: Surface, members: np.ndarray) -> np.ndarray:
    """Per member row inside a multiword token, where its form begins in the token when the
    token is transparent (`rules.bad_forms.transparent_offsets`), else -1. Python per distinct
    token and words (*do* = *de* + *o* is decided once), for the tokens that hold a member."""
    if len(members) == 0:
        return np.full(0, -1, np.int64)
    tokens = np.unique(surface.mwt_row[members])
    inside = np.flatnonzero(np.isin(surface.mwt_row, tokens) & surface.in_mwt_row)
    # A token's words are consecutive rows, tokens in file order: one run of `inside` each.
    owner = surface.mwt_row[inside]
    starts = np.flatnonzero(np.concatenate([[True], owner[1:] != owner[:-1]]))
    ends = np.append(starts[1:], len(inside))
    forms = table.rows.strings(1, inside).to_pylist()
    offset = np.full(len(inside), -1, np.int64)
    decided: dict[tuple[str, tuple[str, ...]], list[int] | None] = {}
    token_forms = table.rows.strings(1, tokens).to_pylist()
    for token, start, end in zip(token_forms, starts.tolist(), ends.tolist(), strict=True):
        key = (token, tuple(forms[start:end]))
        if key not in decided:
            decided[key] = transparent_offsets(token, key[1])
        if (at := decided[key]) is not None:
            offset[start:end] = at
    return offset[np.searchsorted(inside, members)]
