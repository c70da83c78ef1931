"""Minimal pairs (DESIGN.md §4): a kept relation's sentence as written, and the same sentence with
one member re-inflected so that it disagrees — a form of the same lemma from the lexicon. The
rules are `rules/pairs.py`; here they run over a file's relations (joins, one question asked
once per language)."""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.schemas.corpus import FEATURES, PAIRS, ROLES

from .languages import ValueSets
from .lexicon import other_feats
from .paradigms import (
    APOSTROPHES,
    CELL_COLUMNS,
    LIST_COLUMNS,
    BadForm,
    Member,
    Paradigms,
    value_set,
)
from .rules.pairs import (
    ambiguous,
    breaks_elision,
    capitalised_like,
    choose_bad_form,
    relation_skip_reason,
)

VARY_CHOICES = {"target": ("target",), "controller": ("controller",), "both": ROLES[::-1]}


def build_pairs(
    relations: pa.Table,
    sentences: pa.Table,
    lexicon: pa.Table | Paradigms,
    vary: str = "target",
    value_sets: ValueSets | None = None,
) -> tuple[pa.Table, Counter]:
    """Pairs of every kept relation for the varied role(s), and skips counted per reason
    (`lexicon` may be its Paradigms, built once for all of a language's files).

    The rules about a relation run as column expressions; the choice of a bad form and the other
    member's ambiguity are decided once per distinct question (they recur across a corpus)."""
    paradigms = lexicon if isinstance(lexicon, Paradigms) else Paradigms(lexicon, value_sets)
    attempts, skips = prepare_attempts(relations, sentences, vary)
    pairs, more = pairs_from_attempts(attempts, paradigms)
    return pairs, skips + more


def prepare_attempts(
    relations: pa.Table, sentences: pa.Table, vary: str = "target"
) -> tuple[pl.DataFrame, Counter]:
    """What needs no lexicon (a mining worker does it, file by file): one row per (relation,
    varied role, agreeing feature) that passes §4's rules about the relation, and the skips."""
    skips: Counter = Counter()
    attempts = _attempts(pl.DataFrame(relations), *_sentence_facts(sentences), vary)
    if attempts.height == 0:
        return attempts, skips
    reason = attempts.select(relation_skip_reason()).to_series()
    skips.update(dict(reason.drop_nulls().value_counts().iter_rows()))
    return attempts.filter(reason.is_null()), skips


def pairs_from_attempts(attempts: pl.DataFrame, paradigms: Paradigms) -> tuple[pa.Table, Counter]:
    """The pairs of prepared attempts, and the skips for want of a usable bad form."""
    skips: Counter = Counter()
    if attempts.height == 0:
        return PAIRS.empty_table(), skips
    # Each other value that the lexicon attests for the word's UPOS is one bad value to try.
    attested = pl.DataFrame(
        [
            (upos, FEATURES[slot], list(values))
            for (upos, slot), values in paradigms.attested.items()
        ],
        schema={"upos": pl.String, "feature": pl.String, "bad_value": pl.List(pl.String)},
        orient="row",
    )
    tries = (
        attempts.join(attested, on=["upos", "feature"], how="inner")
        .explode("bad_value")
        .filter(~pl.col("values").list.contains(pl.col("bad_value")))
    )
    tries = tries.join(_bad_forms(tries, paradigms), on=_CHOICE, how="left", nulls_equal=True)
    no_form = pl.col("bad_key").is_null()
    outcomes = tries.filter(no_form).get_column("outcome").fill_null("no-form")  # not asked
    skips.update(dict(outcomes.value_counts().iter_rows()))
    tries = tries.filter(~no_form)
    tries = tries.join(_ambiguity(tries, paradigms), on=_AMBIGUITY, how="left", nulls_equal=True)
    ambiguous = tries.filter(pl.col("ambiguous"))
    for role, n in ambiguous.group_by("varied").len().iter_rows():
        skips[f"ambiguous-{'controller' if role == 'target' else 'target'}"] += n
    tries = tries.filter(~pl.col("ambiguous")).with_columns(
        capitalised_like(pl.col("bad_key"), pl.col("form")).alias("bad_form")
    )
    broken = tries.select(breaks_elision()).to_series()
    skips["elision"] += int(broken.sum())
    pairs = tries.filter(~broken).sort("rel", "role_rank", "feature", "bad_value")
    table = pairs.select(
        *("lang", "treebank", "sent_id", "type", "target_id", "controller_id", "varied"),
        "feature",
        pl.col("values").list.first().alias("good_value"),
        "bad_value",
        "lemma",
        "upos",
        pl.col("form").alias("good_form"),
        "bad_form",
        "bad_count",
        "bad_source",
        pl.col("text").alias("sentence_good"),
        (
            pl.col("text").str.slice(0, pl.col("start"))
            + pl.col("bad_form")
            + pl.col("text").str.slice(pl.col("start") + pl.col("form").str.len_chars())
        ).alias("sentence_bad"),
        "start",
        (pl.col("start") + pl.col("form").str.len_chars()).alias("end_good"),
        (pl.col("start") + pl.col("bad_form").str.len_chars()).alias("end_bad"),
        pl.lit("original").alias("variant"),
    )
    return table.to_arrow().cast(PAIRS), skips


# What the choice of a bad form depends on, and what the other member's ambiguity depends on
# (value sets as `,`-joined strings: join keys).
_CHOICE = [
    "key",
    "lemma",
    "upos",
    *(f"k_{n}" for n in LIST_COLUMNS),
    "feats",
    "feature",
    "bad_value",
    "k_agreeing",
]
_AMBIGUITY = ["o_key", "o_lemma", "o_upos", "k_o_values", "feature", "bad_value"]


@cache
def _slots(agreeing: str) -> tuple[int, ...]:
    return tuple(FEATURES.index(f) for f in agreeing.split(","))


def _wanted_cell() -> list[pl.Expr]:
    """The paradigm cell a question asks for: the word's values, the varied feature's replaced
    by the bad value (sets as sorted `,`-joined strings, like `Paradigms.cells`)."""
    return [
        pl.when(pl.col("feature") == feature)
        .then(pl.col("bad_value"))
        .otherwise(pl.col(name).list.unique().list.sort().list.join(",").fill_null(""))
        .alias(f"cell_{name}")
        for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
    ]


def _bad_forms(tries: pl.DataFrame, paradigms: Paradigms) -> pl.DataFrame:
    """Per distinct question that the lexicon has a cell for: the bad form's key, count and
    source, or why there is none (the others are `no-form`)."""
    asked = tries.with_columns(_wanted_cell()).join(
        paradigms.cells, on=CELL_COLUMNS, how="semi", nulls_equal=True
    )
    rows = []
    for question in asked.select(_CHOICE).unique().iter_rows():
        found = paradigms.chosen.get(question)
        if found is None:
            key, lemma, upos, *values, feats, feature, value, agreeing = question
            bundle = tuple(value_set(v) for v in values)
            word = Member(key, lemma, upos, bundle, feats, 0, False)
            found = choose_bad_form(
                paradigms, word, FEATURES.index(feature), value, _slots(agreeing)
            )
            paradigms.chosen[question] = found
        if isinstance(found, BadForm):
            rows.append((*question, found.key, found.count, found.source, None))
        else:
            rows.append((*question, None, None, None, found))
    schema = tries.select(_CHOICE).schema
    schema.update(
        {
            "bad_key": pl.String(),
            "bad_count": pl.Int64(),
            "bad_source": pl.String(),
            "outcome": pl.String(),
        }
    )
    return pl.DataFrame(rows, schema=schema, orient="row")


def _ambiguity(tries: pl.DataFrame, paradigms: Paradigms) -> pl.DataFrame:
    """Per distinct question: whether the other member could carry the bad value."""
    rows = []
    for question in tries.select(_AMBIGUITY).unique().iter_rows():
        if question not in paradigms.ambiguity:
            key, lemma, upos, values, feature, value = question
            slot = FEATURES.index(feature)
            bundle = tuple(value_set(values) if s == slot else frozenset() for s in range(4))
            other = Member(key, lemma, upos, bundle, "", 0, False)
            paradigms.ambiguity[question] = ambiguous(paradigms, other, slot, value)
        rows.append((*question, paradigms.ambiguity[question]))
    schema = tries.select(_AMBIGUITY).schema
    schema["ambiguous"] = pl.Boolean()
    return pl.DataFrame(rows, schema=schema, orient="row")


def _attempts(
    relations: pl.DataFrame, texts: pl.DataFrame, words: pl.DataFrame, vary: str
) -> pl.DataFrame:
    """One row per (relation, varied role, agreeing feature), with what the rules read."""
    relations = relations.with_row_index("rel")
    frames = []
    for rank, role in enumerate(VARY_CHOICES[vary]):
        other = "target" if role == "controller" else "controller"
        frames.append(
            relations.select(
                "rel",
                *("lang", "treebank", "sent_id", "type", "target_id", "controller_id"),
                pl.lit(role).alias("varied"),
                pl.lit(rank).alias("role_rank"),
                pl.col(f"{role}_form").alias("form"),
                pl.col(f"{role}_lemma").alias("lemma"),
                pl.col(f"{role}_upos").alias("upos"),
                *(pl.col(f"{role}_{name}").alias(name) for name in LIST_COLUMNS),
                pl.col(f"{role}_feats").fill_null("").alias("raw_feats"),
                pl.col(f"{role}_surface").alias("surface"),
                pl.col(f"in_mwt_{role}").alias("in_mwt"),
                pl.col(f"{other}_form").str.to_lowercase().alias("o_key"),
                pl.col(f"{other}_lemma").alias("o_lemma"),
                pl.col(f"{other}_upos").alias("o_upos"),
                *(pl.col(f"{other}_{name}").alias(f"o_{name}") for name in LIST_COLUMNS),
                pl.col("coordinated").fill_null(False),
                "agreeing",
            )
        )
    frame = pl.concat(frames).with_columns(pl.col("agreeing").alias("feature")).explode("feature")
    frame = frame.filter(pl.col("feature").is_not_null())
    by_feature = lambda prefix: pl.coalesce(  # noqa: E731
        pl.when(pl.col("feature") == f).then(pl.col(f"{prefix}{f.lower()}")) for f in FEATURES
    )
    feats = {raw: other_feats(raw) for raw in frame["raw_feats"].unique().to_list()}
    frame = frame.with_columns(
        by_feature("").alias("values"),
        by_feature("o_").alias("o_values"),
        pl.col("form").str.to_lowercase().alias("key"),
        pl.col("raw_feats").replace_strict(feats, return_dtype=pl.String).alias("feats"),
        pl.col("agreeing").list.join(",").alias("k_agreeing"),
        *(pl.col(n).list.sort().list.join(",").alias(f"k_{n}") for n in LIST_COLUMNS),
    )
    frame = frame.with_columns(pl.col("o_values").list.sort().list.join(",").alias("k_o_values"))
    frame = frame.join(texts, on=["treebank", "sent_id"], how="left")
    frame = frame.with_columns(pl.col("surface").cast(pl.Int32))
    frame = frame.join(words, on=["treebank", "sent_id", "surface"], how="left")
    return frame.with_columns(
        pl.col("duplicate").fill_null(False), pl.col("after_elided").fill_null(False)
    )


def _sentence_facts(sentences: pa.Table) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per sentence: its text and whether its key repeats; per surface word of a sentence's
    first occurrence: its start offset in the text and whether the word before is elided onto
    it (*s'* glued to *est*)."""
    keys = ["treebank", "sent_id"]
    frame = pl.DataFrame(sentences.select([*keys, "text"]))
    first = frame.select(pl.struct(keys).is_first_distinct()).to_series().to_numpy()
    texts = frame.with_columns(pl.struct(keys).is_duplicated().alias("duplicate")).filter(
        pl.Series(first)
    )
    # The text joins surface words with a space except after SpaceAfter=No (mine.surface): a
    # word starts after the words before it and their spaces. Words of all sentences at once.
    chosen = pa.array(first)
    words = sentences.column("words").filter(chosen)
    lengths = pc.list_value_length(words).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = pc.list_flatten(words)
    if "space_after" in sentences.column_names:
        space = pc.list_flatten(sentences.column("space_after").filter(chosen)).to_numpy(
            zero_copy_only=False
        )
    else:
        space = np.ones(len(flat), dtype=bool)
    width = pc.utf8_length(flat).to_numpy(zero_copy_only=False).astype(np.int64) + space
    begin = np.repeat(np.cumsum(lengths) - lengths, lengths)  # each word's sentence's first word
    total = np.cumsum(width)
    start = total - width - (total[begin] - width[begin]) if len(width) else total
    surface = np.arange(len(width)) - begin
    elided = pc.or_(
        pc.starts_with(pc.utf8_reverse(flat), APOSTROPHES[0]),
        pc.starts_with(pc.utf8_reverse(flat), APOSTROPHES[1]),
    )
    before = np.zeros(len(width), dtype=bool)
    if len(width):
        glued_elided = ~space & elided.to_numpy(zero_copy_only=False).astype(bool)
        before[1:] = glued_elided[:-1]
        before &= surface > 0
    key_rows = np.repeat(np.arange(len(lengths)), lengths)
    word_facts = texts.select(keys)[key_rows].with_columns(
        pl.Series("surface", surface, dtype=pl.Int32),
        pl.Series("start", start, dtype=pl.Int32),
        pl.Series("after_elided", before),
    )
    return texts, word_facts
