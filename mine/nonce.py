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
from .languages import definite_in_f
from .lexicon import other_feats
from .pairs import pairs_from_attempts
from .paradigms import APOSTROPHES, Bundle, ParadigmFrames, elided
from .read import Sentence, parse, read_bytes, stem
from .rules.surface import VOWELS, capitalised_word_like

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


def own_words(sentence: Sentence, definite: bool = False) -> dict[int, Word]:
    """Surface words that are one syntactic word (not inside a multiword token), by index
    (`definite`: the language's Definite is in F)."""
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
            parse_feats(sentence.feats[i], definite).values(),
            other_feats(sentence.feats[i], definite),
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
    """Variant k of a sentence (§9): each content word's draws (kept, so that a pair varying
    that word replays them rather than seeding it again), the replacements every pair of the
    variant shares (each word's first usable draw; a word with none stays), and the text with
    them."""

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
                first = self.draw(surface, 0)
                if first is not None:
                    self.shared[surface] = first
        replaced = {
            surface: capitalised_word_like(f.form, sentence.words[surface])
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

    def draw(self, surface: int, n: int) -> Filler | None:
        """The word's n-th usable draw (`stream`), drawn once and replayed after; None past
        its last."""
        if surface not in self._streams:
            seeded = partial(draws, self.seed, *self.key, self.k, surface)
            self._streams[surface] = ([], stream(self.pool, self.words[surface], seeded))
        seen, live = self._streams[surface]
        while len(seen) <= n:
            filler = next(live, None)
            if filler is None:
                return None
            seen.append(filler)
        return seen[n]


@dataclass(frozen=True)
class Pair:
    """What a nonce variant needs of an original pair (a row of `pairs.parquet`)."""

    row: dict
    varied: int  # surface index of the varied word
    other: int  # surface index of the other member
    attempt: int  # its attempt (the miner's, `prepare_attempts`), by index


@dataclass
class Unit:
    """Variant k of one pair, tried draw after draw (`try_number`: the draw asked next)."""

    seq: int  # its place in the variants' order
    pair: Pair
    variant: Variant
    try_number: int = 0

    def attempt(self) -> dict | None:
        """What the variant changes in its pair's attempt for its next try — the varied word's
        replacement and its place in the variant's text, the other member's replacement —, or
        None when no try is left (§9: at most MAX_DRAWS draws)."""
        pair, variant, n = self.pair, self.variant, self.try_number
        self.try_number += 1
        varied = variant.words.get(pair.varied)
        changed: dict = {"form": None, "lemma": None, "text": variant.text}
        if varied is not None and varied.upos in CONTENT_UPOS:
            filler = variant.draw(pair.varied, n)
            if filler is None:
                return None
            good = capitalised_word_like(filler.form, varied.form)
            start, end = variant.spans[pair.varied]
            changed |= {"form": good, "lemma": filler.lemma, "start": start}
            changed["text"] = variant.text[:start] + good + variant.text[end:]
        elif n > 0:  # a DET or PRON member, or a word inside a token, stays: one try
            return None
        elif varied is not None:
            changed["start"] = variant.spans[pair.varied][0]
        else:  # inside a transparent multiword token (§4): its part of the token, which stays
            within = pair.row["start"] - variant.original_starts[pair.varied]
            changed["start"] = variant.spans[pair.varied][0] + within
        # The other member as the variant has it (one inside a multiword token stays).
        other = variant.shared.get(pair.other) if pair.other in variant.words else None
        changed["o_form"] = other.form if other else None
        changed["o_lemma"] = other.lemma if other else None
        return changed


def decide(
    units: list[Unit],
    attempts: pl.DataFrame,
    frames: ParadigmFrames,
    rates: pl.DataFrame | None = None,
) -> dict[int, dict]:
    """The variants of `units` whose varied word has a bad form under §4 — decided by the
    miner's own rules (`pairs_from_attempts`) on the pairs' attempts with the variants' words,
    all units' n-th draws at once —, as pairs rows by `seq`."""
    made: dict[int, dict] = {}
    pending = units
    while pending:
        tries, texts, asked = [], [], []
        for unit in pending:
            changed = unit.attempt()
            if changed is None:
                continue
            texts.append(changed.pop("text"))
            tries.append({"attempt": unit.pair.attempt, "seq": unit.seq, **changed})
            asked.append(unit)
        if not tries:
            break
        found, ambiguous = _decided(tries, texts, attempts, frames, rates)
        for unit in asked:
            row = found.get(unit.seq)
            if row is not None:
                made[unit.seq] = {
                    **row,
                    "sent_id": unit.pair.row["sent_id"],
                    "variant": f"nonce-{unit.variant.k}",
                }
        # The other member is the same at every try: an ambiguous one stays so.
        pending = [u for u in asked if u.seq not in made and u.seq not in ambiguous]
    return made


_RANK = {feature: rank for rank, feature in enumerate(FEATURES)}
_CHANGED = {"form": pl.String, "lemma": pl.String, "start": pl.Int32}
_CHANGED |= {"o_form": pl.String, "o_lemma": pl.String}


def _decided(
    tries: list[dict],
    texts: list[str],
    attempts: pl.DataFrame,
    frames: ParadigmFrames,
    rates: pl.DataFrame | None,
) -> tuple[dict[int, dict], set[int]]:
    """One try per unit through `pairs_from_attempts` (its pair's attempts, one per feature of
    the relation's varied role): the row (by `seq`) of the pair's contrast, if the variant makes
    it, and the units whose other member is ambiguous for it."""
    changed = pl.DataFrame(tries, schema={"attempt": pl.Int64, "seq": pl.Int64, **_CHANGED})
    frame = (
        changed.with_row_index("sentence")
        .join(attempts, on="attempt", how="inner", suffix="_pair")
        .with_columns(
            pl.coalesce("form", "form_pair").alias("form"),
            pl.coalesce("lemma", "lemma_pair").alias("lemma"),
            pl.coalesce(pl.col("o_form").str.to_lowercase(), "o_key").alias("o_key"),
            pl.coalesce("o_lemma", "o_lemma_pair").alias("o_lemma"),
            pl.col("sentence").cast(pl.Int64),
            # A unit's own key through the engine: its sentence is its own.
            pl.col("seq").alias("rel"),
            pl.col("seq").cast(pl.String).alias("sent_id"),
        )
        .with_columns(pl.col("form").str.to_lowercase().alias("key"))
    )
    wanted = frame.select(
        "sent_id",
        (pl.col("pair_feature") + "=" + pl.col("pair_bad_value")).alias("contrast"),
    ).unique()
    frame = frame.select(attempts.drop("attempt", "pair_feature", "pair_bad_value").columns)
    texts_series = pl.Series("text", texts, pl.String)
    table, skipped, _ = pairs_from_attempts(frame, frames, texts_series, rates, fold=False)
    # The pair's own contrast (its bad form, count, source, `derived`), and in `also` the other
    # contrasts that give the same bad sentence, in F's order (§4.1), as its original has them.
    made = pl.DataFrame(table).with_columns(
        (pl.col("feature") + "=" + pl.col("bad_value")).alias("contrast"),
        pl.col("feature").replace_strict(_RANK, return_dtype=pl.Int8).alias("rank"),
    )
    same = made.group_by("sent_id", "sentence_bad").agg(
        pl.col("contrast").sort_by("rank", "bad_value").alias("same")
    )
    rows = made.join(wanted, on=["sent_id", "contrast"], how="semi").join(
        same, on=["sent_id", "sentence_bad"]
    )
    found = {}
    for row in rows.drop("rank").iter_rows(named=True):
        contrast, alike = row.pop("contrast"), row.pop("same")
        found[int(row["sent_id"])] = {**row, "also": [c for c in alike if c != contrast]}
    ambiguous = set()
    if skipped.height:
        blocked = skipped.filter(pl.col("reason").str.starts_with("ambiguous-")).select(
            "sent_id", (pl.col("feature") + "=" + pl.col("bad_value")).alias("contrast")
        )
        ambiguous = {int(s) for s in blocked.join(wanted, on=["sent_id", "contrast"])["sent_id"]}
    return found, ambiguous


ROLE_KEY = ["treebank", "sent_id", "target_id", "controller_id", "varied"]
NONCE_BATCH = 50_000  # variants decided together: few engine calls, bounded memory


def nonce_pairs(
    pairs: pl.DataFrame,
    attempts: pl.DataFrame,
    relations: pl.DataFrame,
    files: dict[str, list[Path]],
    lexicon: pa.Table,
    frames: ParadigmFrames,
    count: int,
    seed: int,
    rates: pl.DataFrame | None = None,
) -> tuple[pa.Table, pa.Table]:
    """`count` nonce variants of every original pair, reading the pairs' sentences from the
    treebanks' files (`files`: treebank → its CoNLL-U files); `attempts`: the miner's attempts
    that made the pairs (`prepare_attempts`), which the variants' are made from, with the
    language's agreement rates (`rates`, §4.1) as for the originals; a `no-nonce`
    row (PAIR_SKIPS) per variant that failed, in the order of the variants."""
    failed: list[dict] = []
    if not count or not pairs.height:
        return PAIRS.empty_table(), PAIR_SKIPS.empty_table()
    pool = filler_pool(lexicon)
    definite = definite_in_f(pairs["lang"][0])
    on = ["treebank", "sent_id", "target_id", "controller_id"]
    members = relations.select(*on, "target_surface", "controller_surface").unique(on)
    # In the pairs' order: variants come out in a reproducible order.
    located = pairs.join(members, on=on, maintain_order="left", how="left")
    located = located.with_row_index("attempt").with_columns(pl.col("attempt").cast(pl.Int64))
    # Per pair, the attempts of its relation's varied role (every feature and bad value, as for
    # its original); the pair's own contrast is the one asked for.
    tried = located.select(
        *ROLE_KEY,
        "attempt",
        pl.col("feature").alias("pair_feature"),
        pl.col("bad_value").alias("pair_bad_value"),
    ).join(attempts, on=ROLE_KEY, how="inner")
    by_sentence: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for row in located.iter_rows(named=True):
        target, controller = row.pop("target_surface"), row.pop("controller_surface")
        attempt = row.pop("attempt")
        varied, other = (target, controller) if row["varied"] == "target" else (controller, target)
        by_sentence[(row["treebank"], row["sent_id"])].append(Pair(row, varied, other, attempt))
    made: dict[int, dict] = {}
    units: list[Unit] = []
    seq = 0
    for treebank, paths in files.items():
        for path in paths:
            for sentence in parse(read_bytes(path), stem(path)):
                key = (treebank, getattr(sentence, "sent_id", None))
                if not isinstance(sentence, Sentence) or key not in by_sentence:
                    continue
                words = own_words(sentence, definite)
                for k in range(1, count + 1):
                    variant = Variant(pool, sentence, words, seed, key, k)
                    for pair in by_sentence.pop(key) if k == count else by_sentence[key]:
                        units.append(Unit(seq, pair, variant))
                        seq += 1
                if len(units) >= NONCE_BATCH:
                    made |= decide(units, tried, frames, rates)
                    failed += [
                        _no_nonce(u.pair.row, u.variant.k) for u in units if u.seq not in made
                    ]
                    units = []
    made |= decide(units, tried, frames, rates)
    failed += [_no_nonce(u.pair.row, u.variant.k) for u in units if u.seq not in made]
    # Sentences not found in the files.
    failed += [
        _no_nonce(p.row, k) for v in by_sentence.values() for k in range(1, count + 1) for p in v
    ]
    skipped = pa.Table.from_pylist(failed, PAIR_SKIPS)
    if not made:
        return PAIRS.empty_table(), skipped
    rows = [made[s] for s in sorted(made)]
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return frame.select(PAIRS.names).to_arrow().cast(PAIRS), skipped


def _no_nonce(row: dict, k: int) -> dict:
    """The skip row of variant k of a pair that has none."""
    return {
        **{name: row[name] for name in PAIR_SKIPS.names[:-2]},
        "variant": f"nonce-{k}",
        "reason": "no-nonce",
    }
