"""`python -m mine.export PAIRS --format multiblimp|blimp|clams --out FILE`: ud-agree's minimal pairs
(DESIGN.md §4) in the layouts of peers' suites, so that their own scripts can score them.

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

import csv
import io
import json
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import polars as pl

from ud_agree.atomic import write_text
from ud_agree.errors import OneLineParser, run_main

from .pairs_file import PAIR_COLUMNS, ExportError, read_pairs
from .resources import read_rows

LAYOUTS = ("multiblimp", "blimp", "clams")
FOLDERS = ("lm-eval", "hf")  # folders for the field's tools (mine/folders.py)

# ud-agree's columns written beside a layout's own (the sentences are the layout's columns).
ID_COLUMNS = tuple(c for c in PAIR_COLUMNS if c not in ("sentence_good", "sentence_bad"))

# MultiBLiMP names phenomena <construction>-<feature>: SV-# is subject-verb number agreement,
# SP-G subject-predicate gender. DN (determiner-noun) and AN (adjective-noun) are ud-agree's own.
CONSTRUCTION = {"subject-verb": "SV", "predicative": "SP", "determiner": "DN", "attributive": "AN"}
FEATURE_MARK = {"Number": "#", "Person": "P", "Gender": "G", "Case": "C"}

# BLiMP's `linguistics_term` of agreement paradigms; the two adjective types are ud-agree's own.
BLIMP_TERM = {
    "subject-verb": "subject_verb_agreement",
    "determiner": "determiner_noun_agreement",
    "attributive": "adjective_noun_agreement",
    "predicative": "subject_predicate_agreement",
}


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


def to_multiblimp(pairs: pl.DataFrame) -> str:
    """MultiBLiMP's TSV: its columns first, then ud-agree's (quoted as pandas would quote)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    head = ["sen", "wrong_sen", "prefix", "phenomenon", "grammatical_feature"]
    head += ["ungrammatical_feature", "feature_vals"]
    writer.writerow([*head, *ID_COLUMNS])
    for row in pairs.iter_rows(named=True):
        good = unimorph_tag(row["feature"], row["good_value"])
        bad = unimorph_tag(row["feature"], row["bad_value"])
        phenomenon = (
            f"{CONSTRUCTION.get(row['type'], row['type'])}-"
            f"{FEATURE_MARK.get(row['feature'], row['feature'])}"
        )
        own = [
            row["sentence_good"],
            row["sentence_bad"],
            row["sentence_good"][: row["start"]].rstrip(),
            phenomenon,
            good,
            bad,
            f"{good} -> {bad}",
        ]
        writer.writerow([*own, *("" if row[c] is None else row[c] for c in ID_COLUMNS)])
    return buffer.getvalue()


def to_blimp(pairs: pl.DataFrame) -> str:
    """BLiMP's JSON lines: one paradigm (UID) per language, type and feature; pairID counts within it."""
    lines: list[str] = []
    counters: dict[str, int] = {}
    for row in pairs.iter_rows(named=True):
        term = BLIMP_TERM.get(row["type"], row["type"])
        uid = f"{row['lang']}_{term}_{row['feature'].lower()}"
        if row["variant"] != "original":  # nonce variants (§9) are paradigms of their own
            uid += "_nonce"
        counters[uid] = counters.get(uid, -1) + 1
        record = {
            "sentence_good": row["sentence_good"],
            "sentence_bad": row["sentence_bad"],
            "field": "morphology",
            "linguistics_term": term,
            "UID": uid,
            "simple_LM_method": True,
            # The varied word may come before its controller: a prefix method would not see it.
            "one_prefix_method": False,
            "two_prefix_method": False,
            "lexically_identical": False,
            "pairID": str(counters[uid]),
        }
        record.update({c: row[c] for c in ID_COLUMNS})
        lines.append(json.dumps(record, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def to_clams(pairs: pl.DataFrame) -> str:
    """CLAMS text: a True line, then the False line of each consecutive pair with that good sentence."""
    lines, previous = [], None
    for good, bad in pairs.select("sentence_good", "sentence_bad").iter_rows():
        for sentence in (good, bad):
            if "\t" in sentence or "\n" in sentence:
                raise ExportError(f"a sentence holds a TAB or a line break: {sentence[:40]!r}")
        if good != previous:
            lines.append(f"True\t{good}")
            previous = good
        lines.append(f"False\t{bad}")
    return "".join(line + "\n" for line in lines)


WRITERS = {"multiblimp": to_multiblimp, "blimp": to_blimp, "clams": to_clams}


def export(pairs_path: str | Path, layout: str, out: str | Path) -> int:
    """Write the pairs table in `layout` to `out` (atomically); the number of pairs written."""
    if layout not in WRITERS:
        raise ExportError(f"unknown layout {layout!r} (one of {', '.join(LAYOUTS)})")
    pairs = read_pairs(pairs_path)
    write_text(WRITERS[layout](pairs), out)
    return pairs.height


def main(argv: Sequence[str] | None = None, prog: str = "python -m mine.export") -> int:
    """Entry point; user errors are one line on stderr and exit status 2."""
    parser = OneLineParser(
        prog=prog,
        description="Write ud-agree's minimal pairs (pairs.parquet) in MultiBLiMP, BLiMP or "
        "CLAMS layout.",
    )
    parser.add_argument(
        "pairs",
        type=Path,
        help="a pairs.parquet written by python -m mine, or (lm-eval, hf) a corpus folder",
    )
    parser.add_argument(
        "--format",
        choices=(*LAYOUTS, *FOLDERS),
        required=True,
        help="layout to write: a peer's file (multiblimp, blimp, clams), an lm-evaluation-harness "
        "task folder (lm-eval) or a Hugging Face dataset folder (hf)",
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="file to write (a folder for lm-eval and hf)"
    )
    args = parser.parse_args(argv)

    def body() -> int:
        if args.format in FOLDERS:
            from .folders import pairs_by_language, write_hf, write_lm_eval

            pairs = pairs_by_language(args.pairs)
            corpus = args.pairs if args.pairs.is_dir() else args.pairs.parent.parent
            n = (
                write_lm_eval(pairs, args.out)
                if args.format == "lm-eval"
                else write_hf(pairs, args.out, corpus)
            )
            print(f"wrote {n} pairs of {len(pairs)} language(s) to {args.out} ({args.format})")
            return 0
        n = export(args.pairs, args.format, args.out)
        print(f"wrote {n} pairs to {args.out} ({args.format})")
        return 0

    return run_main(body)


if __name__ == "__main__":
    sys.exit(main())
