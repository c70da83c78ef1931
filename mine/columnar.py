"""The miner's reader: one CoNLL-U file's bytes → arrays (`Table`, `Words`, `Features`), column-wise.

The bytes are scanned once with numpy for newlines and TABs; a field is then a byte range,
integers (ID, HEAD) are parsed eight bytes at a time, UPOS and DEPREL are compared as 8-byte
words, and Arrow copies out only the string columns the tables need (FEATS strings are
dictionary-encoded, so Python meets each distinct FEATS once). Reading and validation (§1.0)
are done here for all sentences at once; Python runs only for the rare odd line, and for
suspect sentences, which `mine.read.parse_sentence` re-reads to name their fault. Bytes that
are not UTF-8 are replaced (`mine.utf8`). The arrays then go to `mine.file_tables` (surface
words `mine.surface_words`, rules `mine.rules`). `tests/mine/test_columnar.py` checks the
result against the readable reference in `tests/reference/`.
"""

from __future__ import annotations

import hashlib
import lzma
import threading
import zlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrays import MAX_DIGITS, everything, pick
from .extract import FileJob, FileResult, strict_error
from .file_tables import build_tables, no_tables
from .lexicon import COUNTS
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
from .rules import words as vocab
from .rules.words import UPOS, Features, Words
from .trees import check_trees
from .utf8 import replace_invalid_utf8

__all__ = ["FileJob", "FileResult", "mine_file_columnar"]

_BOM = b"\xef\xbb\xbf"
_TAB, _NL, _HASH = 9, 10, 35
# First bytes after which a line may be whitespace only (Python's str.isspace): ASCII
# whitespace, the separators \x1c-\x1f, and any non-ASCII lead byte (U+0085, U+00A0, ...).
_MAYBE_SPACE = np.zeros(256, bool)
_MAYBE_SPACE[[9, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_MAYBE_SPACE[0x80:] = True
_SENT_ID = b"# sent_id"

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
    data, invalid_at = replace_invalid_utf8(data)
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


_U64 = np.uint64


class Bytes:
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

    def __init__(self, buf: Bytes, start: np.ndarray, end: np.ndarray) -> None:
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


def _digits(words: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first `length` (1-8) bytes of each word as a decimal number, and which are digits."""
    ok = (length >= 1) & (length <= MAX_DIGITS)
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
class Rows:
    """Token rows with 10 fields: field k spans span(k) in the file."""

    buf: Bytes
    line_start: np.ndarray
    line_end: np.ndarray
    tab_at: np.ndarray  # (9, rows): each row's TAB offsets, by TAB (a field's are contiguous)

    def span(self, k: int, which: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """First byte of field k and the byte after it, for the rows (or rows[which], which
        an increasing index)."""
        every = slice(None) if which is None or everything(which, len(self.line_start)) else which
        start = self.line_start[every] if k == 0 else self.tab_at[k - 1, every] + 1
        end = self.line_end[every] if k == 9 else self.tab_at[k, every]
        return start, end

    def field(self, k: int, which: np.ndarray | None = None) -> _Field:
        """Field k of the rows (or of rows[which])."""
        return self.buf.field(*self.span(k, which))

    def strings(self, k: int, which: np.ndarray | None = None) -> pa.Array:
        """Field k as strings."""
        return self.buf.strings(*self.span(k, which))

    def subset(self, keep: np.ndarray) -> Rows:
        """The rows selected by a mask or (sorted) index."""
        if keep.dtype == bool and keep.all():
            return self  # no copy
        return Rows(self.buf, self.line_start[keep], self.line_end[keep], self.tab_at[:, keep])


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
class TokenRows:
    """The token lines of ten fields, each row's sentence, and the sentences found malformed so
    far (`invalid`: bytes that are not UTF-8; `suspect`: any fault Python will name)."""

    rows: Rows
    lines: np.ndarray  # every token line, ten fields or not
    row_sent: np.ndarray
    suspect: np.ndarray
    invalid: np.ndarray


@dataclass
class Ids:
    """Per token row: its ID as a word (integer), a multiword range, or neither (empty node)."""

    word_id: np.ndarray
    is_word: np.ndarray
    is_range: np.ndarray
    range_end: np.ndarray


def _mine(job: FileJob, data: bytes, invalid_at: np.ndarray, result: FileResult) -> None:
    """Fill result from the file's bytes (BOM and CRs removed, invalid UTF-8 replaced; its
    sequences start at invalid_at)."""
    buf = Bytes(data)
    lines = _scan_lines(buf)
    spans = _sentence_spans(buf, lines)
    if spans is None:
        no_tables(result)
        return
    tokens = _token_rows(buf, lines, spans, invalid_at)
    ids = _read_ids(buf, tokens)
    head_word, w_sent = check_trees(buf, tokens, ids, len(spans.first))
    file_stem = stem(job.path)
    _name_faults(job, buf, lines, spans, tokens, file_stem, result)
    sent_ids = _sent_ids(
        buf, spans.comment, lines.start, lines.end, spans.first, tokens.lines, file_stem
    )
    good = _first_of_each_id(sent_ids, ~tokens.suspect, job.taken, result)
    good_sent = np.flatnonzero(good)
    kept_rows = good[tokens.row_sent]
    kept_words = good[w_sent]
    renumber = np.cumsum(kept_words) - 1
    heads = head_word[kept_words]
    table = Table(
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
    if len(table.line) == 0:
        no_tables(result)
        return
    build_tables(job, result, table, *words_of(job, table))


def _first_of_each_id(
    sent_ids: pa.Array, good: np.ndarray, taken: frozenset[str], result: FileResult
) -> np.ndarray:
    """The well-formed sentences less those whose `sent_id` an earlier one has (in the file, or
    in `taken`: an earlier file's), counted in `result.duplicate_sent_ids`: a repeated key
    would make every join on (treebank, sent_id) ambiguous."""
    ids = sent_ids.filter(pa.array(good))
    if not taken and pc.count_distinct(ids).as_py() == len(ids):
        return good  # the usual case: one hash pass, as the count alone would cost
    at = np.flatnonzero(good)
    index = pc.index_in(ids, value_set=pc.unique(ids)).to_numpy(zero_copy_only=False)
    first = np.zeros(len(ids), bool)
    first[np.unique(index, return_index=True)[1]] = True
    if taken:
        first &= ~pc.is_in(ids, value_set=pa.array(sorted(taken), pa.string())).to_numpy(
            zero_copy_only=False
        )
    result.duplicate_sent_ids = int(len(ids) - first.sum())
    kept = np.zeros(len(good), bool)
    kept[at[first]] = True
    return kept


def _scan_lines(buf: Bytes) -> _Lines:
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


def _sentence_spans(buf: Bytes, lines: _Lines) -> _Spans | None:
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


def _token_rows(buf: Bytes, lines: _Lines, spans: _Spans, invalid_at: np.ndarray) -> TokenRows:
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
    rows = Rows(buf, lines.start[rows_at], lines.end[rows_at], tab_at)
    return TokenRows(rows, token_lines, tok_sent[ten], suspect, invalid)


def _read_ids(buf: Bytes, tokens: TokenRows) -> Ids:
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
    return Ids(word_id, is_word, is_range, range_end)


def _name_faults(
    job: FileJob,
    buf: Bytes,
    lines: _Lines,
    spans: _Spans,
    tokens: TokenRows,
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
    buf: Bytes,
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
class Table:
    """Token rows (10 fields) of the well-formed sentences, and per-word head and sentence data."""

    rows: Rows
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


def words_of(job: FileJob, table: Table) -> tuple[Words, Features]:
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
    deprel = np.zeros(len(table.row_sent), vocab.DEPREL_DTYPE)
    bit_of = vocab.DEPREL_DTYPE.type
    for bit, base in enumerate(vocab.BASE_DEPRELS):
        deprel[deprel_field.base_is(base)] |= bit_of(1 << bit)
    for bit, full in enumerate(vocab.FULL_DEPRELS, len(vocab.BASE_DEPRELS)):
        deprel[deprel_field.equals(full)] |= bit_of(1 << bit)
    lemma_field = rows.field(2)
    have = np.zeros(len(table.row_sent), bool)
    for lemma in job.have_lemmas:
        have |= lemma_field.equals(lemma.encode())
    ergative_marker = np.zeros(len(table.row_sent), bool)
    for lemma in job.ergative_lemmas:
        ergative_marker |= lemma_field.equals(lemma.encode())
    object_have = np.zeros(len(table.row_sent), bool)
    for lemma in job.object_have_lemmas:
        object_have |= lemma_field.equals(lemma.encode())
    encoded = pc.dictionary_encode(rows.strings(5))
    feats = encoded.indices.to_numpy().astype(np.int64)
    features = Features.build(encoded.dictionary.to_pylist(), job.value_sets, job.definite_types)
    return (
        Words(
            sentence=table.row_sent[words],
            id=table.word_id[words],
            head=table.heads,
            upos=pick(upos, words),
            deprel=pick(deprel, words),
            feats=pick(feats, words),
            have=pick(have, words),
            ergative_marker=pick(ergative_marker, words),
            object_have=pick(object_have, words),
        ),
        features,
    )
