"""The store of run folders: the one module that reads and checks what a run wrote, for the plan
(--resume, finished runs), the report, `load_results`, the merge of shards and the suites.

- a manifest read in today's shape (`read_manifest`): every version that wrote one is upgraded by
  one step (`upgrade_manifest`), rows of older chunks by another (`upgrade_rows`), so no reader
  branches on "written before";
- a run trusted or not (`check_folder`): chunks holding the rows its manifest counts, finished;
- a set of shards read as one run (`check_run`, `merged_manifest`);
- every run under a results root (`check_runs`, `load_manifests`): the sound ones, and the others
  named with their reason (issue 34, issue 42).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ud_agree.schemas.results import RULE_NAMES

from ..sharding.spec import FOLDER, RUN_ONLY_OPTIONS, Shard, ShardError

RESUME = "rerun it with --resume"
RUN_TOOL, SUITE_TOOL = "ud-agree evaluate", "ud-agree evaluate.suite"  # manifests' `tool`
# Result chunks: a corpus run's `results-NNNNN.parquet`, a suite run's `suite-NNNNN.parquet`.
RUN_CHUNK, SUITE_CHUNK = "results*.parquet", "suite-*.parquet"
# A chunk's file name; a file named like one but not so (`results-00000 (copy).parquet`, a copy
# left by hand) is none, and is refused rather than read as part of the run.
CHUNK_NAME = re.compile(r"(?:results|suite)-\d+\.parquet")

# The shape of what a run folder holds. 1: ud-agree 0.2.0 and earlier (no `schema_version` in the
# manifest; a pair row kept its varied role in `masked`, a suite run's settings had no `rule`:
# `sum` decided); 2: today's, written in every manifest.
SCHEMA_VERSION = 2


def version_of(manifest: dict[str, Any]) -> int:
    """The schema version a manifest was written in (1: before manifests named it)."""
    version = manifest.get("schema_version", 1)
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def upgrade_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    """A manifest in today's shape, whatever version wrote it: the one step that knows the old
    ones (a suite run made before `--rule` was decided by `sum`)."""
    if version_of(manifest) >= SCHEMA_VERSION:
        return manifest
    upgraded = dict(manifest)
    if upgraded.get("tool") == SUITE_TOOL and isinstance(upgraded.get("settings"), dict):
        upgraded["settings"] = {"rule": "sum", **upgraded["settings"]}
    upgraded["schema_version"] = SCHEMA_VERSION
    return upgraded


def rows_version(columns: Collection[str]) -> int:
    """The schema version of a corpus run's chunk, from its columns (1: no `varied`)."""
    return SCHEMA_VERSION if "varied" in columns else 1


def upgrade_rows(frame: pl.LazyFrame) -> pl.LazyFrame:
    """A corpus run's chunk in today's columns: before `varied` (schema 1) a pair row kept its
    varied word's role in `masked`."""
    if rows_version(frame.collect_schema().names()) == SCHEMA_VERSION:
        return frame
    pair = pl.col("reading") == "pair"
    return frame.with_columns(
        pl.when(pair).then(pl.col("masked")).alias("varied"),
        pl.when(pair).then(None).otherwise(pl.col("masked")).alias("masked"),
    )


def manifest_file(folder: Path) -> dict[str, Any] | None:
    """A run folder's manifest in today's shape; None where it is absent or unreadable."""
    manifest, _ = read_manifest(folder)
    return manifest


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
    """A run folder's manifest in today's shape, or why it cannot be read."""
    path = folder / "manifest.json"
    if not path.exists():
        return None, "no manifest.json beside its results: its rows cannot be checked"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"its manifest.json is unreadable ({type(error).__name__})"
    if not isinstance(data, dict):
        return None, "its manifest.json is not an object"
    if version_of(data) > SCHEMA_VERSION:
        return None, (
            f"its manifest.json is of schema {version_of(data)}, written by a newer ud-agree "
            f"(this one reads {SCHEMA_VERSION} and older): upgrade ud-agree to read it"
        )
    return upgrade_manifest(data), None


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
    rule = (manifest.get("settings") or {}).get("rule") if suite else None
    if suite and rule not in RULE_NAMES:
        return f"its manifest names no rule ud-agree knows ({rule!r}): its decisions cannot be read"
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
    data = manifest_file(path.parent)
    return data is not None and data.get("tool") in (RUN_TOOL, SUITE_TOOL)


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
        # A table saved by hand has no manifest; a run's chunks without theirs are not read.
        named = any(CHUNK_NAME.fullmatch(c.name) for c in chunks[folder])
        if bare and not named and not (folder / "manifest.json").exists():
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


# A run folder of shards read as one run: its shard folders, the checks that the set is whole and
# consistent, and the merged manifest.


def shard_folders(run: Path) -> list[tuple[Shard, Path]]:
    """The shard folders directly under a run folder, in shard order."""
    found = []
    for path in run.iterdir() if run.is_dir() else ():
        match = FOLDER.fullmatch(path.name)
        if match and path.is_dir():
            found.append((Shard(int(match[1]), int(match[2])), path))
    return sorted(found, key=lambda pair: (pair[0].count, pair[0].index))


def sharded_runs(root: Path) -> list[Path]:
    """Run folders at or under `root` that hold shard folders."""
    runs = {p.parent for p in Path(root).rglob("shard-*-of-*") if FOLDER.fullmatch(p.name)}
    return sorted(r for r in runs if r.is_dir())


def _numbers(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def _what_was_scored(manifest: dict[str, Any]) -> dict[str, Any]:
    options = manifest.get("options") or {}
    return {k: v for k, v in options.items() if k not in RUN_ONLY_OPTIONS}


def check_run(run: Path) -> list[dict[str, Any]]:
    """The manifests of a whole, consistent set of shards, in shard order; else a ShardError."""
    shards = shard_folders(run)
    if not shards:
        raise ShardError(f"{run} holds no shard folders (shard-K-of-N)")
    if any(run.glob("results*.parquet")):
        raise ShardError(
            f"{run} holds both an unsharded run's results and shard folders: move one of them away"
        )
    counts = sorted({shard.count for shard, _ in shards})
    if len(counts) > 1:
        raise ShardError(
            f"the shards in {run} were made with different shard counts ({_numbers(counts)}): "
            "delete the stale shard folders or use another --out"
        )
    count = counts[0]
    missing = sorted(set(range(count)) - {shard.index for shard, _ in shards})
    if missing:
        raise ShardError(
            f"{run} lacks shards {_numbers(missing)} of {count}: run them "
            f"(--shard {missing[0]}/{count} …) and merge again"
        )
    manifests = [manifest_file(path) for _, path in shards]
    unfinished = [
        s.index
        for (s, _), m in zip(shards, manifests, strict=True)
        if not m or not m.get("complete")
    ]
    if unfinished:
        raise ShardError(
            f"shards {_numbers(unfinished)} of {count} in {run} are incomplete (killed or still "
            "running): rerun them with --resume"
        )
    first = manifests[0]
    assert first is not None  # every manifest was read: none is unfinished
    for (shard, _), manifest in zip(shards[1:], manifests[1:], strict=True):
        assert manifest is not None
        if manifest.get("corpus_manifest_sha256") != first.get("corpus_manifest_sha256"):
            raise ShardError(
                f"shards 0 and {shard.index} of {run} were scored on different corpora"
            )
        ours, theirs = _what_was_scored(first), _what_was_scored(manifest)
        changed = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
        if changed:
            raise ShardError(
                f"shards 0 and {shard.index} of {run} were made with other options "
                f"({', '.join(changed)}): rerun the odd ones or use another --out"
            )
    return [m for m in manifests if m is not None]


def merged_counts(manifests: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts of the shards as one run: whole-run counts once, the shards' own counts summed."""
    whole = set((manifests[0].get("shard") or {}).get("whole_run_counts", []))
    merged: dict[str, Any] = {}
    for manifest in manifests:
        for key, value in (manifest.get("counts") or {}).items():
            if key in whole or key not in merged:
                merged.setdefault(key, value)
            elif isinstance(value, (int, float)) and isinstance(merged[key], (int, float)):
                merged[key] += value
    return merged


def merged_manifest(manifests: list[dict[str, Any]]) -> dict[str, Any]:
    """One manifest for the shards of a run: the first shard's, with counts summed and no shard."""
    first = manifests[0]
    dropped = {"shard", "run_dir", "seconds", "items_per_second"}
    merged = {k: v for k, v in first.items() if k not in dropped}
    merged["options"] = {**(first.get("options") or {}), "shard": None}
    merged["counts"] = merged_counts(manifests)
    seconds = sum(float(m.get("seconds") or 0) for m in manifests)
    scored = merged["counts"].get("items_scored_now") or 0
    merged["complete"] = True
    merged["shards"] = len(manifests)
    merged["seconds"] = round(seconds, 3)  # time spent in the shards, added up
    merged["items_per_second"] = round(scored / seconds, 3) if seconds and scored else None
    return merged


def check_sets(root: Path, files: list[Path]) -> None:
    """Refuse to read shards of a run under `root` unless the set is whole and consistent (one
    shard folder given alone is read alone)."""
    root = Path(root).resolve()
    runs = {
        f.parent.parent
        for f in (Path(p).resolve() for p in files)
        if FOLDER.fullmatch(f.parent.name) and f.parent != root
    }
    for run in sorted(runs):
        check_run(run)


def runs_as_one(root: Path, manifests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run manifests (each with `run_dir`) with every set of shards replaced by its merged one."""
    out, seen = [], set()
    for manifest in manifests:
        run_dir = Path(manifest["run_dir"])
        if not FOLDER.fullmatch(run_dir.name) or run_dir == Path("."):
            out.append(manifest)
            continue
        if run_dir.parent in seen:
            continue
        seen.add(run_dir.parent)
        merged = merged_manifest(check_run(Path(root) / run_dir.parent))
        out.append({**merged, "run_dir": str(run_dir.parent)})
    return out


def load_manifests(
    path: str | Path, folders: Collection[Path] | None = None
) -> list[dict[str, Any]]:
    """Every run's manifest under `path` (only those in `folders` when given), in today's shape,
    each with `run_dir` (relative to `path`) added; the shards of a run give one merged manifest."""
    root = Path(path)
    if root.is_file():
        root = root.parent
    manifests = []
    for file in sorted(root.rglob("manifest.json")):
        if folders is not None and file.parent not in folders:
            continue
        # A corpus manifest may sit beside results; only run folders hold result files.
        if not any(file.parent.glob("results*.parquet")):
            continue
        data = manifest_file(file.parent)
        if data is None:
            continue
        data["run_dir"] = str(file.parent.relative_to(root)) or "."
        manifests.append(data)
    return runs_as_one(root, manifests)  # a set of shards is one run
