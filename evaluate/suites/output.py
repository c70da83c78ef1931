"""Result folders of imported suites: `<out>/suites/<suite>/<model>/`, chunks written atomically, resume."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from ud_agree.atomic import write_parquet
from ud_agree.errors import MachineError, UserError
from ud_agree.schemas.suites import COLUMNS, SUITE_RESULTS

from ..options import safe_name

# Chunks are `suite-NNNNN.parquet`: not `results*`, so `load_results` never mistakes them for
# the evaluator's own results when a results root holds both.
CHUNK_GLOB = "suite-*.parquet"
# What a run's results depend on: --resume refuses a folder made with other values.
RESUME_SETTINGS = ("model", "pll", "format", "good", "bad", "condition", "input_sha256")


class ResumeError(UserError):
    """--resume cannot go on in this folder."""


def run_folder(out: str | Path, suite: str, model: str) -> Path:
    """`<out>/suites/<suite>/<model-safe-name>`."""
    return Path(out) / "suites" / suite / safe_name(model)


def chunk_paths(folder: Path) -> list[Path]:
    """Existing result chunks of a folder, in order."""
    return sorted(folder.glob(CHUNK_GLOB))


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes (the manifest records which suite file was scored)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def prepare_folder(folder: Path, settings: dict[str, Any], resume: bool) -> set[str]:
    """Make the folder; without resume old results go; with it, check settings, return done pair ids."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise MachineError.of(error, folder) from None
    if not resume:
        for path in [*chunk_paths(folder), folder / "summary.csv"]:
            path.unlink(missing_ok=True)
        return set()
    manifest = folder / "manifest.json"
    if manifest.exists():
        try:
            before = json.loads(manifest.read_text(encoding="utf-8")).get("settings", {})
        except (OSError, ValueError):
            raise ResumeError(f"--resume: {manifest} is unreadable; run without --resume") from None
        changed = [k for k in RESUME_SETTINGS if k in before and before[k] != settings.get(k)]
        if changed:
            raise ResumeError(
                f"--resume: results in {folder} were made with other settings ({', '.join(changed)}); "
                "use another --out or run without --resume"
            )
    paths = chunk_paths(folder)
    if not paths:
        return set()
    done: set[str] = set()
    for path in paths:
        try:
            done.update(pl.read_parquet(path, columns=["pair_id"])["pair_id"].to_list())
        except (pl.exceptions.PolarsError, OSError):
            raise ResumeError(
                f"--resume: results chunk {path} is unreadable; delete it and resume, "
                "or run without --resume"
            ) from None
    return done


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
    numbers = [int(p.stem.split("-")[1]) for p in chunk_paths(folder)]
    return write_parquet(table, folder / f"suite-{max(numbers, default=-1) + 1:05d}.parquet")
