"""Read imported suites' results (`python -m evaluate.suite`) as one polars LazyFrame.

`load_suite_results(path)` returns these columns first, in this order, then every metadata
column found in any suite (strings, null where a suite has none):

=============  ======  ===========================================================
column         dtype   meaning
=============  ======  ===========================================================
suite          str     the suite file's stem (``simple_agrmt``)
format         str     blimp | clams | multiblimp | syntaxgym | table
pair_id        str     the pair's line in its file (Parquet: row); SyntaxGym: item number
line           i64     that line (CLAMS: the False line; SyntaxGym: the item's start)
condition      str     CLAMS: file stem; BLiMP: UID; MultiBLiMP: phenomenon; --condition
prediction     i32     SyntaxGym: index of the prediction; null for pairs
formula        str     SyntaxGym: the prediction's formula; null for pairs
sentence_good  str     the grammatical sentence (null for SyntaxGym)
sentence_bad   str     the ungrammatical sentence (null for SyntaxGym)
score_good     f64     natural-log probability of sentence_good (null for SyntaxGym)
score_bad      f64     natural-log probability of sentence_bad (null for SyntaxGym)
right          bool    score_good > score_bad; SyntaxGym: the prediction holds
surprisals     str     SyntaxGym: JSON {condition: {region: surprisal in bits}}
model          str     the scorer's name
method         str     causal | pll-sentence | …
=============  ======  ===========================================================

then, for pairs, each sentence's §5.1 ingredients and a `right_<rule>` per rule (the schema
`ud_agree.schemas.suites` describes them). Chunks written before a column existed (ud-agree
0.2.0 and earlier wrote no ingredients) read with nulls there.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ud_agree.schemas.results import RETIRED_COLUMNS
from ud_agree.schemas.suites import COLUMNS, SUITE_RESULTS

from ..output.results import scan_chunk, with_every_column
from .output import CHUNK_GLOB

SCHEMA: pl.Schema = pl.DataFrame(SUITE_RESULTS.empty_table()).schema


def suite_result_files(path: str | Path) -> list[Path]:
    """Suite result chunks under `path` (a results root, a suite or run folder, or one file)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"no such results folder: {path}")
    return sorted(path.rglob(CHUNK_GLOB))


def load_suite_results(path: str | Path) -> pl.LazyFrame:
    """Every suite result row under `path`: the documented columns, then metadata columns."""
    files = suite_result_files(path)
    if not files:
        raise FileNotFoundError(f"no {CHUNK_GLOB} under {path}")
    frames = [with_every_column(scan_chunk(f), SCHEMA).cast(SCHEMA, strict=False) for f in files]
    # Suites carry different metadata columns: a diagonal concat fills the gaps with nulls.
    frame = pl.concat(frames, how="diagonal_relaxed")
    meta = [
        c for c in frame.collect_schema().names() if c not in COLUMNS and c not in RETIRED_COLUMNS
    ]
    return frame.select(*COLUMNS, *meta)
