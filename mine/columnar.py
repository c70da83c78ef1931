"""The miner's engine: one CoNLL-U file → `FileResult`, column-wise.

The file's bytes are scanned once with numpy for newlines and TABs; a field is then a byte
range, integers (ID, HEAD) are parsed eight bytes at a time, UPOS and DEPREL are compared as
8-byte words, and Arrow copies out only the string columns the tables need (FEATS strings are
dictionary-encoded, so Python meets each distinct FEATS once). Reading and validation (§1.0)
and surface words (§1.4) are done here for all sentences of the file at once; the rules of
DESIGN.md §1.1–1.3 are `mine.rules.relations`, run over all words of the file at once. Python runs only
for the rare odd line: integers of more than 8 digits, and suspect sentences, which
`mine.read.parse_sentence` re-reads to name their fault. Bytes that are not UTF-8 are replaced
by `?` (same length, so offsets and lines stay) and their sentences are malformed.
`tests/test_columnar.py` checks the result against the readable reference in `tests/reference/`.
"""

from __future__ import annotations

import codecs
import hashlib
import lzma
import threading
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.schemas.corpus import DROPS, FEATURES, RELATIONS_MINED, SENTENCES, TYPES
from ud_agree.surface import misc_spacing, surface_text

from .extract import FileJob, FileResult, strict_error
from .lexicon import COUNTS, LEXICON_UPOS
from .read import (
    MAX_ID,
    Malformed,
    Sentence,
    UnreadableError,
    is_integer,
    parse_sentence,
    read_bytes,
    stem,
)
from .rules import relations as rules
from .rules.bad_forms import transparent_offsets
from .rules.relations import NO_VALUE, UPOS, Facts, Features, Words
from .rules.subjects import subject_shown

__all__ = ["FileJob", "FileResult", "mine_file_columnar"]

_BOM = b"\xef\xbb\xbf"
_TAB, _NL, _HASH = 9, 10, 35
# First bytes after which a line may be whitespace only (Python's str.isspace): ASCII
# whitespace, the separators \x1c-\x1f, and any non-ASCII lead byte (U+0085, U+00A0, ...).
_MAYBE_SPACE = np.zeros(256, bool)
_MAYBE_SPACE[[9, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_MAYBE_SPACE[0x80:] = True
_SENT_ID = b"# sent_id"
_ID_SHIFT = 32  # (sentence << 32) + ID keys: IDs are below MAX_ID = 2**31
_MAX_DIGITS = 8  # IDs and HEADs read from one 8-byte word; longer ones in Python

_LEXICON_CLASS = np.array([name in LEXICON_UPOS for name in UPOS])
_UPOS_NAMES = np.array(UPOS, dtype=object)
# Agreeing features as a 4-bit set (bit i = FEATURES[i]) → the sorted list of names.
_AGREEING = [sorted(f for i, f in enumerate(FEATURES) if bits >> i & 1) for bits in range(16)]
_STR_LIST = pa.list_(pa.string())
_ORDER = ["controller-first", "target-first"]
_INVALID_UTF8 = "invalid UTF-8"  # the reason mine.read.parse gives


def mine_file_columnar(job: FileJob) -> FileResult:
    """Read, validate and mine one file (tables, counts, lexicon counts); under strict, the
    first malformed sentence raises `MalformedError`, an unreadable file `UnreadableError`."""
    try:
        raw = read_bytes(job.path)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as error:
        raise UnreadableError(f"{job.path}: cannot read: {error}") from None
    data = raw[len(_BOM) :] if raw.startswith(_BOM) else raw
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    data, invalid_at = _replace_invalid_utf8(data)
    # hashlib releases the GIL on large inputs: hash while the file is mined.
    digest: list[str] = []
    hasher = threading.Thread(target=lambda: digest.append(hashlib.sha256(raw).hexdigest()))
    hasher.start()
    result = FileResult(job.label, "", len(raw), None, None, COUNTS.empty_table())
    try:
        _mine(job, data, invalid_at, result)
    finally:
        hasher.join()
    result.sha256 = digest[0]
    return result


def _valid_utf8(data: bytes) -> bool:
    """Whether data is valid UTF-8 (Arrow's validator: no Python str is built)."""
    if data.isascii():
        return True
    offsets = pa.py_buffer(np.array([0, len(data)], np.int64))
    try:
        pa.LargeStringArray.from_buffers(1, offsets, pa.py_buffer(data)).validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


_PLACEHOLDER = "ud-agree-placeholder"
_invalid = threading.local()  # .ranges: (start, end) of the invalid sequences being decoded


def _placeholder(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: an invalid UTF-8 sequence becomes as many `?` as it has bytes."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    _invalid.ranges.append((error.start, error.end))
    return "?" * (error.end - error.start), error.end


codecs.register_error(_PLACEHOLDER, _placeholder)


def _replace_invalid_utf8(data: bytes) -> tuple[bytes, np.ndarray]:
    """data with each byte of an invalid UTF-8 sequence replaced by `?` (same length: byte
    offsets and lines stay; Python's decoder never takes a valid ASCII byte, such as a newline,
    into an invalid sequence), and the offsets where such sequences start."""
    if _valid_utf8(data):
        return data, np.zeros(0, np.int64)
    _invalid.ranges = []
    text = data.decode("utf-8", _PLACEHOLDER)
    starts = np.array([start for start, _ in _invalid.ranges], np.int64)
    fixed = text.encode("utf-8")
    assert len(fixed) == len(data)
    return fixed, starts


_U64 = np.uint64


class _Bytes:
    """The file's bytes, with views that read many fields (byte ranges) at once."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.u8 = np.frombuffer(data, np.uint8)
        words = data if len(data) >= 8 else data + bytes(8)
        # Unaligned 8-byte little-endian words at every offset (no copy of the file).
        self.w8 = np.ndarray((len(words) - 7,), "<u8", words, 0, (1,))
        self.last_word = len(words) - 8
        self.buffer = pa.py_buffer(data)

    def word8(self, start: np.ndarray) -> np.ndarray:
        """The 8 bytes from each start (bytes past the end read as 0)."""
        if len(start) == 0 or start.max() <= self.last_word:
            return self.w8[start]
        at = np.minimum(start, self.last_word)
        words = self.w8[at]
        over = start - at
        if over.any():
            shift = _U64(8) * np.minimum(over, 7).astype(np.uint64)
            words = np.where(over >= 8, _U64(0), words >> shift)
        return words

    def field(self, start: np.ndarray, end: np.ndarray) -> _Field:
        """Fields given by their byte ranges."""
        return _Field(self, start, end)

    def strings(self, start: np.ndarray, end: np.ndarray) -> pa.Array:
        """The byte ranges as an Arrow string array (one copy of their bytes)."""
        if len(start) == 0:
            return pa.array([], pa.string())
        if len(start) > 1 and not (start[1:] >= end[:-1]).all():
            # Arrow offsets must not decrease: build the distinct fields in file order.
            distinct, where = np.unique(start, return_inverse=True)
            first = np.zeros(len(distinct), np.int64)
            first[where] = np.arange(len(start))
            return self.strings(distinct, end[first]).take(pa.array(where.ravel()))
        # Offsets s0,e0,s1,e1,... over the file make every even element a field; take keeps
        # those (the odd ones, the bytes between fields, are never read).
        offsets = np.empty(2 * len(start), np.int64)
        offsets[0::2] = start
        offsets[1::2] = end
        spread = pa.LargeStringArray.from_buffers(
            len(offsets) - 1, pa.py_buffer(offsets), self.buffer
        )
        return spread.take(pa.array(np.arange(0, len(offsets), 2))).cast(pa.string())

    def text(self, start: int, end: int) -> str:
        """One byte range as str."""
        return self.data[start:end].decode("utf-8")


class _Field:
    """One CoNLL-U column of many rows, as byte ranges; the first 8 bytes read once."""

    def __init__(self, buf: _Bytes, start: np.ndarray, end: np.ndarray) -> None:
        self.buf, self.start, self.end = buf, start, end
        self.length = end - start
        self.head8 = buf.word8(start)

    def _prefix(self, word: bytes) -> np.ndarray:
        chunk = word[:8]
        mask = _U64((1 << 8 * len(chunk)) - 1)
        found = (self.head8 & mask) == _U64(int.from_bytes(chunk, "little"))
        for offset in range(8, len(word), 8):
            maybe = np.flatnonzero(found & (self.length >= len(word)))
            chunk = word[offset : offset + 8]
            mask = _U64((1 << 8 * len(chunk)) - 1)
            more = (self.buf.word8(self.start[maybe] + offset) & mask) == _U64(
                int.from_bytes(chunk, "little")
            )
            found[:] = False
            found[maybe[more]] = True
        return found

    def equals(self, word: bytes) -> np.ndarray:
        """Rows whose field is word."""
        return (self.length == len(word)) & self._prefix(word)

    def startswith(self, word: bytes) -> np.ndarray:
        """Rows whose field starts with word."""
        return (self.length >= len(word)) & self._prefix(word)

    def base_is(self, name: bytes) -> np.ndarray:
        """Rows whose deprel has base name (`nsubj` or `nsubj:...`)."""
        return self.equals(name) | self.startswith(name + b":")

    def uint(self) -> tuple[np.ndarray, np.ndarray]:
        """Fields of 1-8 ASCII digits as integers, and which fields are such."""
        return _digits(self.head8, self.length)

    def split_at(self, byte: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Fields of at most 8 bytes `a<byte>b` with a and b of ASCII digits: which, a, b, and
        whether the byte occurs (split at its first occurrence, as str.partition does)."""
        at = np.full(len(self.length), -1)
        for k in range(7, -1, -1):  # downwards, so that the first occurrence is kept
            at[((self.head8 >> _U64(8 * k)) & _U64(0xFF)) == _U64(byte[0])] = k
        occurs = (at >= 0) & (at < self.length)
        low, low_ok = _digits(self.head8, np.where(occurs, at, 0))
        rest = np.where(occurs, 8 * (at + 1), 0).astype(np.uint64)
        high, high_ok = _digits(self.head8 >> np.minimum(rest, _U64(56)), self.length - at - 1)
        ok = occurs & low_ok & high_ok & (self.length <= 8)
        return ok, low, high, occurs


def _everything(index: np.ndarray, n: int) -> bool:
    """Whether an increasing index of n items picks all of them."""
    return len(index) == n and (n == 0 or index[-1] == n - 1)


def _pick(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """values[index] for an increasing index, without a copy when it picks everything."""
    return values if _everything(index, len(values)) else values[index]


def _digits(words: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first `length` (1-8) bytes of each word as a decimal number, and which are digits."""
    ok = (length >= 1) & (length <= _MAX_DIGITS)
    # Right-align the digits in the word (leading zero digits), then check and sum them
    # eight at a time (the SWAR parse of simdjson's parse_eight_digits).
    shift = np.where(ok, 8 * (8 - length), 0).astype(np.uint64)
    x = (words ^ _U64(0x3030303030303030)) << shift
    x = np.where(ok, x, _U64(0))
    high = _U64(0x8080808080808080)
    ok &= ((((x & _U64(0x7F7F7F7F7F7F7F7F)) + _U64(0x7676767676767676)) | x) & high) == 0
    with np.errstate(over="ignore"):
        x = (x * _U64(2561)) >> _U64(8)
        x = ((x & _U64(0x00FF00FF00FF00FF)) * _U64(6553601)) >> _U64(16)
        x = ((x & _U64(0x0000FFFF0000FFFF)) * _U64(42949672960001)) >> _U64(32)
    return (x & _U64(0xFFFFFFFF)).astype(np.int64), ok


@dataclass
class _Rows:
    """Token rows with 10 fields: field k spans span(k) in the file."""

    buf: _Bytes
    line_start: np.ndarray
    line_end: np.ndarray
    tab_at: np.ndarray  # (9, rows): each row's TAB offsets, by TAB (a field's are contiguous)

    def span(self, k: int, which: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """First byte of field k and the byte after it, for the rows (or rows[which], which
        an increasing index)."""
        every = slice(None) if which is None or _everything(which, len(self.line_start)) else which
        start = self.line_start[every] if k == 0 else self.tab_at[k - 1, every] + 1
        end = self.line_end[every] if k == 9 else self.tab_at[k, every]
        return start, end

    def field(self, k: int, which: np.ndarray | None = None) -> _Field:
        """Field k of the rows (or of rows[which])."""
        return self.buf.field(*self.span(k, which))

    def strings(self, k: int, which: np.ndarray | None = None) -> pa.Array:
        """Field k as strings."""
        return self.buf.strings(*self.span(k, which))

    def subset(self, keep: np.ndarray) -> _Rows:
        """The rows selected by a mask or (sorted) index."""
        if keep.dtype == bool and keep.all():
            return self  # no copy
        return _Rows(self.buf, self.line_start[keep], self.line_end[keep], self.tab_at[:, keep])


@dataclass
class _Lines:
    """A file's lines (start and end byte) and TABs (positions, the first of each line, count)."""

    start: np.ndarray
    end: np.ndarray
    tabs: np.ndarray
    tabs_before: np.ndarray
    n_tabs: np.ndarray


@dataclass
class _Spans:
    """Sentences as read.parse finds them: first and last line, and which lines are comments or
    token lines."""

    first: np.ndarray
    last: np.ndarray
    comment: np.ndarray
    token: np.ndarray


@dataclass
class _TokenRows:
    """The token lines of ten fields, each row's sentence, and the sentences found malformed so
    far (`invalid`: bytes that are not UTF-8; `suspect`: any fault Python will name)."""

    rows: _Rows
    lines: np.ndarray  # every token line, ten fields or not
    row_sent: np.ndarray
    suspect: np.ndarray
    invalid: np.ndarray


@dataclass
class _Ids:
    """Per token row: its ID as a word (integer), a multiword range, or neither (empty node)."""

    word_id: np.ndarray
    is_word: np.ndarray
    is_range: np.ndarray
    range_end: np.ndarray


def _mine(job: FileJob, data: bytes, invalid_at: np.ndarray, result: FileResult) -> None:
    """Fill result from the file's bytes (BOM and CRs removed, invalid UTF-8 replaced; its
    sequences start at invalid_at)."""
    buf = _Bytes(data)
    lines = _scan_lines(buf)
    spans = _sentence_spans(buf, lines)
    if spans is None:
        _finish(job, result, None)
        return
    tokens = _token_rows(buf, lines, spans, invalid_at)
    ids = _read_ids(buf, tokens)
    head_word, w_sent = _check_trees(buf, tokens, ids, len(spans.first))
    file_stem = stem(job.path)
    _name_faults(job, buf, lines, spans, tokens, file_stem, result)
    good = ~tokens.suspect
    good_sent = np.flatnonzero(good)
    kept_rows = good[tokens.row_sent]
    kept_words = good[w_sent]
    renumber = np.cumsum(kept_words) - 1
    heads = head_word[kept_words]
    sent_ids = _sent_ids(
        buf, spans.comment, lines.start, lines.end, spans.first, tokens.lines, file_stem
    )
    table = _Table(
        rows=tokens.rows.subset(kept_rows),
        row_sent=(np.cumsum(good) - 1)[tokens.row_sent[kept_rows]],
        is_word=ids.is_word[kept_rows],
        is_range=ids.is_range[kept_rows],
        range_end=ids.range_end[kept_rows],
        word_id=ids.word_id[kept_rows],
        heads=np.where(heads >= 0, renumber[np.maximum(heads, 0)], -1),
        sent_id=sent_ids.take(pa.array(good_sent)),
        line=spans.first[good_sent] + 1,
    )
    _finish(job, result, table)


def _scan_lines(buf: _Bytes) -> _Lines:
    """Lines and TABs: one scan for bytes below 11 (other control bytes are rare)."""
    u8 = buf.u8
    pos = np.flatnonzero(u8 < 11)
    kind = u8[pos]
    is_nl = kind == _NL
    if not (is_nl | (kind == _TAB)).all():
        keep = is_nl | (kind == _TAB)
        pos, is_nl = pos[keep], is_nl[keep]
    nl_index = np.flatnonzero(is_nl)
    newlines = pos[nl_index]
    tabs = pos[~is_nl]
    tabs_before = np.concatenate([[0], nl_index - np.arange(len(nl_index))])
    return _Lines(
        start=np.concatenate([[0], newlines + 1]),
        end=np.concatenate([newlines, [len(u8)]]),
        tabs=tabs,
        tabs_before=tabs_before,
        n_tabs=np.diff(np.concatenate([tabs_before, [len(tabs)]])),
    )


def _sentence_spans(buf: _Bytes, lines: _Lines) -> _Spans | None:
    """Sentences as read.parse finds them: runs of lines between empty lines, trimmed of
    whitespace-only lines at both ends, with at least one line not starting with "#"; None when
    the file holds none."""
    line_start, line_end = lines.start, lines.end
    empty = line_end == line_start
    if empty.all():
        return None
    first_byte = buf.u8[np.minimum(line_start, len(buf.u8) - 1)]
    comment = ~empty & (first_byte == _HASH)
    space_only = empty.copy()
    for i in np.flatnonzero(~empty & _MAYBE_SPACE[first_byte]):
        if not buf.text(line_start[i], line_end[i]).strip():
            space_only[i] = True
    content = np.flatnonzero(~space_only)
    group = np.cumsum(empty)[content]
    breaks = np.flatnonzero(group[1:] != group[:-1]) + 1
    body_first = content[np.concatenate([[0], breaks])] if len(content) else content
    body_last = content[np.concatenate([breaks, [len(content)]]) - 1] if len(content) else content
    in_body = np.zeros(len(line_start) + 1, np.int64)
    in_body[body_first] += 1
    in_body[body_last + 1] -= 1
    token = (np.cumsum(in_body[:-1]) > 0) & ~comment
    token_cum = np.concatenate([[0], np.cumsum(token)])
    is_sentence = token_cum[body_last + 1] > token_cum[body_first]
    if not is_sentence.any():
        return None
    return _Spans(body_first[is_sentence], body_last[is_sentence], comment, token)


def _token_rows(buf: _Bytes, lines: _Lines, spans: _Spans, invalid_at: np.ndarray) -> _TokenRows:
    """Token lines of ten fields; a sentence with another line, or with bytes that are not
    UTF-8 (a fault before any other, as read.parse finds it), is suspect."""
    n_sent = len(spans.first)
    token_lines = np.flatnonzero(spans.token)
    tok_sent = np.searchsorted(spans.first, token_lines, "right") - 1
    suspect = np.zeros(n_sent, bool)  # malformed: Python names the fault
    invalid = np.zeros(n_sent, bool)
    if len(invalid_at):
        owner = np.searchsorted(lines.start[spans.first], invalid_at, "right") - 1
        inside = (owner >= 0) & (invalid_at < lines.end[spans.last[np.maximum(owner, 0)]])
        invalid[owner[inside]] = True
        suspect |= invalid
    ten = lines.n_tabs[token_lines] == 9
    suspect[tok_sent[~ten]] = True
    rows_at = token_lines[ten]
    if len(lines.tabs) == 9 * len(rows_at):
        tab_at = lines.tabs.reshape(-1, 9).T.copy()  # usual case: no TAB outside the token rows
    else:
        tab_at = lines.tabs[lines.tabs_before[rows_at] + np.arange(9)[:, None]]
    rows = _Rows(buf, lines.start[rows_at], lines.end[rows_at], tab_at)
    return _TokenRows(rows, token_lines, tok_sent[ten], suspect, invalid)


def _read_ids(buf: _Bytes, tokens: _TokenRows) -> _Ids:
    """IDs: integers are words, ranges a-b multiword tokens, decimals a.b empty nodes; the rest
    (malformed, or integers of more than 8 digits) is read in Python as read.py does."""
    ids = tokens.rows.field(0)
    n_rows = len(tokens.row_sent)
    word_id, is_word = ids.uint()
    is_range = np.zeros(n_rows, bool)
    range_end = np.zeros(n_rows, np.int64)
    other = np.flatnonzero(~is_word)
    odd = np.ones(len(other), bool)
    if len(other):
        others = buf.field(ids.start[other], ids.end[other])
        ranged, _, high, dashed = others.split_at(b"-")
        is_range[other[ranged]] = True
        range_end[other[ranged]] = high[ranged]
        decimal, _, _, _ = others.split_at(b".")
        odd = ~ranged & ~(decimal & ~dashed)
    for i in other[odd].tolist():
        token_id = buf.text(ids.start[i], ids.end[i])
        if is_integer(token_id):
            if int(token_id) < MAX_ID:
                is_word[i], word_id[i] = True, np.int64(token_id)
            else:
                tokens.suspect[tokens.row_sent[i]] = True  # an ID ≥ 2^31 (read.parse_sentence)
            continue
        start, dash, last = token_id.partition("-")
        if dash and is_integer(start) and is_integer(last):
            # Word IDs are below MAX_ID: a larger range end covers the same words.
            is_range[i], range_end[i] = True, np.int64(min(int(last), MAX_ID))
            continue
        major, dot, minor = token_id.partition(".")
        if not (dot and is_integer(major) and is_integer(minor)):
            tokens.suspect[tokens.row_sent[i]] = True
    return _Ids(word_id, is_word, is_range, range_end)


def _check_trees(
    buf: _Bytes, tokens: _TokenRows, ids: _Ids, n_sent: int
) -> tuple[np.ndarray, np.ndarray]:
    """Words' HEADs and the tree (read.tree_fault), checked for all sentences at once: each
    word's head word (-1: the root, or not found) and sentence; faulty sentences suspect."""
    suspect = tokens.suspect
    words = np.flatnonzero(ids.is_word)
    w_sent = tokens.row_sent[words]
    w_id = ids.word_id[words]
    head_field = tokens.rows.field(6)
    head, head_ok = head_field.uint()
    for row in np.flatnonzero(~head_ok & (head_field.length > _MAX_DIGITS) & ids.is_word).tolist():
        text = buf.text(head_field.start[row], head_field.end[row])
        if is_integer(text) and int(text) < MAX_ID:  # larger: no word's ID, so malformed
            head[row], head_ok[row] = np.int64(text), True
    w_head, head_ok = _pick(head, words), _pick(head_ok, words)
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


def _name_faults(
    job: FileJob,
    buf: _Bytes,
    lines: _Lines,
    spans: _Spans,
    tokens: _TokenRows,
    file_stem: str,
    result: FileResult,
) -> None:
    """Python names the fault of every suspect sentence, as read.parse does (--strict: stop)."""
    for s in np.flatnonzero(tokens.suspect).tolist():
        first = int(spans.first[s]) + 1
        if tokens.invalid[s]:
            parsed: Sentence | Malformed = Malformed(first, _INVALID_UTF8)
        else:
            text = buf.text(lines.start[spans.first[s]], lines.end[spans.last[s]])
            parsed = parse_sentence(text.split("\n"), first, f"{file_stem}:{s + 1}")
        if not isinstance(parsed, Malformed):
            raise AssertionError(f"{job.path}:{first}: found suspect, but read.py reads it")
        if job.strict:
            raise strict_error(job, parsed)
        result.malformed.append((parsed.line, parsed.reason))


def _sent_ids(
    buf: _Bytes,
    comment: np.ndarray,
    line_start: np.ndarray,
    line_end: np.ndarray,
    s_first: np.ndarray,
    token_lines: np.ndarray,
    file_stem: str,
) -> pa.Array:
    """Each sentence's `# sent_id` (a comment before its first token line), else `<stem>:<n>`."""
    comments = np.flatnonzero(comment)
    marked = comments[buf.field(line_start[comments], line_end[comments]).startswith(_SENT_ID)]
    sentence = np.searchsorted(s_first, marked, "right") - 1
    first_token = token_lines[np.searchsorted(token_lines, s_first)]
    leading = (sentence >= 0) & (marked < first_token[np.maximum(sentence, 0)])
    marked, sentence = marked[leading], sentence[leading]
    # `# sent_id = X` with X free of edge whitespace is X; other lines go through Python's
    # strip() exactly as read.parse_sentence does.
    start, end = line_start[marked], line_end[marked]
    simple = buf.field(start, end).startswith(_SENT_ID + b" = ") & (end > start + 12)
    top = len(buf.data) - 1
    simple &= ~_MAYBE_SPACE[buf.u8[np.minimum(start + 12, top)]] & ~_MAYBE_SPACE[buf.u8[end - 1]]
    values = [buf.strings(start[simple] + 12, end[simple])]
    source = np.full(len(marked), -1)
    source[simple] = np.arange(simple.sum())
    odd: list[str] = []
    for i in np.flatnonzero(~simple).tolist():
        text = buf.text(start[i], end[i])[9:].strip().removeprefix("=").strip()
        if text:
            source[i] = len(values[0]) + len(odd)
            odd.append(text)
    values.append(pa.array(odd, pa.string()))
    # The last non-empty value of a sentence wins; other sentences get <stem>:<n>.
    has = source >= 0
    last = np.full(len(s_first), -1)
    named, final = np.unique(sentence[has][::-1], return_index=True)  # last line, first seen
    last[named] = source[has][::-1][final]
    missing = np.flatnonzero(last < 0)
    last[missing] = len(values[0]) + len(odd) + np.arange(len(missing))
    values.append(pa.array([f"{file_stem}:{n + 1}" for n in missing.tolist()], pa.string()))
    return pa.concat_arrays(values).take(pa.array(last))


@dataclass
class _Table:
    """Token rows (10 fields) of the well-formed sentences, and per-word head and sentence data."""

    rows: _Rows
    row_sent: np.ndarray  # each row's sentence, 0-based among well-formed sentences
    is_word: np.ndarray
    is_range: np.ndarray
    range_end: np.ndarray
    word_id: np.ndarray
    heads: np.ndarray  # per word: index of its head word, -1 for the root
    sent_id: pa.Array  # per sentence
    line: np.ndarray  # per sentence: its first line

    @cached_property
    def word_rows(self) -> np.ndarray:
        """The rows that are syntactic words (integer IDs), in order."""
        return np.flatnonzero(self.is_word)


def _texts(
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


def _finish(job: FileJob, result: FileResult, table: _Table | None) -> None:
    """Build the tables and counts from the well-formed sentences' rows."""
    if table is None or len(table.line) == 0:
        result.relations = RELATIONS_MINED.empty_table()
        result.dropped = DROPS.empty_table()
        result.sentences = SENTENCES.empty_table()
        return
    surface = _surface_words(table)
    result.sentences = _sentences_table(job, table, surface)
    ranges = np.flatnonzero(table.is_range)
    if len(ranges):
        written = pc.unique(pc.utf8_lower(table.rows.strings(1, ranges)))
        result.tokens = frozenset(written.to_pylist())
    result.duplicate_sent_ids = len(table.line) - pc.count_distinct(table.sent_id).as_py()
    words, features = _words(job, table)
    result.words = len(words.id)
    _count_lexicon(result, table.rows, table.word_rows, words.upos, words.feats, features)
    result.finite_cells.update(_finite_cells(words, features))
    found = rules.relations(words, features, Facts(job.valid_types, job.participle_agreement))
    result.drops.update(found.drops)
    result.agree.update(found.agree)
    result.disagree.update(found.disagree)
    result.rated.update(found.rated)
    result.rated_agree.update(found.rated_agree)
    result.relations = _relations_table(job, table, surface, words, features, found)
    _lent_counts(result, table, words, features, found, job.pro_drop)
    result.dropped = _drops_table(job, table, words, found)


def _drops_table(job: FileJob, table: _Table, words: Words, found: rules.Relations) -> pa.Table:
    """The dropped candidates (DROPS), a row each, in (sentence, target, controller) order."""
    t, c, kind, reason = found.dropped
    columns = [
        _repeat(job.lang, len(t)),
        _repeat(job.treebank, len(t)),
        table.sent_id.take(pa.array(words.sentence[t])),
        pa.array(TYPES, pa.string()).take(pa.array(kind)),
        pa.array(words.id[t]),
        pa.array(words.id[c]),
        pa.array(rules.REASONS[1:], pa.string()).take(pa.array(reason - 1)),
    ]
    return pa.Table.from_arrays(
        [column.cast(f.type) for column, f in zip(columns, DROPS, strict=True)], schema=DROPS
    )


@dataclass
class _Surface:
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


def _surface_words(table: _Table) -> _Surface:
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
    space_after, spaces_after = _spacing(buf, misc_start, misc_end)
    form_start, form_end = rows.span(1, surface_rows)
    return _Surface(
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


def _spacing(buf: _Bytes, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, pa.Array]:
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


def _sentences_table(job: FileJob, table: _Table, surface: _Surface) -> pa.Table:
    """The `sentences` table (§3): one row per well-formed sentence."""
    n_sent = len(table.line)
    offsets = pa.array(surface.first.astype(np.int32))
    columns = {
        "lang": _repeat(job.lang, n_sent),
        "treebank": _repeat(job.treebank, n_sent),
        "sent_id": table.sent_id,
        "text": _texts(surface.forms, surface.form_length, surface.space_after, surface.first),
        "words": pa.ListArray.from_arrays(offsets, surface.forms),
        "space_after": pa.ListArray.from_arrays(offsets, pa.array(surface.space_after)),
        "spaces_after": pa.ListArray.from_arrays(offsets, surface.spaces_after),
        "file": _repeat(job.label, n_sent),
        "line": pa.array(table.line),
    }
    if surface.spaces_after.null_count < len(surface.spaces_after):
        columns["text"] = _texts_with_spaces(columns, surface)
    return pa.Table.from_arrays([columns[f.name].cast(f.type) for f in SENTENCES], schema=SENTENCES)


def _texts_with_spaces(columns: dict[str, pa.Array], surface: _Surface) -> pa.Array:
    """The texts, rebuilt again where a sentence has `SpacesAfter=` whitespace (rare: Python)."""
    given = ~surface.spaces_after.is_null().to_numpy(zero_copy_only=False)
    row_sentence = np.repeat(np.arange(len(surface.first) - 1), np.diff(surface.first))
    texts = columns["text"].to_pylist()
    words, space, spaces = (columns[n] for n in ("words", "space_after", "spaces_after"))
    for i in np.unique(row_sentence[given]).tolist():
        texts[i] = surface_text(words[i].as_py(), space[i].as_py(), spaces_after=spaces[i].as_py())[
            0
        ]
    return pa.array(texts, pa.large_string())


def _words(job: FileJob, table: _Table) -> tuple[Words, Features]:
    """The columns the rules read, per syntactic word, and the file's distinct FEATS (value sets
    of the language applied where values are compared)."""
    rows, words = table.rows, table.word_rows
    # Columns are read for every row (multiword-token and empty-node rows included, a few
    # percent more) and the words' values picked after: no copy of the rows' field offsets.
    upos_field = rows.field(3)
    upos = np.zeros(len(table.row_sent), np.int8)
    for code, tag in enumerate(UPOS[1:], 1):
        upos[upos_field.equals(tag.encode())] = code
    deprel_field = rows.field(7)
    deprel = np.zeros(len(table.row_sent), np.uint8)
    for bit, base in enumerate(rules.BASE_DEPRELS):
        deprel[deprel_field.base_is(base)] |= np.uint8(1 << bit)
    for bit, full in enumerate(rules.FULL_DEPRELS, len(rules.BASE_DEPRELS)):
        deprel[deprel_field.equals(full)] |= np.uint8(1 << bit)
    encoded = pc.dictionary_encode(rows.strings(5))
    feats = encoded.indices.to_numpy().astype(np.int64)
    features = Features.build(encoded.dictionary.to_pylist(), job.value_sets)
    return (
        Words(
            sentence=table.row_sent[words],
            id=table.word_id[words],
            head=table.heads,
            upos=_pick(upos, words),
            deprel=_pick(deprel, words),
            feats=_pick(feats, words),
        ),
        features,
    )


def _relations_table(
    job: FileJob,
    table: _Table,
    surface: _Surface,
    words: Words,
    features: Features,
    found: rules.Relations,
) -> pa.Table:
    """The `relations` table (§3) with the in-memory FEATS columns (RELATIONS_MINED), rows in
    (sentence, target, controller) order."""
    t, c = found.target, found.controller
    k = len(t)
    both = np.concatenate([t, c])
    both_rows = table.word_rows[both]
    distinct, where = np.unique(both, return_inverse=True)  # strings are built in file order
    where = pa.array(where.ravel())
    form, lemma = (table.rows.strings(f, table.word_rows[distinct]).take(where) for f in (1, 2))
    # Targets are DET, ADJ, VERB or AUX and controllers NOUN or PRON: their UPOS is a class.
    upos_name = pa.array(UPOS, pa.string()).take(pa.array(words.upos[both]))
    surface_index = surface.of_row[both_rows]
    in_mwt = surface.in_mwt_row[both_rows]
    mwt_offset = _mwt_offsets(table, surface, both_rows[in_mwt])
    offsets = np.full(2 * k, -1, np.int64)
    offsets[in_mwt] = mwt_offset
    columns = {
        "lang": _repeat(job.lang, k),
        "treebank": _repeat(job.treebank, k),
        "sent_id": table.sent_id.take(pa.array(words.sentence[t])),
        "type": pa.array(TYPES, pa.string()).take(pa.array(found.kind)),
        "target_id": pa.array(words.id[t]),
        "controller_id": pa.array(words.id[c]),
        "target_surface": pa.array(surface_index[:k]),
        "controller_surface": pa.array(surface_index[k:]),
        "target_form": form[:k],
        "controller_form": form[k:],
        "target_lemma": lemma[:k],
        "controller_lemma": lemma[k:],
        "target_upos": upos_name[:k],
        "controller_upos": upos_name[k:],
        "agreeing": pa.array(_AGREEING, _STR_LIST).take(pa.array(found.agreeing)),
        "distance": pa.array(found.distance),
        "order": pa.array(_ORDER).take(pa.array(found.target_first.astype(np.int64))),
        "intervening_nouns": pa.array(found.intervening_nouns),
        "distractors": pa.array(found.distractors),
        "attractors": pa.array(found.attractors),
        "in_mwt_target": pa.array(in_mwt[:k]),
        "in_mwt_controller": pa.array(in_mwt[k:]),
        "coordinated": pa.array(found.coordinated),
        "target_mwt_offset": pa.array(offsets[:k], mask=offsets[:k] < 0),
        "controller_mwt_offset": pa.array(offsets[k:], mask=offsets[k:] < 0),
    }
    feats_strings = pa.array(features.strings, pa.string())
    for role, who in (("target", t), ("controller", c)):
        codes = pa.array(words.feats[who])
        for f, name in enumerate(FEATURES):
            columns[f"{role}_{name.lower()}"] = features.lists[f].take(codes)
        columns[f"{role}_feats"] = feats_strings.take(codes)
    columns["listed"] = pa.array(found.listed)
    # §4.3 hosts are read for attributive targets only (`rules.hosts.HOST_TYPES`).
    attributive = np.flatnonzero(found.kind == rules.ATTRIBUTIVE)
    relation, noun = rules.nouns_between(words, t[attributive], c[attributive])
    relation = attributive[relation]
    starts = np.searchsorted(relation, np.arange(k + 1), "left").astype(np.int32)
    columns["between_feats"] = pa.ListArray.from_arrays(
        pa.array(starts), feats_strings.take(pa.array(words.feats[noun]))
    )
    columns.update(_subject_facts(table, words, features, c))
    return pa.Table.from_arrays(
        [columns[f.name].cast(f.type) for f in RELATIONS_MINED], schema=RELATIONS_MINED
    )


_NOMINAL_WRITTEN = (b"NOUN", b"PROPN", b"PRON", b"NUM")
# Number and Person of features.compared: what a finite verb agrees in (Gender left out: *het
# volk, dat … behoefte had* is not ambiguous for its verb).
_AGREEING_FIELDS = (0, 3)


def _nominal(table: _Table, words: Words, at: np.ndarray) -> np.ndarray:
    """Whether the words `at` are nominals as written (NOUN, PROPN, PRON, NUM)."""
    field = table.rows.field(3, table.word_rows[at])
    return np.logical_or.reduce([field.equals(tag) for tag in _NOMINAL_WRITTEN])


def _nmod_of_another(
    table: _Table, words: Words, features: Features, antecedent: np.ndarray
) -> np.ndarray:
    """§4.2: whether an antecedent is the `nmod` of a nominal head with other values (*one of
    those people who has*): the relative clause may be about the head, so the antecedent lends
    nothing (as a coordinated one)."""
    if len(antecedent) == 0:
        return np.zeros(0, bool)
    nmod = table.rows.field(7, table.word_rows[antecedent]).base_is(b"nmod")
    head = words.head[antecedent]
    at = np.maximum(head, 0)
    other = np.zeros(len(antecedent), bool)
    for f in _AGREEING_FIELDS:
        mine_, theirs = (
            features.compared[f][words.feats[antecedent]],
            features.compared[f][words.feats[at]],
        )
        other |= mine_ != theirs
    return nmod & (head >= 0) & _nominal(table, words, at) & other


def _object_reading(
    table: _Table, words: Words, features: Features, pronoun: np.ndarray, antecedent: np.ndarray
) -> np.ndarray:
    """§4.2: whether a relative pronoun without Case shares its clause with another nominal core
    dependent (`obj`, or another subject) between it and the verb, of another Number or Person
    than its antecedent: the clause then reads as an object relative about that nominal (Dutch
    *…, die de gezondheid van een kind kunnen → kan bedreigen*), so the antecedent lends
    nothing."""
    found = np.zeros(len(pronoun), bool)
    if len(pronoun) == 0:
        return found
    caseless = features.compared[2][words.feats[pronoun]] == 0
    deprels = table.rows.field(7, table.word_rows)
    # An object pronoun (a clitic: French *ce qui m'a intriguée*) could not be the subject.
    everyone = np.arange(len(words.head))
    obj = deprels.base_is(b"obj") & (words.upos != rules.PRON)
    core = (obj | deprels.base_is(b"nsubj")) & (words.head >= 0) & _nominal(table, words, everyone)
    k = np.flatnonzero(core)
    # Per pronoun, the clause's other core nominals (few per clause: a sorted search).
    order = np.argsort(words.head[k], kind="stable")
    k, heads = k[order], words.head[k][order]
    clause = words.head[pronoun]
    lo, hi = np.searchsorted(heads, clause, "left"), np.searchsorted(heads, clause, "right")
    for i in np.flatnonzero(caseless & (clause >= 0) & (hi > lo)):
        for other in k[lo[i] : hi[i]]:
            # Only a nominal between the pronoun and its verb can be the subject of an object
            # relative (*who the man saw*); one after the verb is its object.
            if not pronoun[i] < other < clause[i]:
                continue
            for f in _AGREEING_FIELDS:
                a = features.compared[f][words.feats[antecedent[i]]]
                b = features.compared[f][words.feats[other]]
                if a and b and not (a & b):
                    found[i] = True
    return found


def _subject_facts(
    table: _Table, words: Words, features: Features, c: np.ndarray
) -> dict[str, pa.Array]:
    """What §4.2 reads about each controller beyond its own FEATS: the antecedent of a relative
    pronoun subject of an `acl:relcl` clause, the one Number of its det/amod dependents that do
    not disagree with it, and whether it or a det dependent is `Definite=Def`."""
    strings = pa.array(features.strings, pa.string())
    relative = _has_value(strings, "PronType", "Rel")
    definite = _has_value(strings, "Definite", "Def")
    clause = words.head[c]
    relcl = np.zeros(len(c), bool)
    has_clause = clause >= 0
    if has_clause.any():
        rows = table.word_rows[clause[has_clause]]
        relcl[has_clause] = table.rows.field(7, rows).equals(b"acl:relcl")
    head_noun = words.head[np.maximum(clause, 0)]
    # An antecedent with a conjunct before the pronoun may stand for the coordination as a
    # whole (*een aantal ruiters en publiek die stonden*): the clause's verb may agree with
    # either, so it lends nothing (as §4 skips a coordinated controller). A conjunct after the
    # clause (*the Pyramid of the Sun (which is …) and the Pyramid of the Moon*) leaves it the
    # first conjunct's.
    conj = np.flatnonzero(words.has(rules.CONJ) & (words.head >= 0))
    first_conj = np.full(len(words.head), np.iinfo(np.int64).max, np.int64)
    np.minimum.at(first_conj, words.head[conj], conj)
    single = first_conj[np.maximum(head_noun, 0)] > c
    candidate = relcl & relative[words.feats[c]] & single
    lends = ~_nmod_of_another(table, words, features, np.maximum(head_noun, 0))
    lends[candidate] &= ~_object_reading(
        table, words, features, c[candidate], np.maximum(head_noun, 0)[candidate]
    )
    antecedent = np.where(candidate & lends, head_noun, -1)
    none = antecedent < 0
    codes = pa.array(words.feats[np.maximum(antecedent, 0)], mask=none)
    # The antecedent's UPOS as written (PROPN too: the rules' classes leave it out).
    found = np.flatnonzero(~none)
    upos_written = table.rows.strings(3, table.word_rows[antecedent[found]])
    at = np.full(len(c), -1, np.int64)
    at[found] = np.arange(len(found))
    upos = upos_written.cast(pa.string()).take(pa.array(np.maximum(at, 0), mask=none))
    # A det/amod dependent's Number counts where it has one value and no Gender or Case of its
    # own disagrees with its head's; a head with two such Numbers takes none.
    numbers = features.lists[0].to_pylist()
    single = np.array([len(v) == 1 for v in numbers], bool)
    names = sorted({v[0] for v in numbers if len(v) == 1})
    code_of = np.array([names.index(v[0]) if len(v) == 1 else -1 for v in numbers], np.int64)
    dependent = words.has(rules.DET_REL | rules.AMOD) & (words.head >= 0)
    dependent &= np.isin(words.upos, [rules.DET, rules.ADJ]) & single[words.feats]
    d = np.flatnonzero(dependent)
    head = words.head[d]
    for f in (1, 2):  # Gender, Case
        md, mh = features.compared[f][words.feats[d]], features.compared[f][words.feats[head]]
        disagree = (md != 0) & (mh != 0) & ((md & mh) == 0)
        d, head = d[~disagree.astype(bool)], head[~disagree.astype(bool)]
    low = np.full(len(words.head), len(names), np.int64)
    high = np.full(len(words.head), -1, np.int64)
    np.minimum.at(low, head, code_of[words.feats[d]])
    np.maximum.at(high, head, code_of[words.feats[d]])
    one = low[c] == high[c]
    # A list of one Number where `one`, else empty (built from offsets, not per row).
    offsets = pa.array(np.concatenate([[0], np.cumsum(one)]).astype(np.int32))
    numbers_taken = pa.array(names, pa.string()).take(pa.array(low[c][one]))
    det_number = pa.ListArray.from_arrays(offsets, numbers_taken)
    # A determiner that makes the noun phrase definite or quantified (an article with
    # Definite=Def, a possessive, a demonstrative, a quantifier), or a numeral: the plural is
    # not bare (unagreement may be licit, §4.2).
    determining = definite | _determines(strings)
    definite_det = np.zeros(len(words.head), bool)
    det = words.has(rules.DET_REL) & (words.head >= 0) & determining[words.feats]
    definite_det[words.head[det]] = True
    numeral = table.rows.field(7, table.word_rows).base_is(b"nummod") & (words.head >= 0)
    definite_det[words.head[numeral]] = True
    # A nominative noun subject of a copular clause whose predicate is a noun in an oblique
    # case (not Nom, nor the predicative Ins): the subject is the clause's only nominative, and
    # where the language drops subjects it reads as the predicate of a dropped first or second
    # person (Czech *že by toho roku byl výjimečný přestupný rok*, §4.2).
    with_cop = np.zeros(len(words.head), bool)
    cop = words.has(rules.COP) & (words.head >= 0)
    with_cop[words.head[cop]] = True
    at_clause = np.maximum(clause, 0)
    oblique = _has_value(strings, "Case", "[^|,]+") & ~_has_value(strings, "Case", "Nom|Ins")
    nominal_predicate = (
        has_clause
        & (words.upos[c] == rules.NOUN)
        & _has_value(strings, "Case", "Nom")[words.feats[c]]
        & (words.upos[at_clause] == rules.NOUN)
        & with_cop[at_clause]
        & oblique[words.feats[at_clause]]
    )
    return {
        "antecedent_upos": upos,
        "antecedent_number": features.lists[0].take(codes),
        "antecedent_gender": features.lists[1].take(codes),
        "antecedent_person": features.lists[3].take(codes),
        "controller_det_number": det_number,
        "controller_determined": pa.array(definite[words.feats[c]] | definite_det[c]),
        "controller_nominal_predicate": pa.array(nominal_predicate),
    }


def _lent_counts(
    result: FileResult,
    table: _Table,
    words: Words,
    features: Features,
    found: rules.Relations,
    pro_drop: bool,
) -> None:
    """§4.2 measured as §4.1 measures agreement (`mine.lent`): per (relative pronoun lemma,
    feature), the subject relations whose pronoun could lend its antecedent's values (an
    antecedent found by `_subject_facts`; its Case Nom alone, or none where subjects are not
    dropped: `rules.subjects.subject_shown`), lacks the feature, whose antecedent has one value and
    whose target has the feature; and those where the target's values meet the antecedent's."""
    antecedent = result.relations.column("antecedent_upos")
    if antecedent.null_count == len(antecedent):
        return
    rows = np.flatnonzero(pc.is_valid(antecedent).to_numpy(zero_copy_only=False))
    kind = found.kind[rows]
    subject = (kind == rules.SUBJECT_VERB) | (kind == rules.PREDICATIVE)
    rows = rows[subject & (words.upos[found.controller[rows]] == rules.PRON)]
    if len(rows) == 0:
        return
    c, t = found.controller[rows], found.target[rows]
    a = words.head[words.head[c]]  # the antecedent (`_subject_facts`)
    case = features.case_key[words.feats[c]]
    shown = subject_shown(case == "Nom", case == NO_VALUE, pro_drop)
    lemmas = result.relations.column("controller_lemma").take(rows).to_numpy()
    for f, feature in ((0, "Number"), (1, "Gender"), (3, "Person")):
        length = pc.list_value_length(features.lists[f]).to_numpy(zero_copy_only=False)
        counted = (
            shown
            & (length[words.feats[c]] == 0)
            & (length[words.feats[a]] == 1)
            & (length[words.feats[t]] > 0)
        )
        if not counted.any():
            continue
        masks = features.compared[f]
        meets = (masks[words.feats[a]] & masks[words.feats[t]]) != 0
        names, lemma = np.unique(lemmas[counted].astype(str), return_inverse=True)
        n, agree = np.bincount(lemma), np.bincount(lemma, weights=meets[counted])
        for code, name in enumerate(names.tolist()):
            result.lent[name, feature] += int(n[code])
            result.lent_agree[name, feature] += int(agree[code])


def _finite_cells(words: Words, features: Features) -> Counter:
    """§4.2: finite VERB/AUX tokens per (Tense, Mood, ""), and those carrying each of Number,
    Gender, Person per (Tense, Mood, feature); Tense and Mood as written (`_` for none)."""
    verbs = np.isin(words.upos, [rules.VERB, rules.AUX])
    tokens = np.bincount(words.feats[verbs], minlength=len(features.strings))
    cells: Counter = Counter()
    for code in np.flatnonzero((tokens > 0) & features.finite).tolist():
        items = dict(item.partition("=")[::2] for item in features.strings[code].split("|"))
        tense, mood = items.get("Tense", NO_VALUE), items.get("Mood", NO_VALUE)
        n = int(tokens[code])
        cells[(tense, mood, "")] += n
        for f in (0, 1, 3):  # Number, Gender, Person
            if features.compared[f][code]:
                cells[(tense, mood, FEATURES[f])] += n
    return cells


def _determines(feats: pa.Array) -> np.ndarray:
    """Per FEATS string: a possessive, demonstrative or quantifying determiner's (§4.2
    unagreement)."""
    return _has_value(feats, "Poss", "Yes") | _has_value(feats, "PronType", "Dem|Ind|Tot")


def _has_value(feats: pa.Array, name: str, values: str) -> np.ndarray:
    """Per FEATS string, whether it gives feature `name` one of `values` (`|`-separated), among
    others (a value set is `,`-joined)."""
    pattern = f"(?:^|\\|){name}=(?:[^|]*,)?(?:{values})(?:,[^|]*)?(?:\\||$)"
    found = pc.match_substring_regex(feats, pattern)
    return np.asarray(found.fill_null(False).to_numpy(zero_copy_only=False), bool)


def _mwt_offsets(table: _Table, surface: _Surface, members: np.ndarray) -> np.ndarray:
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


def _count_lexicon(
    result: FileResult,
    rows: _Rows,
    words: np.ndarray,
    upos: np.ndarray,
    feats_code: np.ndarray,
    feats: Features,
) -> None:
    """Lexicon counts per (form, lemma, upos, FEATS) (COUNTS), keeping only the words that
    ud_entries keeps (so ud_entries gives the same entries from fewer rows)."""
    chosen = np.flatnonzero(_LEXICON_CLASS[upos] & feats.has_value[feats_code])
    start, end = rows.span(1, words[chosen])
    named = (end - start != 1) | (rows.buf.u8[start] != ord("_"))  # form `_` is no form
    chosen, start = chosen[named], start[named]
    if len(chosen) == 0:
        return
    # §4.1: a token whose MISC corrects it (`CorrectForm=`, a key read whole) is no candidate.
    misc = rows.strings(9, words[chosen])
    keys = pa.table(
        {
            "form": rows.strings(1, words[chosen]),
            "lemma": rows.strings(2, words[chosen]),
            "upos": pa.array(upos[chosen]),
            "feats": pa.array(feats_code[chosen]),
            "corrected": pc.match_substring_regex(misc, _CORRECTED),
        }
    )
    # polars, not `pa.Table.group_by`: that imports pyarrow.acero and pyarrow.dataset (~0.27 s
    # of CPU in each worker) for one aggregation.
    counted = pl.DataFrame(keys).group_by(keys.column_names, maintain_order=True).len().to_arrow()
    result.lexicon_counts = pa.Table.from_arrays(
        [
            counted["form"].cast(pa.string()),
            counted["lemma"].cast(pa.string()),
            pa.array(_UPOS_NAMES[counted["upos"].to_numpy()], pa.string()),
            pa.array(feats.strings, pa.string()).take(counted["feats"]),
            counted["corrected"],
            counted["len"].cast(pa.int64()),
        ],
        schema=COUNTS,
    )


_CORRECTED = r"(^|\|)CorrectForm="


def _repeat(value: str, n: int) -> pa.Array:
    """A string column holding value n times."""
    return pa.array([value], pa.string()).take(pa.array(np.zeros(n, np.int64)))
