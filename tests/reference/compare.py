"""Both engines on one file: the package's `mine_file_columnar` against the reference."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from ud_agree.mine.columnar import mine_file_columnar
from ud_agree.mine.extract import FileJob, FileResult
from ud_agree.mine.lexicon import count_table, ud_entries

from tests.reference.extract import mine_file
from ud_agree.schemas.corpus import TYPES

ALL = frozenset(TYPES)


def job(path: Path, types: frozenset[str] = ALL, strict: bool = False, **facts) -> FileJob:
    return FileJob(path, path.name, "xx", "Test", types, strict, **facts)


def assert_same(path: Path, types: frozenset[str] = ALL, **facts) -> FileResult | None:
    """Both engines give the same tables, counts and lexicon entries for one file (or raise
    the same error); facts: the language facts of FileJob (participle_agreement, value_sets)."""
    failure: Exception | None = None
    try:
        expected = mine_file(job(path, types, **facts))
    except Exception as error:  # noqa: BLE001 - the columnar engine must fail alike
        failure = error
    if failure is not None:
        with pytest.raises(type(failure)) as raised:
            mine_file_columnar(job(path, types, **facts))
        assert str(raised.value) == str(failure)
        return None
    got = mine_file_columnar(job(path, types, **facts))
    for name in ("relations", "sentences"):
        want, have = getattr(expected, name), getattr(got, name)
        assert want.schema == have.schema, name
        for column in want.column_names:  # column by column, for a readable failure
            assert want[column].to_pylist() == have[column].to_pylist(), (name, column)
        assert want.equals(have), name
    for name in ("label", "sha256", "size", "words", "duplicate_sent_ids", "malformed"):
        assert getattr(expected, name) == getattr(got, name), name
    for name in ("drops", "agree", "disagree"):
        assert getattr(expected, name) == getattr(got, name), name
    assert entries(expected.lexicon_counts).equals(entries(got.lexicon_counts))
    return got


def entries(counts: Counter | pa.Table) -> pl.DataFrame:
    """The lexicon entries that word counts give (the reference counts every word)."""
    table = counts if isinstance(counts, pa.Table) else count_table(counts)
    # The reference reads no MISC: compared as if no word had a `CorrectForm` (tested apart).
    at = table.schema.get_field_index("corrected")
    table = table.set_column(at, "corrected", pa.array([False] * table.num_rows, pa.bool_()))
    return ud_entries(table).sort(pl.all())


def assert_strict_alike(path: Path) -> None:
    """Under --strict both engines stop with the same message, or neither stops."""
    failure: Exception | None = None
    try:
        mine_file(job(path, strict=True))
    except Exception as error:  # noqa: BLE001 - MalformedError, or whatever the reference raises
        failure = error
    if failure is None:
        assert mine_file_columnar(job(path, strict=True)).malformed == []
    else:
        with pytest.raises(type(failure)) as raised:
            mine_file_columnar(job(path, strict=True))
        assert str(raised.value) == str(failure)
