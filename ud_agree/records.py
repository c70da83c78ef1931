"""What a command wrote into a folder it replaces whole (an export, a report), recorded beside
its files, so that a rerun knows what it may remove and what is a user's own."""

from __future__ import annotations

import json
from pathlib import Path


def written_paths(folder: Path, files_only: bool = False) -> list[str]:
    """Every file (and, unless `files_only`, folder) under `folder`, relative to it, sorted."""
    paths = (p for p in folder.rglob("*") if not (files_only and p.is_dir()))
    return sorted(p.relative_to(folder).as_posix() for p in paths)


def write_record(folder: Path, name: str, fields: dict, files: list[str]) -> None:
    """Record `files` (relative to `folder`) and `fields` in `folder/name`."""
    record = {**fields, "files": [f for f in files if f != name]}
    (folder / name).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def read_record(folder: Path, name: str) -> dict | None:
    """The record `folder/name`, or None where it is missing, unreadable or lists no files."""
    try:
        record = json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(record, dict) and isinstance(record.get("files"), list)
    return record if ok else None


def unrecorded(folder: Path, record: dict, name: str, files_only: bool = False) -> list[str]:
    """What `folder` holds that its record (in `folder/name`) does not list."""
    written = {str(path) for path in record["files"]} | {name}
    return [p for p in written_paths(folder, files_only) if p not in written]
