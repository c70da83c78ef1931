"""`distance_tokens` (DESIGN.md §1.3): how many of the model's tokens lie between an item's masked
word and its other member, counted by the reading in the text the model reads. Back-ends only
encode; this is the one place that counts."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ud_agree.surface import surface_text

from ..backends.api import Context
from ..backends.masking import first_token_at, mask_position, with_offsets


def masked_distances(
    tokenizer,
    texts: Sequence[str],
    masked: Sequence[tuple[int, int]],
    other: Sequence[tuple[int, int]],
) -> list[int]:
    """Tokens from the mask (at the character span `masked`) to the first token of the other word
    (`other`), special tokens included as the model reads them; -1 where the other word has no
    token."""
    batch = with_offsets(tokenizer, texts)
    mask_id = tokenizer.mask_token_id
    distances = []
    for ids, offsets, span, there in zip(
        batch["input_ids"], batch["offset_mapping"], masked, other, strict=True
    ):
        position = mask_position(ids, offsets, span, mask_id)
        other_at = first_token_at(offsets, there)
        distances.append(abs(position - other_at) if other_at >= 0 else -1)
    return distances


def prefix_distances(tokenizer, prefixes: Sequence[str], other_starts: Sequence[int]) -> list[int]:
    """Tokens of each prefix from the first token of the other word (starting at character
    `other_starts[i]`) to the prefix's end: how far back a causal LM's prediction looks."""
    if not prefixes:  # fast tokenizers fail on an empty batch
        return []
    batch = tokenizer(
        list(prefixes), add_special_tokens=False, return_offsets_mapping=True, verbose=False
    )
    distances = []
    for ids, offsets, start in zip(
        batch["input_ids"], batch["offset_mapping"], other_starts, strict=True
    ):
        at = next((k for k, (_, b) in enumerate(offsets) if b > start), len(offsets))
        distances.append(len(ids) - at)
    return distances


def token_distances(items: pl.DataFrame, tokenizer, context: Context) -> pl.Series:
    """Each class-average item's `distance_tokens` in the text its model kind reads: the masked
    sentence (a masked LM; the baseline's --vocab-of model), or the prefix before the masked word
    (a causal LM). Null without a tokenizer."""
    if tokenizer is None or not items.height:
        return pl.Series("distance_tokens", [None] * items.height, dtype=pl.Int32)
    rows = items.select("words", "space_after", "masked_surface", "other_surface").iter_rows()
    if context == "left":
        prefixes, starts = [], []
        for words, space_after, m, o in rows:
            text, spans = surface_text(words, space_after)
            prefixes.append(text[: spans[m][0]].rstrip(" "))
            starts.append(spans[o][0])
        distances = prefix_distances(tokenizer, prefixes, starts)
    else:
        texts, masked, other = [], [], []
        for words, space_after, m, o in rows:
            text, spans = surface_text(words, space_after, {m: tokenizer.mask_token})
            texts.append(text)
            masked.append(spans[m])
            other.append(spans[o])
        distances = masked_distances(tokenizer, texts, masked, other)
    return pl.Series("distance_tokens", distances, dtype=pl.Int32)


def sentence_distances(items: pl.DataFrame, tokenizer) -> pl.Series:
    """Each pair's `distance_tokens`: tokens between the first token of the varied word and that
    of the other member, in the whole sentence as the tokenizer splits it (no special tokens).
    Null without a tokenizer (the frequency baseline), or where either surface word is unknown."""
    if tokenizer is None or not items.height:
        return pl.Series("distance_tokens", [None] * items.height, dtype=pl.Int32)
    texts, varied, other = [], [], []
    rows = items.select("words", "space_after", "masked_surface", "other_surface").iter_rows()
    for words, space, m, o in rows:
        text, spans = surface_text(words, space)
        texts.append(text)
        # A pair without a relation row (§4.2) may not know where its other member is: null.
        known = m is not None and o is not None
        varied.append(spans[m][0] if known else None)
        other.append(spans[o][0] if known else None)
    offsets = tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    distance = [
        None if a is None or b is None else abs(_token_at(spans, a) - _token_at(spans, b))
        for spans, a, b in zip(offsets["offset_mapping"], varied, other, strict=True)
    ]
    return pl.Series("distance_tokens", distance, dtype=pl.Int32)


def _token_at(offsets: Sequence[tuple[int, int]], start: int) -> int:
    """Index of the first token ending after character `start` (the word's first token)."""
    return next((k for k, (_, b) in enumerate(offsets) if b > start), len(offsets))
