"""A corpus's original pairs, read with their columns checked, and the seeded stratified draw."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import polars as pl

from ud_agree.atomic import edited_message

from .common import ITEM_PREFIX, ValidateError

# What identifies a pair across minings of the same release (the pair key less `variant`).
ITEM_KEY = (
    *("lang", "treebank", "sent_id", "target_id", "controller_id", "varied", "feature"),
    "bad_value",
)
_TEXT = (
    *("lang", "treebank", "sent_id", "varied", "feature", "bad_value", "type", "good_value"),
    *("good_form", "bad_form", "sentence_good", "sentence_bad"),
)
_NUMBERS = ("target_id", "controller_id", "start", "end_good", "end_bad")
_LISTS = ("also", "derived")  # optional, list<string>
# Read by the sampler but allowed to be null (a corpus mined before `bad_source` was filled).
_NULLABLE = ("bad_source",)


def rules_of(pairs: pl.DataFrame, relations: pl.DataFrame | None = None) -> pl.Series:
    """Each pair's rules (list<str>): its `derived` values, `plain` where empty; for a corpus
    mined before `derived` existed, re-derived from `relations` and `bad_source`."""
    if "derived" in pairs.columns:
        derived = pairs.get_column("derived").fill_null([]).cast(pl.List(pl.String))
    else:
        derived = _derived_before(pairs, relations)
    return (
        pl.select(
            pl.when(derived.list.len() > 0)
            .then(derived.list.unique(maintain_order=True))
            .otherwise(pl.lit(["plain"], dtype=pl.List(pl.String)))
        )
        .to_series()
        .alias("rules")
    )


def _derived_before(pairs: pl.DataFrame, relations: pl.DataFrame | None) -> pl.Series:
    """What `derived` would say, for the three rules an older corpus can show: implicit person
    (a subject-verb Person pair whose controller has no Person), transparent token (the varied
    word inside a multiword token) and UniMorph form (the bad form from UniMorph only)."""
    key = ["treebank", "sent_id", "target_id", "controller_id"]
    if relations is None:
        facts = pairs.select(
            pl.lit(None, pl.Boolean).alias("no_person"), pl.lit(None, pl.Boolean).alias("in_mwt")
        )
    else:
        joined = pairs.select(*key, "varied").join(
            relations.select(
                *key, "controller_person", "in_mwt_target", "in_mwt_controller"
            ).unique(key, keep="first"),
            on=key,
            how="left",
            maintain_order="left",
        )
        facts = joined.select(
            (pl.col("controller_person").list.len().fill_null(0) == 0).alias("no_person"),
            pl.when(pl.col("varied") == "controller")
            .then(pl.col("in_mwt_controller"))
            .otherwise(pl.col("in_mwt_target"))
            .alias("in_mwt"),
        )
    frame = pl.concat([pairs.select("type", "feature", "bad_source"), facts], how="horizontal")
    return frame.select(
        pl.concat_list(
            pl.when(
                (pl.col("type") == "subject-verb")
                & (pl.col("feature") == "Person")
                & pl.col("no_person").fill_null(False)
            ).then(pl.lit("implicit-person")),
            pl.when(pl.col("in_mwt").fill_null(False)).then(pl.lit("transparent-token")),
            pl.when(pl.col("bad_source") == "unimorph").then(pl.lit("unimorph-form")),
        )
        .list.drop_nulls()
        .alias("derived")
    ).to_series()


def item_ids(pairs: pl.DataFrame) -> pl.Series:
    """A stable id per pair: `p` and the first 12 hex digits of SHA-1 over its key."""
    keys = pairs.select(
        pl.concat_str([pl.col(c).cast(pl.String).fill_null("") for c in ITEM_KEY], separator="\t")
    ).to_series()
    return pl.Series(
        "item",
        [ITEM_PREFIX + hashlib.sha1(k.encode()).hexdigest()[:12] for k in keys],
        pl.String,
    )


def draw(pairs: pl.DataFrame, per_cell: int, seed: int) -> pl.DataFrame:
    """A seeded sample with at least min(per_cell, available) pairs in every language × type ×
    rule cell. A pair belongs to each of its rules' cells: cells are filled smallest first, and a
    pair drawn for one cell counts towards its other cells too (so those may hold more)."""
    frame = pairs.with_columns(pl.int_range(pl.len()).alias("_row")).sort(
        "item"
    )  # the draw depends on the pairs, not on the order the miner wrote them
    cells = (
        frame.select("lang", "type", "rules", "_row", "item")
        .explode("rules")
        .group_by("lang", "type", "rules")
        .agg("_row", "item")
        .with_columns(pl.col("_row").list.len().alias("size"))
        .sort("size", "lang", "type", "rules")
    )
    rng = np.random.default_rng(seed)
    chosen: set[int] = set()
    for rows in cells.get_column("_row").to_list():
        have = sum(1 for row in rows if row in chosen)
        free = [row for row in rows if row not in chosen]
        need = min(max(per_cell - have, 0), len(free))
        if need:
            picked = rng.choice(len(free), size=need, replace=False)
            chosen.update(free[i] for i in sorted(picked.tolist()))
    return (
        frame.filter(pl.col("_row").is_in(sorted(chosen))).sort("lang", "type", "item").drop("_row")
    )


def draw_uniform(pairs: pl.DataFrame, size: int, seed: int) -> pl.DataFrame:
    """A seeded sample of `size` pairs (all where fewer), each pair as likely as any other, over
    every language and cell at once."""
    frame = pairs.sort("item")  # the draw depends on the pairs, not on the order they were read
    picked = np.random.default_rng(seed).choice(
        frame.height, min(size, frame.height), replace=False
    )
    return frame[sorted(picked.tolist())].sort("lang", "type", "item")


def read_language(folder: Path) -> pl.DataFrame:
    """A language's original pairs with their rules and item ids; a column missing, of another
    type or null where a pair needs it, or pairs of another language, is an error naming it."""
    path = folder / "pairs.parquet"
    pairs = _read(path)
    checked_columns(pairs, path)
    other = pairs.filter(pl.col("lang") != folder.name).get_column("lang").unique().sort()
    if other.len():
        raise ValidateError(
            f"{path}: column lang holds {', '.join(other.head(3))}, not {folder.name} only "
            f"(pairs of another language in the {folder.name} folder)"
        )
    if "variant" in pairs.columns:
        pairs = pairs.filter(pl.col("variant") == "original")
    relations = None
    if "derived" not in pairs.columns:
        relations = _read(folder / "relations.parquet")
        needed = ("controller_person", "in_mwt_target", "in_mwt_controller")
        missing = [c for c in needed if c not in relations.columns]
        if missing:
            raise ValidateError(
                f"{folder / 'relations.parquet'}: no column {', '.join(missing)} (pairs.parquet "
                "has no column derived either); re-run the miner"
            )
    # Last: a table that reads well but is not the one mined (pairs cut by hand).
    edited = edited_message(
        folder, ["pairs.parquet"] + ["relations.parquet"] * (relations is not None)
    )
    if edited:
        raise ValidateError(f"{edited}; mine the corpus again")
    return pairs.with_columns(rules_of(pairs, relations), item_ids(pairs))


def checked_columns(pairs: pl.DataFrame, path: Path) -> None:
    """Refuse a pairs table the sampler cannot read: the column, what it holds, and the fix."""
    needed = (*_TEXT, *_NUMBERS, *_NULLABLE)
    missing = [c for c in needed if c not in pairs.columns]
    if missing:
        raise ValidateError(f"{path}: no column {', '.join(missing)}; re-run the miner")
    for column in needed:
        dtype = pairs.schema[column]
        if column in _NUMBERS and not dtype.is_integer():
            raise ValidateError(f"{path}: column {column} holds {dtype}, not integers")
        if column not in _NUMBERS and dtype not in (pl.String, pl.Categorical, pl.Null):
            raise ValidateError(f"{path}: column {column} holds {dtype}, not text")
    for column in (c for c in _LISTS if c in pairs.columns):
        dtype = pairs.schema[column]
        if not (isinstance(dtype, pl.List) and dtype.inner in (pl.String, pl.Categorical, pl.Null)):
            raise ValidateError(f"{path}: column {column} holds {dtype}, not lists of text")
    for column in (*_TEXT, *_NUMBERS):
        nulls = pairs.get_column(column).null_count()
        if nulls:
            raise ValidateError(f"{path}: column {column} is empty (null) in {nulls} pair(s)")


def _read(path: Path) -> pl.DataFrame:
    try:
        return pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as error:
        raise ValidateError(f"{path}: not a readable table ({type(error).__name__})") from None
