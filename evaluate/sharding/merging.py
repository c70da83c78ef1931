"""Merging a run folder of shards: one summary and manifest written for the whole run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ud_agree.atomic import write_json
from ud_agree.schemas.results import ITEM_KEY

from ..output.results import load_results, result_files
from ..output.store import check_run, merged_manifest
from ..summary.tables import summarize, write_summary


def merge_run(run: Path) -> dict[str, Any]:
    """Write the merged summary.csv, summary.md and manifest.json of a run folder of shards."""
    manifest = merged_manifest(check_run(run))
    summary = None
    if result_files(run):
        # Rows in item order: the merged rows are then the same rows, in the same order, whatever
        # the number of shards, and so is everything computed from them.
        rows = load_results(run).sort(list(ITEM_KEY), nulls_last=True)
        summary = summarize(rows)
        write_summary(summary, run, manifest)
    else:
        for stale in (run / "summary.csv", run / "summary.md"):
            stale.unlink(missing_ok=True)
    write_json(manifest, run / "manifest.json")
    return manifest
