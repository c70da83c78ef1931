"""`ud-agree`: one command with the tools as subcommands (`ud-agree mine …` = `python -m mine …`)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from . import __version__

# Subcommand → (module whose `main(argv, prog)` runs it, what it does). Imported on use only:
# `ud-agree mine` never imports the evaluator (nor torch).
COMMANDS = {
    "mine": (
        "ud_agree.mine.cli",
        "mine agreement relations, pairs, sentences and a lexicon from UD",
    ),
    "evaluate": (
        "ud_agree.evaluate.cli",
        "score masked/causal LMs and the frequency baseline on a mined corpus",
    ),
    "merge": (
        "ud_agree.evaluate.merge",
        "read the shards of sharded runs as one run: merged summaries",
    ),
    "report": ("ud_agree.evaluate.report.html", "figures and an HTML report over results"),
    "suite": (
        "ud_agree.evaluate.suite",
        "score peers' minimal-pair suites (BLiMP, CLAMS, SyntaxGym…)",
    ),
    "export": (
        "ud_agree.mine.export",
        "write mined pairs for MultiBLiMP, BLiMP, CLAMS, lm-eval or Hugging Face datasets",
    ),
    "compare": (
        "ud_agree.mine.compare",
        "class a MultiBLiMP file's rows by what a mined corpus makes of them",
    ),
    "validate": (
        "ud_agree.mine.validate",
        "draw pairs for people to judge, and score judged sheets (validity)",
    ),
    "cluster": (
        "ud_agree.evaluate.cluster",
        "run sharded evaluations on a Ray cluster and merge them",
    ),
}

USAGE = (
    "usage: ud-agree [--version] {"
    + ",".join(COMMANDS)
    + "} [options]\n\n"
    + "\n".join(f"  {name:<10} {text}" for name, (_, text) in COMMANDS.items())
    + "\n\nud-agree COMMAND --help shows a command's options.\n"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a tool's own command line, with `ud-agree <command>` as its program name."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if args else 2
    if args[0] == "--version":
        print(f"ud-agree {__version__}")
        return 0
    if args[0] not in COMMANDS:
        print(f"error: unknown command '{args[0]}' (see ud-agree --help)", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[args[0]][0])
    return int(module.main(args[1:], prog=f"ud-agree {args[0]}"))


if __name__ == "__main__":
    sys.exit(main())
