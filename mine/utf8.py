"""Bytes that are not UTF-8: found by Arrow's validator (no Python str for a valid file), and
replaced by `?`, one per byte, so that byte offsets and lines stay."""

from __future__ import annotations

import codecs
import threading

import numpy as np
import pyarrow as pa


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


def replace_invalid_utf8(data: bytes) -> tuple[bytes, np.ndarray]:
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
