"""Items of both readings (DESIGN.md §1.4–1.5, §4): a relation's roles as rows, the value of its
agreeing features."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ud_agree.schemas.corpus import FEATURES, RELATION_KEY, SENTENCE_KEY
from ud_agree.surface import word_spans


def role_columns(role: str) -> dict[str, str]:
    """The columns of a relation that the word in `role` reads as its own (generic name →
    relation column): written once, read by `expand_roles` and turned back by `without_relation`."""
    other = "target" if role == "controller" else "controller"
    return {
        "form": f"{role}_form",
        "lemma": f"{role}_lemma",
        "upos": f"{role}_upos",
        "masked_surface": f"{role}_surface",
        "other_surface": f"{other}_surface",
        "in_mwt": f"in_mwt_{role}",
        **{f"m_{name.lower()}": f"{role}_{name.lower()}" for name in FEATURES},
    }


def expand_roles(
    relations: pl.DataFrame, roles: Sequence[str], role_column: str = "masked"
) -> pl.DataFrame:
    """One row per (relation, role) with that word's form, upos, features, surfaces; the role in
    `role_column` (`masked` for the class-average reading, `varied` for pairs)."""
    frames = [
        relations.with_columns(
            pl.lit(role).alias(role_column),
            *(pl.col(column).alias(name) for name, column in role_columns(role).items()),
        ).with_columns(value_of_agreeing().alias("value"))
        for role in roles
    ]
    return pl.concat(frames, how="vertical")


def value_of_agreeing() -> pl.Expr:
    """§6 `value`: the masked or varied word's values of the agreeing features,
    `Gender=Fem|Number=Plur` (features sorted, a multi-valued feature's values joined by `,`)."""
    parts = [
        pl.when(pl.col("agreeing").list.contains(name)).then(
            pl.lit(f"{name}=") + pl.col(f"m_{name.lower()}").list.sort().list.join(",")
        )
        for name in sorted(FEATURES)
    ]
    return pl.concat_str(parts, separator="|", ignore_nulls=True)


def feature_values(feature: pl.Expr, prefix: str) -> pl.Expr:
    """The value set, among `<prefix><feature>` columns, of the feature each row names."""
    return pl.coalesce(
        pl.when(feature == name).then(pl.col(f"{prefix}{name.lower()}")) for name in FEATURES
    )


# §3 `derived`: the tags that say the controller's value of a feature is borrowed, not its own.
BORROWED_BY = {
    "antecedent": ("Number", "Gender", "Person"),
    "lexicon-features": ("Number", "Gender", "Person"),
    "dependent-number": ("Number",),
    "implicit-person": ("Person",),
}


def word_may_hold() -> tuple[pl.Expr, pl.Expr]:
    """Which annotations of its varied feature a pair's varied word may have, when the pair has no
    relation row (so the two words agree on no feature as annotated): (its own `good_value`, no
    value). Its own value, unless the controller's value of the feature is the controller's own
    (no tag of `BORROWED_BY`) in an `unmarked-cell` pair: the two would agree, and the relation
    would have its row. No value, in an `unmarked-cell` pair (the cell borrowed some feature)."""
    derived = pl.col("derived").fill_null([])
    unmarked = derived.list.contains("unmarked-cell")
    borrowed = pl.any_horizontal(
        derived.list.contains(tag) & pl.col("feature").is_in(features)
        for tag, features in BORROWED_BY.items()
    )
    return (~unmarked | borrowed), unmarked


def may_be(feature: pl.Expr, value: pl.Expr, own: pl.Expr, unannotated: pl.Expr) -> pl.Expr:
    """Whether a bundle (`m_` columns) may be the varied word's annotation for a pair of `feature`
    and good `value`, given what `word_may_hold` allows (`own`, `unannotated`)."""
    held = feature_values(feature, "m_")
    return (own & held.list.contains(value)) | (unannotated & (held.list.len() == 0))


def treebank_bundles(lexicon: pl.DataFrame, forms: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """The feature bundles (`m_<feature>` lists) each of `forms` (case-folded `key`, lemma, upos)
    has as a treebank token, with their summed counts."""
    return (
        lexicon.filter(pl.col("count") > 0)
        .select(
            pl.col("form").str.to_lowercase().alias("key"),
            "lemma",
            "upos",
            *(pl.col(n).list.sort().alias(f"m_{n}") for n in names),
            "count",
        )
        .join(forms.unique(), on=["key", "lemma", "upos"], how="semi")
        .with_columns(
            pl.concat_str([pl.col(f"m_{n}").list.join(",") for n in names], separator="|").alias(
                "bundle"
            )
        )
        .group_by("key", "lemma", "upos", "bundle")
        .agg(*(pl.col(f"m_{n}").first() for n in names), pl.col("count").sum())
    )


def varied_values(pairs: pl.DataFrame, lexicon: pl.DataFrame) -> pl.DataFrame:
    """`m_number` … `m_person` of each pair's varied word where no relation row gives them (§4.2):
    the treebank bundle (count > 0: the word is a treebank token) of its form (case-folded, same
    lemma and upos) that `word_may_hold` allows, fitting most of the word's pairs, then the most
    frequent; else what a token the lexicon does not list holds (it lists none without features):
    nothing for an unmarked cell, the good value else."""
    names = [name.lower() for name in FEATURES]
    forms = pairs.select(pl.col("good_form").str.to_lowercase().alias("key"), "lemma", "upos")
    bundles = treebank_bundles(lexicon, forms, names)
    own, unannotated = word_may_hold()
    # A word's other pairs (same relation, role and variant) tell more of its annotation: *are*
    # varied for Number (plural) and for Person (1st) is (Plur, 1), not the more frequent (Plur, 3).
    word = [c for c in (*RELATION_KEY, "varied", "variant") if c in pairs.columns]
    asked = pairs.select(
        pl.int_range(pl.len()).alias("_row"),
        *word,
        pl.col("good_form").str.to_lowercase().alias("key"),
        "lemma",
        "upos",
        "feature",
        "good_value",
        own.alias("_own"),
        unannotated.alias("_unannotated"),
    )
    word += ["key", "lemma", "upos"]
    siblings = asked.select(
        *word,
        *(pl.col(c).alias(f"_s{c}") for c in ("feature", "good_value", "_own", "_unannotated")),
    )
    candidates = asked.join(bundles, on=["key", "lemma", "upos"]).filter(
        may_be(pl.col("feature"), pl.col("good_value"), pl.col("_own"), pl.col("_unannotated"))
    )
    fits = may_be(
        pl.col("_sfeature"), pl.col("_sgood_value"), pl.col("_s_own"), pl.col("_s_unannotated")
    )
    chosen = (
        candidates.join(siblings, on=word, nulls_equal=True)
        .group_by("_row", "bundle")
        .agg(
            *(pl.col(f"m_{n}").first() for n in names),
            pl.col("count").first(),
            fits.cast(pl.Int32).sum().alias("_fits"),
        )
        .sort("_row", "_fits", "count", "bundle", descending=[False, True, True, False])
        .group_by("_row", maintain_order=True)
        .first()
        .select("_row", *(f"m_{n}" for n in names), pl.lit(True).alias("_found"))
    )
    empty = pl.lit([], dtype=pl.List(pl.String))
    unlisted = {
        f"m_{n}": pl.when(~pl.col("_unannotated") & (pl.col("feature") == name))
        .then(pl.concat_list(pl.col("good_value")))
        .otherwise(empty)
        for name, n in zip(FEATURES, names, strict=True)
    }
    return (
        asked.join(chosen, on="_row", how="left")
        .with_columns(
            pl.when(pl.col("_found").is_not_null())
            .then(pl.col(column))
            .otherwise(fallback)
            .alias(column)
            for column, fallback in unlisted.items()
        )
        .sort("_row")
        .select(*unlisted)
    )


def varied_surface(words, space_after, text: str, start: int, end: int) -> int | None:
    """The index of the surface word that is exactly the span [start, end) of `text` (the pair's
    varied word); None where no surface word is (a word inside a multiword token, a contraction
    that takes the word before, words that do not spell the sentence)."""
    spans = None if words is None else word_spans(text, words, space_after)
    return (
        None
        if spans is None
        else next((i for i, span in enumerate(spans) if span == (start, end)), None)
    )


def pair_surfaces(pairs: pl.DataFrame, sentences: pl.DataFrame) -> tuple[pl.Series, pl.Series]:
    """(`masked_surface`, `other_surface`) of pairs without a relation row (§1.4): the varied word's
    surface word found at its offsets; the other member's where its ID tells it — it comes before
    the varied word and no multiword token lies before the varied word (its surface index is then
    its ID less one) —, else null."""
    columns = [c for c in (*SENTENCE_KEY, "words", "space_after") if c in sentences.columns]
    rows = pairs.select(
        *SENTENCE_KEY,
        "sentence_good",
        "start",
        "end_good",
        pl.when(pl.col("varied") == "target")
        .then(pl.col("target_id"))
        .otherwise(pl.col("controller_id"))
        .alias("_varied_id"),
        pl.when(pl.col("varied") == "target")
        .then(pl.col("controller_id"))
        .otherwise(pl.col("target_id"))
        .alias("_other_id"),
    ).join(
        sentences.select(columns).unique(list(SENTENCE_KEY)),
        on=list(SENTENCE_KEY),
        how="left",
        maintain_order="left",
    )
    if "space_after" not in rows.columns:
        rows = rows.with_columns(pl.lit(None, dtype=pl.List(pl.Boolean)).alias("space_after"))
    if "words" not in rows.columns:
        rows = rows.with_columns(pl.lit(None, dtype=pl.List(pl.String)).alias("words"))
    varied: list[int | None] = []
    other: list[int | None] = []
    for words, space_after, text, start, end, varied_id, other_id in rows.select(
        "words", "space_after", "sentence_good", "start", "end_good", "_varied_id", "_other_id"
    ).iter_rows():
        at = varied_surface(words, space_after, text, start, end)
        varied.append(at)
        before = at is not None and at == varied_id - 1 and other_id < varied_id
        other.append(other_id - 1 if before else None)
    return (
        pl.Series("masked_surface", varied, dtype=pl.Int32),
        pl.Series("other_surface", other, dtype=pl.Int32),
    )


def without_relation(
    pairs: pl.DataFrame, sentences: pl.DataFrame, lexicon: pl.DataFrame, like: pl.DataFrame
) -> pl.DataFrame:
    """Pairs without a relation row (§4.2) as items with the columns of `like` (pairs joined to
    their relation rows): the varied word's values from the lexicon (`varied_values`); `distance`
    and `order` from the two IDs (§1.3); `in_mwt` from `derived` (a varied word inside a multiword
    token is always a transparent token, §4); the surface words where `pair_surfaces` finds them.
    The rest (`agreeing`, `distractors`, `attractors`, `intervening_nouns`, `coordinated`) needs
    the other words' UPOS and features, which the tables do not hold: null."""
    target_first = pl.col("target_id") < pl.col("controller_id")
    masked, other = pair_surfaces(pairs, sentences)
    in_mwt = pl.col("derived").list.contains("transparent-token").fill_null(False)
    made = (
        pl.concat([pairs, varied_values(pairs, lexicon)], how="horizontal")
        .with_columns(
            pl.col("good_form").alias("form"),
            masked,
            other,
            (pl.col("target_id") - pl.col("controller_id")).abs().cast(pl.Int32).alias("distance"),
            pl.when(target_first)
            .then(pl.lit("target-first"))
            .otherwise(pl.lit("controller-first"))
            .alias("order"),
            in_mwt.alias("in_mwt"),
        )
        .with_columns(
            pl.coalesce(
                pl.when(pl.col("varied") == role).then(pl.col(name)) for role, name in sources
            ).alias(column)
            for column, sources in _from_varied().items()
        )
    )
    return made.select(
        pl.col(c).cast(dtype) if c in made.columns else pl.lit(None, dtype=dtype).alias(c)
        for c, dtype in like.schema.items()
    )


def _from_varied() -> dict[str, list[tuple[str, str]]]:
    """`role_columns` turned back: each relation column, from which generic column of the varied
    word in which role (null where the varied word's role gives it none)."""
    sources: dict[str, list[tuple[str, str]]] = {}
    for role in ("target", "controller"):
        for name, column in role_columns(role).items():
            sources.setdefault(column, []).append((role, name))
    return sources
