"""Peers' suite files as a task (DESIGN.md §7): a suite's pairs (SyntaxGym: items) scored in
chunks and decided by the run's rule; the model it is given is any token scorer."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import polars as pl
from tqdm import tqdm

from ud_agree import __version__
from ud_agree.atomic import write_csv
from ud_agree.errors import UserError

from ..backends.api import TokenScorer
from ..backends.spec import ModelSpec
from ..readings.pair_scores import pair_scores
from ..readings.token_sums import same_tokens
from ..suites.output import (
    chunk_paths,
    file_sha256,
    prepare_folder,
    result_table,
    run_folder,
    write_chunk,
)
from ..suites.read import PairSuite
from ..suites.summary import empty_summary, summarize_suite
from ..suites.syntaxgym import GymSuite, Item, score_items
from .spec import Pace, Scoring

SUITE_TOOL = "ud-agree evaluate.suite"  # manifests' `tool`


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
        """`<out>/suites/<suite>/<model>`."""
        return run_folder(self.out, suite, self.model.model)


class SuiteTask:
    """One suite file of a run: its pairs (items) not yet scored, scored chunk by chunk."""

    unit = "pairs"

    def __init__(self, suite: PairSuite | GymSuite, scorer: TokenScorer, run: SuiteRun) -> None:
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
            "predictions": [p.formula for p in suite.predictions]
            if isinstance(suite, GymSuite)
            else None,
        }

    def score(self, folder: Path, done: set[str]) -> dict[str, float]:
        """Score what no chunk holds yet, one chunk at a time (no stage of its own to time)."""
        self.written = score_chunks(
            self.suite, pending(self.suite, done), self.scorer, folder, self.run, self.skipped
        )
        return {}

    def saved(self, folder: Path, done: set[str]) -> int:
        """Pairs the folder holds when a fault stops the run."""
        return len(done & set(ids(self.suite))) + error_written(folder, done)

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
            "resumed_already_done": len(done & set(ids(suite))),
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


def blank_scorer(suite: PairSuite | GymSuite, scorer: TokenScorer) -> TokenScorer:
    """§7: gevalm's blank is the varied word, so a masked LM scores its word PLL there (the
    paper's own measure for a one-token word), whatever `--pll` says for whole sentences."""
    if suite.format != "gevalm" or not scorer.method.startswith("pll-"):
        return scorer
    with_pll = getattr(scorer, "with_pll", None)  # a masked LM's PLL scorer
    return scorer if with_pll is None else cast(TokenScorer, with_pll("word"))


def skip_reason(suite: PairSuite | GymSuite) -> str:
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


def score_chunks(
    suite: PairSuite | GymSuite,
    todo: pl.DataFrame | list[Item],
    scorer: TokenScorer,
    folder: Path,
    run: SuiteRun,
    skipped: Counter | None = None,
) -> int:
    """Score `todo` (a pair suite's frame, a SyntaxGym suite's items) in chunks of the run's
    chunk size, each written as it is done; how many. A pair or item the model cannot score (a
    sentence longer than its window: no finite score) is counted in `skipped` under `too-long`,
    never written."""
    skipped = Counter() if skipped is None else skipped
    size, scoring = run.pace.chunk_size, run.scoring
    steps = range(0, len(todo), size)
    disable = None if run.pace.progress else True  # None: a bar only on a terminal
    written = 0
    bar = tqdm(steps, desc=suite.name, unit="chunk", file=sys.stderr, leave=False, disable=disable)
    for start in bar:
        chunk = todo[start : start + size]
        # The kind of `todo` follows the suite's: narrowed by hand, as a checker cannot pair them.
        if isinstance(suite, PairSuite):
            pairs = cast(pl.DataFrame, chunk)
            space = " " if scoring.leading_space else ""
            alike = same_tokens(
                scorer.tokenizer,
                [space + t for t in pairs["sentence_good"].to_list()],
                [space + t for t in pairs["sentence_bad"].to_list()],
            )
            if alike.any():  # sentences the tokenizer makes one: skipped, counted apart
                skipped["same-tokens"] += int(alike.sum())
                pairs = pairs.filter(pl.Series(~alike))
                if not pairs.height:
                    continue
            scores = pair_scores(scorer, pairs, scoring.rule, scoring.leading_space)
            frame = pairs.with_columns(*scores.values())
            finite = pl.col("score_good").is_finite() & pl.col("score_bad").is_finite()
        else:
            frame = pl.DataFrame(score_items(suite, cast("list[Item]", chunk), scorer))
            finite = pl.col("finite")
        kept = frame.filter(finite.fill_null(False)).drop("finite", strict=False)
        skipped["too-long"] += frame["pair_id"].n_unique() - (
            kept["pair_id"].n_unique() if kept.height else 0
        )
        if kept.height:
            write_chunk(result_table(kept, scorer.name, scorer.method), folder)
        written += kept["pair_id"].n_unique() if kept.height else 0
    return written


def error_written(folder: Path, done: set[str]) -> int:
    """Pairs the chunks of `folder` hold beyond those done before this run."""
    paths = chunk_paths(folder)
    if not paths:
        return 0
    held = set(pl.scan_parquet(paths).select("pair_id").unique().collect()["pair_id"].to_list())
    return len(held - done)


def ids(suite: PairSuite | GymSuite) -> list[str]:
    """The pair ids (SyntaxGym: item numbers) of a suite as read."""
    if isinstance(suite, PairSuite):
        return suite.pairs["pair_id"].to_list()
    return [str(item.number) for item in suite.items]


def pending(suite: PairSuite | GymSuite, done: set[str]) -> pl.DataFrame | list[Item]:
    """The pairs (SyntaxGym: items) that no chunk of the folder holds yet."""
    if isinstance(suite, PairSuite):
        return suite.pairs.filter(~pl.col("pair_id").is_in(sorted(done)))
    if not suite.predictions:  # nothing to evaluate (each bad prediction was reported)
        return []
    return [item for item in suite.items if str(item.number) not in done]
