"""The lexicon indexed for DESIGN.md §4: a lemma's paradigm cells, the bundles of each form, the
values each UPOS attests, as tables the §4 rules join (`rules/pairs.py`)."""

from __future__ import annotations

from copy import copy
from functools import cached_property

import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import FEATURES

from .languages import ValueSets

Bundle = tuple[frozenset[str], ...]  # values of FEATURES, in that order
APOSTROPHES = ("'", "\u2019")
LIST_COLUMNS = [f.lower() for f in FEATURES]  # the lexicon's and relations' columns of FEATURES


def elided(form: pl.Expr) -> pl.Expr:
    """An elided form (*l'*) or a clitic written onto the word before (*'m*, *’s*): an
    apostrophe at either end; its spelling depends on its neighbour, so it is never varied
    nor a bad form (§4 `elision`)."""
    return pl.any_horizontal(
        *(form.str.starts_with(mark) for mark in APOSTROPHES),
        *(form.str.ends_with(mark) for mark in APOSTROPHES),
    )


# A paradigm cell as join keys (value sets `,`-joined), as `ParadigmFrames.forms` holds them.
CELL_COLUMNS = ["lemma", "upos", *(f"cell_{n}" for n in LIST_COLUMNS), "feats"]


def expanded(values: pl.Expr, feature: str, value_sets: ValueSets) -> pl.Expr:
    """A list column of one feature's values, each value replaced by those it stands for (§1.2:
    Norwegian Com = {Masc, Fem})."""
    stands_for = value_sets.get(feature)
    if not stands_for:
        return values
    joined = {value: ",".join(sorted(many)) for value, many in stands_for.items()}
    return (
        values.list.eval(pl.element().replace(joined))
        .list.join(",")
        .str.split(",")
        .list.eval(pl.element().filter(pl.element() != ""))
    )


def set_key(values: pl.Expr) -> pl.Expr:
    """A sorted list of distinct values (the lexicon's and the relations' value sets) as a set's
    join key: `,`-joined, without the empty value (`""` when none)."""
    return values.list.join(",").str.strip_chars_start(",").fill_null("")


class ParadigmFrames:
    """The lexicon indexed as tables, for the §4 rules run over columns (`rules/pairs.py`):
    the rows that can be a bad form by paradigm cell (`forms`), every bundle of each (form,
    lemma, upos) with its values expanded through the value sets (`bundles`), and the values
    each (upos, feature) attests; `narrowed` keeps the paradigms that a batch of questions
    reads."""

    def __init__(self, lexicon: pa.Table, value_sets: ValueSets | None = None) -> None:
        """`lexicon`: as `build_lexicon` makes it (value lists are sorted sets)."""
        self.value_sets = value_sets or {}
        frame = pl.DataFrame(lexicon)
        if "typo_count" not in frame.columns:
            frame = frame.with_columns(pl.lit(0, dtype=pl.Int64).alias("typo_count"))
        self.lexicon = frame
        self.attested = (
            pl.concat(
                frame.select("upos", pl.lit(feature).alias("feature"), pl.col(name).alias("v"))
                for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
            )
            .explode("v")
            .drop_nulls("v")
            .unique()
            .group_by("upos", "feature")
            .agg(pl.col("v").sort().alias("bad_value"))
        )

    def narrowed(self, lemmas: pl.DataFrame) -> ParadigmFrames:
        """The index of the paradigms of `lemmas` (lemma, upos) only; the values attested stay
        the whole lexicon's."""
        narrow = copy(self)
        narrow.lexicon = self.lexicon.join(lemmas.unique(), on=["lemma", "upos"], how="semi")
        narrow.__dict__.pop("forms", None)
        narrow.__dict__.pop("bundles", None)
        return narrow

    @cached_property
    def forms(self) -> pl.DataFrame:
        """Rows that can be a bad form, by paradigm cell (lemma, upos, set keys, other FEATS)."""
        # A form only ever seen as a typo is no bad form, nor is an elided one or a clitic.
        count = pl.col("count").fill_null(0)
        usable = ~((count > 0) & (pl.col("typo_count") == count)) & ~elided(pl.col("form"))
        return self.lexicon.filter(usable & pl.col("feats").is_not_null()).select(
            "lemma",
            "upos",
            *(set_key(pl.col(name)).alias(f"cell_{name}") for name in LIST_COLUMNS),
            "feats",
            pl.col("form").str.to_lowercase().alias("bad_key"),
            count.alias("bad_count"),
            "source",
        )

    @cached_property
    def bundles(self) -> pl.DataFrame:
        """Every bundle of each (lower-cased form, lemma, upos), values expanded (§1.2)."""
        return self.lexicon.select(
            pl.col("form").str.to_lowercase().alias("form_key"),
            "lemma",
            "upos",
            *(
                expanded(pl.col(name), feature, self.value_sets).alias(f"b_{name}")
                for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
            ),
        )
