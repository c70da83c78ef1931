"""Candidate forms (DESIGN.md §1.5): lexicon forms that are one whole-word token of the model."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ud_agree.schemas.corpus import FEATURES

FEATURE_COLUMNS = tuple(name.lower() for name in FEATURES)  # the lexicon's columns of F
_UNUSED = re.compile(r"^\[unused\d+\]$")

Bundle = tuple[frozenset[str], ...]  # values of FEATURES, in that order


def tokenizer_family(tokenizer) -> str:
    """`wordpiece`, `sentencepiece` or `byte-bpe`, from the fast tokenizer's model and vocabulary."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and type(backend.model).__name__ == "WordPiece":
        return "wordpiece"
    vocab = tokenizer.get_vocab()
    counts = {
        "wordpiece": sum(t.startswith("##") for t in vocab),
        "sentencepiece": sum(t.startswith("\u2581") for t in vocab),
        "byte-bpe": sum(t.startswith("\u0120") for t in vocab),
    }
    return max(counts, key=counts.__getitem__)


def whole_word_vocab(tokenizer) -> dict[str, int]:
    """Word → token id for every vocabulary token that is a whole word (marker stripped)."""
    family = tokenizer_family(tokenizer)
    special = set(tokenizer.all_special_ids)
    special_tokens = set(tokenizer.all_special_tokens)  # a property: computed once, not per token
    words: dict[str, int] = {}
    for token, index in tokenizer.get_vocab().items():
        if index in special or token in special_tokens or _UNUSED.match(token):
            continue
        if family == "wordpiece":
            if token.startswith("##"):
                continue
            word = token
        else:
            marker = "\u2581" if family == "sentencepiece" else "\u0120"
            if not token.startswith(marker) or len(token) == 1:
                continue
            word = token[1:]
            if family == "byte-bpe":
                # Byte-level tokens spell non-ASCII letters as byte symbols; decode them back.
                word = tokenizer.convert_tokens_to_string([token]).strip()
        if word and not word.isspace():
            words.setdefault(word, index)
    return words


@dataclass(frozen=True)
class CandidateSet:
    """Global list of candidate forms (upos, key) with their vocabulary ids and bundles."""

    upos: list[str]
    keys: list[str]
    token_ids: list[list[int]]  # vocabulary casings summed into the form (empty for frequency)
    counts: np.ndarray  # lexicon count per form (casings summed)
    bundles: list[frozenset[Bundle]]
    by_upos: dict[str, np.ndarray] = field(default_factory=dict)  # upos → indices of its forms

    def __len__(self) -> int:
        return len(self.keys)


def _bundle(row: Mapping[str, Iterable[str] | None]) -> Bundle:
    return tuple(frozenset(row[c] or ()) for c in FEATURE_COLUMNS)


def lexicon_bundles(lexicon: pl.DataFrame, fold: bool) -> dict[tuple[str, str], dict]:
    """(upos, form key) → {'bundles': set, 'count': int}; folding lower-cases and merges casings."""
    merged: dict[tuple[str, str], dict] = defaultdict(lambda: {"bundles": set(), "count": 0})
    for row in lexicon.select("form", "upos", *FEATURE_COLUMNS, "count").iter_rows(named=True):
        form = row["form"]
        if form is None or form == "_":
            continue
        key = form.lower() if fold else form
        entry = merged[(row["upos"], key)]
        entry["bundles"].add(_bundle(row))
        entry["count"] += int(row["count"] or 0)
    return merged


def vocab_casings(words: Mapping[str, int], fold: bool) -> dict[str, list[int]]:
    """Form key → token ids of the vocabulary spellings that map to it."""
    casings: dict[str, list[int]] = defaultdict(list)
    for word, index in words.items():
        casings[word.lower() if fold else word].append(index)
    return {k: sorted(v) for k, v in casings.items()}


def build_candidates(
    lexicon: pl.DataFrame,
    words: Mapping[str, int] | None,
    fold: bool,
    min_count: int = 0,
) -> CandidateSet:
    """Candidate forms per upos: lexicon forms found in `words` (None: any form with count > min_count)."""
    merged = lexicon_bundles(lexicon, fold)
    casings = vocab_casings(words, fold) if words is not None else None
    upos_list, keys, ids, counts, bundles = [], [], [], [], []
    for (upos, key), entry in sorted(merged.items()):
        if casings is not None:
            if key not in casings:
                continue
            token_ids = casings[key]
        else:
            token_ids = []
        if min_count and entry["count"] < min_count:
            continue
        upos_list.append(upos)
        keys.append(key)
        ids.append(token_ids)
        counts.append(entry["count"])
        bundles.append(frozenset(entry["bundles"]))
    by_upos: dict[str, list[int]] = defaultdict(list)
    for i, upos in enumerate(upos_list):
        by_upos[upos].append(i)
    return CandidateSet(
        upos=upos_list,
        keys=keys,
        token_ids=ids,
        counts=np.asarray(counts, dtype=np.float64),
        bundles=bundles,
        by_upos={u: np.asarray(v, dtype=np.int64) for u, v in by_upos.items()},
    )


@dataclass(frozen=True)
class Coverage:
    """How much of the lexicon, and of the masked words, the model can score."""

    lexicon_forms: int
    lexicon_forms_scorable: int
    masked_words: int
    masked_words_scorable: int

    def as_dict(self) -> dict[str, float | int | None]:
        """JSON-ready figures with the two shares (None where nothing was there to share)."""
        share = lambda a, b: round(a / b, 6) if b else None  # noqa: E731
        return {
            "lexicon_forms": self.lexicon_forms,
            "lexicon_forms_scorable": self.lexicon_forms_scorable,
            "lexicon_forms_share": share(self.lexicon_forms_scorable, self.lexicon_forms),
            "masked_words": self.masked_words,
            "masked_words_scorable": self.masked_words_scorable,
            "masked_words_share": share(self.masked_words_scorable, self.masked_words),
        }


def coverage(
    lexicon: pl.DataFrame, candidates: CandidateSet, masked: Iterable[tuple[str, str]], fold: bool
) -> Coverage:
    """Shares of distinct lexicon (upos, form) and of masked words (upos, form) that are candidates."""
    known = set(zip(candidates.upos, candidates.keys, strict=True))
    pairs = {
        (u, f.lower() if fold else f)
        for u, f in lexicon.select("upos", "form").iter_rows()
        if f is not None and f != "_"
    }
    masked = [(u, (f or "").lower() if fold else (f or "")) for u, f in masked]
    return Coverage(
        lexicon_forms=len(pairs),
        lexicon_forms_scorable=len(pairs & known),
        masked_words=len(masked),
        masked_words_scorable=sum(m in known for m in masked),
    )
