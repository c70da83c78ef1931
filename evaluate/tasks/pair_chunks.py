"""The one chunk loop of the pair reading, for corpus pairs and peers' pair files alike: pairs
no model can decide left out and counted, the rest scored and handed on chunk by chunk."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import polars as pl

from ..readings.token_sums import same_tokens

# Scores a chunk's pairs (the reading's columns, `score_good`/`score_bad` NaN where unscorable).
ScoreChunk = Callable[[pl.DataFrame], dict[str, pl.Series]]
# Takes the rows scored (indices into the pairs) and their columns.
WriteChunk = Callable[[np.ndarray, dict[str, pl.Series]], None]


def row_chunks(rows: int, size: int) -> Iterator[np.ndarray]:
    """Row indices in chunks of `size`."""
    for start in range(0, rows, size):
        yield np.arange(start, min(start + size, rows))


def score_pair_chunks(
    pairs: pl.DataFrame,
    chunks: Iterable[np.ndarray],
    score: ScoreChunk,
    write: WriteChunk,
    tokenizer: Any,
    leading_space: bool,
    headline: str,
    bar: dict[str, Any],
) -> Counter:
    """Score `pairs` chunk by chunk (`chunks`: row indices) and write each chunk's scored rows;
    the pairs left out, by reason: `identical` sentences and sentences the tokenizer makes one
    (`same-tokens`: no model can prefer one, and a tie would count it wrong), pairs the model
    cannot score (`too-long`: no finite score), and scored pairs whose `headline` decision has
    no value (`undecided`, §5.1: never wrong). `bar`: tqdm's options for the progress bar."""
    from tqdm import tqdm

    counts: Counter = Counter()
    space = " " if leading_space else ""
    progress = tqdm(total=pairs.height, unit="pair", file=sys.stderr, **bar)
    for rows in chunks:
        chunk = pairs[rows]
        same = (chunk["sentence_good"] == chunk["sentence_bad"]).fill_null(False).to_numpy()
        tokens = same_tokens(
            tokenizer,
            [space + t for t in chunk["sentence_good"].to_list()],
            [space + t for t in chunk["sentence_bad"].to_list()],
        )
        counts["identical"] += int(same.sum())
        counts["same-tokens"] += int(tokens.sum())
        rows = rows[~(same | tokens)]
        if len(rows):
            columns = score(pairs[rows])
            ok = np.isfinite(columns["score_good"].to_numpy()) & np.isfinite(
                columns["score_bad"].to_numpy()
            )
            counts["too-long"] += int((~ok).sum())
            counts["undecided"] += int((ok & columns[headline].is_null().to_numpy()).sum())
            if ok.any():
                kept = pl.Series(ok)
                write(rows[ok], {name: values.filter(kept) for name, values in columns.items()})
        progress.update(len(chunk))
    progress.close()
    return counts
