"""A run folder of shards read as one run: its shard folders, the checks that the set is whole and
consistent, and the merged manifest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .spec import FOLDER, RUN_ONLY_OPTIONS, Shard, ShardError


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


def _read_manifest(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


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
    manifests = [_read_manifest(path) for _, path in shards]
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
