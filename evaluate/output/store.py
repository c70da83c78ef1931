"""The store of run folders: which runs under a results folder can be read (load_results, the
report, --resume, the merge). A run whose chunks do not hold the rows its manifest counts (a
chunk missing or unreadable), whose manifest is unreadable or absent, or that never finished is
named with its reason and read by none of them (issue 34, issue 42)."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..sharding.sets import check_run
from ..sharding.spec import FOLDER, ShardError
from .chunks import CHUNK_NAME

RESUME = "rerun it with --resume"
RUN_TOOL, SUITE_TOOL = "ud-agree evaluate", "ud-agree evaluate.suite"  # manifests' `tool`
# Result chunks: a corpus run's `results-NNNNN.parquet`, a suite run's `suite-NNNNN.parquet`.
RUN_CHUNK, SUITE_CHUNK = "results*.parquet", "suite-*.parquet"


@dataclass(frozen=True)
class LeftOut:
    """A run the report leaves out: its folder (relative to the results root) and why."""

    run: str
    reason: str


@dataclass(frozen=True)
class Checked:
    """The result files of the runs that hold what their manifests say, and the runs left out."""

    files: list[Path]
    left_out: list[LeftOut]

    def note(self) -> str:
        """The runs left out, in one line."""
        shown = [f"{r.run}: {r.reason}" for r in self.left_out[:3]]
        more = len(self.left_out) - len(shown)
        return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def read_manifest(folder: Path) -> tuple[dict[str, Any] | None, str | None]:
    """A run folder's manifest, or why it cannot be read."""
    path = folder / "manifest.json"
    if not path.exists():
        return None, "no manifest.json beside its results: its rows cannot be checked"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"its manifest.json is unreadable ({type(error).__name__})"
    if not isinstance(data, dict):
        return None, "its manifest.json is not an object"
    return data, None


def chunk_rows(chunks: list[Path]) -> tuple[int, str | None]:
    """Rows in a run's chunks (from their footers), or which chunk cannot be read."""
    rows = 0
    for chunk in chunks:
        try:
            rows += pq.read_metadata(chunk).num_rows
        except (OSError, ValueError) as error:
            return rows, f"results chunk {chunk} is unreadable ({type(error).__name__})"
    return rows, None


def _pairs(chunks: list[Path]) -> tuple[int, str | None]:
    """Distinct pairs (SyntaxGym: items) in a suite run's chunks, or which chunk cannot be read."""
    ids: set[str] = set()
    for chunk in chunks:
        try:
            column = pq.read_table(chunk, columns=["pair_id"]).column("pair_id")
        except (OSError, ValueError, KeyError) as error:
            return len(ids), f"results chunk {chunk} is unreadable ({type(error).__name__})"
        ids.update(pc.unique(column).to_pylist())
    return len(ids), None


def check_folder(folder: Path, chunks: list[Path]) -> str | None:
    """Why the run in `folder` (its result chunks `chunks`) cannot be trusted, or None."""
    manifest, problem = read_manifest(folder)
    if manifest is None:
        return problem
    strays = [c.name for c in chunks if not CHUNK_NAME.fullmatch(c.name)]
    if strays:
        return (
            f"{', '.join(strays)} is not a chunk of this run (chunks are named "
            "results-NNNNN.parquet or suite-NNNNN.parquet): move it out of the folder"
        )
    # A suite run counts pairs (a SyntaxGym item has a row per prediction); a corpus run, rows.
    suite = manifest.get("tool") == SUITE_TOOL
    rows, problem = _pairs(chunks) if suite else chunk_rows(chunks)
    if problem is not None:  # named first: --resume, finished or not, stops on it too
        return f"{problem}: delete it and {RESUME}"
    if manifest.get("complete") is False:
        return f"it never finished (killed or still running): {RESUME}"
    key = "in_results" if suite else "items_in_results"
    expected = (manifest.get("counts") or {}).get(key)
    if not isinstance(expected, int) or isinstance(expected, bool):
        return f"its manifest counts no rows (counts.{key})"
    if rows != expected:
        return (
            f"its chunks hold {rows:,} rows, its manifest counts {expected:,} (a chunk missing): "
            f"{RESUME}"
        )
    return None


def _is_run_manifest(path: Path) -> bool:
    """A manifest written by the evaluator (a corpus's sits beside its tables, not results)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and data.get("tool") in (RUN_TOOL, SUITE_TOOL)


def check_runs(root: str | Path, bare: bool = False) -> Checked:
    """Every run under `root` checked against its manifest: the files of the sound ones (a set of
    shards is sound when it is whole and each shard is), and the others with their reason.
    `bare`: chunks in a folder with no manifest at all (not written by a run: a table saved by
    hand) are read as they are, as a chunk asked for by name is."""
    root = Path(root)
    if root.is_file():
        return Checked([root], [])  # one chunk asked for by name is read as it is
    if not root.is_dir():
        raise FileNotFoundError(f"no such results folder: {root}")
    chunks: dict[Path, list[Path]] = defaultdict(list)
    for chunk in sorted([*root.rglob(RUN_CHUNK), *root.rglob(SUITE_CHUNK)]):
        chunks[chunk.parent].append(chunk)
    for manifest in root.rglob("manifest.json"):
        # A run whose every chunk is gone still has its manifest to say so.
        if manifest.parent not in chunks and _is_run_manifest(manifest):
            chunks[manifest.parent] = []
    shard_sets: dict[Path, list[Path]] = defaultdict(list)
    for folder in list(chunks):
        if FOLDER.fullmatch(folder.name) and folder != root:
            shard_sets[folder.parent].append(folder)
    files: list[Path] = []
    left_out: list[LeftOut] = []

    def name(folder: Path) -> str:
        return str(folder.relative_to(root)) or "."

    for folder in sorted(chunks):
        if folder in shard_sets or (folder.parent in shard_sets and FOLDER.fullmatch(folder.name)):
            continue  # a set of shards is checked as one run below
        reason = check_folder(folder, chunks[folder])
        if bare and not (folder / "manifest.json").exists():
            reason = None
        if reason is None:
            files += chunks[folder]
        else:
            left_out.append(LeftOut(name(folder), reason))
    for run, shards in sorted(shard_sets.items()):
        try:
            check_run(run)
        except ShardError as error:
            left_out.append(LeftOut(name(run), str(error)))
            continue
        reasons = [(s, check_folder(s, chunks[s])) for s in sorted(shards)]
        flawed = [f"{s.name}: {reason}" for s, reason in reasons if reason is not None]
        if flawed:
            left_out.append(LeftOut(name(run), "; ".join(flawed)))
        else:
            files += [chunk for s in sorted(shards) for chunk in chunks[s]]
    return Checked(sorted(files), sorted(left_out, key=lambda r: r.run))


def unsound(root: str | Path) -> str | None:
    """Why the runs under `root` cannot all be read (the runs left out, in one line), or None."""
    checked = check_runs(root)
    return checked.note() if checked.left_out else None
