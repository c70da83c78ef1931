"""Reading a sheet or key as a spreadsheet may have saved it: UTF-8, UTF-16 or cp1252, commas,
semicolons or tabs, blank rows; anything else is one line naming the file, the line and the fix."""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Sequence
from pathlib import Path

from .common import ValidateError

Rows = list[tuple[int, dict[str, str]]]
SEPARATORS = (",", ";", "\t")
_DASHES = re.compile(r"[\s_‐‑‒–—]+")  # what a spreadsheet's autocorrect makes of `-`
# An item id a spreadsheet turned into a number: `1.23457E+11`, `123456789012`.
_NUMBER = re.compile(r"-?\d+([.,]\d+)?([eE][+-]?\d+)?")


def read_table(path: Path, required: Sequence[str]) -> tuple[list[str], Rows]:
    """A CSV's header and its rows (with the line each ends on); a missing or repeated column,
    a row of another length or an unreadable file is an error naming the file and line."""
    text = decoded(path)
    separator = max(SEPARATORS, key=text.partition("\n")[0].count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator)
    try:
        header = [name.strip() for name in next(reader, [])]
        _check_header(path, header, required, separator)
        rows = []
        for fields in reader:
            if not any(field.strip() for field in fields):
                continue  # a blank row, as spreadsheets leave at the end
            if len(fields) != len(header):
                raise ValidateError(
                    f"{path}:{reader.line_num}: {len(fields)} fields, the header {len(header)}"
                )
            values = (field.strip() for field in fields)
            rows.append((reader.line_num, dict(zip(header, values, strict=True))))
    except csv.Error as error:
        raise ValidateError(f"{path}:{reader.line_num}: not CSV ({error})") from None
    return header, rows


def _check_header(path: Path, header: list[str], required: Sequence[str], sep: str) -> None:
    twice = sorted({name for name in header if name and header.count(name) > 1})
    if twice:
        raise ValidateError(f"{path}:1: column {', '.join(twice)} twice; keep one")
    missing = [c for c in required if c not in header]
    if missing:
        named = f"{sep!r}-separated" if sep != "," else "comma-separated"
        raise ValidateError(
            f"{path}:1: no column {', '.join(missing)} (read as {named} CSV with the header "
            f"{', '.join(header[:4]) or 'empty'}{', …' if len(header) > 4 else ''})"
        )


def decoded(path: Path) -> str:
    """The file's text: UTF-8 (with or without BOM), UTF-16 with its BOM, else cp1252 (what a
    spreadsheet on Western Windows saves CSV in)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValidateError(f"{path}:1: unreadable ({error.strerror})") from None
    if data.startswith(b"PK\x03\x04"):
        raise ValidateError(f"{path}:1: a spreadsheet workbook, not CSV; save it as CSV")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = _decode(data, "utf-16")
    else:
        text = _decode(data, "utf-8-sig") or _decode(data, "cp1252")
    if text is None or "\x00" in text:
        raise ValidateError(f"{path}:1: unreadable (not text in UTF-8); save it as CSV UTF-8")
    return text


def _decode(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def word(value: str) -> str:
    """A verdict or choice as typed: `Valid`, `A`, `grammatical – bad` are `valid`, `a`,
    `grammatical-bad`."""
    return _DASHES.sub("-", value.strip().lower())


def looks_like_number(item: str) -> bool:
    """Whether an item id reads as a spreadsheet's number."""
    return _NUMBER.fullmatch(item) is not None


def kept_because(path: Path) -> str | None:
    """Why a CSV in a sample folder must not be deleted (judged, or not a sheet); None if it
    may."""
    try:
        _, rows = read_table(path, ("item", "verdict"))
    except ValidateError:
        return "not a sheet this command wrote"
    for _, row in rows:
        if any(row.get(column) for column in ("choice", "verdict", "reason")):
            return "a judged sheet"
    return None
