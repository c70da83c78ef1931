"""The one loop that runs every task (corpus pairs, class-average items, suite files): hold the
folder → manifest → chunks → summary, with --resume, shards where they apply, and a machine fault
saying what is saved. `evaluate` runs a corpus run, `run_suites` a suite run's files."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ud_agree import __version__
from ud_agree.atomic import write_json
from ud_agree.errors import MachineError, UserError
from ud_agree.formats.problems import SuiteFormatError
from ud_agree.hold import hold
from ud_agree.schemas.manifests import RunManifest

from .backends import TokenScorer, open_backend, open_token_scorer, open_tokenizer
from .backends.spec import FREQUENCY, TINY_RANDOM, ModelSpec
from .corpus import Corpus, corpus_words, read_corpus
from .options import Options, UsageError, model_label, out_dir
from .output.store import SCHEMA_VERSION
from .output.writer import ChunkWriter, chunk_paths, prepare_folder, skip_done
from .plan import resolve_kind
from .readings.frequency import CountBaseline
from .sharding.spec import select_shard, shard_entry
from .tasks import Task
from .tasks.class_average import ClassAverage
from .tasks.corpus_pairs import PairReading
from .tasks.spec import Pace
from .tasks.suite_files import SuiteRun, blank_scorer, skip_reason, suite_task

# Called as load_scorer is: factory(model, **ModelSpec.loading()).
ScorerFactory = Callable[..., TokenScorer]


@dataclass
class Outcome:
    """What a run did: where it wrote, and the manifest it wrote."""

    out_dir: Path
    manifest: dict[str, Any]
    summary: pl.DataFrame | None = None
    counts: dict = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        """The run folder (a suite run's name for `out_dir`)."""
        return self.out_dir


def run_task(task: Task, folder: Path, resume: bool, started: float | None = None) -> Outcome:
    """The one loop: hold `folder`, open the task, write the manifest first (so that --resume can
    check it), score what is not done yet in chunks, summarize every chunk, finish the manifest."""
    started = time.time() if started is None else started
    with hold(folder):
        facts = task.open()
        done = task.prepare(folder, resume)
        base = {"schema_version": SCHEMA_VERSION, **task.manifest_base(facts)}
        write_json({**base, "complete": False}, folder / "manifest.json")
        timings = {"start-up": time.time() - started}
        try:
            timings.update(task.score(folder, done))
        except MachineError as error:
            raise error.saving(
                f"{task.saved(folder, done)} {task.unit} are saved in {folder}; free space (or "
                "fix the fault) and rerun with --resume"
            ) from None
        # Scoring: what the task's own stages (encoding) leave of the time since start-up.
        timings["scoring"] = time.time() - started - sum(timings.values())
        manifest, summary = task.finish(base, folder, time.time() - started)
        manifest["timings"] = {stage: round(seconds, 3) for stage, seconds in timings.items()}
        write_json(manifest, folder / "manifest.json")
    return Outcome(folder, manifest, summary, manifest.get("counts", {}))


def evaluate(options: Options, scorer: TokenScorer | None = None) -> Outcome:
    """Run one evaluation end to end and write results, manifest and summary (`scorer`: a
    sentence scorer standing in for the model in the pair reading, e.g. a test's oracle)."""
    started = time.time()
    # The corpus and the model's kind (read from its config: it decides the method and the
    # folder), checked before anything is loaded.
    corpus = read_corpus(options.corpus, options.lang, pairs=options.reading == "pair")
    options = resolve_kind(options, scorer)
    task = CorpusTask(options, corpus, scorer)
    return run_task(task, out_dir(options), options.resume, started)


def open_task(
    options: Options, corpus: Corpus, scorer: TokenScorer | None = None
) -> PairReading | ClassAverage:
    """The corpus task the options ask for, given its back-end (loaded when the task is ready)
    or, for the frequency baseline, the counts' reading."""
    spec = options.model_spec
    pace = Pace(options.chunk_size, options.progress)
    if options.reading == "pair":
        given = scorer

        def load() -> Any:
            if given is not None:
                return given
            if spec.model == FREQUENCY:
                return CountBaseline()  # the pair reading's baseline has no tokenizer
            return open_token_scorer(spec, vocabulary(spec, corpus))

        return PairReading(options.scoring, pace, corpus, load)
    if spec.model == FREQUENCY:
        tokenizer = None
        if spec.vocab_of:
            tokenizer = open_tokenizer(spec.vocab_of, spec.trust_remote_code)
        return ClassAverage(
            options.item_choice, corpus, CountBaseline(tokenizer, chunk_size=spec.chunk_size)
        )
    return ClassAverage(options.item_choice, corpus, open_backend(spec, vocabulary(spec, corpus)))


def vocabulary(spec: ModelSpec, corpus: Corpus) -> set[str]:
    """The words a `tiny-random` model's vocabulary is built of: the corpus's; none for others."""
    return corpus_words(corpus) if spec.model == TINY_RANDOM else set()


class CorpusTask:
    """A corpus run's task (pairs or class-average items) bound to its options: --limit, the
    shard, the corpus's manifest, and the corpus run's manifest and summary."""

    unit = "items"

    def __init__(self, options: Options, corpus: Corpus, scorer: TokenScorer | None) -> None:
        self.options, self.corpus, self.scorer = options, corpus, scorer
        self.writer: ChunkWriter | None = None

    def open(self) -> dict[str, Any]:
        """The task's items (the first --limit, this shard's), the model loaded: its facts."""
        options = self.options
        self.reading = open_task(options, self.corpus, self.scorer)
        items, counts = self.reading.items()
        if options.limit is not None:
            items = items.head(options.limit)
        # The split comes after --limit: the shards of a limited run are that run, split up.
        # Counts made so far are the whole run's in every shard.
        self.whole_run_counts = list(counts)
        items = select_shard(items, options.shard)
        counts["items_eligible"] = items.height
        if not items.height and options.shard is None and not options.resume:
            raise NothingToScore(
                f"nothing to score for {options.lang}: {why_none(counts, options.min_candidates)}"
            )
        self.items, self.counts = items, counts
        return self.reading.ready()

    def prepare(self, folder: Path, resume: bool) -> pl.DataFrame | None:
        """The folder made fresh, or under --resume checked: the keys of the items it holds."""
        return prepare_folder(folder, self.options.run_output, self.corpus.manifest_sha256)

    def manifest_base(self, facts: dict[str, Any]) -> dict[str, Any]:
        """What the run is, its shard's place in the whole run included."""
        base = manifest_base(self.options, self.corpus.manifest_sha256, facts)
        base.update(shard_entry(self.options.shard, self.whole_run_counts))  # type: ignore[typeddict-item]
        return dict(base)

    def score(self, folder: Path, done: pl.DataFrame | None) -> dict[str, float]:
        """Encode, leave out what an earlier run already scored, score in chunks; the seconds
        spent encoding."""
        reading, counts = self.reading, self.counts
        started = time.time()
        items, encoded, counts["windowed"] = reading.encode(self.items)
        encoding = time.time() - started
        items, keep, counts["resumed_already_done"] = skip_done(items, done)
        if keep is not None:
            encoded = reading.subset(encoded, keep)
        self.writer = writer = ChunkWriter(folder, self.options.run_output)
        if items.height:
            counts.update(reading.score(items, encoded, writer))
        counts["items_scored_now"] = writer.written
        counts["forward_inputs"] = writer.forwards
        return {"encoding": encoding}

    def saved(self, folder: Path, done: pl.DataFrame | None) -> int:
        """Items of an earlier run and those written now."""
        written = 0 if self.writer is None else self.writer.written
        return (len(done) if done is not None else 0) + written

    def finish(
        self, base: dict[str, Any], folder: Path, seconds: float
    ) -> tuple[dict[str, Any], pl.DataFrame | None]:
        """The summary over every chunk of the folder, and the finished manifest."""
        from .summary.tables import summarize, write_summary

        options, counts = self.options, self.counts
        paths = chunk_paths(folder)
        results = pl.scan_parquet(paths) if paths else None
        counts["items_in_results"] = (
            0 if results is None else results.select(pl.len()).collect().item()
        )
        if not counts["items_in_results"] and options.shard is None:
            raise NothingToScore(
                f"nothing scored in {folder}: {why_none(counts, options.min_candidates)}"
            )
        written = 0 if self.writer is None else self.writer.written
        manifest: dict[str, Any] = {
            **base,
            "complete": True,
            "counts": counts,
            # Without the miner's space_after column words are joined by spaces (l' armoire).
            "space_after_missing": "space_after" not in self.corpus.sentences.columns,
            **self.reading.extra,
            "seconds": round(seconds, 3),
            "items_per_second": round(written / seconds, 3) if seconds and written else None,
        }
        summary = None
        if results is not None:
            summary = summarize(results)
            write_summary(summary, folder, manifest)
        return manifest, summary


class NothingToScore(UsageError):
    """A run whose every item is skipped or left out: exit 2, never an empty 'result'."""


def why_none(counts: dict[str, Any], min_candidates: int | None = None) -> str:
    """The skip counts of a run with no item, in words, and the option that would keep the items
    skipped for too few candidates."""
    # Skip reasons are hyphenated (too-few-candidates, too-long…); other counts are not.
    skipped = [f"{k} {v}" for k, v in counts.items() if "-" in k and isinstance(v, int) and v]
    fix = ""
    if counts.get("too-few-candidates") and min_candidates is not None:
        fix = (
            f"; an item needs {min_candidates} correct and {min_candidates} incorrect "
            f"candidates (--min-candidates {min_candidates}): pass a lower --min-candidates to "
            "keep more"
        )
    return "0 eligible items" + (f" (skipped: {', '.join(skipped)})" if skipped else "") + fix


def run_suites(
    run: SuiteRun,
    scorer_factory: ScorerFactory | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[Outcome]:
    """Score every suite file of `run` with the one loop; malformed lines go to `warn` (stderr by
    default)."""
    from .output.chunks import clear_folder
    from .output.suites import other_file
    from .sources.files import pair_files, read_suite

    warn = warn or (lambda message: print(message, file=sys.stderr))
    # 1. Read every file first: a bad file or, under --strict, a malformed line stops the run
    # before a model is loaded.
    paths = [path for f in run.files for path in pair_files(Path(f))]
    for path in paths:
        if not path.is_file():
            raise SuiteFormatError(f"no such suite file: {path}")
    suites = [
        read_suite(
            path,
            suite=name,
            fmt=run.format,
            good=run.good,
            bad=run.bad,
            condition=run.condition,
            strict=run.strict,
        )
        for path, name in zip(paths, suite_names(paths), strict=True)
    ]
    for suite in suites:
        for entry in suite.malformed:
            warn(f"{entry}")
    # A suite with nothing to score is skipped whole, with its reason, and gets no folder.
    skipped = [suite for suite in suites if suite.size == 0]
    for suite in skipped:
        warn(f"{suite.path}: suite skipped whole: {skip_reason(suite)}")
    suites = [suite for suite in suites if suite.size > 0]
    if not suites:
        raise SuiteFormatError(
            f"nothing to score: {skipped[0].path} skipped whole ({skip_reason(skipped[0])})"
        )
    # 2. Every results folder free and writable before the model loads (held again to score),
    # and none holding the results of another file of the same name: they would be replaced.
    for suite in suites:
        folder = run.folder(suite.name)
        other = other_file(folder, suite.path)
        if other is not None and not run.force:
            raise UserError(
                f"{folder} holds the results of {other}, not of {suite.path}: give this run "
                "another --out, or --force to clear that folder"
            )
        with hold(folder) as held:
            if other is not None:
                clear_folder(folder, keep=held)
    # 3. One scorer for every suite.
    scorer = load_suite_scorer(run, scorer_factory)
    return [
        run_task(
            suite_task(suite, blank_scorer(suite, scorer), run), run.folder(suite.name), run.resume
        )
        for suite in suites
    ]


def suite_names(paths: list[Path]) -> list[str]:
    """Each file's stem; files that share a stem are told apart by their folder (`fra-data`)."""
    from collections import Counter

    stems = Counter(p.stem for p in paths)
    names = [f"{p.parent.name}-{p.stem}" if stems[p.stem] > 1 else p.stem for p in paths]
    repeated = [n for n, k in Counter(names).items() if k > 1]
    if repeated:
        raise UserError(f"two suite files would share the results folder of '{repeated[0]}'")
    return names


def load_suite_scorer(run: SuiteRun, factory: ScorerFactory | None) -> TokenScorer:
    """The scorer of the run's model (missing torch is a one-line error)."""
    if factory is None:
        from .backends import load_scorer

        factory = load_scorer
    m = run.model
    try:
        return factory(m.model, **m.loading())
    except ImportError as error:
        raise UserError(f"{error}; install with pip install 'ud-agree[evaluate]'") from None


def manifest_base(options: Options, corpus_sha: str | None, facts: dict[str, Any]) -> RunManifest:
    """What a run was: tool, options, model, corpus, and the back-end's facts."""
    model_path = Path(options.model)
    return {
        "tool": "ud-agree evaluate",
        "tool_version": __version__,
        "options": {k: v for k, v in options.as_record().items() if k != "progress"},
        "method": options.method,
        "model": model_label(options),
        "reading": options.reading,
        "random_weights": facts.get("random_weights", False),
        "model_family": facts.get("model_family"),
        "window_tokens": facts.get("window_tokens"),
        "device": facts.get("device"),
        "scorer": facts,
        "corpus": str(Path(options.corpus).resolve() / options.lang),
        "corpus_manifest_sha256": corpus_sha,
        "model_path": str(model_path.resolve()) if model_path.exists() else None,
    }
