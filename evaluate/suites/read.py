"""Readers of peers' minimal-pair suites (DESIGN.md §7): one table of pairs per file.

Layouts: BLiMP JSON lines, CLAMS / LM_syneval text, MultiBLiMP TSV, any CSV/TSV/Parquet/JSON-lines
table with `--good`/`--bad` columns (`table`), and SyntaxGym suite JSON (`evaluate.suites.syntaxgym`).
A malformed line is reported as `file:line: reason` and skipped; with `strict` the first one stops
the run (`MalformedInput`, exit 2).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ud_agree.schemas.suites import COLUMNS

from .problems import Malformed, Problems, SuiteFormatError
from .syntaxgym import read_syntaxgym

FORMATS = ("blimp", "clams", "gevalm", "multiblimp", "syntaxgym", "table")
MASK = "[MASK]"  # gevalm's blank (DESIGN.md §7)
# The character spans of the varied word, when a layout knows it (gevalm): a masked LM scores it.
SPAN_COLUMNS = ("start", "end_good", "end_bad")

# (good, bad, condition) columns that a layout names itself; the first pair found in a table wins.
KNOWN_COLUMNS = {
    "blimp": ("sentence_good", "sentence_bad", "UID"),
    "multiblimp": ("sen", "wrong_sen", "phenomenon"),
}

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

    @property
    def size(self) -> int:
        """Number of pairs read."""
        return self.pairs.height


@dataclass
class Record:
    """A pair as read, before it becomes a row: its line, sentences, condition and metadata."""

    line: int
    good: str
    bad: str
    condition: str | None
    meta: dict[str, str | None]
    span: tuple[int, int, int] | None = None  # start, end in the good and in the bad sentence


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
        if _is_syntaxgym(path):
            return "syntaxgym"
        try:
            first = json.loads(head)
        except ValueError:
            return "table"
        return _format_of_columns(list(first) if isinstance(first, dict) else [])
    delimiter = "\t" if container(path) == "tsv" else ","
    return _format_of_columns(next(csv.reader([head], delimiter=delimiter), []))


def _format_of_columns(columns: Iterable[str]) -> str:
    names = set(columns)
    if {"text_masked", "candidates"} <= names:
        return "gevalm"
    for name, (good, bad, _) in KNOWN_COLUMNS.items():
        if good in names and bad in names:
            return name
    return "table"


def _is_syntaxgym(path: Path) -> bool:
    """A whole-file JSON object with `items` (a SyntaxGym suite), not JSON lines."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and "items" in data


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


def jsonl_rows(lines: list[str], problems: Problems) -> Iterator[tuple[int, dict]]:
    """(line, object) of each JSON-lines record; blank lines skipped, bad ones reported."""
    for number, text in enumerate(lines, start=1):
        if isinstance(text, Undecodable) or not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as error:
            problems.add(number, f"not valid JSON ({error.msg})")
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
    reader = csv.reader(blank, delimiter=delimiter)
    header: list[str] = []
    for fields in reader:
        if any(f.strip() for f in fields):
            header = unique_names(fields)
            break
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


def read_clams(path: Path, problems: Problems) -> list[Record]:
    """CLAMS / LM_syneval text: each `False<TAB>s` line pairs with the `True<TAB>s` line before it."""
    out: list[Record] = []
    good: tuple[int, str | None] | None = None  # (line, sentence); sentence None: that line was bad
    for number, text in enumerate(read_lines(path, problems), start=1):
        if isinstance(text, Undecodable):
            if not text.startswith("False\t"):  # maybe a True line: its False lines have no partner
                good = (number, None)
            continue
        if not text.strip():
            continue
        fields = text.split("\t")
        label = fields[0].strip()
        sentence = fields[1].strip() if len(fields) == 2 else ""
        if len(fields) != 2 or label not in ("True", "False") or not sentence:
            problems.add(number, "expected True<TAB>sentence or False<TAB>sentence")
            if label != "False":  # a broken True line leaves its False lines without a partner
                good = (number, None)
            continue
        if label == "True":
            good = (number, sentence)
        elif good is None:
            problems.add(number, "a False line with no True line before it")
        elif good[1] is None:
            problems.add(number, f"its True line ({good[0]}) is malformed")
        else:
            out.append(Record(number, good[1], sentence, path.stem, {"true_line": str(good[0])}))
    return out


def read_gevalm(path: Path, problems: Problems) -> list[Record]:
    """gevalm JSON lines (Zaczynska et al. 2020): `text_masked` with one `[MASK]`, `candidates`
    the correct word then the incorrect one, `case` the condition; each put in the blank."""
    found = []
    for number, row in jsonl_rows(read_lines(path, problems), problems):
        masked, candidates = row.get("text_masked"), row.get("candidates")
        if not isinstance(masked, str) or masked.count(MASK) != 1:
            problems.add(number, f"`text_masked` must hold one {MASK}")
            continue
        if not (isinstance(candidates, list) and len(candidates) == 2
                and all(isinstance(c, str) and c for c in candidates)):  # fmt: skip
            problems.add(number, "`candidates` must be [correct, incorrect]")
            continue
        start = masked.index(MASK)
        good, bad = (masked[:start] + c + masked[start + len(MASK) :] for c in candidates)
        meta = {
            k: as_text(v) for k, v in row.items() if k not in ("text_masked", "candidates", "case")
        }
        meta |= {"correct": candidates[0], "incorrect": candidates[1]}
        span = (start, start + len(candidates[0]), start + len(candidates[1]))
        found.append(Record(number, good, bad, as_text(row.get("case")), meta, span))
    return found


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
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise SuiteFormatError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    if bool(good) != bool(bad):
        raise SuiteFormatError("--good and --bad go together")
    if fmt in ("clams", "gevalm", "syntaxgym") and (good or condition):
        raise SuiteFormatError(
            f"{path}: --good/--bad/--condition apply to tables, not to {fmt} files"
        )
    problems = Problems(str(path), strict)
    name = suite or path.stem
    if fmt == "syntaxgym":
        return read_syntaxgym(path, problems, name)
    if fmt == "clams":
        found = read_clams(path, problems)
    elif fmt == "gevalm":
        found = read_gevalm(path, problems)
    else:
        found = read_table(path, fmt, good, bad, condition, problems)
    return PairSuite(name, path, fmt, pairs_frame(name, fmt, found), problems.found)
