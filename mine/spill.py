"""A language's mined files spilled to disk while its lexicon is built: Arrow IPC, read back mapped."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from .plan import LanguageRun, Options


def spill(table: pa.Table, prefix: Path, name: str) -> None:
    """Write a file's table where its language's finishing reads it: Arrow IPC, uncompressed
    (read once, soon, on the same machine: encoding Parquet would cost more than the disk)."""
    with (
        pa.OSFile(f"{prefix}.{name}.arrow", "wb") as sink,
        pa.ipc.new_file(sink, table.schema) as writer,
    ):
        writer.write_table(table)


def unspill(prefix: Path, name: str) -> pa.Table:
    """A spilled table, read whole (mapped: its buffers are the page cache's, not a copy)."""
    with pa.memory_map(f"{prefix}.{name}.arrow", "rb") as source:
        return pa.ipc.open_file(source).read_all()


def unspill_columns(prefix: Path, name: str, columns: list[str]) -> pa.Table:
    """Some columns of a spilled table (mapped, not read: the rest stays on disk)."""
    with pa.memory_map(f"{prefix}.{name}.arrow", "rb") as source:
        return pa.ipc.open_file(source).read_all().select(columns).combine_chunks()


def part(options: Options, run: LanguageRun, index: int) -> Path:
    """Where a language's `index`-th file is spilled (without the table's suffix)."""
    return options.out / run.language.key / SPILL / f"{index:05d}"


SPILL = ".parts"  # a language's mined files, waiting for its lexicon (removed when it is written)
