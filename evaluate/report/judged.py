"""Judged validity beside the report's rows, only where it was judged: people judged minimal pairs
of one corpus, so it goes on the pair reading's rows, and every mismatch is said."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from .validity import COLUMNS, with_validity


@dataclass(frozen=True)
class Judged:
    """The language × type rows with validity on pair rows, the corpora the pair runs scored, and
    what does not match (one line each)."""

    table: pl.DataFrame
    corpora: list[str]
    mismatches: list[str]


def pair_systems(frame: pl.DataFrame) -> set[str]:
    """The systems of the pair reading (the only ones judged pairs describe)."""
    return set(frame.filter(pl.col("reading") == "pair")["system"].unique().to_list())


def pair_corpora(manifests: Sequence[dict[str, Any]]) -> list[str]:
    """The corpora the pair runs scored, as their manifests name them (their folder, and the
    checksum of the corpus manifest where one is recorded)."""
    found = set()
    for m in manifests:
        if m.get("reading") != "pair":
            continue
        corpus = m.get("corpus") or (m.get("options") or {}).get("corpus") or "(not recorded)"
        digest = m.get("corpus_manifest_sha256")
        found.add(f"{corpus} (manifest sha256 {digest[:12]})" if digest else str(corpus))
    return sorted(found)


def judged_rows(
    table: pl.DataFrame,
    judged: pl.DataFrame,
    frame: pl.DataFrame,
    manifests: Sequence[dict[str, Any]],
) -> Judged:
    """`table` (language × type × system) with `judged` validity on the pair reading's rows only;
    judged cells no pair row has, and pair runs over several corpora, are mismatches."""
    pairs = pair_systems(frame)
    joined = with_validity(table, judged)
    on_pairs = pl.col("system").is_in(sorted(pairs))
    joined = joined.with_columns(
        pl.when(on_pairs).then(pl.col(c)).otherwise(None).alias(c) for c in COLUMNS
    )
    scored = table.filter(on_pairs).select("lang", "type").unique()
    unmatched = judged.join(scored, on=["lang", "type"], how="anti").sort("lang", "type")
    mismatches = [
        f"validity judged for {lang} {type_} ({n} pairs), which no pair run here scored: not shown"
        for lang, type_, n in unmatched.select("lang", "type", "validity_n").iter_rows()
    ]
    corpora = pair_corpora(manifests)
    if len(corpora) > 1:
        mismatches.append(
            f"the pair runs scored {len(corpora)} corpora ({'; '.join(corpora)}): one validity "
            "table judges the pairs of one of them"
        )
    return Judged(joined, corpora, mismatches)
