"""Scoring peers' suites, stage by stage: read every file → load the scorer → per suite: folder,
score in chunks, summary, manifest (DESIGN.md §7)."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import polars as pl
from tqdm import tqdm

from ud_agree import __version__
from ud_agree.atomic import write_csv, write_json
from ud_agree.errors import MachineError, UserError
from ud_agree.formats.problems import SuiteFormatError
from ud_agree.hold import hold

from ..backends.api import TokenScorer
from ..options import FREQUENCY
from ..readings.sums import same_tokens
from .output import (
    chunk_paths,
    file_sha256,
    prepare_folder,
    result_table,
    run_folder,
    write_chunk,
)
from .read import PairSuite, read_suite
from .score import score_pairs
from .summary import empty_summary, summarize_suite
from .syntaxgym import GymSuite, Item, score_items

# Called as load_scorer is: factory(model, pll=…, device=…, batch_size=…, max_tokens=…, dtype=…).
ScorerFactory = Callable[..., TokenScorer]


@dataclass
class SuiteOptions:
    """Everything a `python -m evaluate.suite` run depends on; the CLI fills it, tests build it."""

    files: list[str]
    model: str
    format: str | None = None  # None: detected per file
    good: str | None = None
    bad: str | None = None
    condition: str | None = None
    pll: str = "sentence"
    device: str = "auto"
    batch_size: int = 32
    max_tokens: int | None = None  # token budget per batch
    dtype: str = "float32"  # float32 | bfloat16 | float16 (autocast)
    out: str = "results"
    resume: bool = False
    strict: bool = False
    chunk_size: int = 4096  # pairs (SyntaxGym: items) per results chunk
    progress: bool = True
    rule: str = "sum"  # §5.1: the rule deciding `right` of pairs
    rules: tuple[str, ...] = ()  # extra rules whose values cost work (`minicons`)
    leading_space: bool = False  # score " " + each sentence (lm-eval's `blimp_*` delimiter)


@dataclass
class SuiteOutcome:
    """What the run did for one suite file."""

    suite: str
    folder: Path
    manifest: dict[str, Any]
    summary: pl.DataFrame
    malformed: list[str] = field(default_factory=list)


def check_options(options: SuiteOptions) -> None:
    """Refuse what cannot be scored before anything is read or loaded."""
    if options.model.lower() in (FREQUENCY, "frequency-baseline"):
        raise UserError(
            "--model frequency: the frequency baseline scores mined pairs by lexicon counts "
            "and is not defined for arbitrary suites; give a language model"
        )
    from ..options import model_typo

    typo = model_typo("--model", options.model, names=())
    if typo:
        raise UserError(typo)
    if options.pll != "sentence":
        raise UserError(
            "--pll word needs the varied word, which peers' suites do not mark; use --pll sentence"
        )
    if options.batch_size < 1 or options.chunk_size < 1:
        raise UserError("--batch-size and --chunk-size must be ≥ 1")
    if options.max_tokens is not None and options.max_tokens < 1:
        raise UserError("--max-tokens must be ≥ 1")
    if not options.files:
        raise UserError("no suite files given")
    from ..options import CHOICES

    for rule in (options.rule, *options.rules):
        if rule not in CHOICES["rule"]:
            raise UserError(f"--rule {rule!r}: expected one of {', '.join(CHOICES['rule'])}")


def suite_names(paths: list[Path]) -> list[str]:
    """Each file's stem; files that share a stem are told apart by their folder (`fra-data`)."""
    stems = Counter(p.stem for p in paths)
    names = [f"{p.parent.name}-{p.stem}" if stems[p.stem] > 1 else p.stem for p in paths]
    repeated = [n for n, k in Counter(names).items() if k > 1]
    if repeated:
        raise UserError(f"two suite files would share the results folder of '{repeated[0]}'")
    return names


def default_scorer_factory() -> ScorerFactory:
    """`evaluate.backends.load_scorer`, looked up only when a run needs a model."""
    from ..backends import load_scorer

    return load_scorer


def load_scorer_for(options: SuiteOptions, factory: ScorerFactory | None) -> TokenScorer:
    """The scorer of `options.model` (missing torch is a one-line error)."""
    factory = factory or default_scorer_factory()
    try:
        return factory(
            options.model,
            pll=options.pll,
            device=options.device,
            batch_size=options.batch_size,
            max_tokens=options.max_tokens,
            dtype=options.dtype,
            native="minicons" in (options.rule, *options.rules),
        )
    except ImportError as error:
        raise UserError(f"{error}; install with pip install 'ud-agree[evaluate]'") from None


def run_suites(
    options: SuiteOptions,
    scorer_factory: ScorerFactory | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[SuiteOutcome]:
    """Score every suite file of `options`; malformed lines go to `warn` (stderr by default)."""
    warn = warn or (lambda message: print(message, file=sys.stderr))
    check_options(options)
    # 1. Read every file first: a bad file or, under --strict, a malformed line stops the run
    # before a model is loaded.
    paths = [Path(f) for f in options.files]
    for path in paths:
        if not path.is_file():
            raise SuiteFormatError(f"no such suite file: {path}")
    suites = [
        read_suite(
            path,
            suite=name,
            fmt=options.format,
            good=options.good,
            bad=options.bad,
            condition=options.condition,
            strict=options.strict,
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
    # 2. Every results folder free and writable before the model loads (held again to score).
    for suite in suites:
        with hold(run_folder(options.out, suite.name, options.model)):
            pass
    # 3. One scorer for every suite.
    scorer = load_scorer_for(options, scorer_factory)
    return [score_suite(suite, blank_scorer(suite, scorer), options) for suite in suites]


def blank_scorer(suite: PairSuite | GymSuite, scorer: TokenScorer) -> TokenScorer:
    """§7: gevalm's blank is the varied word, so a masked LM scores its word PLL there (the
    paper's own measure for a one-token word), whatever `--pll` says for whole sentences."""
    if suite.format != "gevalm" or not scorer.method.startswith("pll-"):
        return scorer
    from ..backends.masked import MaskedPLL

    return scorer.with_pll("word") if isinstance(scorer, MaskedPLL) else scorer


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


def score_suite(
    suite: PairSuite | GymSuite, scorer: TokenScorer, options: SuiteOptions
) -> SuiteOutcome:
    """One suite: prepare its folder, score what is not done yet in chunks, summarize."""
    started = time.time()
    folder = run_folder(options.out, suite.name, options.model)
    settings = {
        "model": options.model,
        "pll": options.pll,
        "format": suite.format,
        "good": options.good,
        "bad": options.bad,
        "condition": options.condition,
        "input_sha256": file_sha256(suite.path),
        "rule": options.rule,
        "rules": list(options.rules),
        "leading_space": options.leading_space,
    }
    # 1. The folder, held by this process, and the manifest written first so that --resume can
    # check it.
    with hold(folder):
        return _score_in(folder, suite, scorer, options, settings, started)


def _score_in(
    folder: Path,
    suite: PairSuite | GymSuite,
    scorer: TokenScorer,
    options: SuiteOptions,
    settings: dict[str, Any],
    started: float,
) -> SuiteOutcome:
    """Steps 1–3 of a suite's run, in its held folder."""
    done = prepare_folder(folder, settings, options.resume)
    base = manifest_base(suite, options, settings, scorer)
    write_json({**base, "complete": False}, folder / "manifest.json")

    # 2. Score what no chunk holds yet, one chunk at a time.
    todo = pending(suite, done)
    skipped = Counter(getattr(suite, "skipped", {}))
    try:
        written = score_chunks(suite, todo, scorer, folder, options, skipped)
    except MachineError as error:
        saved = len(done & set(ids(suite))) + error_written(folder, done)
        raise error.saving(
            f"{saved} pairs are saved in {folder}; free space (or fix the fault) and rerun with "
            "--resume"
        ) from None

    # 3. Summary over every chunk of the folder, and the finished manifest.
    paths = chunk_paths(folder)
    results = pl.scan_parquet(paths) if paths else None
    summary = (
        summarize_suite(results, rule=options.rule) if results is not None else empty_summary()
    )
    if results is not None:
        write_csv(summary, folder / "summary.csv")
    in_results = 0 if results is None else results.select("pair_id").unique().collect().height
    counts = {
        "read": suite.size,
        "malformed": len(suite.malformed),
        "resumed_already_done": len(done & set(ids(suite))),
        "scored_now": written,
        "in_results": in_results,
        # §5.1: pairs whose `right` has no value (a null ingredient of the rule): not wrong.
        "undecided": 0
        if results is None
        else results.filter(pl.col("right").is_null()).select(pl.len()).collect().item(),
        "skipped": dict(skipped),
    }
    if not in_results:
        raise UserError(
            f"nothing scored in {suite.path}: skipped "
            f"{skip_line(skipped, scorer.facts().get('window_tokens')) or 'none'}"
        )
    manifest = {
        **base,
        "complete": True,
        "counts": counts,
        "malformed": [str(m) for m in suite.malformed],
        "seconds": round(time.time() - started, 3),
    }
    write_json(manifest, folder / "manifest.json")
    return SuiteOutcome(suite.name, folder, manifest, summary, manifest["malformed"])


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
    options: SuiteOptions,
    skipped: Counter | None = None,
) -> int:
    """Score `todo` (a pair suite's frame, a SyntaxGym suite's items) in chunks of
    `options.chunk_size`, each written as it is done; how many. A pair or item the model cannot
    score (a sentence longer than its window: no finite score) is counted in `skipped` under
    `too-long`, never written."""
    skipped = Counter() if skipped is None else skipped
    steps = range(0, len(todo), options.chunk_size)
    disable = None if options.progress else True  # None: a bar only on a terminal
    written = 0
    bar = tqdm(steps, desc=suite.name, unit="chunk", file=sys.stderr, leave=False, disable=disable)
    for start in bar:
        chunk = todo[start : start + options.chunk_size]
        # The kind of `todo` follows the suite's: narrowed by hand, as a checker cannot pair them.
        if isinstance(suite, PairSuite):
            pairs = cast(pl.DataFrame, chunk)
            space = " " if options.leading_space else ""
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
            frame = score_pairs(pairs, scorer, options.rule, options.leading_space)
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


def manifest_base(
    suite: PairSuite | GymSuite,
    options: SuiteOptions,
    settings: dict[str, Any],
    scorer: TokenScorer,
) -> dict[str, Any]:
    """What a suite run was: tool, options, the suite file, the scorer and its facts."""
    return {
        "tool": "ud-agree evaluate.suite",
        "tool_version": __version__,
        "suite": suite.name,
        "file": str(suite.path.resolve()),
        "format": suite.format,
        "settings": settings,
        "options": {k: v for k, v in asdict(options).items() if k not in ("files", "progress")},
        "model": scorer.name,
        "method": scorer.method,
        "scorer": scorer.facts(),
        "predictions": [p.formula for p in suite.predictions]
        if isinstance(suite, GymSuite)
        else None,
    }
