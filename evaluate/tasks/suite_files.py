"""Peers' suite files as a task (DESIGN.md §7): a suite's pairs (SyntaxGym: items) scored in
chunks and decided by the run's rule; the model it is given is any token scorer."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
import polars as pl
from tqdm import tqdm

from ud_agree import __version__
from ud_agree.atomic import write_csv
from ud_agree.errors import UserError
from ud_agree.formats.problems import Malformed

from ..backends.api import TokenScorer
from ..backends.spec import ModelSpec, safe_name
from ..output.suites import chunk_paths, file_sha256, prepare_folder, result_table, write_chunk
from ..readings.pair_scores import pair_scores
from ..sources.files import PairSuite
from ..sources.syntaxgym import GymSuite
from ..summary.suites import empty_summary, summarize_suite
from .pair_chunks import row_chunks, score_pair_chunks
from .spec import Pace, Scoring
from .syntaxgym import score_items

SUITE_TOOL = "ud-agree evaluate.suite"  # manifests' `tool`


class SuiteFile(Protocol):
    """What a task asks of any suite as read: its name, file, layout and malformed lines."""

    name: str
    path: Path
    format: str
    malformed: list[Malformed]

    @property
    def size(self) -> int:
        """How many pairs (items) were read."""
        ...


@dataclass(frozen=True)
class SuiteRun:
    """A `python -m evaluate.suite` run, resolved once (evaluate.options.suite_run builds and
    checks it): the files and how to read them, the model, how pairs are decided, where results go."""

    files: tuple[str, ...]
    model: ModelSpec
    format: str | None = None  # None: detected per file
    good: str | None = None
    bad: str | None = None
    condition: str | None = None
    strict: bool = False
    scoring: Scoring = field(default_factory=Scoring)
    pace: Pace = field(default_factory=Pace)
    out: str = "results"
    resume: bool = False
    force: bool = False  # a folder holding another file's (or a corpus's) results is cleared

    def record(self) -> dict[str, Any]:
        """The options as a suite manifest writes them."""
        m, s = self.model, self.scoring
        return {
            "model": m.model,
            "format": self.format,
            "good": self.good,
            "bad": self.bad,
            "condition": self.condition,
            "pll": m.pll,
            "device": m.device,
            "batch_size": m.batch_size,
            "max_tokens": m.max_tokens,
            "dtype": m.dtype,
            "out": self.out,
            "resume": self.resume,
            "strict": self.strict,
            "chunk_size": self.pace.chunk_size,
            "rule": s.rule,
            "rules": list(s.rules),
            "leading_space": s.leading_space,
        }

    def folder(self, suite: str) -> Path:
        """`<out>/<suite>/<model>`, as a corpus run's `<out>/<lang>/<model>[__<reading>]`."""
        return run_folder(self.out, suite, self.model.model)


class SuiteTask:
    """One suite file of a run: its pairs (items) not yet scored, scored chunk by chunk; a pair
    file (`PairFileTask`) and a SyntaxGym suite (`GymTask`) differ only in what they score."""

    unit = "pairs"

    def __init__(self, suite: SuiteFile, scorer: TokenScorer, run: SuiteRun) -> None:
        self.suite, self.scorer, self.run = suite, scorer, run
        self.skipped: Counter = Counter(getattr(suite, "skipped", {}))
        self.done: set[str] = set()
        self.written = 0
        self.settings = {
            "model": run.model.model,
            "pll": run.model.pll,
            "format": suite.format,
            "good": run.good,
            "bad": run.bad,
            "condition": run.condition,
            "input_sha256": file_sha256(suite.path),
            "rule": run.scoring.rule,
            "rules": list(run.scoring.rules),
            "leading_space": run.scoring.leading_space,
        }

    def ids(self) -> list[str]:
        """The ids of what the suite scores (pairs; SyntaxGym: item numbers)."""
        raise NotImplementedError

    def predictions(self) -> list[str] | None:
        """The formulas a SyntaxGym suite tests (None for pairs)."""
        return None

    def score_pending(self, folder: Path) -> int:
        """Score what `self.done` lacks into `folder`, chunk by chunk: how many were written."""
        raise NotImplementedError

    def open(self) -> dict[str, Any]:
        """The suite was read before the model loaded: the scorer's facts."""
        return self.scorer.facts()

    def prepare(self, folder: Path, resume: bool) -> set[str]:
        """The folder made (old chunks gone), or under --resume checked: the pair ids it holds."""
        self.done = prepare_folder(folder, self.settings, resume)
        return self.done

    def manifest_base(self, facts: dict[str, Any]) -> dict[str, Any]:
        """What a suite run was: tool, options, the suite file, the scorer and its facts."""
        suite = self.suite
        return {
            "tool": SUITE_TOOL,
            "tool_version": __version__,
            "suite": suite.name,
            "file": str(suite.path.resolve()),
            "format": suite.format,
            "settings": self.settings,
            "options": self.run.record(),
            "model": self.scorer.name,
            "method": self.scorer.method,
            "scorer": facts,
            "predictions": self.predictions(),
        }

    def score(self, folder: Path, done: set[str]) -> dict[str, float]:
        """Score what no chunk holds yet, one chunk at a time (no stage of its own to time)."""
        self.written = self.score_pending(folder)
        return {}

    def saved(self, folder: Path, done: set[str]) -> int:
        """Pairs the folder holds when a fault stops the run."""
        return len(done & set(self.ids())) + error_written(folder, done)

    def write(self, frame: pl.DataFrame, folder: Path) -> None:
        """Scored rows as the folder's next chunk."""
        write_chunk(result_table(frame, self.scorer.name, self.scorer.method), folder)

    def finish(
        self, base: dict[str, Any], folder: Path, seconds: float
    ) -> tuple[dict[str, Any], pl.DataFrame]:
        """The summary over every chunk of the folder, written, and the finished manifest."""
        suite, done = self.suite, self.done
        paths = chunk_paths(folder)
        results = pl.scan_parquet(paths) if paths else None
        summary = (
            summarize_suite(results, rule=self.run.scoring.rule)
            if results is not None
            else empty_summary()
        )
        if results is not None:
            write_csv(summary, folder / "summary.csv")
        in_results = 0 if results is None else results.select("pair_id").unique().collect().height
        counts = {
            "read": suite.size,
            "malformed": len(suite.malformed),
            "resumed_already_done": len(done & set(self.ids())),
            "scored_now": self.written,
            "in_results": in_results,
            # §5.1: pairs whose `right` has no value (a null ingredient of the rule): not wrong.
            "undecided": 0
            if results is None
            else results.filter(pl.col("right").is_null()).select(pl.len()).collect().item(),
            "skipped": dict(self.skipped),
        }
        if not in_results:
            window = self.scorer.facts().get("window_tokens")
            raise UserError(
                f"nothing scored in {suite.path}: skipped "
                f"{skip_line(self.skipped, window) or 'none'}"
            )
        manifest = {
            **base,
            "complete": True,
            "counts": counts,
            "malformed": [str(m) for m in suite.malformed],
            "seconds": round(seconds, 3),
        }
        return manifest, summary


class PairFileTask(SuiteTask):
    """A peer's file of minimal pairs, scored by the pair reading in its one chunk loop."""

    suite: PairSuite

    def ids(self) -> list[str]:
        return self.suite.pairs["pair_id"].to_list()

    def score_pending(self, folder: Path) -> int:
        pairs = self.suite.pairs.filter(~pl.col("pair_id").is_in(sorted(self.done)))
        scorer, scoring = self.scorer, self.run.scoring
        written = 0

        def score(chunk: pl.DataFrame) -> dict[str, pl.Series]:
            return pair_scores(scorer, chunk, scoring.rule, scoring.leading_space)

        def write(rows: np.ndarray, columns: dict[str, pl.Series]) -> None:
            nonlocal written
            self.write(pairs[rows].with_columns(*columns.values()), folder)
            written += len(rows)

        counts = score_pair_chunks(
            pairs,
            row_chunks(pairs.height, self.run.pace.chunk_size),
            score,
            write,
            scorer.tokenizer,
            scoring.leading_space,
            f"right_{scoring.rule}",
            {"desc": self.suite.name, "leave": False, "disable": progress_off(self.run)},
        )
        # Identical pairs were counted as the file was read; undecided ones are in the results.
        if counts["same-tokens"]:
            self.skipped["same-tokens"] += counts["same-tokens"]
        if pairs.height:
            self.skipped["too-long"] += counts["too-long"]
        return written


class GymTask(SuiteTask):
    """A SyntaxGym suite: each item's regions scored, each prediction tested."""

    suite: GymSuite

    def ids(self) -> list[str]:
        return [str(item.number) for item in self.suite.items]

    def predictions(self) -> list[str] | None:
        return [p.formula for p in self.suite.predictions]

    def score_pending(self, folder: Path) -> int:
        suite = self.suite
        if not suite.predictions:  # nothing to evaluate (each bad prediction was reported)
            return 0
        todo = [item for item in suite.items if str(item.number) not in self.done]
        size = self.run.pace.chunk_size
        written = 0
        steps = range(0, len(todo), size)
        bar = tqdm(
            steps, desc=suite.name, unit="chunk", file=sys.stderr, leave=False,
            disable=progress_off(self.run),
        )  # fmt: skip
        for start in bar:
            frame = pl.DataFrame(score_items(suite, todo[start : start + size], self.scorer))
            kept = frame.filter(pl.col("finite").fill_null(False)).drop("finite")
            scored = kept["pair_id"].n_unique() if kept.height else 0
            # An item the model cannot score (longer than its window: no finite score).
            self.skipped["too-long"] += frame["pair_id"].n_unique() - scored
            if kept.height:
                self.write(kept, folder)
            written += scored
        return written


# Each suite as read (`sources/files.read_suite`) → the task that scores it, one row each.
TASKS: dict[type, type[SuiteTask]] = {PairSuite: PairFileTask, GymSuite: GymTask}


def suite_task(suite: SuiteFile, scorer: TokenScorer, run: SuiteRun) -> SuiteTask:
    """The task of one suite file of a run."""
    return TASKS.get(type(suite), PairFileTask)(suite, scorer, run)


def progress_off(run: SuiteRun) -> bool | None:
    """tqdm's `disable`: None shows a bar on a terminal only."""
    return None if run.pace.progress else True


def run_folder(out: str | Path, suite: str, model: str) -> Path:
    """`<out>/<suite>/<model-safe-name>`: the results layout of every run (a corpus run's is
    `<out>/<lang>/<model>[__<reading>]`)."""
    return Path(out) / suite / safe_name(model)


def blank_scorer(suite: SuiteFile, scorer: TokenScorer) -> TokenScorer:
    """§7: gevalm's blank is the varied word, so a masked LM scores its word PLL there (the
    paper's own measure for a one-token word), whatever `--pll` says for whole sentences."""
    if suite.format != "gevalm" or not scorer.method.startswith("pll-"):
        return scorer
    with_pll = getattr(scorer, "with_pll", None)  # a masked LM's PLL scorer
    return scorer if with_pll is None else cast(TokenScorer, with_pll("word"))


def skip_reason(suite: SuiteFile) -> str:
    """Why a suite has nothing to score: its first malformed line's reason, the pairs skipped as
    undecidable, no prediction to test, else it is empty."""
    if suite.malformed:
        return suite.malformed[0].reason
    if isinstance(suite, PairSuite) and suite.skipped:
        return "every pair skipped: " + ", ".join(f"{k} {v}" for k, v in suite.skipped.items())
    if isinstance(suite, GymSuite) and suite.items:
        return "no prediction to test"
    return "no pairs in it"


def skip_line(skipped: dict[str, int], window: int | None) -> str:
    """The pairs skipped as undecidable, by reason (`too-long` says the model's window)."""
    limit = f" (longer than the model's window of {window} tokens)" if window else ""
    return ", ".join(
        f"{reason} {n}" + (limit if reason == "too-long" else "")
        for reason, n in sorted(skipped.items())
        if n
    )


def error_written(folder: Path, done: set[str]) -> int:
    """Pairs the chunks of `folder` hold beyond those done before this run."""
    paths = chunk_paths(folder)
    if not paths:
        return 0
    held = set(pl.scan_parquet(paths).select("pair_id").unique().collect()["pair_id"].to_list())
    return len(held - done)
