"""Items (DESIGN.md §1.4–1.5): masked sentences from surface words, windowing, distance in tokens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from ud_agree.schemas.corpus import FEATURES, RELATION_KEY, ROLES, SENTENCE_KEY
from ud_agree.surface import surface_text

from ..corpus import Corpus
from ..options import UsageError


def masked_text(
    words: Sequence[str],
    space_after: Sequence[bool] | None,
    masked: Sequence[int],
    mask_token: str,
) -> tuple[str, list[tuple[int, int]]]:
    """Sentence text with the surface words at `masked` replaced by the mask; char span of every word."""
    return surface_text(words, space_after, dict.fromkeys(masked, mask_token))


def first_token_at(offsets: Sequence[tuple[int, int]], span: tuple[int, int]) -> int:
    """Index of the first non-special token overlapping a character span (-1 if none)."""
    start, end = span
    for k, (a, b) in enumerate(offsets):
        if b > a and b > start and a < end:
            return k
    return -1


@dataclass(frozen=True)
class Encoded:
    """Token ids of masked sentences with the scored mask position and the token distance."""

    input_ids: list[list[int]]
    mask_position: np.ndarray
    distance_tokens: np.ndarray
    windowed: np.ndarray  # bool: the sentence was cut to the model's window


def window(ids: list[int], position: int, limit: int) -> tuple[list[int], int]:
    """Cut [CLS] body [SEP] to `limit` tokens keeping the position near the middle; new position."""
    if len(ids) <= limit:
        return ids, position
    head, body, tail = ids[:1], ids[1:-1], ids[-1:]
    room = limit - 2
    start = min(max(position - 1 - room // 2, 0), len(body) - room)
    return head + body[start : start + room] + tail, position - start


def encode(
    tokenizer,
    texts: Sequence[str],
    masked_spans: Sequence[tuple[int, int]],
    other_spans: Sequence[tuple[int, int]],
    mask_ordinals: Sequence[int],
    limit: int,
) -> Encoded:
    """Tokenize masked texts; the scored mask is the `mask_ordinals[i]`-th mask token of text i."""
    # verbose=False: long sentences are windowed below, so the length warning would mislead.
    batch = tokenizer(
        list(texts),
        add_special_tokens=True,
        return_offsets_mapping=True,
        truncation=False,
        verbose=False,
    )
    mask_id = tokenizer.mask_token_id
    all_ids, positions, distances, cut = [], [], [], []
    for ids, offsets, span, other, ordinal in zip(
        batch["input_ids"],
        batch["offset_mapping"],
        masked_spans,
        other_spans,
        mask_ordinals,
        strict=True,
    ):
        # The mask token whose characters overlap the masked word; by rank if offsets disagree.
        mask_at = [k for k, t in enumerate(ids) if t == mask_id]
        inside = [k for k in mask_at if offsets[k][1] > span[0] and offsets[k][0] < span[1]]
        if inside:
            position = inside[0]
        else:
            position = mask_at[ordinal] if ordinal < len(mask_at) else first_token_at(offsets, span)
        other_at = first_token_at(offsets, other)
        distances.append(abs(position - other_at) if other_at >= 0 else -1)
        cut.append(len(ids) > limit)
        ids, position = window(list(ids), position, limit)
        all_ids.append(ids)
        positions.append(position)
    return Encoded(
        input_ids=all_ids,
        mask_position=np.asarray(positions, dtype=np.int64),
        distance_tokens=np.asarray(distances, dtype=np.int64),
        windowed=np.asarray(cut, dtype=bool),
    )


def expand_roles(relations: pl.DataFrame, roles: Sequence[str]) -> pl.DataFrame:
    """One row per (relation, masked role) with the masked word's form, upos, features, surfaces."""
    frames = []
    for role in roles:
        other = "target" if role == "controller" else "controller"
        frames.append(
            relations.with_columns(
                pl.lit(role).alias("masked"),
                pl.col(f"{role}_form").alias("form"),
                pl.col(f"{role}_lemma").alias("lemma"),
                pl.col(f"{role}_upos").alias("upos"),
                pl.col(f"{role}_surface").alias("masked_surface"),
                pl.col(f"{other}_surface").alias("other_surface"),
                pl.col(f"in_mwt_{role}").alias("in_mwt"),
                pl.col(f"{role}_number").alias("m_number"),
                pl.col(f"{role}_gender").alias("m_gender"),
                pl.col(f"{role}_case").alias("m_case"),
                pl.col(f"{role}_person").alias("m_person"),
            ).with_columns(value_of_agreeing().alias("value"))
        )
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


def build_items(corpus: Corpus, roles: Sequence[str]) -> tuple[pl.DataFrame, dict[str, int]]:
    """Items joined to their sentence's words; same-surface-word and sentence-less ones counted out."""
    counts: dict[str, int] = {"relations": corpus.relations.height}
    items = expand_roles(corpus.relations, roles).with_row_index("item")
    counts["items_built"] = items.height
    same = pl.col("target_surface") == pl.col("controller_surface")
    counts["same-surface-word"] = items.filter(same).height
    items = items.filter(~same)
    sentence_cols = ["lang", "treebank", "sent_id", "words"]
    if "space_after" in corpus.sentences.columns:
        sentence_cols.append("space_after")
    sentences = corpus.sentences.select(sentence_cols).unique(list(SENTENCE_KEY))
    joined = items.join(sentences, on=list(SENTENCE_KEY), how="left")
    missing = joined["words"].is_null()
    counts["missing-sentence"] = int(missing.sum())
    joined = joined.filter(~missing).sort("item")
    if "space_after" not in joined.columns:
        joined = joined.with_columns(pl.lit(None, dtype=pl.List(pl.Boolean)).alias("space_after"))
    return joined, counts


def build_pair_items(corpus: Corpus) -> tuple[pl.DataFrame, dict[str, int]]:
    """One item per minimal pair (§4), with its relation's measures and the varied word's values."""
    if corpus.pairs is None:
        raise UsageError(
            "the corpus has no pairs.parquet; mine it again with this version, without --no-pairs"
        )
    pairs = corpus.pairs.rename({"varied": "masked"})
    counts: dict[str, int] = {"pairs": pairs.height}
    relations = expand_roles(corpus.relations, ROLES).drop("lemma", "upos", "type")
    on = [*RELATION_KEY, "masked"]
    items = pairs.join(relations, on=on, how="inner").with_columns(
        pl.col("good_form").alias("form"),
        # §6: a pair's contrast is its varied feature, its value the good form's value of it.
        pl.format("{}={}", "feature", "good_value").alias("value"),
    )
    counts["missing-relation"] = pairs.height - items.height
    # Results name the re-inflected word's role `varied`; `masked` is the class-average reading's.
    items = items.rename({"masked": "varied"})
    items = items.sort([*RELATION_KEY, "varied", "feature", "bad_value", "variant"])
    items = items.with_row_index("item")
    counts["items_built"] = items.height
    return items, counts
