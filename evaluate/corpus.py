"""Reading the miner's tables for one language."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ud_agree.atomic import edited_message
from ud_agree.errors import UsageError
from ud_agree.formats.pairs_table import LATER_COLUMNS, completed
from ud_agree.schemas.corpus import LEXICON as LEXICON_SCHEMA
from ud_agree.schemas.corpus import PAIRS as PAIRS_SCHEMA
from ud_agree.schemas.corpus import RELATIONS as RELATIONS_SCHEMA

# Columns the evaluator reads (ud_agree/schemas/corpus.py); `space_after` is optional: DESIGN.md §3 lacks it.
_REQUIRED = {
    "relations": RELATIONS_SCHEMA.names,
    "sentences": ["lang", "treebank", "sent_id", "words"],
    "lexicon": LEXICON_SCHEMA.names,
}


@dataclass
class Corpus:
    """The miner's tables for one language."""

    relations: pl.DataFrame
    sentences: pl.DataFrame
    lexicon: pl.DataFrame
    manifest_sha256: str
    pairs: pl.DataFrame | None = None  # read for the pair reading only


def read_table(path: Path, required: list[str]) -> pl.DataFrame:
    """One corpus table; a missing, unreadable or incomplete one is a UsageError."""
    if not path.exists():
        raise UsageError(f"corpus table {path} is missing; re-run the miner")
    try:
        table = pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as error:
        raise UsageError(
            f"corpus table {path} is unreadable ({type(error).__name__}); re-run the miner"
        ) from None
    missing = [c for c in required if c not in table.columns]
    if missing:
        raise UsageError(
            f"corpus table {path} lacks column(s) {', '.join(missing)}; re-run the miner"
        )
    return table


def read_pairs(path: Path) -> pl.DataFrame:
    """The pairs table; one mined before nonce variants (§9) holds original pairs only."""
    required = [c for c in PAIRS_SCHEMA.names if c not in LATER_COLUMNS]
    return completed(read_table(path, required))


def language_folder(corpus: str, lang: str) -> Path:
    """`<corpus>/<lang>/`, or a UsageError naming what is there instead."""
    root = Path(corpus)
    if not root.is_dir():
        raise UsageError(corpus_not_found(corpus))
    # A language is a folder of the corpus, never a path out of it (`../fr`).
    if not lang or Path(lang).name != lang or lang in (".", ".."):
        raise UsageError(f"language '{lang}' is not a language folder of corpus '{corpus}'")
    folder = root / lang
    if not folder.is_dir():
        have = sorted(p.name for p in root.iterdir() if (p / "relations.parquet").exists())
        raise UsageError(
            f"language '{lang}' not in corpus '{corpus}' (languages there: {', '.join(have) or 'none'})"
        )
    return folder


def manifest_digest(folder: Path) -> str:
    """SHA-256 of the corpus manifest (what --resume compares to know the corpus is the same);
    a manifest that is absent, unreadable, not a JSON object or of another language is a
    UsageError naming it."""
    manifest = folder / "manifest.json"
    try:
        data = manifest.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"corpus manifest {manifest} is missing; re-run the miner") from None
    except OSError as error:
        raise UsageError(f"corpus manifest {manifest} is unreadable: {error.strerror}") from None
    try:
        record = json.loads(data)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        raise UsageError(f"corpus manifest {manifest} is not a JSON object; re-run the miner")
    lang = record.get("lang")
    if lang is not None and lang != folder.name:
        raise UsageError(
            f"corpus manifest {manifest} is of language '{lang}', not '{folder.name}': "
            "a language folder holds its own language only"
        )
    return hashlib.sha256(data).hexdigest()


def check_tables(folder: Path, tables: dict[str, pl.DataFrame]) -> None:
    """Rows of another language, or sentences without words, are a corpus error naming the table."""
    for name, table in tables.items():
        other = table.filter(pl.col("lang") != folder.name)["lang"] if "lang" in table else None
        if other is not None and other.len():
            raise UsageError(
                f"corpus table {folder / name}.parquet holds rows of language '{other[0]}' under "
                f"'{folder.name}'; re-run the miner"
            )
    sentences = tables["sentences"]
    broken = sentences.filter(
        pl.col("words").is_null() | pl.col("words").list.eval(pl.element().is_null()).list.any()
    )
    if broken.height:
        raise UsageError(
            f"corpus table {folder / 'sentences'}.parquet: {broken.height} sentence(s) without "
            f"words (null), first {broken['sent_id'][0]!r}; re-run the miner"
        )


def table_files(pairs: bool) -> list[str]:
    """The tables a corpus run reads (`pairs.parquet` for the pair reading)."""
    return [f"{name}.parquet" for name in [*_REQUIRED, *(["pairs"] if pairs else [])]]


def read_corpus(corpus: str, lang: str, pairs: bool = False) -> Corpus:
    """Read `<corpus>/<lang>/{relations,sentences,lexicon}.parquet` (and `pairs.parquet`);
    missing pieces are UsageErrors."""
    folder = language_folder(corpus, lang)
    digest = manifest_digest(folder)
    tables = {
        name: read_table(folder / f"{name}.parquet", cols) for name, cols in _REQUIRED.items()
    }
    if pairs:
        tables["pairs"] = read_pairs(folder / "pairs.parquet")
    check_tables(folder, tables)
    # Last: a table that reads well but is not the one mined (pairs cut by hand).
    edited = edited_message(folder, table_files(pairs))
    if edited:
        raise UsageError(f"corpus {edited}; re-run the miner")
    return Corpus(
        tables["relations"],
        tables["sentences"],
        tables["lexicon"],
        digest,
        tables.get("pairs"),
    )


def corpus_not_found(corpus: str) -> str:
    """A missing corpus folder, and the command that mines one (the embedded sample's folder
    where it lies below the working directory)."""
    sample = Path("data/sample/ud")
    ud_dir = str(sample) if sample.is_dir() else "<folder of UD_* treebanks>"
    return (
        f"corpus folder '{corpus}' not found; mine one with `python -m mine --ud-dir {ud_dir} "
        f"--out {corpus}`, or pass --corpus"
    )


def corpus_words(corpus: Corpus) -> set[str]:
    """Every word of the corpus's sentences and lexicon forms (`_` and empty forms left out): the
    vocabulary of the offline `tiny-random` model."""
    words: set[str] = set()
    for row in corpus.sentences["words"].to_list():
        words.update(row or ())
    words.update(f for f in corpus.lexicon["form"].to_list() if f and f != "_")
    return words
