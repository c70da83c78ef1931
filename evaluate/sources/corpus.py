"""A mined corpus's minimal pairs as a pair table (DESIGN.md §4): one row per pair of
`pairs.parquet`, with its relation's measures and the varied word's values."""

from __future__ import annotations

import polars as pl

from ud_agree.errors import UsageError
from ud_agree.schemas.corpus import RELATION_KEY, ROLES

from ..corpus import Corpus
from ..readings.items import expand_roles, without_relation


def build_pair_items(corpus: Corpus) -> tuple[pl.DataFrame, dict[str, int]]:
    """One item per minimal pair (§4), with its relation's measures and the varied word's values."""
    if corpus.pairs is None:
        raise UsageError(
            "the corpus has no pairs.parquet; mine it again with this version, without --no-pairs"
        )
    pairs = corpus.pairs
    counts: dict[str, int] = {"pairs": pairs.height}
    relations = expand_roles(corpus.relations, ROLES, "varied").drop("lemma", "upos", "type")
    on = [*RELATION_KEY, "varied"]
    held = pairs.join(relations, on=on, how="inner")
    # A §4.2 pair whose controller borrows its values (an antecedent, a dependent, an unmarked
    # cell) has no relation row: the relations table keeps agreeing relations only. It is scored
    # all the same, with what the pair, its sentence and the lexicon tell (docs/choices.md).
    alone = pairs.join(relations.select(on).unique(), on=on, how="anti")
    alone = without_relation(alone, corpus.sentences, corpus.lexicon, like=held)
    counts["pairs_without_relation"] = alone.height
    items = pl.concat([held, alone]).with_columns(
        pl.col("good_form").alias("form"),
        # §6: a pair's contrast is its varied feature, its value the good form's value of it.
        pl.format("{}={}", "feature", "good_value").alias("value"),
    )
    items = items.sort([*RELATION_KEY, "varied", "feature", "bad_value", "variant"])
    items = items.with_row_index("item")
    counts["items_built"] = items.height
    return items, counts
