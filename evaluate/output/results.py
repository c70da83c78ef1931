"""Read the evaluator's result files as one polars LazyFrame, and its run manifests.

`load_results(path)` returns exactly the columns of `ud_agree.schemas.results.RESULTS`, in that order
(DESIGN.md §3), each described in the schema (and in the docs' table generated from it): the
corpus runs' rows and the suite runs' (`reading` = `suite`), each with its `source` (the
corpus's language, the suite's name). `load_suite_results(path)` reads the suite runs' rows with
their own columns (their metadata too).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from ud_agree.errors import UserError
from ud_agree.schemas.results import RESULTS, RETIRED_COLUMNS
from ud_agree.schemas.suites import COLUMNS as SUITE_COLUMNS
from ud_agree.schemas.suites import SUITE_RESULTS

from .store import RUN_CHUNK, SUITE_CHUNK, check_runs, check_sets, manifest_file, upgrade_rows
from .suites import CHUNK_GLOB

COLUMNS: tuple[str, ...] = tuple(RESULTS.names)
SCHEMA: pl.Schema = pl.DataFrame(RESULTS.empty_table()).schema
SUITE_SCHEMA: pl.Schema = pl.DataFrame(SUITE_RESULTS.empty_table()).schema


# Where a row's pair or item comes from: a suite's name, else its corpus's language (chunks
# written before the column existed have none).
SOURCE = pl.coalesce("source", "suite", "lang").alias("source")


def result_files(path: str | Path) -> list[Path]:
    """Result Parquet files under `path` (a results root, a language or run folder, or one file):
    corpus runs' `results*.parquet`, then suite runs' `suite-*.parquet`. A run that cannot be read
    whole (unfinished, a chunk missing or unreadable, its manifest absent, a set of shards not
    whole) is a UserError naming it: its rows would count as a finished run's."""
    path = Path(path)
    if path.is_dir():
        # The shards of a run are read together only when the set is whole (ShardError names it).
        check_sets(path, sorted(path.rglob(RUN_CHUNK)))
    checked = check_runs(path, bare=True)
    if checked.left_out:
        first = checked.left_out[0]
        more = len(checked.left_out) - 1
        raise UserError(
            f"{Path(path) / first.run}: {first.reason}"
            + (f" (and {more} more run{'s' if more > 1 else ''} under {path})" if more else "")
            + "; or read a finished run's own folder"
        )
    return checked.files


def load_results(path: str | Path) -> pl.LazyFrame:
    """All result rows under `path` as one LazyFrame with the documented columns (`COLUMNS`)."""
    files = result_files(path)
    if not files:
        raise FileNotFoundError(f"no {RUN_CHUNK} or {SUITE_CHUNK} under {path}")
    return read_results(files)


def is_suite_chunk(path: Path) -> bool:
    """A chunk written by a suite run."""
    return path.name.startswith("suite-")


def read_results(files: Sequence[Path]) -> pl.LazyFrame:
    """The rows of the result chunks `files` as one LazyFrame with the documented columns."""
    # Scanning chunk by chunk and casting keeps the contract even if a writer widened an int type.
    rules: dict[Path, str | None] = {}
    frames = []
    for file in files:
        if is_suite_chunk(file):
            if file.parent not in rules:
                rules[file.parent] = suite_rule(file.parent)
            frame = suite_rows(scan_chunk(file), rules[file.parent])
        else:
            frame = upgrade_rows(scan_chunk(file))
        frame = with_every_column(frame, SCHEMA).with_columns(SOURCE)
        frames.append(frame.select(COLUMNS).cast(SCHEMA))
    return pl.concat(frames, how="vertical")


def suite_rule(folder: Path) -> str | None:
    """The rule that decided `right` in a suite run's folder (its manifest's `settings.rule`);
    None where the manifest is unreadable."""
    manifest = manifest_file(folder)
    settings = None if manifest is None else manifest.get("settings")
    rule = settings.get("rule") if isinstance(settings, dict) else None
    return rule if isinstance(rule, str) else None


def suite_rows(frame: pl.LazyFrame, rule: str | None) -> pl.LazyFrame:
    """A suite chunk's rows in the results' columns: `reading` = `suite`; a SyntaxGym row's
    `condition` is its prediction (`0: (2;%mismatch%) > (2;%match%)`); the suite's metadata
    columns stay out (a `lang` or `distance` there means something else)."""
    frame = with_every_column(frame, SUITE_SCHEMA).select(SUITE_COLUMNS).cast(SUITE_SCHEMA)
    pair = pl.col("prediction").is_null()
    return frame.select(
        *(c for c in SUITE_COLUMNS if c in SCHEMA and c != "condition"),
        pl.when(pair)
        .then(pl.col("condition"))
        .otherwise(pl.format("{}: {}", "prediction", "formula"))
        .alias("condition"),
        pl.lit("suite").alias("reading"),
        pl.when(pair).then(pl.lit(rule, dtype=pl.String)).alias("rule"),
    )


def scan_chunk(path: Path) -> pl.LazyFrame:
    """One results chunk, its footer read now: an unreadable chunk is named here."""
    try:
        frame = pl.scan_parquet(path)
        frame.collect_schema()
    except (pl.exceptions.PolarsError, OSError) as error:
        raise UserError(
            f"results chunk {path} is unreadable ({type(error).__name__}); delete it and rerun "
            "that run with --resume"
        ) from None
    return frame


def with_every_column(frame: pl.LazyFrame, schema: pl.Schema) -> pl.LazyFrame:
    """`frame` with every column of `schema`: those an older version did not write are null (in
    the schema's type); its other columns stay."""
    present = set(frame.collect_schema().names())
    return frame.with_columns(
        pl.lit(None, dtype=dtype).alias(name)
        for name, dtype in schema.items()
        if name not in present
    )


SHORT_MODEL = pl.col("model").str.strip_chars_end("/").str.split("/").list.last()
"""A model's display name: the last part of its path or hub name."""


def with_system(frame: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """Add a `system` column naming model, reading and method: ``bert``, ``bert (no-context)``,
    ``gpt2 (pair)``, ``bert (pair, pll-sentence)``, ``frequency-baseline (pair)``."""
    # Figures need short names; a local model is known by its folder's path.
    method, pair = pl.col("method"), pl.col("reading") == "pair"
    label = (
        pl.when(pair & method.is_in(["causal", "pll-word", "frequency"]))
        .then(pl.format("{} (pair)", SHORT_MODEL))
        .when(pair)
        .then(pl.format("{} (pair, {})", SHORT_MODEL, method))
        .when(method.is_in(["context", "frequency"]))
        .then(SHORT_MODEL)
        .otherwise(pl.format("{} ({})", SHORT_MODEL, method))
    )
    return frame.lazy().with_columns(label.alias("system"))


def load_suite_results(path: str | Path) -> pl.LazyFrame:
    """Every suite result row under `path` (`python -m evaluate.suite`): these columns first, in
    this order, then every metadata column found in any suite (strings, null where a suite has
    none); `load_results` reads the same rows in the results' columns.

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

    then, for pairs, each sentence's ingredients and a `right_<rule>` per rule (the schema
    `ud_agree.schemas.suites` describes them)."""
    # Checked as `load_results` checks them: a half-written or unfinished run is refused.
    files = [f for f in result_files(path) if is_suite_chunk(f)]
    if not files:
        raise FileNotFoundError(f"no {CHUNK_GLOB} under {path}")
    frames = [
        with_every_column(scan_chunk(f), SUITE_SCHEMA).cast(SUITE_SCHEMA, strict=False)
        for f in files
    ]
    # Suites carry different metadata columns: a diagonal concat fills the gaps with nulls.
    frame = pl.concat(frames, how="diagonal_relaxed")
    meta = [
        c
        for c in frame.collect_schema().names()
        if c not in SUITE_COLUMNS and c not in RETIRED_COLUMNS
    ]
    return frame.select(*SUITE_COLUMNS, *meta)
