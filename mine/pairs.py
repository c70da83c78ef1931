"""Minimal pairs (DESIGN.md §4): a kept relation's sentence as written, and the same sentence with
one member re-inflected so that it disagrees — a form of the same lemma from the lexicon."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.schemas.corpus import FEATURES, PAIRS, ROLES

from .languages import ValueSets
from .lexicon import other_feats

Bundle = tuple[frozenset[str], ...]  # values of FEATURES, in that order
APOSTROPHES = ("'", "\u2019")
_LISTS = [f.lower() for f in FEATURES]  # the lexicon's and relations' columns of FEATURES
VARY_CHOICES = {"target": ("target",), "controller": ("controller",), "both": ROLES[::-1]}


class LexiconRow(NamedTuple):  # a tuple: built for every row of a language's paradigms
    """One lexicon row of a (lemma, upos) paradigm."""

    form: str
    bundle: Bundle
    feats: str | None  # other FEATS; None when unknown (such a row is never a bad form)
    occurrences: int  # `count`, which a tuple's method owns
    source: str


@dataclass(frozen=True)
class Member:
    """The member of a relation that is varied, or the other one."""

    form: str
    lemma: str
    upos: str
    bundle: Bundle
    feats: str  # other FEATS of the word in its sentence
    surface: int
    in_mwt: bool


@dataclass(frozen=True)
class BadForm:
    """The chosen bad form (lower-cased key), its summed count and its source."""

    key: str
    count: int
    source: str


class Paradigms:
    """The lexicon indexed for §4: rows per paradigm cell, bundles per (form, lemma, upos), and the
    values each (upos, feature) attests; values compared through the language's value sets."""

    def __init__(
        self,
        lexicon: pa.Table,
        value_sets: ValueSets | None = None,
        lemmas: Iterable[tuple[str, str]] | None = None,
    ) -> None:
        """`lemmas`: the (lemma, upos) of every word that pairs will read, when known; the rest
        of the lexicon (most of a large UniMorph file) is then never indexed."""
        self.value_sets = value_sets or {}
        # Rows that can be a bad form, by what §4 asks of one: (lemma, upos, bundle, other FEATS).
        self.forms: dict[tuple[str, str, Bundle, str | None], list[LexiconRow]] = defaultdict(list)
        self.bundles: dict[tuple[str, str, str], set[Bundle]] = defaultdict(set)
        frame = pl.DataFrame(lexicon)
        self.attested = {
            (upos, slot): tuple(values)
            for slot, name in enumerate(_LISTS)
            for upos, values in frame.select("upos", pl.col(name).alias("v"))
            .explode("v")
            .drop_nulls("v")
            .group_by("upos")
            .agg(pl.col("v").unique().sort())
            .iter_rows()
        }
        if "typo_count" not in frame.columns:
            frame = frame.with_columns(pl.lit(0).alias("typo_count"))
        if lemmas is not None:
            wanted = pl.DataFrame(
                list(set(lemmas)), schema={"lemma": pl.String, "upos": pl.String}, orient="row"
            )
            frame = frame.join(wanted, on=["lemma", "upos"], how="semi")
        keys = [pl.col(n).list.sort().list.join(",").fill_null("") for n in _LISTS]
        columns: list[str | pl.Expr] = ["form", "lemma", "upos", pl.concat_list(keys)]
        columns += ["feats", "count", "source"]
        interned: dict[tuple[str, ...], Bundle] = {}
        for form, lemma, upos, values, feats, count, source, typo in frame.select(
            *columns, "typo_count"
        ).iter_rows():
            values = tuple(values)
            if (bundle := interned.get(values)) is None:
                bundle = interned[values] = tuple(_set(v) for v in values)
            # A form only ever seen as a typo is no bad form, nor is an elided one.
            if not (count and typo == count) and not form.endswith(APOSTROPHES):
                row = LexiconRow(form, bundle, feats, count or 0, source)
                self.forms[(lemma, upos, bundle, feats)].append(row)
            self.bundles[(form.lower(), lemma, upos)].add(bundle)
        # The paradigm cells that hold a possible bad form: a question about any other cell is
        # answered `no-form` without asking Python (most are, in languages with many cases).
        cells = [
            (lemma, upos, *(",".join(sorted(values)) for values in bundle), feats)
            for lemma, upos, bundle, feats in self.forms
        ]
        self.cells = pl.DataFrame(
            cells, schema=[*_CELL], orient="row", infer_schema_length=None
        ).cast(pl.String)
        # Answers already given, per distinct question: they recur across a language's files.
        self.chosen: dict[tuple, BadForm | str] = {}
        self.ambiguity: dict[tuple, bool] = {}
        self.expanded: dict[tuple[int, frozenset[str]], frozenset[str]] = {}

    def expand(self, slot: int, values: Iterable[str]) -> frozenset[str]:
        """The values a set stands for when compared (§1.2: Norwegian Com = {Masc, Fem})."""
        values = frozenset(values)
        if (slot, values) not in self.expanded:
            sets = self.value_sets.get(FEATURES[slot], {})
            self.expanded[(slot, values)] = frozenset(x for v in values for x in sets.get(v, (v,)))
        return self.expanded[(slot, values)]

    def meet(self, slot: int, a: Iterable[str], b: Iterable[str]) -> bool:
        """Whether two value sets share a value, once expanded."""
        return bool(self.expand(slot, a) & self.expand(slot, b))


def could_be_correct(
    paradigms: Paradigms, bundle: Bundle, wanted: Bundle, slots: Sequence[int]
) -> bool:
    """A bundle that meets the wanted values on every agreeing feature: the form could agree."""
    return all(bundle[s] and paradigms.meet(s, bundle[s], wanted[s]) for s in slots)


def choose_bad_form(
    paradigms: Paradigms, word: Member, slot: int, value: str, slots: tuple[int, ...]
) -> BadForm | str:
    """The bad form for `word` with feature `slot` set to `value` (§4), or why there is none."""
    lemma, upos, bundle, key = word.lemma, word.upos, word.bundle, word.form.lower()
    wanted = (*bundle[:slot], frozenset({value}), *bundle[slot + 1 :])
    found: dict[str, list[LexiconRow]] = defaultdict(list)
    # Same other inflection (never *étaient* for *est*), and no elided form.
    for row in paradigms.forms.get((lemma, upos, wanted, word.feats), ()):
        found[row.form.lower()].append(row)
    if not found:
        return "no-form"
    # The word's own spelling (*sheep*), or a form that also has a bundle agreeing on every
    # agreeing feature, could be correct: no violation.
    usable = [
        (form, rows)
        for form, rows in found.items()
        if form != key
        and not any(
            could_be_correct(paradigms, other, bundle, slots)
            for other in paradigms.bundles[(form, lemma, upos)]
        )
    ]
    if not usable:
        return "syncretic"
    form, rows = min(usable, key=lambda item: (-sum(r.occurrences for r in item[1]), item[0]))
    sources = {r.source for r in rows}
    source = "both" if "both" in sources or len(sources) > 1 else sources.pop()
    return BadForm(form, sum(r.occurrences for r in rows), source)


def ambiguous(paradigms: Paradigms, other: Member, slot: int, value: str) -> bool:
    """Whether the other member could carry the bad value: in its sentence, or as another bundle
    of its own form (*le prix augmentent*: *prix* is singular and plural)."""
    if paradigms.meet(slot, other.bundle[slot], (value,)):
        return True
    known = paradigms.bundles.get((other.form.lower(), other.lemma, other.upos), ())
    return any(paradigms.meet(slot, b[slot], (value,)) for b in known)


def capitalised_like(form: pl.Expr, model: pl.Expr) -> pl.Expr:
    """`form` with `model`'s capitalisation: all upper (two letters or more), first letter
    upper, or lower-cased."""
    first = model.str.slice(0, 1)
    all_upper = (
        (model.str.len_chars() > 1)
        & (model == model.str.to_uppercase())
        & (model != model.str.to_lowercase())
    )
    first_upper = (first == first.str.to_uppercase()) & (first != first.str.to_lowercase())
    return (
        pl.when(all_upper)
        .then(form.str.to_uppercase())
        .when(first_upper)
        .then(form.str.slice(0, 1).str.to_uppercase() + form.str.slice(1))
        .otherwise(form)
    )


def relation_skip_reason() -> pl.Expr:
    """The first reason of §4 about the varied word or its relation (null: go on), in order."""
    return (
        pl.when(pl.col("values").list.len() > 1)
        .then(pl.lit("multi-valued"))
        .when(pl.col("lemma").is_in(["", "_"]) | pl.col("lemma").is_null())
        .then(pl.lit("no-lemma"))
        .when(pl.col("in_mwt"))
        .then(pl.lit("in-mwt"))  # re-contracting *du* is language-specific
        .when(pl.col("coordinated"))
        .then(pl.lit("coordinated"))  # the verb may agree with the whole coordination
        .when(_elided(pl.col("form")))
        .then(pl.lit("elision"))  # *l'* depends on the next word's sound, not on agreement
        .when(pl.col("duplicate"))
        .then(pl.lit("duplicate-sent-id"))  # a join on the sentence would be ambiguous
        .when(pl.col("text").is_null())
        .then(pl.lit("missing-sentence"))
    )


VOWELS = "aeiouyàâäéèêëíìîïóòôöúùûüœæh"


def breaks_elision() -> pl.Expr:
    """The word before is elided onto this one (*s'est*) and the bad form does not begin with a
    sound that allows it (*s'sont*): the pair would break elision, not agreement."""
    vowel = lambda form: form.str.slice(0, 1).str.to_lowercase().is_in(list(VOWELS))  # noqa: E731
    return pl.col("after_elided") & (vowel(pl.col("form")) != vowel(pl.col("bad_form")))


def _elided(form: pl.Expr) -> pl.Expr:
    return form.str.ends_with(APOSTROPHES[0]) | form.str.ends_with(APOSTROPHES[1])


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
    *(f"k_{n}" for n in _LISTS),
    "feats",
    "feature",
    "bad_value",
    "k_agreeing",
]
_AMBIGUITY = ["o_key", "o_lemma", "o_upos", "k_o_values", "feature", "bad_value"]


@cache  # a few hundred distinct strings, met hundreds of thousands of times
def _set(joined: str | None) -> frozenset[str]:
    return frozenset(v for v in (joined or "").split(",") if v)


@cache
def _slots(agreeing: str) -> tuple[int, ...]:
    return tuple(FEATURES.index(f) for f in agreeing.split(","))


_CELL = ["lemma", "upos", *(f"cell_{n}" for n in _LISTS), "feats"]


def _wanted_cell() -> list[pl.Expr]:
    """The paradigm cell a question asks for: the word's values, the varied feature's replaced
    by the bad value (sets as sorted `,`-joined strings, like `Paradigms.cells`)."""
    return [
        pl.when(pl.col("feature") == feature)
        .then(pl.col("bad_value"))
        .otherwise(pl.col(name).list.unique().list.sort().list.join(",").fill_null(""))
        .alias(f"cell_{name}")
        for feature, name in zip(FEATURES, _LISTS, strict=True)
    ]


def _bad_forms(tries: pl.DataFrame, paradigms: Paradigms) -> pl.DataFrame:
    """Per distinct question that the lexicon has a cell for: the bad form's key, count and
    source, or why there is none (the others are `no-form`)."""
    asked = tries.with_columns(_wanted_cell()).join(
        paradigms.cells, on=_CELL, how="semi", nulls_equal=True
    )
    rows = []
    for question in asked.select(_CHOICE).unique().iter_rows():
        found = paradigms.chosen.get(question)
        if found is None:
            key, lemma, upos, *values, feats, feature, value, agreeing = question
            bundle = tuple(_set(v) for v in values)
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
            bundle = tuple(_set(values) if s == slot else frozenset() for s in range(4))
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
                *(pl.col(f"{role}_{name}").alias(name) for name in _LISTS),
                pl.col(f"{role}_feats").fill_null("").alias("raw_feats"),
                pl.col(f"{role}_surface").alias("surface"),
                pl.col(f"in_mwt_{role}").alias("in_mwt"),
                pl.col(f"{other}_form").str.to_lowercase().alias("o_key"),
                pl.col(f"{other}_lemma").alias("o_lemma"),
                pl.col(f"{other}_upos").alias("o_upos"),
                *(pl.col(f"{other}_{name}").alias(f"o_{name}") for name in _LISTS),
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
        *(pl.col(n).list.sort().list.join(",").alias(f"k_{n}") for n in _LISTS),
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
