"""`python -m mine`: a thin command line over `mine.run.mine_languages`."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ud_agree.errors import OneLineParser, at_least, check_out, run_main

from .environment import keep_freed_memory, no_blas_threads, share_cores
from .options import Options
from .pool import start_pool_server, started_for_command


def parser(prog: str = "python -m mine") -> OneLineParser:
    """The miner's options."""
    parser = OneLineParser(
        prog=prog,
        description="Mine agreement relations, sentences and a feature lexicon from a UD release.",
    )
    parser.add_argument(
        "--ud-dir", type=Path, required=True, help="folder of UD_<Language>-<Treebank> folders"
    )
    parser.add_argument(
        "--unimorph-dir",
        type=Path,
        action="append",
        default=[],
        help="UniMorph root(s) holding <iso639-3>/ folders (default $UNIMORPH, else ~/.unimorph); repeatable",
    )
    parser.add_argument(
        "--lang",
        nargs="+",
        help="languages to mine: ISO 639-1 (fr), ISO 639-3 (fra) or UD name (French); default all",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("corpus"), help="output folder (default corpus/)"
    )
    parser.add_argument(
        "--all-types",
        action="store_true",
        help="keep types that data/types.tsv marks invalid for a language",
    )
    parser.add_argument(
        "--strict", action="store_true", help="stop at the first malformed sentence (exit 2)"
    )
    parser.add_argument(
        "--jobs",
        type=at_least(1),
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores)",
    )
    parser.add_argument(
        "--force", action="store_true", help="redo languages whose output is already current"
    )
    parser.add_argument(
        "--vary",
        choices=("target", "controller", "both"),
        default="target",
        help="which member of a relation minimal pairs re-inflect (default: target)",
    )
    parser.add_argument(
        "--no-pairs",
        action="store_true",
        help="no minimal pairs (docs/mining.md): relations, sentences and lexicon only (faster; the pair "
        "reading then has nothing to score)",
    )
    parser.add_argument(
        "--nonce",
        type=at_least(0),
        default=0,
        metavar="K",
        help="add K nonce variants of every pair: its content words replaced by other lemmas' "
        "forms of the same upos and features (docs/evaluating/controls.md; default 0)",
    )
    parser.add_argument(
        "--seed", type=at_least(0), default=0, help="seed of the nonce draws, 0 or more (default 0)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    return parser


def parse_args(argv: list[str] | None, prog: str = "python -m mine") -> Options:
    """Command line → Options."""
    args = parser(prog).parse_args(argv)
    return Options(
        ud_dir=args.ud_dir,
        out=args.out,
        langs=args.lang,
        unimorph_dirs=args.unimorph_dir,
        all_types=args.all_types,
        strict=args.strict,
        jobs=args.jobs,
        force=args.force,
        progress=not args.quiet,
        vary=args.vary,
        pairs=not args.no_pairs,
        nonce=args.nonce,
        seed=args.seed,
    )


def main(argv: list[str] | None = None, prog: str = "python -m mine") -> int:
    """Entry point; returns the exit code (2 on user errors and, under --strict, malformed input)."""
    options = parse_args(argv, prog)
    if started_for_command():  # a program running the miner in-process keeps its settings
        keep_freed_memory()
        no_blas_threads()
        # With --nonce, finishing is most of the run, where one thread per worker was measured
        # to help nowhere (docs/choices.md).
        if not options.nonce:
            share_cores(options.jobs, len(options.langs) if options.langs else None)
    if options.jobs > 1:
        start_pool_server()
    return run_main(
        lambda: _run(options),
        "interrupted: languages already written are complete; rerun to resume",
    )


def _run(options: Options) -> int:
    from .plan import check_unimorph_dirs, release_root
    from .run import mine_languages

    check_unimorph_dirs(options.unimorph_dirs)
    check_out(options.out)  # said before any treebank is read
    from .summary import summary

    def warn(message: str) -> None:
        print(f"warning: {message}", file=sys.stderr)

    started = time.perf_counter()
    manifests = mine_languages(options, warn)
    for m in manifests:
        for entry in m["malformed"]:
            warn(f"skipped malformed sentence at {release_root(options.ud_dir) / entry}")
    if manifests and not options.progress:
        return 0
    if manifests:
        print(summary(manifests))
        print(
            f"\nwrote {', '.join(str(options.out / m['lang']) for m in manifests)} in {time.perf_counter() - started:.1f} s"
        )
    return 0
