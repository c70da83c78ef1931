"""`python -m evaluate.suite FILE…`: score peers' minimal-pair suites with a language model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ud_agree.errors import OneLineParser, run_main

from .cli import model_arguments, rule_arguments
from .sources.files import FORMATS


def parser(prog: str = "python -m evaluate.suite") -> argparse.ArgumentParser:
    """Options of the suite scorer (DESIGN.md §7)."""
    p = OneLineParser(
        prog=prog,
        description="Score BLiMP, CLAMS, MultiBLiMP, SyntaxGym or any table of minimal pairs with a "
        "language model; print accuracy with 95% CIs and write per-pair Parquet results.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="suite files; the stem names the suite")
    p.add_argument(
        "--model",
        required=True,
        help="Hugging Face causal or masked LM (hub name, local directory, or a GGUF file)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="layout of every file (default: detected from each file's extension and content)",
    )
    p.add_argument("--good", metavar="COLUMN", help="column of the grammatical sentence (tables)")
    p.add_argument("--bad", metavar="COLUMN", help="column of the ungrammatical sentence (tables)")
    p.add_argument(
        "--condition",
        metavar="COLUMN",
        help="column that names each pair's condition (default: UID for BLiMP, phenomenon for "
        "MultiBLiMP)",
    )
    p.add_argument(
        "--pll",
        choices=("word", "sentence"),
        default="sentence",
        help="masked LMs: pseudo-log-likelihood of the whole sentence (the only one suites allow)",
    )
    model_arguments(p)
    rule_arguments(p)
    p.add_argument("--out", default="results", help="results root (default: results)")
    p.add_argument(
        "--resume", action="store_true", help="keep the chunks already written and go on"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="a results folder holding another file's results (a file of the same name elsewhere, "
        "or a corpus run) is cleared first, then scored anew",
    )
    p.add_argument(
        "--strict", action="store_true", help="stop at the first malformed line (exit 2)"
    )
    p.add_argument("--chunk-size", type=int, default=4096, help="pairs (items) per results chunk")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None, prog: str = "python -m evaluate.suite") -> int:
    """Run; print each suite's accuracy table. User errors: one line on stderr, exit status 2."""
    args = parser(prog).parse_args(argv)
    return run_main(
        lambda: _run(args), "interrupted: finished chunks are kept; rerun with --resume"
    )


def _run(args: argparse.Namespace) -> int:
    from .options import suite_run
    from .run import run_suites
    from .summary.suites import format_suite_table
    from .tasks.suite_files import skip_line

    run = suite_run(
        args.files,
        args.model,
        format=args.format,
        good=args.good,
        bad=args.bad,
        condition=args.condition,
        pll=args.pll,
        device=args.device,
        batch_size=args.batch_size,
        max_tokens=args.max_tokens,
        dtype=args.dtype,
        out=args.out,
        resume=args.resume,
        force=args.force,
        strict=args.strict,
        chunk_size=args.chunk_size,
        progress=not args.no_progress,
        rule=args.rule,
        rules=args.rules,
        leading_space=args.leading_space,
    )
    outcomes = run_suites(run)
    for outcome in outcomes:
        m = outcome.manifest
        counts = m["counts"]
        skipped = skip_line(counts.get("skipped", {}), m["scorer"].get("window_tokens"))
        print(
            f"{m['suite']} ({m['format']}, {m['file']})\n  model {m['model']} ({m['method']}): "
            f"{counts['read']} read, {counts['malformed']} malformed lines skipped, "
            f"{counts['scored_now']} scored now, {counts['in_results']} in results"
            + (f"; skipped: {skipped}" if skipped else "")
        )
        if outcome.summary is not None and outcome.summary.height:
            print(format_suite_table(outcome.summary))
        print(f"results: {outcome.folder}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
