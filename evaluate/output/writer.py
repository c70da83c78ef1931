"""Result files of a run: chunks written atomically, the folder prepared for a run or a resume."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from ud_agree.errors import UsageError
from ud_agree.hold import NAME as HOLD_NAME
from ud_agree.schemas.results import ITEM_KEY, RESULTS

from .chunks import ChunkFolder, clear_folder
from .store import SCHEMA_VERSION, SUITE_TOOL, read_manifest, rows_version


@dataclass(frozen=True)
class RunOutput:
    """What a run's output needs of it, resolved once from its options: the columns every row
    carries, the chunk size, and for --resume the options that change results."""

    model: str  # the `model` column
    method: str
    reading: str
    match: str | None = None  # class-average only
    case: str | None = None
    chunk_size: int = 4096
    resume: bool = False
    force: bool = False  # a folder holding a suite's results is cleared first
    record: Mapping[str, Any] = field(default_factory=dict)  # the options, as the manifest has them
    resume_keys: tuple[str, ...] = ()  # those of `record` that --resume compares


def chunk_folder(folder: Path) -> ChunkFolder:
    """A run's chunks, `results-NNNNN.parquet`."""
    return ChunkFolder(folder, "results")


def chunk_paths(folder: Path) -> list[Path]:
    """Existing result chunks, in order."""
    return chunk_folder(folder).paths()


def prepare_folder(folder: Path, run: RunOutput, corpus_sha: str | None) -> pl.DataFrame | None:
    """Make the folder; without --resume old chunks go; with it, check options and return done keys."""
    held, _ = read_manifest(folder)
    if held is not None and held.get("tool") == SUITE_TOOL:
        if not run.force:
            raise UsageError(
                f"{folder} holds the results of the suite {held.get('file')} (a suite named as "
                "this language): give this run another --out, or --force to clear that folder"
            )
        clear_folder(folder, keep=folder / HOLD_NAME)
    chunks = chunk_folder(folder)
    chunks.prepare(run.resume, also=("summary.csv", "summary.md"))
    if not run.resume:
        return None
    old = chunks.manifest()
    if old is not None:
        before = old.get("options", {})
        chunks.check_settings(before, run.record, run.resume_keys, "options")
        if corpus_sha and old.get("corpus_manifest_sha256") not in (None, corpus_sha):
            raise UsageError(
                f"--resume: the corpus was mined again since the results in {folder} were made "
                "(its manifest.json differs); run without --resume to score it afresh"
            )
    paths = chunks.paths()
    version = rows_version(pl.read_parquet_schema(paths[0])) if paths else SCHEMA_VERSION
    if version < SCHEMA_VERSION:
        raise UsageError(
            f"--resume: results in {folder} are of schema {version}, written by ud-agree 0.2.0 or "
            "earlier (no `varied` column); run without --resume"
        )
    return chunks.read(ITEM_KEY)


def result_table(items: pl.DataFrame, scores: dict[str, Any], run: RunOutput) -> pa.Table:
    """Rows of RESULTS for these items and their score columns; columns of the other reading null."""
    constants = {
        "model": run.model,
        "match": run.match,
        "case": run.case,
        "method": run.method,
        "reading": run.reading,
    }
    frame = items.with_columns(
        *(pl.Series(name, values) for name, values in scores.items()),
        *(pl.lit(value, dtype=pl.String).alias(name) for name, value in constants.items()),
        pl.col("lang").alias("source"),
    )
    present = set(frame.columns)
    table = frame.select([c for c in RESULTS.names if c in present]).to_arrow()
    for column in RESULTS:
        if column.name not in present:
            table = table.append_column(column.name, pa.nulls(table.num_rows, column.type))
    return table.select(RESULTS.names).cast(RESULTS)


class ChunkWriter:
    """Buffers scored items and writes `results-NNNNN.parquet` chunks atomically.

    Score columns may arrive as device tensors: they reach the host once per chunk, not per batch.
    """

    def __init__(self, folder: Path, run: RunOutput):
        self.folder, self.run = folder, run
        self.chunks = chunk_folder(folder)
        self.number = self.chunks.next_number()
        self.rows: list[np.ndarray] = []
        self.scores: dict[str, list] = {}
        self.pending = 0
        self.written = 0
        self.forwards = 0  # distinct inputs scored (not forward passes): `forward_inputs`

    def add(self, rows: np.ndarray, scores: Any, items: pl.DataFrame) -> None:
        """Queue a batch's score columns (a dict, or class-average `Decisions`); flush when full."""
        columns = scores if isinstance(scores, dict) else decision_columns(scores)
        self.rows.append(np.asarray(rows))
        for name, values in columns.items():
            self.scores.setdefault(name, []).append(values)
        self.pending += len(rows)
        if self.pending >= self.run.chunk_size:
            self.flush(items)

    def flush(self, items: pl.DataFrame) -> None:
        """Write what is queued as one chunk."""
        if not self.pending:
            return
        rows = np.concatenate(self.rows)
        scores = {k: _concatenate(v) for k, v in self.scores.items()}
        table = result_table(items[rows], scores, self.run)
        self.chunks.write(table, self.number)
        self.number += 1
        self.written += len(rows)
        self.rows, self.scores, self.pending = [], {}, 0


def decision_columns(decisions: Any) -> dict[str, Any]:
    """The class-average score columns of a batch's decisions."""
    return {
        "p_correct": decisions.p_correct,
        "p_incorrect": decisions.p_incorrect,
        "logit_correct": decisions.logit_correct,
        "logit_incorrect": decisions.logit_incorrect,
        "right": decisions.right,
        "right_logit": decisions.right_logit,
    }


def _concatenate(parts: list) -> np.ndarray | pl.Series:
    """One column of a chunk: device tensors, numpy arrays, or polars series (which keep nulls)."""
    if parts and hasattr(parts[0], "detach"):
        import torch

        return torch.cat(parts).cpu().numpy()
    if parts and isinstance(parts[0], pl.Series):
        return pl.concat(parts)
    return np.concatenate([np.asarray(p) for p in parts])


def skip_done(
    items: pl.DataFrame, done: pl.DataFrame | None
) -> tuple[pl.DataFrame, np.ndarray | None, int]:
    """Items not yet in the results (resume), the mask of those kept, and how many were done."""
    if done is None or not done.height:
        return items, None, 0
    # Class-average items have no pair columns: those parts of the key are null on both sides.
    absent = [pl.lit(None, dtype=pl.String).alias(c) for c in ITEM_KEY if c not in items.columns]
    keyed = items.with_columns(absent).select("item", *ITEM_KEY)
    remaining = keyed.join(done.unique(), on=list(ITEM_KEY), how="anti", nulls_equal=True)["item"]
    keep = items["item"].is_in(remaining.implode()).to_numpy()
    return items.filter(pl.Series(keep)), keep, int((~keep).sum())
