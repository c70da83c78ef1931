"""Readers of peers' minimal-pair suites (DESIGN.md §7): one table of pairs per file.

Layouts: BLiMP JSON lines, CLAMS / LM_syneval text, MultiBLiMP TSV, any CSV/TSV/Parquet/JSON-lines
table with `--good`/`--bad` columns (`table`), and SyntaxGym suite JSON (`evaluate.sources.syntaxgym`).
A malformed line is reported as `file:line: reason` and skipped; with `strict` the first one stops
the run (`MalformedInput`, exit 2).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ud_agree.formats import blimp, clams, gevalm, multiblimp
from ud_agree.formats.lines import (
    Record,
    as_text,
    container,
    delimited_rows,
    first_content_line,
    jsonl_rows,
    parquet_rows,
    parse_json,
    read_lines,
)
from ud_agree.formats.problems import Malformed, Problems, SuiteFormatError
from ud_agree.schemas.suites import COLUMNS

from .syntaxgym import read_syntaxgym


@dataclass(frozen=True)
class LineReader:
    """A layout read by its own reader, not by named columns: its reader, and the keys of a JSON
    line that mark a file as its (none: detected otherwise)."""

    read: Callable[[Path, Problems], list[Record]]
    keys: frozenset[str] = frozenset()


# Layouts with a reader of their own in `ud_agree.formats`, one row each: the one place a new one
# is registered (FORMATS, detection, reading and the options they refuse follow).
READERS: dict[str, LineReader] = {
    "clams": LineReader(clams.read),
    "gevalm": LineReader(gevalm.read, gevalm.KEYS),
}
# The character spans of the varied word, when a layout knows it (gevalm): a masked LM scores it.
SPAN_COLUMNS = ("start", "end_good", "end_bad")

# (good, bad, condition) columns that a layout names itself; the first pair found in a table wins.
KNOWN_COLUMNS = {"blimp": blimp.COLUMNS, "multiblimp": multiblimp.COLUMNS}

# The result columns a pair row carries before the suite's own metadata (DESIGN.md §3).
PAIR_COLUMNS = ("suite", "format", "pair_id", "line", "condition", "sentence_good", "sentence_bad")
# Names a metadata column may not take (it gets a `meta_` prefix): the fixed result columns.
RESERVED = frozenset(COLUMNS)


@dataclass
class PairSuite:
    """A suite of sentence pairs: PAIR_COLUMNS then the suite's own metadata columns (strings)."""

    name: str
    path: Path
    format: str
    pairs: pl.DataFrame
    malformed: list[Malformed]
    skipped: dict[str, int] = field(default_factory=dict)  # undecidable pairs, by reason

    @property
    def size(self) -> int:
        """Number of pairs read."""
        return self.pairs.height


def pair_files(path: Path) -> list[Path]:
    """The pair files a path names: itself, or each task's JSON lines of an lm-evaluation-harness
    task folder (a `TASK.jsonl` beside its `TASK.yaml`, as `python -m mine.export --format
    lm-eval` writes them)."""
    if not path.is_dir():
        return [path]
    tasks = sorted(p for p in path.glob("*.jsonl") if p.with_suffix(".yaml").is_file())
    if not tasks:
        raise SuiteFormatError(
            f"{path}: a folder with no lm-eval task in it (a TASK.jsonl beside its TASK.yaml); "
            "name the suite files themselves"
        )
    return tasks


def detect_format(path: Path) -> str:
    """A file's layout from its extension and first line (FORMATS)."""
    if not path.is_file():
        raise SuiteFormatError(f"no such suite file: {path}")
    if path.suffix.lower() == ".parquet":
        return _format_of_columns(list(pl.read_parquet_schema(path)))
    head = first_content_line(path)
    if head.split("\t", 1)[0] in ("True", "False") and "\t" in head:
        return "clams"
    if head.lstrip().startswith(("{", "[")):
        for name, document in DOCUMENT_READERS.items():
            if document.detect(path):
                return name
        try:
            first = parse_json(head)
        except ValueError:
            return "table"
        return _format_of_columns(list(first) if isinstance(first, dict) else [])
    delimiter = "\t" if container(path) == "tsv" else ","
    try:
        return _format_of_columns(next(csv.reader([head], delimiter=delimiter), []))
    except csv.Error:  # binary junk (a compressed file): the reader reports its lines
        return "table"


def _format_of_columns(columns: Iterable[str]) -> str:
    names = set(columns)
    for name, reader in READERS.items():
        if reader.keys and names >= reader.keys:
            return name
    for name, (good, bad, _) in KNOWN_COLUMNS.items():
        if good in names and bad in names:
            return name
    return "table"


def _is_syntaxgym(path: Path) -> bool:
    """A whole-file JSON object with `items` (a SyntaxGym suite), not JSON lines."""
    try:
        data = parse_json(path.read_text(encoding="utf-8-sig"))
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and "items" in data


@dataclass(frozen=True)
class DocumentReader:
    """A suite kind that is no list of pairs, read as one JSON document: whether a file is one
    (tried on a file whose first line opens JSON), and its reader (path, problems, suite name)."""

    detect: Callable[[Path], bool]
    read: Callable[[Path, Problems, str], Any]


# Suites that are not pairs, one row each, each scored by its own task (`tasks/suite_files.TASKS`):
# the one place such a kind is read and detected.
DOCUMENT_READERS: dict[str, DocumentReader] = {
    "syntaxgym": DocumentReader(_is_syntaxgym, read_syntaxgym),
}
FORMATS = tuple(sorted({*READERS, *DOCUMENT_READERS, "blimp", "multiblimp", "table"}))


def sentence_columns(
    columns: list[str], fmt: str, good: str | None, bad: str | None, file: str
) -> tuple[str, str]:
    """The good and bad columns: as given, else the layout's own names."""
    if good and bad:
        chosen = (good, bad)
    else:
        known = [KNOWN_COLUMNS[fmt][:2]] if fmt in KNOWN_COLUMNS else list(KNOWN_COLUMNS.values())
        found = [(g, b) for g, b, *_ in known if g in columns and b in columns]
        if not found:
            raise SuiteFormatError(
                f"{file}: which columns hold the sentences? give --good COLUMN --bad COLUMN "
                f"(columns: {', '.join(columns) or 'none'})"
            )
        chosen = found[0]
    missing = [c for c in chosen if c not in columns]
    if missing:
        raise SuiteFormatError(
            f"{file}: no column {missing[0]!r} (columns: {', '.join(columns) or 'none'})"
        )
    return chosen


def condition_column(columns: list[str], good: str, condition: str | None) -> str | None:
    """The column that names each pair's condition: as given, else the layout's own (UID, phenomenon)."""
    if condition:
        return condition
    for known_good, _, known_condition in KNOWN_COLUMNS.values():
        if good == known_good and known_condition in columns:
            return known_condition
    return None


def records(
    rows: Iterable[tuple[int, dict]],
    good: str,
    bad: str,
    condition: str | None,
    problems: Problems,
) -> list[Record]:
    """Pairs from table rows: both sentences must be non-empty strings."""
    out = []
    for line, row in rows:
        sentences = []
        for column in (good, bad):
            value = row.get(column)
            if not isinstance(value, str) or not value.strip():
                reason = (
                    "missing"
                    if value is None
                    else "empty"
                    if isinstance(value, str)
                    else "not text"
                )
                problems.add(line, f"{column} is {reason}")
                break
            sentences.append(value.strip())
        else:
            meta = {k: as_text(v) for k, v in row.items() if k not in (good, bad)}
            label = as_text(row.get(condition)) if condition else None
            out.append(Record(line, sentences[0], sentences[1], label, meta))
    return out


def read_table(
    path: Path,
    fmt: str,
    good: str | None,
    bad: str | None,
    condition: str | None,
    problems: Problems,
) -> list[Record]:
    """Pairs of a BLiMP, MultiBLiMP or any other table (CSV, TSV, Parquet, JSON lines)."""
    kind = container(path)
    if kind == "parquet":
        columns, rows = parquet_rows(path)
    elif kind == "jsonl":
        listed = list(jsonl_rows(read_lines(path, problems), problems))
        columns = list(dict.fromkeys(k for _, row in listed for k in row))
        rows = iter(listed)
    else:
        lines = read_lines(path, problems)
        columns, rows = delimited_rows(lines, "\t" if kind == "tsv" else ",", problems)
    if not columns:  # an empty file (or one whose every line is malformed) holds no pairs
        return []
    good, bad = sentence_columns(columns, fmt, good, bad, str(path))
    label = condition_column(columns, good, condition)
    if condition and condition not in columns:
        raise SuiteFormatError(f"{path}: no column {condition!r} for --condition")
    return records(rows, good, bad, label, problems)


def pairs_frame(suite: str, fmt: str, found: list[Record]) -> pl.DataFrame:
    """PAIR_COLUMNS and the metadata columns (strings, in order of first appearance)."""
    names = list(dict.fromkeys(k for r in found for k in r.meta))
    renamed = {k: f"meta_{k}" if k in RESERVED else k for k in names}
    fixed = {
        "suite": [suite] * len(found),
        "format": [fmt] * len(found),
        "pair_id": [str(r.line) for r in found],
        "line": [r.line for r in found],
        "condition": [r.condition for r in found],
        "sentence_good": [r.good for r in found],
        "sentence_bad": [r.bad for r in found],
    }
    data = {c: fixed[c] for c in PAIR_COLUMNS}
    for name in names:
        data[renamed[name]] = [r.meta.get(name) for r in found]
    schema = {c: pl.String for c in data} | {"line": pl.Int64}
    if found and all(r.span is not None for r in found):
        for i, column in enumerate(SPAN_COLUMNS):
            data[column] = [r.span[i] for r in found if r.span is not None]
            schema[column] = pl.Int64
    return pl.DataFrame(data, schema=schema)


@contextmanager
def unreadable_as_error(path: Path) -> Iterator[None]:
    """A table file the reader cannot parse at all (a damaged Parquet file) is one line."""
    try:
        yield
    except pl.exceptions.PolarsError as error:
        raise SuiteFormatError(
            f"{path}: unreadable as a table ({type(error).__name__}: {str(error).splitlines()[0][:100]})"
        ) from None


def read_suite(
    path: str | Path,
    *,
    suite: str | None = None,
    fmt: str | None = None,
    good: str | None = None,
    bad: str | None = None,
    condition: str | None = None,
    strict: bool = False,
):
    """A suite file as a `PairSuite`, or a `GymSuite` for SyntaxGym JSON; malformed lines reported."""
    path = Path(path)
    if not path.is_file():
        raise SuiteFormatError(f"no such suite file: {path}")
    with unreadable_as_error(path):
        fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise SuiteFormatError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    if bool(good) != bool(bad):
        raise SuiteFormatError("--good and --bad go together")
    if good and good == bad:
        raise SuiteFormatError(
            f"--good and --bad name the same column {good!r}: every pair would be identical"
        )
    if (fmt in READERS or fmt in DOCUMENT_READERS) and (good or condition):
        raise SuiteFormatError(
            f"{path}: --good/--bad/--condition apply to tables, not to {fmt} files"
        )
    problems = Problems(str(path), strict)
    name = suite or path.stem
    if fmt in DOCUMENT_READERS:
        return DOCUMENT_READERS[fmt].read(path, problems, name)
    if fmt in READERS:
        found = READERS[fmt].read(path, problems)
    else:
        with unreadable_as_error(path):
            found = read_table(path, fmt, good, bad, condition, problems)
    found, identical = decidable(found, problems)
    skipped = {"identical": identical} if identical else {}
    return PairSuite(name, path, fmt, pairs_frame(name, fmt, found), problems.found, skipped)


# A sentence holding one of these is two rows run together (broken quoting), not a sentence.
ROW_BREAKS = ("\t", "\n", "\r")


def decidable(found: list[Record], problems: Problems) -> tuple[list[Record], int]:
    """The pairs that can be decided: a sentence holding a TAB or a line break is a broken row
    (reported as `file:line`); a pair of two identical sentences is skipped and counted (no
    model can prefer one, and a tie would count it wrong)."""
    kept, identical = [], 0
    for record in found:
        broken = [
            side
            for side, text in (("good", record.good), ("bad", record.bad))
            if any(c in text for c in ROW_BREAKS)
        ]
        if broken:
            problems.add(
                record.line,
                f"the {broken[0]} sentence holds a TAB or a line break (two rows run together? "
                "check the quoting)",
            )
        elif record.good == record.bad:
            identical += 1
        else:
            kept.append(record)
    return kept, identical
