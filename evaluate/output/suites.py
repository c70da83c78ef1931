"""Result folders of imported suites: `<out>/<suite>/<model>/`, chunks written atomically, resume."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from ud_agree.schemas.suites import COLUMNS, SUITE_RESULTS

from .chunks import ChunkFolder
from .store import SUITE_TOOL, read_manifest

# Chunks are `suite-NNNNN.parquet`: not `results*`, so `load_results` never mistakes them for
# the evaluator's own results when a results root holds both.
CHUNK_PREFIX = "suite"
CHUNK_GLOB = f"{CHUNK_PREFIX}-*.parquet"
# What a run's results depend on: --resume refuses a folder made with other values.
RESUME_SETTINGS = (
    "model",
    "pll",
    "format",
    "good",
    "bad",
    "condition",
    "input_sha256",
    "rule",
    "rules",
    "leading_space",
)


def chunk_folder(folder: Path) -> ChunkFolder:
    """A suite run's chunks, `suite-NNNNN.parquet`."""
    return ChunkFolder(folder, CHUNK_PREFIX)


def chunk_paths(folder: Path) -> list[Path]:
    """Existing result chunks of a folder, in order."""
    return chunk_folder(folder).paths()


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes (the manifest records which suite file was scored)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def prepare_folder(folder: Path, settings: dict[str, Any], resume: bool) -> set[str]:
    """Make the folder; without resume old results go; with it, check settings, return done pair ids."""
    chunks = chunk_folder(folder)
    chunks.prepare(resume, also=("summary.csv",))
    if not resume:
        return set()
    old = chunks.manifest()
    if old is not None:
        chunks.check_settings(old.get("settings", {}), settings, RESUME_SETTINGS, "settings")
    done = chunks.read(["pair_id"])
    return set() if done is None else set(done["pair_id"].to_list())


def other_file(folder: Path, file: Path) -> str | None:
    """What else `folder` holds the results of, where that is not `file`: a suite file of the
    same name elsewhere, or a corpus run (a suite named as a language); None where it holds
    none, or this file's."""
    manifest, _ = read_manifest(folder)
    if manifest is None:
        return None
    if manifest.get("tool") != SUITE_TOOL:
        return f"a corpus run ({manifest.get('corpus')})"
    held = manifest.get("file")
    return held if isinstance(held, str) and held != str(file.resolve()) else None


def result_table(frame: pl.DataFrame, model: str, method: str) -> pa.Table:
    """Rows in the schema's columns (nulls where a layout has none), then metadata as strings."""
    missing = [c for c in COLUMNS if c not in frame.columns and c not in ("model", "method")]
    frame = frame.with_columns(
        *(pl.lit(None).alias(c) for c in missing),
        pl.lit(model).alias("model"),
        pl.lit(method).alias("method"),
    )
    meta = [c for c in frame.columns if c not in COLUMNS]
    fixed = frame.select(COLUMNS).to_arrow().cast(SUITE_RESULTS)
    extra = frame.select(pl.col(meta).cast(pl.String)).to_arrow() if meta else None
    if extra is None:
        return fixed
    return pa.Table.from_arrays(
        [*fixed.columns, *extra.columns], names=[*fixed.column_names, *extra.column_names]
    )


def write_chunk(table: pa.Table, folder: Path) -> Path:
    """The table as the next `suite-NNNNN.parquet` of the folder (atomic)."""
    return chunk_folder(folder).write(table)
