"""`python -m mine.export PAIRS --format multiblimp|blimp|clams|lm-eval|hf --out PATH`: ud-agree's minimal pairs
(DESIGN.md §4) in the layouts of peers' suites, so that their own scripts can score them. Without
PAIRS, `--ud-dir DIR --lang L` mines the language first (into `--corpus`): one command.

- `multiblimp`: TSV with a header, `sen` and `wrong_sen` first, then MultiBLiMP's `prefix`,
  `phenomenon`, `grammatical_feature`, `ungrammatical_feature` (UniMorph tags) and
  `feature_vals` (`SG -> PL`), then every other column of `pairs` under its own name;
- `blimp`: JSON lines with BLiMP's fields (`sentence_good`, `sentence_bad`, `field`,
  `linguistics_term`, `UID`, the method flags, `pairID`) and every other column of `pairs`;
- `clams`: `True<TAB>good` then `False<TAB>bad` for each pair (consecutive pairs of one good
  sentence share its True line). The layout has no room for ids: pairs keep the table's order.

The miner never imports torch or transformers, nor the evaluator.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import polars as pl

from ud_agree import __version__
from ud_agree.atomic import (
    atomic_folder,
    corpus_files,
    edited_message,
    input_named,
    write_text,
)
from ud_agree.errors import OneLineParser, run_main, tool_command
from ud_agree.formats import blimp, clams, multiblimp
from ud_agree.formats.pairs_table import ExportError, pairs_by_language, read_pairs
from ud_agree.records import read_record, unrecorded, write_record, written_paths

from .resources import read_rows

LAYOUTS = ("multiblimp", "blimp", "clams")
FOLDERS = ("lm-eval", "hf")  # folders for the field's tools (ud_agree/formats/lm_eval.py, hf.py)


@cache
def unimorph_tags() -> dict[tuple[str, str], str]:
    """(UD feature, value) → UniMorph tag, the first of the mapping table where several map."""
    tags: dict[tuple[str, str], str] = {}
    for row in read_rows("unimorph_map.tsv"):
        tags.setdefault((row["feature"], row["value"]), row["unimorph"])
    return tags


def unimorph_tag(feature: str, value: str) -> str:
    """The UniMorph tag of a UD feature value (Sing → SG), as MultiBLiMP writes them; else the value."""
    return unimorph_tags().get((feature, value), value)


WRITERS: dict[str, Callable[[pl.DataFrame], str]] = {
    "multiblimp": lambda pairs: multiblimp.write(pairs, unimorph_tag),
    "blimp": blimp.write,
    "clams": clams.write,
}


def export(
    pairs_path: str | Path,
    layout: str,
    out: str | Path,
    ud_dir: Path | None = None,
    force: bool = True,
) -> int:
    """Write the pairs table in `layout` to `out` (atomically; an existing `out` only with
    `force`, as the command's `--force`); the number of pairs written. MultiBLiMP's layout reads
    the corpus beside the pairs (and its CoNLL-U files, under the manifest's or the given
    `ud_dir`) for the columns the pairs lack, for every pair, with a relation row or without."""
    if layout not in WRITERS:
        raise ExportError(f"unknown layout {layout!r} (one of {', '.join(LAYOUTS)})")
    folder = Path(pairs_path).parent
    beside = ["pairs.parquet"] + (
        ["relations.parquet", "sentences.parquet"] if layout == "multiblimp" else []
    )
    written_over = input_named(out, [pairs_path, *corpus_files(folder)])
    if written_over:
        raise ExportError(f"--out {out} is {written_over}, which the export reads: choose another")
    edited = edited_message(folder, beside) if Path(pairs_path).name == "pairs.parquet" else None
    if edited:
        raise ExportError(f"{edited}; mine the corpus again")
    check_file_replaceable(Path(out), force)
    pairs = read_pairs(pairs_path)
    if pairs.height == 0:  # a file of no pair would read as a suite with nothing wrong
        raise ExportError(f"{pairs_path}: no pairs to export")
    if layout == "multiblimp":
        from .multiblimp import relation_facts

        facts = relation_facts(Path(pairs_path).parent, ud_dir, pairs)
        if facts is None:
            print(
                f"warning: {pairs_path}: no corpus tables or CoNLL-U files beside the pairs: "
                "MultiBLiMP's verb, cop, child, *_idx, metadata… columns left empty",
                file=sys.stderr,
            )
        text = multiblimp.write(pairs, unimorph_tag, facts)
    else:
        text = WRITERS[layout](pairs)
    write_text(text, out)
    return pairs.height


# What marks a folder as an export of a layout written before exports recorded their files.
EXPORT_MARKS: dict[str, tuple[str, str]] = {
    "lm-eval": ("ud_agree_data.py", ""),
    "hf": ("README.md", "---\npretty_name: ud-agree minimal pairs\n"),
}
# What a folder export wrote (its layout, languages and every path in it), beside its files.
RECORD = ".ud-agree-export.json"


def record_export(folder: Path, layout: str, languages: list[str]) -> None:
    """Record in `folder` what the export wrote there, so that a rerun knows what it may remove."""
    fields = {"tool": "ud-agree export", "version": __version__, "format": layout}
    write_record(folder, RECORD, {**fields, "languages": sorted(languages)}, written_paths(folder))


def _marked(out: Path, layout: str) -> bool:
    """`out` holds an export of `layout` written before exports recorded their files."""
    name, start = EXPORT_MARKS[layout]
    try:
        with (out / name).open(encoding="utf-8", errors="replace") as mark:
            return mark.read(len(start)) == start
    except OSError:
        return False


def check_replaceable(out: Path, layout: str, force: bool = False) -> None:
    """Refuse an `--out` folder that is not empty unless it holds an earlier export and nothing
    else, and `force` says to replace it: the export replaces its folder whole, and must never
    remove a user's own files nor, unasked, another export."""
    if not out.is_dir() or not any(out.iterdir()):
        return
    record = read_record(out, RECORD)
    if record is not None:
        if own := unrecorded(out, record, RECORD):
            raise ExportError(
                f"--out {out} holds {own[0]}, which the export there did not write, and an "
                "export replaces its folder whole: move it, or give a new or empty folder"
            )
        languages = ", ".join(str(lang) for lang in record.get("languages") or [])
        earlier = f"an earlier {record.get('format', 'folder')} export ({languages})"
    elif _marked(out, layout):
        earlier = f"an earlier {layout} export"
    else:
        raise ExportError(
            f"--out {out} holds files that are not a {layout} export, and an export replaces its "
            "folder whole: give a new or empty folder"
        )
    if not force:
        raise ExportError(f"--out {out} holds {earlier}: --force replaces it whole")


def check_file_replaceable(out: Path, force: bool) -> None:
    """Refuse a file `--out` that exists unless `force` says to replace it, and a folder always:
    a rerun must not silently write over a file a user may have edited or renamed into place."""
    if out.is_dir():
        raise ExportError(f"--out {out} is a folder: name the file to write")
    if out.exists() and not force:
        raise ExportError(f"--out {out} exists: --force replaces it, or name another file")


def mine_first(
    ud_dir: Path | None, lang: str | None, unimorph_dirs: list[Path], corpus: Path
) -> Path:
    """Mine one language with the miner's defaults (resuming a current corpus): its pairs table,
    so that one command rebuilds MultiBLiMP-style data from a UD release."""
    if ud_dir is None or not lang:
        raise ExportError("give a pairs table (PAIRS), or --ud-dir and --lang to mine one first")
    from .options import Options
    from .run import mine_languages

    options = Options(
        ud_dir=ud_dir, out=corpus, langs=[lang], unimorph_dirs=unimorph_dirs, progress=False
    )
    manifests = mine_languages(options)
    if len(manifests) != 1:
        raise ExportError(f"--lang {lang}: {len(manifests)} languages mined, not one")
    return corpus / manifests[0]["lang"] / "pairs.parquet"


def parser(prog: str) -> OneLineParser:
    """The command's options."""
    p = OneLineParser(
        prog=prog,
        description="Write ud-agree's minimal pairs (pairs.parquet) in one of five formats: "
        "MultiBLiMP, BLiMP or CLAMS layout (a file), an lm-evaluation-harness task folder or a "
        "Hugging Face dataset folder (docs/exports.md).",
    )
    p.add_argument(
        "pairs",
        type=Path,
        nargs="?",
        help=f"a pairs.parquet written by {tool_command(prog, 'mine')}, or (lm-eval, hf) a corpus "
        "folder; "
        "omitted: mine --lang from --ud-dir first",
    )
    p.add_argument(
        "--format",
        choices=(*LAYOUTS, *FOLDERS),
        required=True,
        help="layout to write: a peer's file (multiblimp, blimp, clams), an lm-evaluation-harness "
        "task folder (lm-eval) or a Hugging Face dataset folder (hf)",
    )
    p.add_argument(
        "--out", type=Path, required=True, help="file to write (a folder for lm-eval and hf)"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="--out may already exist (a file; for lm-eval and hf a folder holding an earlier "
        "export and nothing else): it is replaced whole",
    )
    p.add_argument(
        "--ud-dir",
        type=Path,
        help="the UD folder to mine (without PAIRS), or that the corpus was mined from "
        "(multiblimp; default: the manifest's)",
    )
    p.add_argument("--lang", help="without PAIRS: the language to mine from --ud-dir, then export")
    p.add_argument(
        "--unimorph-dir",
        type=Path,
        action="append",
        default=[],
        help="without PAIRS: UniMorph root(s) for the mining, as "
        f"{tool_command(prog, 'mine')} takes them",
    )
    p.add_argument(
        "--corpus",
        type=Path,
        default=Path("corpus"),
        help="without PAIRS: where the mined corpus is written (default corpus/)",
    )
    return p


def main(argv: Sequence[str] | None = None, prog: str = "python -m mine.export") -> int:
    """Entry point; user errors are one line on stderr and exit status 2."""
    args = parser(prog).parse_args(argv)

    def body() -> int:
        if args.pairs is None:
            from .plan import check_unimorph_dirs

            check_unimorph_dirs(args.unimorph_dir)
            args.pairs = mine_first(args.ud_dir, args.lang, args.unimorph_dir, args.corpus)
        if args.format in FOLDERS:
            from ud_agree.formats import hf, lm_eval

            pairs = pairs_by_language(args.pairs)
            if not any(frame.height for frame in pairs.values()):
                raise ExportError(f"{args.pairs}: no pairs to export")
            corpus = args.pairs if args.pairs.is_dir() else args.pairs.parent.parent
            check_replaceable(args.out, args.format, args.force)
            with atomic_folder(args.out) as folder:  # no stale language, no part, ever
                n = (
                    lm_eval.write(pairs, folder)
                    if args.format == "lm-eval"
                    else hf.write(pairs, folder, corpus)
                )
                record_export(folder, args.format, list(pairs))
            print(f"wrote {n} pairs of {len(pairs)} language(s) to {args.out} ({args.format})")
            return 0
        n = export(args.pairs, args.format, args.out, args.ud_dir, force=args.force)
        print(f"wrote {n} pairs to {args.out} ({args.format})")
        return 0

    return run_main(body)


if __name__ == "__main__":
    sys.exit(main())
