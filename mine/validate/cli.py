"""The command line of `python -m mine.validate`: `sample` and `score`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ud_agree.errors import OneLineParser, run_main, tool_command

from .common import ValidateError
from .score import printed, score
from .sheets import sample


def parser(prog: str = "python -m mine.validate") -> OneLineParser:
    """The command's options: `sample` and `score`."""
    parser = OneLineParser(
        prog=prog,
        description="Draw minimal pairs for people to judge, and score judged sheets "
        "(docs/validity.md).",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    draw_ = commands.add_parser(
        "sample", help="a seeded sample stratified by language × type × rule, as sheets to judge"
    )
    draw_.add_argument(
        "--corpus",
        type=Path,
        required=True,
        help=f"a corpus written by {tool_command(prog, 'mine')}",
    )
    draw_.add_argument("--lang", nargs="+", help="language folders (default: all with pairs)")
    draw_.add_argument("--per-cell", type=int, help="pairs per language × type × rule (default 25)")
    draw_.add_argument(
        "--uniform",
        type=int,
        metavar="N",
        help="instead of per cell: N pairs drawn uniformly over all the languages' pairs",
    )
    draw_.add_argument(
        "--seed", type=int, default=0, help="seed of the draw, 0 or more (default 0)"
    )
    draw_.add_argument(
        "--blind",
        action="store_true",
        help="show the sentences as a/b in random order; key.csv says which is bad",
    )
    draw_.add_argument(
        "--out", type=Path, required=True, help="an empty folder for the sheets and key.csv"
    )
    draw_.add_argument(
        "--force",
        action="store_true",
        help="--out may hold another sample's unjudged files: they are deleted first",
    )
    judge = commands.add_parser("score", help="validity per cell from judged sheets")
    judge.add_argument("sheets", type=Path, nargs="+", help="judged sheets (CSV)")
    judge.add_argument(
        "--key", type=Path, help="the sample's key.csv (default: key.csv beside each sheet)"
    )
    judge.add_argument(
        "--out", type=Path, help="write validity here (Parquet; over nothing but a validity table)"
    )
    judge.add_argument(
        "--judges", help="who judged, stored with the table (e.g. maintainers, native speakers)"
    )
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m mine.validate") -> int:
    """Entry point; user errors are one line on stderr and exit status 2."""
    args = parser(prog).parse_args(argv)

    def body() -> int:
        if args.command == "sample":
            if args.uniform is not None and args.per_cell is not None:
                raise ValidateError("--per-cell and --uniform: give one (per cell, or uniform)")
            key = sample(
                args.corpus,
                args.out,
                args.lang,
                25 if args.per_cell is None else args.per_cell,
                args.seed,
                args.blind,
                args.force,
                args.uniform,
            )
            langs = key.get_column("lang").n_unique()
            print(f"wrote {key.height} pairs to judge ({langs} language(s)) to {args.out}")
            return 0
        table = score(args.sheets, args.out, args.key, args.judges)
        print(printed(table))
        if args.out:
            print(f"wrote {table.height} cells to {args.out}")
        return 0

    return run_main(body)
