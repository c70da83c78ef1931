"""The one chunked, resumable writer of runs and suites: `<prefix>-NNNNN.parquet` chunks written
atomically in a run folder, the folder prepared for a fresh run or checked for --resume."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from ud_agree.atomic import write_parquet
from ud_agree.errors import MachineError, UsageError

from .store import CHUNK_NAME, read_manifest


class ResumeError(UsageError):
    """--resume cannot go on in this folder."""


@dataclass(frozen=True)
class ChunkFolder:
    """A run folder's chunks: `results-*` (the evaluator's runs) or `suite-*` (peers' suites)."""

    folder: Path
    prefix: str

    def paths(self) -> list[Path]:
        """Existing chunks, in order; a file named like a chunk but none (a copy left by hand,
        `results-00000 (copy).parquet`) is refused: it would be read as part of the run."""
        found = sorted(self.folder.glob(f"{self.prefix}-*.parquet"))
        for path in found:
            if not CHUNK_NAME.fullmatch(path.name):
                raise UsageError(
                    f"{path}: not a chunk of this run (chunks are named "
                    f"{self.prefix}-NNNNN.parquet); move it out of {self.folder}"
                )
        return found

    def next_number(self) -> int:
        """One past the highest existing chunk number."""
        return max((int(p.stem.split("-")[1]) for p in self.paths()), default=-1) + 1

    def prepare(self, resume: bool, also: Sequence[str] = ()) -> None:
        """Make the folder; without resume remove its chunks and `also` (summaries)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise MachineError.of(error, self.folder) from None
        if not resume:
            for path in [*self.paths(), *(self.folder / name for name in also)]:
                path.unlink(missing_ok=True)

    def manifest(self) -> dict[str, Any] | None:
        """The folder's manifest in today's shape, for --resume's checks (None: there is none)."""
        path = self.folder / "manifest.json"
        if not path.exists():
            return None
        found, problem = read_manifest(self.folder)
        if found is None and problem and "not an object" not in problem:
            raise ResumeError(f"--resume: {path} is unreadable; run without --resume")
        return found or {}

    def check_settings(
        self, before: Mapping[str, Any], now: Mapping[str, Any], keys: Sequence[str], what: str
    ) -> None:
        """--resume refuses a folder whose results were made with other values of `keys`."""
        changed = [k for k in keys if k in before and before[k] != now.get(k)]
        if changed:
            raise ResumeError(
                f"--resume: results in {self.folder} were made with other {what} "
                f"({', '.join(changed)}); use another --out or run without --resume"
            )

    def read(self, columns: Sequence[str]) -> pl.DataFrame | None:
        """These columns of every chunk (None when there is none); an unreadable chunk named."""
        paths = self.paths()
        if not paths:
            return None
        frames = []
        for path in paths:
            try:
                frames.append(pl.read_parquet(path, columns=list(columns)))
            except (pl.exceptions.PolarsError, OSError):
                raise ResumeError(
                    f"--resume: results chunk {path} is unreadable; delete it and resume, or "
                    "run without --resume"
                ) from None
        return pl.concat(frames)

    def write(self, table: pa.Table, number: int | None = None) -> Path:
        """The table as chunk `number` (default: the next one), atomically."""
        number = self.next_number() if number is None else number
        return write_parquet(table, self.folder / f"{self.prefix}-{number:05d}.parquet")


def clear_folder(folder: Path, keep: Path) -> None:
    """Remove everything in a results folder but `keep` (the hold): --force's fresh start."""
    for entry in folder.iterdir():
        if entry == keep:
            continue
        try:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        except OSError as error:
            raise MachineError.of(error, entry) from None
