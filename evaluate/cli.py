"""Command line of `python -m evaluate`: a thin layer over evaluate.run.evaluate."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ud_agree.errors import OneLineParser, check_out, run_main, tool_command

from .options import (
    CHOICES,
    FREQUENCY,
    TINY_RANDOM,
    Options,
    UsageError,
    corpus_not_found,
    missing_extra,
)
from .plan import ALL, finished, plan_runs, resolve_languages

if TYPE_CHECKING:
    from .run import Outcome


DESCRIPTION = (
    "Score language models on mined agreement relations: masked LMs, causal LMs and the "
    "frequency baseline, in the class-average reading (Bacon & Regier) or on minimal pairs; "
    "print accuracy and balanced accuracy with 95% CIs and write per-item Parquet results. "
    "Several --lang, --model and --reading values: every combination in turn, then one table."
)


def model_arguments(p: argparse.ArgumentParser) -> None:
    """Where and how a model runs: the evaluator's and the suites' options alike."""
    p.add_argument(
        "--device",
        choices=CHOICES["device"],
        default="auto",
        help="where the model runs (auto: cuda when there is one)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=32,
        help="inputs per forward pass (a row cap with --max-tokens; default: 32)",
    )
    p.add_argument(
        "--dtype",
        choices=CHOICES["dtype"],
        default="float32",
        help="compute precision: float32 (default), autocast to bfloat16 or float16, or auto: "
        "the checkpoint's stored precision, as lm-eval's default dtype=auto",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="token budget per batch (padded length × rows), with --batch-size as a row cap",
    )


def rule_arguments(p: argparse.ArgumentParser) -> None:
    """How pairs are decided and which texts are scored (§5.1): the evaluator's pair reading and
    the suites alike."""
    p.add_argument(
        "--rule",
        choices=CHOICES["rule"],
        default="sum",
        help="pairs: the headline rule, `right` (docs/evaluating/scoring-rules.md; every rule's "
        "decision is in the "
        "results as right_<rule>): sum (lm-eval acc), minicons (minicons sequence_score, "
        "MultiBLiMP), mean, chars (lm-eval acc_norm), bytes (lm-eval acc_bytes), word, slor "
        "(default: sum)",
    )
    p.add_argument(
        "--rules",
        nargs="+",
        choices=CHOICES["rule"],
        default=[],
        metavar="RULE",
        help="pairs: more rules whose values cost work of their own, run besides --rule: minicons "
        "(one more forward without BOS where the tokenizer adds none; otherwise right_minicons "
        "is null)",
    )
    p.add_argument(
        "--leading-space",
        action="store_true",
        help='pairs: score " " + each sentence, as lm-eval\'s blimp_* tasks do (their default '
        "target delimiter)",
    )


def class_average_arguments(p: argparse.ArgumentParser) -> None:
    """The class-average reading's options: the role masked, and which candidates count."""
    p.add_argument(
        "--mask",
        choices=CHOICES["mask"],
        default="controller",
        help="class-average: the role masked and predicted (default: controller)",
    )
    p.add_argument(
        "--match",
        choices=CHOICES["match"],
        default="agreement",
        help="class-average: a candidate is correct when it agrees on the relation's agreeing "
        "features (agreement) or carries the masked word's whole bundle (exact)",
    )
    p.add_argument(
        "--case",
        choices=CHOICES["case"],
        default="fold",
        help="class-average: candidates' spellings case-folded and pooled (fold) or kept (exact)",
    )
    p.add_argument(
        "--min-candidates",
        type=int,
        default=10,
        help="class-average: skip items with fewer correct or incorrect candidates (default: 10)",
    )


def parser(prog: str = "python -m evaluate") -> argparse.ArgumentParser:
    """Options of the evaluator (DESIGN.md §1.5)."""
    p = OneLineParser(prog=prog, description=DESCRIPTION)
    p.add_argument(
        "--lang",
        nargs="+",
        required=True,
        metavar="LANG",
        help=f"ISO 639-1 codes of languages in the corpus, e.g. fr de; '{ALL}': every one",
    )
    p.add_argument("--corpus", default="corpus", help="the miner's output folder (default: corpus)")
    p.add_argument(
        "--model",
        nargs="+",
        default=["bert-base-multilingual-cased"],
        metavar="MODEL",
        help="Hugging Face masked or causal LMs (hub names, local folders, or GGUF files; the kind "
        f"is read from the config); '{FREQUENCY}' for the frequency baseline; '{TINY_RANDOM}' for an offline "
        "random 1-layer BERT (demo). Default: bert-base-multilingual-cased",
    )
    p.add_argument(
        "--reading",
        nargs="+",
        choices=CHOICES["reading"],
        default=["class-average"],
        help="class-average (Bacon & Regier) and/or pair: minimal pairs of the corpus "
        "(docs/evaluating/index.md)",
    )
    class_average_arguments(p)
    model_arguments(p)
    p.add_argument("--limit", type=int, default=None, help="score only the first N eligible items")
    p.add_argument("--out", default="results", help="results folder (default: results)")
    p.add_argument(
        "--resume",
        action="store_true",
        help="skip finished runs; keep the chunks of an unfinished one and go on",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="a run's folder holding a suite's results (a suite named as the language) is "
        "cleared first",
    )
    p.add_argument(
        "--control",
        choices=CHOICES["control"],
        default="context",
        help="no-context: every other word masked too (context control)",
    )
    p.add_argument(
        "--vocab-of",
        default=None,
        metavar="MODEL",
        help="with --model frequency: only candidates that are whole-word tokens of MODEL",
    )
    p.add_argument(
        "--pll",
        choices=CHOICES["pll"],
        default="word",
        help="masked LMs in the pair reading: PLL of the varied word, or of the whole sentence",
    )
    rule_arguments(p)
    p.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="let transformers run the model repository's own Python code (from_pretrained's "
        "trust_remote_code): only for models you trust",
    )
    p.add_argument("--chunk-size", type=int, default=4096, help="items per results chunk")
    p.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="score only shard K (0-based, as SLURM_ARRAY_TASK_ID) of N: the sentences whose "
        "stable hash is K mod N, into <run folder>/shard-KK-of-NN/ (merge: "
        f"{tool_command(prog, 'merge')})",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def base_options(args: argparse.Namespace) -> Options:
    """The options every run of the command shares, for its first language, model and reading
    (checked: a UsageError when they cannot run)."""
    return Options(
        lang=args.lang[0],
        corpus=args.corpus,
        model=args.model[0],
        mask=args.mask,
        match=args.match,
        case=args.case,
        min_candidates=args.min_candidates,
        device=args.device,
        batch_size=args.batch_size,
        limit=args.limit,
        out=args.out,
        resume=args.resume,
        force=args.force,
        control=args.control,
        vocab_of=args.vocab_of,
        chunk_size=args.chunk_size,
        progress=not args.no_progress,
        reading=args.reading[0],
        pll=args.pll,
        dtype=args.dtype,
        max_tokens=args.max_tokens,
        shard=args.shard,
        trust_remote_code=args.trust_remote_code,
    )


def options_from(args: argparse.Namespace) -> list[Options]:
    """The runs asked for: one checked Options per language × model × reading (evaluate.plan);
    `--rule`, `--rules` and `--leading-space` go to the pair reading's runs."""
    if "pair" not in args.reading:
        given = [
            name
            for name, used in (
                (f"--rule {args.rule}", args.rule != "sum"),
                ("--rules", bool(args.rules)),
                ("--leading-space", args.leading_space),
            )
            if used
        ]
        if given:
            raise UsageError(
                f"{', '.join(given)}: only the pair reading has rules (none asked for)"
            )
    args.lang = resolve_languages(args.corpus, args.lang)  # French, fra → fr
    base = base_options(args)  # checked before a model's config is read
    pair = {"rule": args.rule, "rules": tuple(args.rules), "leading_space": args.leading_space}
    return plan_runs(base, args.lang, args.model, args.reading, pair)


# Skip counts of both readings, in the order they are printed.
SKIP_COUNTS = (
    "same-surface-word",
    "no-left-context",
    "no-space-before",
    "too-few-candidates",
    "missing-sentence",
    "too-long",
    "non-finite",
    "undecided",
    "identical",
    "same-tokens",
)


def main(argv: Sequence[str] | None = None, prog: str = "python -m evaluate") -> int:
    """Run, print the accuracy table; user errors are one line on stderr and exit status 2."""
    args = parser(prog).parse_args(argv)
    return run_main(
        lambda: _run(args), "interrupted: finished chunks are kept; rerun with --resume"
    )


def _run(args: argparse.Namespace) -> int:
    # Every check that needs no model runs before torch and transformers load (seconds): a
    # misspelt option, model, language or path is said at once.
    base_options(args)  # the options' own checks first (a bad --shard is said as such)
    if not Path(args.corpus).is_dir():  # said before any model's config is read (maybe online)
        raise UsageError(corpus_not_found(args.corpus))
    check_out(args.out)
    args.lang = resolve_languages(args.corpus, args.lang)  # French, fra → fr
    if any(model != FREQUENCY for model in args.model):
        missing = missing_extra()
        if missing:
            raise UsageError(f"{missing}; install with pip install 'ud-agree[evaluate]'")
    runs = options_from(args)  # every run checked and resolved before the first is scored
    if len(runs) == 1 and not (runs[0].resume and finished(runs[0])):
        return _run_one(runs[0])
    return _run_many(runs)


def _run_one(options: Options) -> int:
    """One run: its header, counts, coverage and full breakdown table."""
    from .run import evaluate as run_evaluation
    from .summary.tables import format_table, header_lines

    outcome = run_evaluation(options)
    manifest = outcome.manifest
    print("\n".join(header_lines(manifest)))
    counts = manifest["counts"]
    skipped = ", ".join(f"{k} {counts[k]}" for k in SKIP_COUNTS if k in counts)
    # §4.2 pairs without a relation row are scored, their measures partly null: said, not hidden.
    alone = counts.get("pairs_without_relation")
    without = f" ({alone} pairs without a relation row)" if alone else ""
    print(
        f"items: {counts['items_in_results']} scored{without}; skipped: {skipped}; "
        f"windowed {counts['windowed']}"
    )
    cover = manifest.get("coverage")
    if cover:
        print(
            f"coverage: {cover['lexicon_forms_scorable']}/{cover['lexicon_forms']} lexicon forms, "
            f"{cover['masked_words_scorable']}/{cover['masked_words']} masked words are candidates"
        )
    if outcome.summary is not None:
        print(format_table(outcome.summary))
    print(f"results: {outcome.out_dir}")
    if "shard" in manifest:
        print(f"when every shard is done: python -m evaluate.merge {outcome.out_dir.parent}")
    return 0


def _run_many(runs: list[Options]) -> int:
    """Every run in turn (a finished one skipped under --resume), one line each, then one table
    of every run's overall accuracy."""
    from .backends.spec import name_of
    from .report.runs import progress_lines, run_line, runs_table
    from .run import NothingToScore
    from .run import evaluate as run_evaluation

    rows, empty = [], []
    for number, options in enumerate(runs, 1):
        # A model's folder name, not its path: the lines stay within 120 columns.
        where = f"[{number}/{len(runs)}] {options.lang} {name_of(options.model)} {options.reading}"
        if options.resume and finished(options):
            row = runs_row(options, None)
            print(progress_lines(where, "finished earlier, skipped", row["folder"]), flush=True)
        else:
            try:
                row = runs_row(options, run_evaluation(options))
            except NothingToScore as error:  # the others still run; all empty is an error
                print(f"{where}: {error}", flush=True)
                empty.append(str(error))
                continue
            print(progress_lines(where, run_line(row), row["folder"]), flush=True)
        rows.append(row)
    if not rows:
        raise UsageError(f"no run scored anything ({empty[0]})")
    print(runs_table(rows))
    return 0


def runs_row(options: Options, outcome: Outcome | None) -> dict[str, Any]:
    """One run's line of the combined table, from its outcome or (skipped) its folder."""
    import polars as pl

    from .options import out_dir
    from .output.store import manifest_file
    from .report.runs import overall

    if outcome is None:
        folder = out_dir(options)
        manifest = manifest_file(folder) or {}  # read by finished()
    else:
        folder, manifest = outcome.out_dir, outcome.manifest
    summary = None if outcome is None else outcome.summary
    if summary is None and (folder / "summary.csv").is_file():
        summary = pl.read_csv(folder / "summary.csv")
    return {
        "lang": options.lang,
        "model": manifest.get("model", options.model),
        "reading": options.reading,
        "method": manifest.get("method", options.method),
        "folder": str(folder),
        "random_weights": bool(manifest.get("random_weights")),
        **overall(summary),
    }
