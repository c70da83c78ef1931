"""Command line of `python -m evaluate`: a thin layer over evaluate.run.evaluate."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ud_agree.errors import OneLineParser, run_main

from .options import FREQUENCY, TINY_RANDOM, Options, UsageError
from .sharding.spec import parse_shard


def parser(prog: str = "python -m evaluate") -> argparse.ArgumentParser:
    """Options of the evaluator (DESIGN.md §1.5)."""
    p = OneLineParser(
        prog=prog,
        description="Score a masked LM on mined agreement relations; print accuracy with 95%% CIs "
        "and write per-item Parquet results.",
    )
    p.add_argument(
        "--lang", required=True, help="ISO 639-1 code of a language in the corpus, e.g. fr"
    )
    p.add_argument("--corpus", default="corpus", help="the miner's output folder (default: corpus)")
    p.add_argument(
        "--model",
        default="bert-base-multilingual-cased",
        help=f"Hugging Face masked LM: hub name or local directory; '{FREQUENCY}' for the "
        f"frequency baseline; '{TINY_RANDOM}' for an offline random 1-layer BERT (demo)",
    )
    p.add_argument("--mask", choices=("controller", "target", "both"), default="controller")
    p.add_argument("--match", choices=("agreement", "exact"), default="agreement")
    p.add_argument("--case", choices=("fold", "exact"), default="fold")
    p.add_argument("--min-candidates", type=int, default=10)
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--limit", type=int, default=None, help="score only the first N eligible items")
    p.add_argument("--out", default="results", help="results folder (default: results)")
    p.add_argument(
        "--resume", action="store_true", help="keep the chunks already written and go on"
    )
    p.add_argument(
        "--control",
        choices=("context", "no-context"),
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
        "--reading",
        choices=("class-average", "pair"),
        default="class-average",
        help="class-average (Bacon & Regier, §1.5) or pair: minimal pairs of the corpus (§4-5)",
    )
    p.add_argument(
        "--pll",
        choices=("word", "sentence"),
        default="word",
        help="masked LMs in the pair reading: PLL of the varied word, or of the whole sentence",
    )
    p.add_argument(
        "--dtype",
        choices=("float32", "bfloat16", "float16"),
        default="float32",
        help="compute precision (autocast; float32 unless asked)",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="token budget per batch (padded length × rows), with --batch-size as a row cap",
    )
    p.add_argument("--chunk-size", type=int, default=4096, help="items per results chunk")
    p.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="score only shard K (0-based, as SLURM_ARRAY_TASK_ID) of N: the sentences whose "
        "stable hash is K mod N, into <run folder>/shard-KK-of-NN/ (merge: python -m evaluate.merge)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def options_from(args: argparse.Namespace) -> Options:
    """Options dataclass from parsed arguments, with the checks argparse cannot make."""
    if (
        args.batch_size < 1
        or args.min_candidates < 1
        or (args.limit is not None and args.limit < 0)
    ):
        raise UsageError("--batch-size and --min-candidates must be ≥ 1, --limit ≥ 0")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise UsageError("--max-tokens must be ≥ 1")
    if args.reading == "pair" and args.control != "context":
        raise UsageError("--control no-context belongs to the class-average reading")
    if args.vocab_of and args.model != FREQUENCY:
        raise UsageError("--vocab-of goes with --model frequency only")
    if args.model == FREQUENCY and args.control != "context":
        raise UsageError("--control no-context needs a masked LM, not the frequency baseline")
    return Options(
        lang=args.lang,
        corpus=args.corpus,
        model=args.model,
        mask=args.mask,
        match=args.match,
        case=args.case,
        min_candidates=args.min_candidates,
        device=args.device,
        batch_size=args.batch_size,
        limit=args.limit,
        out=args.out,
        resume=args.resume,
        control=args.control,
        vocab_of=args.vocab_of,
        chunk_size=max(1, args.chunk_size),
        progress=not args.no_progress,
        reading=args.reading,
        pll=args.pll,
        dtype=args.dtype,
        max_tokens=args.max_tokens,
        shard=None if args.shard is None else str(parse_shard(args.shard)),
    )


# Skip counts of both readings, in the order they are printed.
SKIP_COUNTS = (
    "same-surface-word",
    "no-left-context",
    "no-space-before",
    "too-few-candidates",
    "missing-sentence",
    "missing-relation",
    "too-long",
)


def main(argv: Sequence[str] | None = None, prog: str = "python -m evaluate") -> int:
    """Run, print the accuracy table; user errors are one line on stderr and exit status 2."""
    args = parser(prog).parse_args(argv)
    return run_main(
        lambda: _run(args), "interrupted: finished chunks are kept; rerun with --resume"
    )


def _run(args: argparse.Namespace) -> int:
    try:
        from .backends import models  # noqa: F401 - torch and transformers, the 'evaluate' extra
    except ImportError as error:
        raise UsageError(f"{error}; install with pip install 'ud-agree[evaluate]'") from None
    from .report.summary import format_table, header_lines
    from .run import evaluate as run_evaluation

    outcome = run_evaluation(options_from(args))
    manifest = outcome.manifest
    print("\n".join(header_lines(manifest)))
    counts = manifest["counts"]
    skipped = ", ".join(f"{k} {counts[k]}" for k in SKIP_COUNTS if k in counts)
    print(
        f"items: {counts['items_in_results']} scored; skipped: {skipped}; windowed {counts['windowed']}"
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
