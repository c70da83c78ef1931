"""Reading suite files line by line (DESIGN.md §7): lines as UTF-8 (a bad line reported), JSON
lines, CSV/TSV as pandas writes them, Parquet rows; what every layout's reader shares."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from .problems import Problems, SuiteFormatError


@dataclass
class Record:
    """A pair as read, before it becomes a row: its line, sentences, condition and metadata."""

    line: int
    good: str
    bad: str
    condition: str | None
    meta: dict[str, str | None]
    span: tuple[int, int, int] | None = None  # start, end in the good and in the bad sentence


# A UTF-16 surrogate written as an escape (`\ud800`): JSON allows it, but alone it is no character.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class JsonProblem(ValueError):
    """A JSON text that cannot be a suite's data, and why (its line within the text, if known)."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.line = line


def parse_json(text: str) -> Any:
    """`json.loads`, with every way a hostile text fails (bad syntax, nesting deeper than Python's
    stack, a number of more than 4,300 digits, a lone surrogate) as a JsonProblem saying why."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise JsonProblem(f"not valid JSON ({error.msg})", error.lineno) from None
    except RecursionError:
        raise JsonProblem("not valid JSON (nested too deeply)") from None
    except ValueError as error:  # int(): "Exceeds the limit (4300 digits) …"
        raise JsonProblem(f"not valid JSON ({str(error).split(';')[0]})") from None
    if SURROGATE_ESCAPE.search(text):  # a pair of them is one character, which encodes
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise JsonProblem("not valid JSON (a lone surrogate escape is no character)") from None
    return value


class Undecodable(str):
    """A line that is not UTF-8 (already reported), decoded with replacement characters."""


def read_lines(path: Path, problems: Problems) -> list[str]:
    """The file's lines without line ends; a line that is not UTF-8 is reported (`Undecodable`)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SuiteFormatError(f"cannot read {path}: {error.strerror}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            problems.add(number, "not valid UTF-8")
            lines.append(Undecodable(raw.decode("utf-8", errors="replace")))
    if lines and lines[-1] == "":
        lines.pop()  # the empty string after the final newline is no line
    return lines


def as_text(value: Any) -> str | None:
    """A metadata value as a string column entry: strings as they are, others as JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def first_content_line(path: Path) -> str:
    """The first non-blank line of a file (for detecting its layout), '' if none."""
    try:
        with path.open("rb") as handle:
            for raw in handle:
                text = raw.decode("utf-8", errors="replace").lstrip("\ufeff").strip("\r\n")
                if text.strip():
                    return text
    except OSError as error:
        raise SuiteFormatError(f"cannot read {path}: {error.strerror}") from None
    return ""


def container(path: Path) -> str:
    """How a table is stored: parquet, jsonl, tsv or csv (by extension, else by content)."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return "parquet"
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if suffix in (".tsv", ".tab"):
        return "tsv"
    if suffix == ".csv":
        return "csv"
    head = first_content_line(path)
    if head.lstrip().startswith("{"):
        return "jsonl"
    return "tsv" if "\t" in head else "csv"


def jsonl_rows(lines: list[str], problems: Problems) -> Iterator[tuple[int, dict]]:
    """(line, object) of each JSON-lines record; blank lines skipped, bad ones reported."""
    for number, text in enumerate(lines, start=1):
        if isinstance(text, Undecodable) or not text.strip():
            continue
        try:
            row = parse_json(text)
        except JsonProblem as error:
            problems.add(number, str(error))
            continue
        if not isinstance(row, dict):
            problems.add(number, "not a JSON object")
            continue
        yield number, row


def delimited_rows(
    lines: list[str], delimiter: str, problems: Problems
) -> tuple[list[str], Iterator[tuple[int, dict]]]:
    """Header and (line, row) of a CSV/TSV file; quoted fields as pandas writes them."""
    # An undecodable line (already reported) reads as a blank line, which csv skips.
    blank = (("" if isinstance(t, Undecodable) else t) + "\n" for t in lines)
    # csv refuses a field over its limit (131,072 characters) and cannot go on after it: every
    # row after one long sentence would be lost. A field is never longer than the file.
    whole = sum(len(t) + 1 for t in lines)
    if whole > csv.field_size_limit():
        csv.field_size_limit(whole)
    reader = csv.reader(blank, delimiter=delimiter)
    header: list[str] = []
    try:
        for fields in reader:
            if any(f.strip() for f in fields):
                header = unique_names(fields)
                break
    except csv.Error as error:  # a carriage return or NUL in the header: no columns to read
        problems.add(reader.line_num or 1, f"unreadable header ({error})")
        return [], iter(())
    start = reader.line_num

    def rows() -> Iterator[tuple[int, dict]]:
        before = start
        try:
            for fields in reader:
                line, before = before + 1, reader.line_num
                if not any(f.strip() for f in fields):
                    continue
                if len(fields) != len(header):
                    problems.add(line, f"{len(fields)} fields where the header has {len(header)}")
                    continue
                yield (
                    line,
                    {k: (v if v != "" else None) for k, v in zip(header, fields, strict=True)},
                )
        except csv.Error as error:  # e.g. a NUL byte: csv cannot go on after it
            problems.add(reader.line_num, f"unreadable ({error}); the rest of the file is skipped")

    return header, rows()


def unique_names(header: list[str]) -> list[str]:
    """Header names made unique and non-empty (pandas' unnamed index column becomes `column_1`)."""
    names: list[str] = []
    for i, name in enumerate(header, start=1):
        name = name.strip() or f"column_{i}"
        base, n = name, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.append(name)
    return names


def parquet_rows(path: Path) -> tuple[list[str], Iterator[tuple[int, dict]]]:
    """Columns and (row number, row) of a Parquet table; row numbers stand in for lines."""
    try:
        frame = pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as error:
        raise SuiteFormatError(f"{path}: not a readable Parquet file ({error})") from None
    return frame.columns, enumerate(frame.iter_rows(named=True), start=1)
