"""Atomic writes of Parquet tables and JSON manifests: a crash never leaves a half-written file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


def _replace_into(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_table(table: pa.Table, path: Path, schema: pa.Schema) -> None:
    """Write table with its declared schema, via a temporary file renamed into place."""
    table = table.select(schema.names).cast(schema)
    _replace_into(path, lambda tmp: pq.write_table(table, tmp, compression="snappy"))


def write_json(data: Any, path: Path) -> None:
    """Write JSON (indented, UTF-8) atomically."""

    def dump(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False, sort_keys=False)
            handle.write("\n")

    _replace_into(path, dump)
