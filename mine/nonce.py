"""Nonce pairs (DESIGN.md §9): each minimal pair again with its sentence's content words replaced
by other lemmas' forms of the same upos, bundle and other features, so that meaning and
collocation no longer tell the model which form agrees (Gulordava et al. 2018).

The words of a sentence are read again from its CoNLL-U file (the miner's tables keep only the
relation members' annotations); draws are seeded by the seed, the sentence, the variant and the
word, so a rerun, a shard or another machine gives the same sentences.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property, partial
from operator import attrgetter
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import FEATURES, PAIR_SKIPS, PAIRS
from ud_agree.surface import surface_text

from .features import parse_feats
from .lexicon import other_feats
from .paradigms import APOSTROPHES, BadForm, Bundle, Member, Paradigms, elided
from .read import Sentence, parse, read_bytes, stem
from .rules.pairs import VOWELS, ambiguous
from .rules.pairs import choose_bad_form as bad_form_of

CONTENT_UPOS = ("NOUN", "PROPN", "ADJ", "VERB", "ADV")
MAX_DRAWS = 20  # §9: a varied word's replacement is drawn at most this often
_LISTS = [f.lower() for f in FEATURES]


@dataclass(frozen=True)
class Filler:
    """A form that can stand in for a word: its lemma and spelling."""

    lemma: str
    form: str


Cell = tuple[str, Bundle, str]  # upos, bundle over FEATURES, other FEATS


def filler_pool(lexicon: pa.Table | pl.DataFrame) -> dict[Cell, list[Filler]]:
    """Per (upos, bundle, feats) cell, one form per distinct lemma attested in the treebanks
    (`count` ≥ 1, known feats), lemmas sorted: draws are uniform over lemmas, not frequency.
    A lemma's form in a cell is its most frequent spelling, then the first alphabetically."""
    frame = lexicon if isinstance(lexicon, pl.DataFrame) else pl.DataFrame(lexicon)
    frame = frame.filter(
        pl.col("upos").is_in(CONTENT_UPOS)
        & (pl.col("count") >= 1)
        & pl.col("feats").is_not_null()
        & ~elided(pl.col("form"))
        & ~pl.col("form").str.contains(r"\s")  # §9 keeps the spacing
    )
    keys = [pl.col(n).list.unique().list.sort().list.join(",").fill_null("") for n in _LISTS]
    best = (
        frame.with_columns(pl.concat_list(keys).alias("bundle"))
        .sort(["count", "form"], descending=[True, False])
        .group_by(["upos", "bundle", "feats", "lemma"], maintain_order=True)
        .first()
        .sort(["upos", "feats", "lemma"])
    )
    pool: dict[Cell, list[Filler]] = defaultdict(list)
    for upos, bundle, feats, lemma, form in best.select(
        "upos", "bundle", "feats", "lemma", "form"
    ).iter_rows():
        key = tuple(frozenset(v for v in values.split(",") if v) for values in bundle)
        pool[(upos, key, feats)].append(Filler(lemma, form))
    # In lemma order (as Python compares them): `stream` finds a word's own lemma by bisection.
    return {cell: sorted(fillers, key=attrgetter("lemma")) for cell, fillers in pool.items()}


def draws(seed: int, treebank: str, sent_id: str, variant: int, word: int) -> np.random.Generator:
    """The random stream of one word of one variant of one sentence (a stable hash, never
    Python's `hash`, which changes between processes)."""
    key = f"{seed}\x1f{treebank}\x1f{sent_id}\x1f{variant}\x1f{word}".encode()
    return np.random.default_rng(
        int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")
    )


def capitalised_like(form: str, model: str) -> str:
    """`form` with `model`'s capitalisation (as §4 copies it onto a bad form)."""
    if len(model) > 1 and model.isupper():
        return form.upper()
    if model[:1].isupper():
        return form[:1].upper() + form[1:]
    return form


def sound(form: str) -> bool:
    """Whether a form begins with a sound an elided word attaches to (*l'homme*, *s'est*)."""
    return form[:1].lower() in VOWELS


@dataclass
class Word:
    """A surface word of its own: its annotation, and whether the word before is elided onto it."""

    surface: int
    form: str
    lemma: str
    upos: str
    bundle: Bundle
    feats: str
    after_elided: bool


def own_words(sentence: Sentence) -> dict[int, Word]:
    """Surface words that are one syntactic word (not inside a multiword token), by index."""
    count = Counter(sentence.surface)
    words: dict[int, Word] = {}
    for i, surface in enumerate(sentence.surface):
        if count[surface] != 1 or sentence.in_mwt[i]:
            continue
        previous = surface - 1
        elided = (
            previous >= 0
            and not sentence.space_after[previous]
            and sentence.words[previous].endswith(APOSTROPHES)
        )
        words[surface] = Word(
            surface,
            sentence.words[surface],
            sentence.lemmas[i],
            sentence.upos[i],
            parse_feats(sentence.feats[i]).values(),
            other_feats(sentence.feats[i]),
            elided,
        )
    return words


def _without_own(pool: dict[Cell, list[Filler]], word: Word) -> tuple[list[Filler], int, int]:
    """A word's cell, the position of its own lemma there (or -1) and how many other lemmas it
    holds: the word's candidates without building their list (a cell may hold thousands)."""
    cell = pool.get((word.upos, word.bundle, word.feats), [])
    at = bisect_left(cell, word.lemma, key=attrgetter("lemma"))
    own = at if at < len(cell) and cell[at].lemma == word.lemma else -1
    return cell, own, len(cell) - (own >= 0)


def stream(
    pool: dict[Cell, list[Filler]], word: Word, seeded: Callable[[], np.random.Generator]
) -> Iterator[Filler]:
    """Up to MAX_DRAWS draws for a word, uniform over lemmas; a draw whose first sound differs
    from the word's is drawn again: the words around it were written for that sound (*l'homme*
    never becomes *l'chat*, nor *la table* *la image*, nor *a dog* *a apple*). The generator is
    seeded only for a word that has other lemmas (seeding costs more than a draw)."""
    cell, own, count = _without_own(pool, word)
    if not count:
        return
    rng = seeded()
    for _ in range(MAX_DRAWS):
        drawn = int(rng.integers(count))
        # The i-th of the cell's other lemmas: the cell's i-th, or the next past the word's own.
        filler = cell[drawn + (0 <= own <= drawn)]
        if sound(filler.form) == sound(word.form):
            yield filler


class Variant:
    """Variant k of a sentence (§9): each content word's stream of draws (kept, so that a pair
    varying that word replays it rather than seeding it again), the replacements every pair of
    the variant shares (each word's first usable draw; a word with none stays), and the text
    with them."""

    def __init__(
        self,
        pool: dict[Cell, list[Filler]],
        sentence: Sentence,
        words: dict[int, Word],
        seed: int,
        key: tuple[str, str],
        k: int,
    ) -> None:
        self.pool, self.words, self.seed, self.key, self.k = pool, words, seed, key, k
        self._streams: dict[int, tuple[list[Filler], Iterator[Filler]]] = {}
        self.shared = {}
        for surface, word in words.items():
            if word.upos in CONTENT_UPOS:
                first = next(self.draws_for(surface), None)
                if first is not None:
                    self.shared[surface] = first
        replaced = {
            surface: capitalised_like(f.form, sentence.words[surface])
            for surface, f in self.shared.items()
        }
        self.sentence = sentence
        self.text, self.spans = surface_text(
            sentence.words, sentence.space_after, replaced, sentence.spaces_after
        )

    @cached_property
    def original_starts(self) -> list[int]:
        """Where each surface word began before any was replaced (a pair's own offsets); only a
        pair inside a multiword token asks."""
        _, spans = surface_text(
            self.sentence.words, self.sentence.space_after, spaces_after=self.sentence.spaces_after
        )
        return [start for start, _ in spans]

    def draws_for(self, surface: int) -> Iterator[Filler]:
        """The word's usable draws (`stream`), drawn once and replayed after."""
        if surface not in self._streams:
            seeded = partial(draws, self.seed, *self.key, self.k, surface)
            self._streams[surface] = ([], stream(self.pool, self.words[surface], seeded))
        seen, live = self._streams[surface]
        for filler in seen:
            yield filler
        for filler in live:
            seen.append(filler)
            yield filler


@dataclass(frozen=True)
class Pair:
    """What a nonce variant needs of an original pair (a row of `pairs.parquet`)."""

    row: dict
    varied: int  # surface index of the varied word
    other: int  # surface index of the other member
    slots: tuple[int, ...]  # §4's A for the varied word, as FEATURES indices


def nonce_variant(pair: Pair, variant: Variant, paradigms: Paradigms) -> dict | None:
    """Variant k of a pair (§9), or None when no replacement of the varied word has a bad form."""
    row = pair.row
    slot = FEATURES.index(row["feature"])
    value = row["bad_value"]
    varied, other = variant.words.get(pair.varied), variant.words.get(pair.other)
    # The other member inside a multiword token stays, as the original pair judged it.
    if other is not None:
        other_filler = variant.shared.get(pair.other)
        other_member = Member(
            other_filler.form if other_filler else other.form,
            other_filler.lemma if other_filler else other.lemma,
            other.upos,
            other.bundle,
            other.feats,
            other.surface,
            False,
        )
        if ambiguous(paradigms, other_member, slot, value):
            return None
    if varied is None:
        return _kept_in_token(pair, variant)
    if varied.upos in CONTENT_UPOS:
        options: Iterator[Filler] = variant.draws_for(pair.varied)
    else:  # a DET or PRON member stays, and so does its bad form (§4 on the same word)
        options = iter([Filler(varied.lemma, varied.form)])
    for filler in options:
        member = Member(
            filler.form, filler.lemma, varied.upos, varied.bundle, varied.feats, pair.varied, False
        )
        found = bad_form_of(paradigms, member, slot, value, pair.slots)
        if not isinstance(found, BadForm):
            continue
        good = capitalised_like(filler.form, varied.form)
        bad = capitalised_like(found.key, good)
        if varied.after_elided and sound(good) != sound(bad):
            continue  # the pair would break elision, not agreement (§4's `elision`)
        return _row(pair, variant, filler, good, bad, found)
    return None


def _kept_in_token(pair: Pair, variant: Variant) -> dict:
    """The variant of a pair whose varied word lies inside a transparent multiword token (§4):
    the token is no word of its own, so it stays (§9), and the pair's own bad form replaces the
    word's part of it (*isn't* → *aren't*) in the variant's text."""
    row = pair.row
    start = variant.spans[pair.varied][0] + row["start"] - variant.original_starts[pair.varied]
    end = start + row["end_good"] - row["start"]
    text = variant.text
    return {
        **row,
        "sentence_good": text,
        "sentence_bad": text[:start] + row["bad_form"] + text[end:],
        "start": start,
        "end_good": end,
        "end_bad": start + len(row["bad_form"]),
        "variant": f"nonce-{variant.k}",
    }


def _row(pair: Pair, variant: Variant, filler: Filler, good: str, bad: str, found: BadForm) -> dict:
    """The pairs row of a variant: the nonce good sentence and the bad one beside it."""
    # The variant's text with the varied word's own replacement (it may be a later draw).
    start, end = variant.spans[pair.varied]
    text = variant.text[:start] + good + variant.text[end:]
    end = start + len(good)
    return {
        **pair.row,
        "lemma": filler.lemma,
        "good_form": good,
        "bad_form": bad,
        "bad_count": found.count,
        "bad_source": found.source,
        "sentence_good": text,
        "sentence_bad": text[:start] + bad + text[end:],
        "start": start,
        "end_good": end,
        "end_bad": start + len(bad),
        "variant": f"nonce-{variant.k}",
    }


def nonce_pairs(
    pairs: pl.DataFrame,
    relations: pl.DataFrame,
    files: dict[str, list[Path]],
    lexicon: pa.Table,
    paradigms: Paradigms,
    count: int,
    seed: int,
) -> tuple[pa.Table, pa.Table]:
    """`count` nonce variants of every original pair, reading the pairs' sentences from the
    treebanks' files (`files`: treebank → its CoNLL-U files); a `no-nonce` row (PAIR_SKIPS) per
    variant that failed, in the order of the variants."""
    failed: list[dict] = []
    if not count or not pairs.height:
        return PAIRS.empty_table(), PAIR_SKIPS.empty_table()
    pool = filler_pool(lexicon)
    members = relations.select(
        "treebank", "sent_id", "target_id", "controller_id", "target_surface",
        "controller_surface", "agreeing", "target_agreeing",
    ).unique(["treebank", "sent_id", "target_id", "controller_id"])  # fmt: skip
    # In the pairs' order: variants come out in a reproducible order.
    located = pairs.join(
        members, on=["treebank", "sent_id", "target_id", "controller_id"], maintain_order="left"
    )
    by_sentence: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for row in located.iter_rows(named=True):
        target, controller = row.pop("target_surface"), row.pop("controller_surface")
        agreeing, target_agreeing = row.pop("agreeing"), row.pop("target_agreeing")
        if row["varied"] == "target":  # with the implicit third person (§4)
            agreeing = target_agreeing
        varied, other = (target, controller) if row["varied"] == "target" else (controller, target)
        slots = tuple(FEATURES.index(f) for f in agreeing)
        by_sentence[(row["treebank"], row["sent_id"])].append(Pair(row, varied, other, slots))
    rows = []
    for treebank, paths in files.items():
        for path in paths:
            for sentence in parse(read_bytes(path), stem(path)):
                key = (treebank, getattr(sentence, "sent_id", None))
                if not isinstance(sentence, Sentence) or key not in by_sentence:
                    continue
                words = own_words(sentence)
                for k in range(1, count + 1):
                    variant = Variant(pool, sentence, words, seed, key, k)
                    for pair in by_sentence.pop(key) if k == count else by_sentence[key]:
                        made = nonce_variant(pair, variant, paradigms)
                        if made is None:
                            failed.append(_no_nonce(pair.row, k))
                        else:
                            rows.append(made)
    # Sentences not found in the files.
    failed += [
        _no_nonce(p.row, k) for v in by_sentence.values() for k in range(1, count + 1) for p in v
    ]
    skipped = pa.Table.from_pylist(failed, PAIR_SKIPS)
    if not rows:
        return PAIRS.empty_table(), skipped
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return frame.select(PAIRS.names).to_arrow().cast(PAIRS), skipped


def _no_nonce(row: dict, k: int) -> dict:
    """The skip row of variant k of a pair that has none."""
    return {
        **{name: row[name] for name in PAIR_SKIPS.names[:-2]},
        "variant": f"nonce-{k}",
        "reason": "no-nonce",
    }
