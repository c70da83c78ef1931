"""Many evaluations on a Ray cluster: ``python -m evaluate.cluster [--ray ADDRESS] --lang fr de
--model M1 M2 [--reading class-average pair] --shards 32 [evaluate options…]``.

One Ray task per (language, model, reading, shard), one GPU each when the cluster has GPUs. A
failed task is retried; every task resumes its shard (`--resume`), so rerunning the command after
a crash scores only what is missing. Each run whose shards all finished is then merged
(evaluate.merge). Corpus and results must lie on a file system that every node sees.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypedDict

from ud_agree.errors import OneLineParser, UserError, run_main, tool_command

from .merge import merge_run
from .options import CHOICES, Options, UsageError
from .plan import run_folder
from .sharding.spec import Shard, ShardError

READINGS = CHOICES["reading"]
# Set by the driver for every task: a user's own would split or resume runs behind its back.
DRIVER_OPTIONS = ("--shard", "--resume")


@dataclass(frozen=True)
class Task:
    """One shard of one run: the checked evaluator options that score it."""

    options: Options

    def __str__(self) -> str:
        o = self.options
        return f"{o.lang} {o.model} {o.reading} shard {o.shard}"


class TaskReport(TypedDict, total=False):
    """What a worker sends back: its shard folder and counts, or the one-line error that stopped it."""

    out_dir: str
    scored: int
    resumed: int
    error: str


def parser(prog: str = "python -m evaluate.cluster") -> argparse.ArgumentParser:
    """The driver's own options; any other option goes to every evaluator run."""
    p = OneLineParser(
        prog=prog,
        allow_abbrev=False,  # an abbreviation of an evaluator option must not be taken for ours
        description="Many evaluations on a Ray cluster: every language × model × reading, each "
        "run cut into shards that resume, then merged.",
        epilog="Other options (--mask, --device, --dtype, --max-tokens, …) are passed to every "
        f"{tool_command(prog, 'evaluate')} run.",
    )
    p.add_argument(
        "--ray", metavar="ADDRESS", help="an existing Ray cluster (default: start a local one)"
    )
    p.add_argument(
        "--lang", nargs="+", required=True, help="languages of the corpus; 'all': every one"
    )
    p.add_argument(
        "--model",
        nargs="+",
        required=True,
        help=f"models, as {tool_command(prog, 'evaluate')} takes them",
    )
    p.add_argument(
        "--reading",
        nargs="+",
        choices=READINGS,
        default=["class-average"],
        help="readings (default: class-average)",
    )
    p.add_argument("--shards", type=int, default=1, help="shards per run (default: 1)")
    p.add_argument("--corpus", default="corpus", help="the miner's output folder (default: corpus)")
    p.add_argument("--out", default="results", help="results folder (default: results)")
    p.add_argument(
        "--max-retries", type=int, default=3, help="retries of a failed task (default: 3)"
    )
    return p


def plan(args: argparse.Namespace, extra: Sequence[str]) -> list[Task]:
    """Every task: the evaluator's plan of runs (evaluate.plan), checked here rather than on a
    worker, each run cut into shards that resume."""
    from .cli import options_from
    from .cli import parser as evaluate_parser

    if args.shards < 1 or args.max_retries < 0:
        raise UsageError("--shards must be ≥ 1 and --max-retries ≥ 0")
    taken = [a for a in extra if a.split("=", 1)[0] in DRIVER_OPTIONS]
    if taken:
        raise UsageError(f"{taken[0].split('=')[0]} is set by the cluster driver; leave it out")
    # Workers may start in another folder: they get absolute paths (a local model's too).
    models = [str(Path(m).resolve()) if Path(m).is_dir() else m for m in args.model]
    argv = ["--lang", *args.lang, "--model", *models, "--reading", *args.reading]
    argv += ["--corpus", str(Path(args.corpus).resolve()), "--out", str(Path(args.out).resolve())]
    runs = options_from(evaluate_parser().parse_args([*argv, *extra]))
    return [
        Task(replace(run, shard=Shard(index, args.shards), resume=True, progress=False))
        for run in runs
        for index in range(args.shards)
    ]


def task_options(resources: dict[str, float], max_retries: int) -> dict[str, Any]:
    """Ray options of every task: one GPU each only when the cluster has GPUs; retries."""
    options: dict[str, Any] = {"max_retries": max_retries, "retry_exceptions": True}
    if resources.get("GPU", 0) > 0:
        options["num_gpus"] = 1
    return options


def run_task(options: Options) -> TaskReport:
    """Score one shard (on a Ray worker): what it did, or the user error that stopped it."""
    from .run import evaluate

    try:
        outcome = evaluate(options)
    except UserError as error:  # input or options: a retry would fail the same way
        return {"error": str(error).splitlines()[0] if str(error) else type(error).__name__}
    return {
        "out_dir": str(outcome.out_dir),
        "scored": outcome.counts.get("items_scored_now", 0),
        "resumed": outcome.counts.get("resumed_already_done", 0),
    }


def import_ray() -> Any:
    """Ray, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise UserError(
            "ray is not installed: pip install 'ud-agree[cluster]' (or pip install ray)"
        ) from None
    return ray


def submit(ray: Any, tasks: list[Task], max_retries: int) -> dict[Task, TaskReport]:
    """Run every task on the cluster; each one's report, printed as it finishes."""
    remote = ray.remote(run_task).options(**task_options(ray.cluster_resources(), max_retries))
    pending = {remote.remote(task.options): task for task in tasks}
    reports: dict[Task, TaskReport] = {}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        task = pending.pop(done[0])
        try:
            report = ray.get(done[0])
        except ray.exceptions.RayError as error:  # retries spent, or the node is gone
            lines = str(error).strip().splitlines() or [type(error).__name__]
            report = {"error": lines[-1]}
        reports[task] = report
        if "error" in report:
            print(f"failed: {task}: {report['error']}", flush=True)
        else:
            print(
                f"done: {task}: {report['scored']} items scored, {report['resumed']} already done",
                flush=True,
            )
    return reports


def merge_finished(reports: dict[Task, TaskReport]) -> list[str]:
    """Merge every run whose shards all finished; the problems met, one line each."""
    runs: dict[Path, list[Task]] = {}
    for task in reports:
        runs.setdefault(run_folder(task.options), []).append(task)
    problems = []
    for run, tasks in runs.items():
        failed = [t for t in tasks if "error" in reports[t]]
        if failed:
            problems.append(
                f"{failed[0]}: {reports[failed[0]]['error']}; rerun the same command: "
                "finished shards are kept"
            )
            continue
        try:
            merge_run(run)
        except ShardError as error:  # e.g. stale shards of another --shards in the same folder
            problems.append(str(error))
        else:
            print(f"merged: {run}", flush=True)
    return problems


def main(argv: Sequence[str] | None = None, prog: str = "python -m evaluate.cluster") -> int:
    """Command line: exit 0 when every run was scored and merged, else 2 with one line."""
    args, extra = parser(prog).parse_known_args(argv)

    def body() -> int:
        tasks = plan(args, extra)
        ray = import_ray()
        started = not ray.is_initialized()
        if started:  # a caller (a notebook, a test) may have connected already
            ray.init(address=args.ray)
        try:
            problems = merge_finished(submit(ray, tasks, args.max_retries))
        finally:
            if started:
                ray.shutdown()
        if problems:
            more = f" ({len(problems) - 1} more runs not merged)" if len(problems) > 1 else ""
            raise UserError(problems[0] + more)
        return 0

    return run_main(body, "interrupted: finished chunks are kept; rerun the same command")


if __name__ == "__main__":
    sys.exit(main())
