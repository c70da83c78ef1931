"""§4.1 Does agreement hold here? A language's agreement rates per configuration and controller
value (§4.3), measured from its candidates (counted by `rules.relations.agreement_rates` in the
miner's one pass; a disagreement whose target's form is also the controller's value's usual
form counts as agreeing, `syncretic_agree`), and the decision each pair's configuration gets: made, made after backing
off, made unmeasured, or skipped as `uncertain-agreement`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import AGREEMENT, FEATURES

from ..languages import ValueSets
from ..paradigms import LIST_COLUMNS
from ..questions import first_asking, numbered
from .words import NO_VALUE

MIN_CANDIDATES = 20  # n below which a configuration backs off to the next level
MIN_RATE = 0.90  # (agree + 1) / (n + 2) at least this: agreement holds
CONFIGURATION = ("controller_case", "target_upos", "target_verbform", "order")
# §4.3: optional agreement is one-sided (Turkish plural subjects take a plural verb 25% of the
# time, singular ones 98%), so each rate is measured per value of the controller too.
VALUE = "controller_value"
KEYS = (VALUE, *CONFIGURATION)  # a rate row's columns besides (type, feature)
# The back-off, finest first: order is dropped first, then VerbForm, then the target's upos, as
# in §4.1, the controller's value kept; then the value (Case pooled over values decides before
# a value pooled over cases: an oblique subject's rate is Case's, 0.04-0.62 where it is
# optional), then Case, keeping the value, and last (type, feature) (docs/choices.md).
LEVELS: tuple[tuple[str, ...], ...] = (
    *((VALUE, *CONFIGURATION[:k]) for k in range(len(CONFIGURATION), 0, -1)),
    CONFIGURATION[:1],
    (VALUE,),
    (),
)
BACKED_OFF = "backed-off"
UNMEASURED = "agreement-unmeasured"


def rate_table(lang: str, rated: Counter, rated_agree: Counter) -> pl.DataFrame:
    """AGREEMENT rows at every level of the back-off, so that a reader can follow each decision:
    a level's dropped columns are null; `certain` is null where n is too small to decide
    (`rated` keys: type, feature, then KEYS)."""
    base = pl.DataFrame(
        [(*config, n, rated_agree.get(config, 0)) for config, n in rated.items()],
        schema=[("type", pl.String), ("feature", pl.String)]
        + [(name, pl.String) for name in KEYS]
        + [("n", pl.Int64), ("agree", pl.Int64)],
        orient="row",
    )
    levels = [
        base.group_by("type", "feature", *kept)
        .agg(pl.col("n", "agree").sum())
        .with_columns(pl.lit(None, pl.String).alias(c) for c in KEYS if c not in kept)
        .select(base.columns)
        for kept in LEVELS
    ]
    table = pl.concat(levels).with_columns(
        pl.lit(lang).alias("lang"),
        (pl.col("agree") / pl.col("n")).alias("rate"),
        pl.when(measured(pl.col("n"))).then(holds(pl.col("n"), pl.col("agree"))).alias("certain"),
    )
    return table.select(AGREEMENT.names).sort(
        "type", "feature", *CONFIGURATION, VALUE, nulls_last=True, maintain_order=True
    )


# A disagreeing target's form is its controller's value's own form where it holds at least this
# share of the treebanks' tokens of that cell (docs/choices.md).
CELL_SHARE = 0.5


def syncretic_agree(
    disagreeing: Counter, lexicon: pl.DataFrame, value_sets: ValueSets, definite: bool = False
) -> Counter:
    """Per configuration, the disagreeing candidates whose target's form is also the usual form of
    the cell with the controller's value (`cell_forms`): Greek *είναι*, *ήταν* are 3sg and 3pl, and
    the treebank tags them Sing, so the token agrees under that reading and is no evidence that
    agreement is optional; it counts as agreeing. A form the cell only borrows (Hindi honorific
    *हैं* beside a singular subject, 3% of the 3sg's tokens) stays evidence (`disagreeing` keys:
    a configuration, then the target's lower-cased form, lemma and FEATS; `definite`: the
    language's Definite is in F, else its FEATS' Definite is no value of a cell)."""
    asked = {key: count for key, count in disagreeing.items() if _may_agree(key)}
    if not asked:
        return Counter()
    cell_of = {key: _cell(key, value_sets, definite) for key in asked}
    usual = cell_forms(lexicon, set(cell_of.values()), value_sets)
    agree: Counter = Counter()
    for key, count in asked.items():
        if key[-3] in usual.get(cell_of[key], ()):
            agree[key[:-3]] += count
    return agree


# Relations whose controller is a subject: an oblique one's verb agrees with another word or takes
# the default (§4.1), so a form that would agree with the subject under another reading agrees
# with that word as well, and its token stays counted as tagged (Hindi *है*, of either gender,
# tagged Fem after an ergative Masc subject: it agrees with the object).
SUBJECT_TYPES = ("subject-verb", "predicative")
SUBJECT_CASES = ("Nom", NO_VALUE)


def _may_agree(key: tuple) -> bool:
    """Whether a disagreement's target may be read as agreeing with its controller: any
    controller of a determiner or an adjective, a subject only in the nominative or without Case."""
    return key[0] not in SUBJECT_TYPES or key[3] in SUBJECT_CASES


def _cell(key: tuple, value_sets: ValueSets, definite: bool = False) -> tuple:
    """A disagreement's cell: the target's lemma and upos, the feature with the controller's
    value, the target's values of the other features of F, its Tense."""
    config, (_, lemma, feats) = key[:-3], key[-3:]
    feature, value, upos = config[1], config[2], config[4]
    items = dict(item.split("=", 1) for item in feats.split("|") if "=" in item)
    if not definite:
        items.pop("Definite", None)
    others = tuple(
        _stands_for(items.get(name, "").split(",") if name in items else (), name, value_sets)
        for name in FEATURES
        if name != feature
    )
    values = frozenset(_stands_for(value.split(","), feature, value_sets))
    return (lemma, upos, feature, values, tuple(map(frozenset, others)), items.get("Tense", ""))


def cell_forms(lexicon: pl.DataFrame, cells: set[tuple], value_sets: ValueSets) -> dict:
    """Per cell (`_cell`), the lower-cased forms that hold CELL_SHARE of the treebanks' tokens of
    the lemma with the cell's values (UD rows: UniMorph gives no counts)."""
    lemmas = pl.DataFrame(
        list({(cell[0], cell[1]) for cell in cells}), schema=["lemma", "upos"], orient="row"
    )
    rows = (
        lexicon.filter(pl.col("source") == "ud")
        .join(lemmas, on=["lemma", "upos"], how="semi")
        .select(
            pl.col("form").str.to_lowercase(),
            "lemma",
            "upos",
            *LIST_COLUMNS,
            pl.col("feats").str.extract(r"(?:^|\|)Tense=([^|]+)", 1).fill_null("").alias("tense"),
            pl.col("count").fill_null(0),
        )
    )
    # Each row's values read once (few lemmas, many cells of each), each value list once.
    expanded: dict[tuple, frozenset[str]] = {}
    by_lemma: dict[tuple[str, str], list[tuple]] = {}
    for form, lemma, upos, *values, tense, count in rows.iter_rows():
        keys = [(name, *(v or ())) for v, name in zip(values, FEATURES, strict=True)]
        for key in keys:
            if key not in expanded:
                expanded[key] = frozenset(_stands_for(key[1:], key[0], value_sets))
        bundle = tuple(expanded[key] for key in keys)
        by_lemma.setdefault((lemma, upos), []).append((form, bundle, tense, count))
    usual: dict[tuple, set[str]] = {}
    for cell in cells:
        lemma, upos, feature, wanted, others, tense = cell
        f = FEATURES.index(feature)
        tokens: Counter = Counter()
        for form, bundle, row_tense, count in by_lemma.get((lemma, upos), []):
            if row_tense == tense and bundle[f] & wanted and bundle[:f] + bundle[f + 1 :] == others:
                tokens[form] += count
        total = sum(tokens.values())
        usual[cell] = {form for form, n in tokens.items() if total and n >= CELL_SHARE * total}
    return usual


def _stands_for(values: Iterable[str], feature: str, value_sets: ValueSets) -> set[str]:
    """The values, each with those it stands for (§1.2: Norwegian Com = {Masc, Fem})."""
    sets = value_sets.get(feature, {})
    return {v for value in values if value for v in sets.get(value, {value})}


def measured(n: pl.Expr) -> pl.Expr:
    """Whether `n` candidates are enough to decide."""
    return n >= MIN_CANDIDATES


def holds(n: pl.Expr, agree: pl.Expr) -> pl.Expr:
    """Whether agreement holds: (agree + 1) / (n + 2) at least MIN_RATE."""
    return (agree + 1) / (n + 2) >= MIN_RATE


def as_arrow(table: pl.DataFrame) -> pa.Table:
    """The rate table in its declared schema."""
    return table.to_arrow().cast(AGREEMENT)


def decide(attempts: pl.DataFrame, rates: pl.DataFrame) -> pl.DataFrame:
    """The attempts (with `type`, `feature` and the KEYS columns: `controller_value` is the
    controller's value in the bad sentence) with `certain` (false: skip as
    `uncertain-agreement`) and `agreement_flag`: null where the finest level decided,
    `backed-off` where a coarser level did, `agreement-unmeasured` where even (type, feature)
    has fewer than MIN_CANDIDATES candidates (made, flagged)."""
    keys = ["type", "feature", *KEYS]
    # A configuration is decided once, and joined back on its number.
    attempts = numbered(attempts, "_configuration", keys)
    asked = attempts.filter(first_asking("_configuration")).select("_configuration", *keys)
    decided = [f"certain_{level}" for level in range(len(LEVELS))]
    for level, kept in enumerate(LEVELS):
        at_level = rates.filter((level_of() == level) & pl.col("certain").is_not_null()).select(
            "type", "feature", *kept, pl.col("certain").alias(decided[level])
        )
        asked = asked.join(at_level, on=["type", "feature", *kept], how="left")
    first = pl.coalesce(
        pl.when(pl.col(name).is_not_null()).then(pl.lit(level))
        for level, name in enumerate(decided)
    )
    asked = asked.select(
        "_configuration",
        pl.coalesce(decided).fill_null(True).alias("certain"),
        pl.when(first.is_null())
        .then(pl.lit(UNMEASURED))
        .when(first > 0)
        .then(pl.lit(BACKED_OFF))
        .alias("agreement_flag"),
    )
    return attempts.join(asked, on="_configuration", how="left").drop("_configuration")


def level_of() -> pl.Expr:
    """A rate row's level of the back-off, from the columns it keeps (a kept column is never
    null: no value is `_`)."""
    level: pl.Expr = pl.lit(None, pl.Int32)
    for index, kept in enumerate(LEVELS):
        pattern = pl.all_horizontal(pl.col(c).is_null() != (c in kept) for c in KEYS)
        level = pl.when(pattern).then(pl.lit(index, pl.Int32)).otherwise(level)
    return level


def summary(rates: pl.DataFrame) -> dict:
    """The manifest's account of the rates: thresholds, the table's rows, and every row where
    agreement was found not to hold (`certain` false)."""
    uncertain = rates.filter(pl.col("certain").not_()).drop("lang", "certain")
    return {
        "min_candidates": MIN_CANDIDATES,
        "min_rate": MIN_RATE,
        "rows": rates.height,
        "uncertain": uncertain.with_columns(pl.col("rate").round(4)).to_dicts(),
    }
