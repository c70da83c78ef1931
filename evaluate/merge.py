"""Merge sharded runs: ``python -m evaluate.merge RESULTS`` checks every set of shards under
RESULTS (a results root, a language folder or one run folder) and writes each run's merged
summary.csv, summary.md and manifest.json beside its shard folders (`merge_run`: one run)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ud_agree.atomic import write_json
from ud_agree.errors import OneLineParser, UserError, run_main
from ud_agree.schemas.results import ITEM_KEY

from .output.results import load_results, result_files
from .output.store import check_run, merged_manifest, sharded_runs
from .sharding.spec import ShardError
from .summary.tables import summarize, write_summary


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


def merge_all(root: Path) -> tuple[list[Path], list[str]]:
    """Merge every whole set of shards under `root`: the runs merged, and why the others were not."""
    if not root.is_dir():
        raise UserError(f"no such results folder: {root}")
    runs = sharded_runs(root)
    if not runs:
        raise UserError(f"no sharded runs (shard-K-of-N folders) under {root}")
    merged, problems = [], []
    for run in runs:
        try:
            merge_run(run)
        except ShardError as error:  # one broken run does not keep the others from merging
            problems.append(str(error))
        else:
            merged.append(run)
    return merged, problems


def main(argv: Sequence[str] | None = None, prog: str = "python -m evaluate.merge") -> int:
    """Command line: the merged runs on stdout; exit 2 with one line when a set cannot be merged."""
    parser = OneLineParser(
        prog=prog,
        description="Merge sharded runs: check every set of shards under RESULTS and write each "
        "run's merged summary and manifest beside its shard folders.",
    )
    parser.add_argument("results", help="results folder holding sharded runs (any level)")
    args = parser.parse_args(argv)

    def body() -> int:
        merged, problems = merge_all(Path(args.results))
        for run in merged:
            print(f"merged: {run}")
        if problems:
            more = f" ({len(problems) - 1} more runs not merged)" if len(problems) > 1 else ""
            raise ShardError(problems[0] + more)
        return 0

    return run_main(body)


if __name__ == "__main__":
    sys.exit(main())
