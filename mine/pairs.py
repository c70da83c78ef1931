"""Minimal pairs (DESIGN.md §4): a kept relation's sentence as written, and the same sentence with
one member re-inflected so that it disagrees — a form of the same lemma from the lexicon. The
rules are the modules of `rules/`, one per rule; here they run over a file's relations, and over a batch of a
language's attempts (joins: each distinct word asked about is decided once per batch)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.schemas.corpus import FEATURES, PAIR_SKIPS, PAIRS, ROLES

from .languages import ValueSets
from .lent import REFUSED, LentAgreement
from .lexicon import other_feats
from .paradigms import APOSTROPHES, LIST_COLUMNS, ParadigmFrames, cell_key_of_joined
from .questions import first_asking, numbered
from .rules.bad_forms import ambiguity_of, bad_forms_of
from .rules.cells import (
    changes_layered,
    contested_forms,
    lexicon_licensed,
    licensed_cells,
    unattested_readings,
)
from .rules.certainty import BACKED_OFF, CONFIGURATION, UNMEASURED, VALUE, decide
from .rules.declension import changes_declension, changes_declension_class, declension_of_determiner
from .rules.eligibility import relation_skip_reason
from .rules.features import of_feature
from .rules.hosts import agrees_with_another_host
from .rules.relations import NO_VALUE
from .rules.subjects import agreeing_key, definite_determiner, person_agrees, with_subject_facts
from .rules.surface import breaks_apocope, breaks_elision, capitalised_like, changes_prefix
from .written import NO_SURFACE, WrittenSurface, write_surface

VARY_CHOICES = {"target": ("target",), "controller": ("controller",), "both": ROLES[::-1]}


def build_pairs(
    relations: pa.Table,
    sentences: pa.Table,
    lexicon: pa.Table | ParadigmFrames,
    vary: str = "target",
    value_sets: ValueSets | None = None,
    unagreement: bool = False,
) -> tuple[pa.Table, pa.Table]:
    """Pairs of every kept relation for the varied role(s), and the skips, a row each (schema
    PAIR_SKIPS; `lexicon` may be its ParadigmFrames, built once for all of a language's files).

    The rules run as column expressions and joins; the choice of a bad form and the other
    member's ambiguity are decided once per distinct question (they recur across a corpus)."""
    frames = lexicon if isinstance(lexicon, ParadigmFrames) else ParadigmFrames(lexicon, value_sets)
    attempts, skipped = prepare_attempts(relations, sentences, vary, unagreement)
    texts = pl.Series("text", sentences.column("text"))
    pairs, more, _ = pairs_from_attempts(attempts, frames, texts)
    return pairs, skip_table([skipped, more])


def prepare_attempts(
    relations: pa.Table,
    sentences: pa.Table,
    vary: str = "target",
    unagreement: bool = False,
    pro_drop: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """What needs no lexicon (a mining worker does it, file by file): one row per (relation,
    varied role, agreeing feature, the implicit third person included) that passes §4's rules
    about the relation, and a row per skip (SKIPPED columns); `unagreement`: the language has it; `pro_drop`: it drops subjects."""
    attempts = _attempts(
        pl.DataFrame(relations), _sentence_facts(sentences), vary, unagreement, pro_drop
    )
    reason = attempts.select(relation_skip_reason()).to_series()
    # An unmarked cell's attempt, or a value a pronoun without FEATS borrowed, is one only where
    # the lexicon licenses it (§4.2, decided with the lexicon): its relation's skips are not
    # counted.
    skipping = reason.is_not_null() & ~attempts.select(provisional()).to_series()
    skipped = skipped_rows(attempts.filter(skipping), reason.filter(skipping))
    kept = attempts.filter(reason.is_null())
    return kept.drop("in_mwt", "coordinated", "duplicate", "unagreeing", "predicative"), skipped


def prepare_bundle(
    files: list[tuple[pa.Table, pa.Table]],
    vary: str = "target",
    unagreement: bool = False,
    pro_drop: bool = False,
) -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    """`prepare_attempts` of several files of one language (their relations and sentences) in
    one call, whose fixed cost (tens of polars steps) outweighs a small file's rows; each file's
    attempts and skips as its own call gives them (indices into its own tables)."""
    if len(files) == 1:
        return [prepare_attempts(*files[0], vary, unagreement, pro_drop)]
    # A sentence is keyed by its file too (`SENTENCE_KEY`): a sent_id two files share stays two
    # sentences, as in two calls (repeats across files are `mine.duplicates`').
    relations = pa.concat_tables(_with_part(table, part) for part, (table, _) in enumerate(files))
    sentences = pa.concat_tables(_with_part(table, part) for part, (_, table) in enumerate(files))
    attempts, skipped = prepare_attempts(relations, sentences, vary, unagreement, pro_drop)
    relation_starts = np.cumsum([0] + [table.num_rows for table, _ in files])
    sentence_starts = np.cumsum([0] + [table.num_rows for _, table in files])
    out = []
    for part in range(len(files)):
        first, end = int(relation_starts[part]), int(relation_starts[part + 1])
        own = pl.col("rel").is_between(first, end, closed="left")
        out.append(
            (
                attempts.filter(own).with_columns(
                    (pl.col("rel") - first).cast(attempts.schema["rel"]),
                    (pl.col("sentence") - int(sentence_starts[part])).cast(
                        attempts.schema["sentence"]
                    ),
                ),
                skipped.filter(own).with_columns(
                    (pl.col("rel") - first).cast(skipped.schema["rel"])
                ),
            )
        )
    return out


def _with_part(table: pa.Table, part: int) -> pa.Table:
    """A file's table with its place in a bundle (`part`), a key of its sentences."""
    return table.append_column("part", pa.array(np.full(table.num_rows, part, np.int32)))


def provisional() -> pl.Expr:
    """Over attempts: whether the feature tried is an unmarked cell's or a value a pronoun
    without FEATS borrowed (§4.2), an attempt only once the lexicon licenses it: a skip of it
    decided before is not counted."""
    return pl.any_horizontal(
        pl.concat_str(pl.lit(","), column)
        .str.contains(pl.concat_str(pl.lit(","), "feature", pl.lit("=")), literal=True)
        .fill_null(False)
        for column in ("unmarked", "borrowed")
    )


def skipped_rows(attempts: pl.DataFrame, reason: pl.Series | pl.Expr | str) -> pl.DataFrame:
    """Skips of attempts (bad value null unless the attempts have one) in SKIPPED columns."""
    bad_value = pl.col("bad_value") if "bad_value" in attempts.columns else pl.lit(None)
    return attempts.select(
        *SKIPPED[:-3],
        bad_value.cast(pl.String).alias("bad_value"),
        pl.lit("original").alias("variant"),
        (reason if isinstance(reason, pl.Expr) else pl.lit(reason)).alias("reason"),
    )


# A skip row as the miner holds it: PAIR_SKIPS's columns and the order of the relations.
SKIPPED = [
    "rel", "role_rank", "lang", "treebank", "sent_id", "type", "target_id", "controller_id",
    "varied", "feature", "bad_value", "variant", "reason",
]  # fmt: skip


def skip_table(parts: list[pl.DataFrame]) -> pa.Table:
    """Skip rows (SKIPPED columns) as PAIR_SKIPS, in the order of the relations, roles,
    features and bad values (the pairs' order; a skip without a bad value first)."""
    frames = [p for p in parts if p.height]
    if not frames:
        return PAIR_SKIPS.empty_table()
    rows = pl.concat(frames, how="vertical_relaxed").sort(
        "rel", "role_rank", "feature", "bad_value", nulls_last=False, maintain_order=True
    )
    return rows.select(PAIR_SKIPS.names).to_arrow().cast(PAIR_SKIPS)


def pairs_from_attempts(
    attempts: pl.DataFrame,
    frames: ParadigmFrames,
    texts: pl.Series,
    rates: pl.DataFrame | None = None,
    fold: bool = True,
    surface: WrittenSurface | None = None,
    tokens: pl.Series | None = None,
    lent: LentAgreement | None = None,
) -> tuple[pa.Table, pl.DataFrame, Counter]:
    """The pairs of prepared attempts, a row (SKIPPED columns) per skip for want of a usable
    bad form or of certain agreement (`rates`: the language's AGREEMENT rows, §4.1; None: not
    checked), and the pairs written per agreement flag of `derived` (`texts`: the sentences'
    texts, indexed by the attempts' `sentence`). `fold`: one row per bad sentence (§4.1);
    without it, a row per contrast (nonce variants fold their own, keyed on their original's
    contrast). The bad sentence is written as the language writes it (`surface`; `tokens`: its
    multiword tokens, lower-cased, §4.1). `lent`: the language's measure of agreement with an
    antecedent (§4.2; None: every value an antecedent gives is lent)."""
    skipped: list[pl.DataFrame] = []
    if attempts.height == 0:
        return PAIRS.empty_table(), pl.DataFrame(), Counter()
    marked = frames.marked  # the language's, before the frames are narrowed to the batch
    # Only the paradigms of the words varied and of the other members are read.
    frames = frames.narrowed(
        pl.concat(
            [
                attempts.select("lemma", "upos"),
                attempts.select(pl.col("o_lemma").alias("lemma"), pl.col("o_upos").alias("upos")),
            ]
        )
    )
    # §4.2: an unmarked cell its language does not license, or a value borrowed by a pronoun
    # without FEATS that its form's tokens do not give, makes no attempt (nor a skip).
    attempts = _borrowed(_licensed(attempts, frames, marked), frames)
    # §4.1: a word whose tense or mood its form's tokens hardly ever have is mis-tagged.
    misread = unattested_readings(attempts, frames)
    skipped.append(skipped_rows(attempts.filter(misread), "unattested-reading"))
    attempts = attempts.filter(~misread)
    if attempts.height == 0:
        return PAIRS.empty_table(), pl.concat(skipped), Counter()
    # §4.2: a value lent by the antecedent where the pronoun's verb need not agree with it.
    if lent is not None:
        attempts = lent.decide(attempts)
        skipped.append(skipped_rows(attempts.filter(~pl.col("lends")), REFUSED))
        attempts = attempts.filter(pl.col("lends")).with_columns(
            pl.col("derived_bits") | derived_bit(UNMEASURED, pl.col("lent_unmeasured"))
        )
        attempts = attempts.drop("lends", "lent_unmeasured")
        if attempts.height == 0:
            return PAIRS.empty_table(), pl.concat(skipped), Counter()
    attempts = attempts.drop("lent")
    # §4.1: is agreement in the feature certain in the relation's configuration? The flag
    # (null, `backed-off`, `agreement-unmeasured`) stays with each attempt up to its pair's
    # `derived`.
    # §4.3: the rate read is that of the controller's value in the bad sentence: its own where
    # the target is varied; a varied controller's bad value is known once its forms are found.
    if rates is None:
        attempts = attempts.with_columns(pl.lit(None, pl.String).alias("agreement_flag"))
    else:
        attempts = _certain(attempts, rates, pl.col("varied") == "target", skipped)
        if attempts.height == 0:
            return PAIRS.empty_table(), pl.concat(skipped), Counter()
    # The bad forms are decided per distinct word asked about (they recur), then joined.
    attempts = numbered(attempts, "asked", _WORD)
    asked = attempts.filter(first_asking("asked"))
    tries = attempts.drop("k_agreeing").join(
        _bad_forms(asked.select("asked", *_WORD, "values"), frames), on="asked"
    )
    no_form = pl.col("bad_key").is_null()
    # `outcome` null: no form in the wanted cell (not asked).
    skipped.append(skipped_rows(tries.filter(no_form), pl.col("outcome").fill_null("no-form")))
    tries = tries.filter(~no_form)
    if rates is not None:
        tries = _certain(tries, rates, pl.col("varied") == "controller", skipped)
    # §4.3: the bad form reads as another noun's (a noun between target and controller).
    hosted = agrees_with_another_host(tries)
    skipped.append(skipped_rows(tries.filter(hosted), "ambiguous-host"))
    tries = tries.filter(~hosted).drop("between_feats")
    if frames.apocope:
        apocopated = tries.select(breaks_apocope(frames.apocope)).to_series()
        skipped.append(skipped_rows(tries.filter(apocopated), "apocope"))
        tries = tries.filter(~apocopated)
    tries = tries.drop(*CONFIGURATION)
    if frames.endings:
        declension = tries.select(changes_declension(frames.endings)).to_series()
        skipped.append(skipped_rows(tries.filter(declension), "declension-class"))
        tries = tries.filter(~declension)
    if frames.declension:
        declension = tries.select(changes_declension_class(frames.declension)).to_series()
        skipped.append(skipped_rows(tries.filter(declension), "declension-class"))
        tries = tries.filter(~declension)
    # §4.1: a bad form whose other FEATS another treebank contradicts changes more than f.
    # The question's columns are the word's and its bad form's: decided per (word, bad value),
    # each distinct question once, and joined back on those two keys (not the question's 13).
    bad = ["asked", "bad_value"]
    by_bad_form = tries.select("asked", *_CONTESTED).unique(subset=bad)
    asked_held = by_bad_form.select(_CONTESTED).unique()
    asked_held = asked_held.with_columns(
        contested_forms(asked_held.with_columns(_wanted_cell()), frames).alias("contested")
    )
    by_bad_form = by_bad_form.join(asked_held, on=_CONTESTED, how="left", nulls_equal=True)
    contested = tries.join(
        by_bad_form.select(*bad, "contested"), on=bad, how="left", maintain_order="left"
    ).get_column("contested")
    # §4.3: the layered features the treebanks give the two forms differ (the possessor's).
    contested = contested | changes_layered(tries, frames.layered)
    skipped.append(skipped_rows(tries.filter(contested), "contested-feats"))
    # What the word's cell and other FEATS decide is decided: later steps copy less.
    tries = tries.filter(~contested).drop("key", "feats", *(f"k_{n}" for n in LIST_COLUMNS))
    if frames.prefixes:
        prefixed = tries.select(changes_prefix(frames.prefixes)).to_series()
        skipped.append(skipped_rows(tries.filter(prefixed), "aspect-prefix"))
        tries = tries.filter(~prefixed)
    # Each distinct question is answered once, and its answer joined back on its number.
    tries = numbered(tries, "_question", _AMBIGUITY)
    tries = tries.join(_ambiguity(tries, frames), on="_question", how="left").drop(
        "_question", "o_key", "o_lemma", "o_upos", "k_o_values"
    )
    other_role = pl.when(pl.col("varied") == "target").then(pl.lit("controller"))
    skipped.append(
        skipped_rows(
            tries.filter(pl.col("ambiguous")),
            pl.lit("ambiguous-") + other_role.otherwise(pl.lit("target")),
        )
    )
    tries = tries.filter(~pl.col("ambiguous")).with_columns(
        capitalised_like(pl.col("bad_key"), pl.col("form")).alias("bad_form")
    )
    broken = tries.select(breaks_elision()).to_series()
    skipped.append(skipped_rows(tries.filter(broken), "elision"))
    pairs = tries.filter(~broken).sort("rel", "role_rank", "feature", "bad_value")
    pairs = pairs.with_columns(texts.gather(pairs.get_column("sentence")).alias("text"))
    pairs, ambiguous, unattested, unelided = write_surface(pairs, surface or NO_SURFACE, tokens)
    skipped.append(skipped_rows(ambiguous, "ambiguous-onset"))
    skipped.append(skipped_rows(unattested, "unattested-token"))
    skipped.append(skipped_rows(unelided, "elision"))
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
        # What is replaced is the word, or the stretch that the written surface rewrites.
        (
            pl.col("text").str.slice(0, pl.col("cut_start"))
            + pl.col("bad_form")
            + pl.col("text").str.slice(pl.col("cut_end"))
        ).alias("sentence_bad"),
        pl.col("cut_start").alias("start"),
        pl.col("cut_end").alias("end_good"),
        (pl.col("cut_start") + pl.col("bad_form").str.len_chars()).alias("end_bad"),
        pl.lit([], pl.List(pl.String)).alias("also"),
        (
            pl.col("derived_bits")
            | derived_bit("unimorph-form", pl.col("bad_source") == "unimorph")
            # §4.1: decided at a coarser level of the back-off, or unmeasured (the antecedent's
            # value may have set that bit already: bits are or-ed).
            | derived_bit(BACKED_OFF, pl.col("agreement_flag") == BACKED_OFF)
            | derived_bit(UNMEASURED, pl.col("agreement_flag") == UNMEASURED)
        ).alias("derived"),
        pl.lit("original").alias("variant"),
    )
    table = one_row_per_bad_sentence(table) if fold else table
    bits = table.get_column("derived")
    flags = Counter(
        {
            flag: int((bits & (1 << DERIVED.index(flag)) > 0).sum())
            for flag in (BACKED_OFF, UNMEASURED)
        }
    )
    table = table.with_columns(derived_names(table.get_column("derived")))
    return table.to_arrow().cast(PAIRS), pl.concat(skipped, how="vertical_relaxed"), +flags


def _certain(
    attempts: pl.DataFrame, rates: pl.DataFrame, asked: pl.Expr, skipped: list[pl.DataFrame]
) -> pl.DataFrame:
    """The `asked` attempts decided (§4.1, §4.3) and those found uncertain skipped (appended to
    `skipped`); the others pass unchanged. The controller's value read is the target's
    controller's own (`k_o_values`; a noun's implicit Person is 3) or a varied controller's
    bad value."""
    controller_value = (
        pl.when(pl.col("varied") == "controller")
        .then(pl.col("bad_value") if "bad_value" in attempts.columns else pl.lit(None))
        .when((pl.col("k_o_values") == "") & (pl.col("feature") == "Person"))
        .then(pl.lit("3"))
        .otherwise(pl.col("k_o_values").replace("", NO_VALUE))
    )
    attempts = attempts.with_columns(asked.alias("_asked"))
    if "agreement_flag" not in attempts.columns:
        attempts = attempts.with_columns(pl.lit(None, pl.String).alias("agreement_flag"))
    if not attempts.get_column("_asked").any():  # the varied controllers, where none is varied
        return attempts.drop("_asked")
    decided = decide(
        attempts.filter("_asked")
        .drop("agreement_flag")
        .with_columns(controller_value.alias(VALUE)),
        rates,
    )
    skipped.append(skipped_rows(decided.filter(~pl.col("certain")), "uncertain-agreement"))
    decided = decided.filter(pl.col("certain")).select(attempts.columns)
    passed = attempts.filter(~pl.col("_asked"))
    both = pl.concat([passed, decided]) if passed.height else decided
    return both.drop("_asked")


def _licensed(attempts: pl.DataFrame, frames: ParadigmFrames, marked: pl.DataFrame) -> pl.DataFrame:
    """§4.2 unmarked cells: an attempt whose target takes a cell its language does not license
    (`rules.cells.licensed_cells`) is dropped where it varies that feature, and elsewhere keeps
    the target's own (empty) value; a licensed cell is named in `derived` (`unmarked-cell`)."""
    # Only attempts with an unmarked cell are looked at (few): the rest go on as they are.
    has_cell = pl.col("unmarked").is_not_null()
    cells = attempts.filter(has_cell)
    plain = attempts.filter(~has_cell).drop("unmarked")
    if cells.height == 0:
        return plain
    # Decided once per distinct question (a form, its cells and its values recur), then joined.
    values = [f"k_{name}" for name in LIST_COLUMNS]
    asked = ["key", "lemma", "upos", "feats", "unmarked", "k_agreeing", *values]
    cells = numbered(cells, "_q", asked)
    questions = cells.filter(first_asking("_q")).select("_q", *asked)
    refused = licensed_cells(
        questions.with_columns(pl.col("unmarked").str.split(",")), marked, frames.bundles
    )
    questions = questions.with_columns(refused.alias("_refused"))
    taken = (
        pl.col("unmarked")
        .str.split(",")
        .list.eval(pl.element().str.split("=").list.first())
        .list.set_difference(pl.col("_refused"))
    )
    answers = questions.select(
        "_q",
        # A refused cell: the target keeps its own (empty) value, and does not agree in it.
        *(
            pl.when(pl.col("_refused").list.contains(feature))
            .then(pl.lit(""))
            .otherwise(pl.col(f"k_{name}"))
            .alias(f"k_{name}")
            for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
        ),
        _agreeing_without_refused(),
        (taken.list.len() > 0).alias("_taken"),
    )
    refusals = questions.select("_q", pl.col("_refused").alias("feature")).explode("feature")
    cells = (
        cells.join(refusals, on=["_q", "feature"], how="anti")
        .drop("k_agreeing", *values)
        .join(answers, on="_q")
        .with_columns(pl.col("derived_bits") + derived_bit("unmarked-cell", pl.col("_taken")))
    )
    return pl.concat([plain, cells.select(plain.columns)])


def _agreeing_without_refused() -> pl.Expr:
    """The attempt's agreeing features (`k_agreeing`) less the §4.2 ones refused (`_refused`)."""
    return (
        pl.col("k_agreeing")
        .str.split(",")
        .list.set_difference(pl.col("_refused"))
        .list.sort()
        .list.join(",")
        .alias("k_agreeing")
    )


def _borrowed(attempts: pl.DataFrame, frames: ParadigmFrames) -> pl.DataFrame:
    """§4.2 a pronoun subject without FEATS: an attempt is dropped where it varies a feature
    whose borrowed value its form's tokens do not give (`rules.cells.lexicon_licensed`), and
    elsewhere no longer agrees in it; a kept borrowed value is named in `derived`
    (`lexicon-features`)."""
    has_value = pl.col("borrowed").is_not_null()
    borrowing = attempts.filter(has_value)
    plain = attempts.filter(~has_value).drop("borrowed")
    if borrowing.height == 0:
        return plain
    asked = ["o_key", "o_lemma", "o_upos", "borrowed"]
    questions = borrowing.select(asked).unique()
    refused = lexicon_licensed(
        questions.with_columns(pl.col("borrowed").str.split(",")), frames.bundles
    )
    borrowing = (
        borrowing.join(
            questions.with_columns(refused.alias("_refused")), on=asked, nulls_equal=True
        )
        .filter(~pl.col("_refused").list.contains(pl.col("feature")))
        .with_columns(
            _agreeing_without_refused(),
            (pl.col("derived_bits") + derived_bit("lexicon-features", pl.lit(True))).alias(
                "derived_bits"
            ),
        )
    )
    return pl.concat([plain, borrowing.select(plain.columns)])


def every_contrast(pairs: pl.DataFrame) -> pl.DataFrame:
    """Pairs as one row per contrast they make: each row again for each `also` entry, with that
    `feature` and `bad_value` (a reader asking for a contrast finds its folded pair)."""
    if "also" not in pairs.columns:
        return pairs
    folded = (
        pairs.filter(pl.col("also").list.len() > 0)
        .explode("also")
        .with_columns(
            pl.col("also").str.split_exact("=", 1).struct.rename_fields(["feature", "bad_value"])
        )
        .drop("feature", "bad_value")
        .unnest("also")
        .with_columns(pl.lit([], pl.List(pl.String)).alias("also"))
    )
    return pl.concat([pairs, folded.select(pairs.columns)])


_FEATURE_RANK = {feature: rank for rank, feature in enumerate(FEATURES)}


def one_row_per_bad_sentence(pairs: pl.DataFrame) -> pl.DataFrame:
    """§4.1: pairs (in the relations' order) that give the same bad sentence are one row, the
    first contrast in F's order (*has* → *have*: Number before Person), the others in `also`
    as `Feature=Value`; rows stay in their order."""
    key = ["lang", "treebank", "sent_id", "variant", "sentence_bad"]
    # Most bad sentences are made once: only those made more than once are ranked.
    repeated = pairs.select(pl.struct(key).is_duplicated()).to_series()
    if not repeated.any():
        return pairs
    member = ["lang", "treebank", "sent_id", "variant", "target_id", "controller_id", "varied"]
    rows = pairs.with_row_index("_row")
    ranked = rows.filter(repeated).with_columns(
        pl.struct(member).rle_id().alias("_member"),
        pl.col("feature").replace_strict(_FEATURE_RANK, return_dtype=pl.Int8).alias("_rank"),
    )
    ranked = ranked.sort("_member", "_rank", "bad_value").with_columns(
        pl.int_range(pl.len()).over(key).alias("_nth"),
        pl.concat_str("feature", pl.lit("="), "bad_value").alias("_contrast"),
    )
    others = ranked.group_by(key, maintain_order=True).agg(
        pl.col("_contrast").slice(1).alias("_others")
    )
    kept = (
        ranked.filter(pl.col("_nth") == 0)
        .join(others, on=key, nulls_equal=True)
        .with_columns(pl.col("_others").alias("also"))
        .select("_row", *pairs.columns)
    )
    return pl.concat([rows.filter(~repeated), kept]).sort("_row").drop("_row")


# What the choice of a bad form depends on besides the bad value (the word asked about), and what
# the other member's ambiguity depends on (value sets as `,`-joined strings: join keys).
_WORD = [
    "treebank",  # §4.1: the sentence's own treebank's forms first
    "key",
    "lemma",
    "upos",
    *(f"k_{n}" for n in LIST_COLUMNS),
    "feats",
    "feature",
    "k_agreeing",
]
_CONTESTED = [
    "key", "bad_key", "lemma", "upos", "feats", *(f"k_{n}" for n in LIST_COLUMNS), "feature",
    "bad_value",
]  # fmt: skip
_AMBIGUITY = ["o_key", "o_lemma", "o_upos", "k_o_values", "feature", "bad_value"]


def _wanted_cell() -> list[pl.Expr]:
    """The paradigm cell a question asks for: the word's values, the varied feature's replaced
    by the bad value (sets as join keys, like `ParadigmFrames.forms`)."""
    return [
        pl.when(pl.col("feature") == feature)
        .then(pl.when(pl.col("bad_value") != "").then(pl.col("bad_value")))  # "": no cell
        .otherwise(cell_key_of_joined(pl.col(f"k_{name}")))
        .alias(f"cell_{name}")
        for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
    ]


def _bad_forms(asked: pl.DataFrame, frames: ParadigmFrames) -> pl.DataFrame:
    """Per word asked about (`asked`) and bad value to try: the bad form's key, count and source,
    or why there is none (`outcome`: `rare-value`, `genderless-plural`, `syncretic`; null:
    `no-form`)."""
    # Each other value that the lexicon attests for the word's UPOS is one bad value to try;
    # a rare one (§4.1: the Greek article's archaic dative) is tried to be skipped.
    tried = (
        asked.join(frames.attested, on=["upos", "feature"])
        .explode("bad_value")
        .filter(~pl.col("values").list.contains(pl.col("bad_value")))
        .join(frames.rare, on=["upos", "feature", "bad_value"], how="left")
    )
    rare = pl.col("rare").fill_null(False)
    # §4.1: where the plural distinguishes no gender, a plural word has no Gender to vary.
    genderless = (
        pl.lit(frames.genderless_plural)
        & (pl.col("feature") == "Gender")
        & (pl.col("k_number") == "Plur")
    )
    unasked = rare | genderless
    questions = tried.filter(~unasked).with_row_index("qid")
    answers = bad_forms_of(questions.with_columns(_wanted_cell()), frames)
    found = questions.select("asked", "bad_value", "qid").join(answers, on="qid", how="left")
    skipped = tried.filter(unasked).select(
        "asked",
        "bad_value",
        pl.lit(None, pl.UInt32).alias("qid"),
        pl.lit(None, pl.String).alias("bad_key"),
        pl.lit(None, pl.Int64).alias("bad_count"),
        pl.lit(None, pl.String).alias("bad_source"),
        pl.when(rare)
        .then(pl.lit("rare-value"))
        .otherwise(pl.lit("genderless-plural"))
        .alias("outcome"),
    )
    return pl.concat([found, skipped.cast(found.schema)])


def _ambiguity(tries: pl.DataFrame, frames: ParadigmFrames) -> pl.DataFrame:
    """Per distinct question (`_question`: the row of its first try): whether the other member
    could carry the bad value."""
    questions = tries.filter(first_asking("_question")).select("_question", *_AMBIGUITY)
    questions = questions.with_row_index("qid")
    answers = questions.join(ambiguity_of(questions, frames), on="qid")
    return answers.select("_question", "ambiguous")


def _attempts(
    relations: pl.DataFrame,
    sentences: SentenceFacts,
    vary: str,
    unagreement: bool,
    pro_drop: bool = False,
) -> pl.DataFrame:
    """One row per (relation, varied role, agreeing feature), with what the rules read; a varied
    target of an implicit third person (`implicit_person`) has Person among its features."""
    sentence = _sentence_key(relations.columns)
    relations = relations.with_row_index("rel").join(sentences.keys, on=sentence, how="left")
    # §4.1: a noun with a definite or demonstrative determiner takes weak adjectives (German);
    # §4.3: the declension a noun's determiners give its adjectives (weak before mixed), strong
    # where it has none. Both from one pass over the determiner relations.
    keys = [*sentence, "controller_id"]
    declension = declension_of_determiner()
    determined = (
        relations.filter(pl.col("type") == "determiner")
        .group_by(keys)
        .agg(
            definite_determiner().any().alias("definite"),
            pl.when((declension == "weak").any())
            .then(pl.lit("weak"))
            .when((declension == "mixed").any())
            .then(pl.lit("mixed"))
            .alias("declension"),
        )
    )
    relations = relations.join(determined, on=keys, how="left").with_columns(
        pl.col("definite").fill_null(False),
        pl.when(pl.col("definite").is_null())
        .then(pl.lit("strong"))
        .otherwise(pl.col("declension"))
        .alias("declension"),
    )
    # §4's implicit third person and §4.2's subjects without features and unmarked cells,
    # computed once per file (`implicit`, `unagreeing`, `agreeing_eff`, the `c_`/`t_` values).
    relations = with_subject_facts(relations, unagreement, pro_drop).rechunk()
    configured = configuration(relations).get_columns()
    frames = []
    for rank, role in enumerate(VARY_CHOICES[vary]):
        other = "target" if role == "controller" else "controller"
        # The features tried, and those a bad form must not meet (§4's A): with the implicit
        # Person where the target is varied (the controller's Person is implicit), except
        # where unagreement makes it no agreement (tried, to be skipped as `unagreement`).
        target = role == "target"
        frames.append(
            relations.select(
                "rel",
                *("lang", "treebank", "sent_id", "type", "target_id", "controller_id"),
                pl.lit(role).alias("varied"),
                pl.lit(rank).alias("role_rank"),
                pl.col(f"{role}_form").alias("form"),
                pl.col(f"{role}_lemma").alias("lemma"),
                pl.col(f"{role}_upos").alias("upos"),
                # A varied target reads its values and the controller's as §4.2 gives them.
                *(pl.col(_as_read(role, name)).alias(name) for name in LIST_COLUMNS),
                pl.col(f"{role}_feats").fill_null("").alias("raw_feats"),
                (pl.col("first_word") + pl.col(f"{role}_surface")).alias("word"),
                pl.col(f"in_mwt_{role}").alias("in_mwt"),
                pl.col(f"{role}_mwt_offset").alias("mwt_offset"),
                pl.col(f"{other}_form").str.to_lowercase().alias("o_key"),
                pl.col(f"{other}_lemma").alias("o_lemma"),
                pl.col(f"{other}_upos").alias("o_upos"),
                *(pl.col(_as_read(other, name, role)).alias(f"o_{name}") for name in LIST_COLUMNS),
                pl.col("coordinated").fill_null(False),
                pl.col("duplicate").fill_null(False),
                "sentence",
                "definite",
                "declension",
                (pl.col("between_feats") if target else pl.lit(None, pl.List(pl.String))).alias(
                    "between_feats"
                ),
                *configured,
                # A varied target's agreeing features are §4.2's (`agreeing_eff`).
                agreeing_key(
                    person_agrees() if target else pl.lit(False),
                    "agreeing_eff" if target else "agreeing",
                ).alias("k_agreeing"),
                pl.col("agreeing_eff" if target else "agreeing").alias("feature"),
                (pl.col("unagreeing") if target else pl.lit(False)).alias("unagreeing"),
                (pl.col("predicative") if target else pl.lit(False)).alias("predicative"),
                (pl.col("implicit") if target else pl.lit(False)).alias("implicit"),
                *_target_only(role),
            )
        )
    frame = pl.concat(frames)
    # The implicit Person is one more feature tried. Attempts need no order: pairs and skips
    # are sorted by relation, role, feature and bad value when written.
    person = frame.filter(pl.col("implicit")).with_columns(pl.lit("Person").alias("feature"))
    frame = pl.concat([frame.explode("feature").filter(pl.col("feature").is_not_null()), person])
    feats = {raw: other_feats(raw) for raw in frame["raw_feats"].unique().to_list()}
    # A word's offset and elision, looked up by its index among the file's words.
    word = frame.get_column("word").fill_null(0).to_numpy()
    known = frame.get_column("word").is_not_null().to_numpy()
    # Inside a transparent multiword token the word is its part of the token as written
    # (*Is* of *Isn't*), which a bad form replaces (§4).
    offset = frame.get_column("mwt_offset")
    part = known & offset.is_not_null().to_numpy()
    spare = len(sentences.start) - 1
    token = pl.Series("token", sentences.words.take(np.where(part, word, spare)))
    frame = frame.with_columns(token).with_columns(
        pl.when(pl.col("mwt_offset").is_not_null())
        .then(pl.col("token").str.slice(pl.col("mwt_offset"), pl.col("form").str.len_chars()))
        .otherwise(pl.col("form"))
        .alias("form"),
        (pl.col("in_mwt") & pl.col("mwt_offset").is_null()).alias("in_mwt"),
    )
    inside = offset.fill_null(0).to_numpy()
    return frame.select(
        *ATTEMPT_COLUMNS,
        of_feature(lambda _, name: pl.col(name)).alias("values"),
        pl.col("form").str.to_lowercase().alias("key"),
        # The relations' value lists are sorted sets (the schema's promise): joined, set keys.
        *(pl.col(n).list.join(",").alias(f"k_{n}") for n in LIST_COLUMNS),
        pl.col("raw_feats").replace_strict(feats, return_dtype=pl.String).alias("feats"),
        "k_agreeing",
        "o_key",
        "o_lemma",
        "o_upos",
        of_feature(lambda _, name: pl.col(f"o_{name}")).list.join(",").alias("k_o_values"),
        "sentence",
        "definite",
        "declension",
        "between_feats",
        pl.Series("start", np.where(known, sentences.start[word] + inside, 0), dtype=pl.Int32),
        # A part after the token's first has the token's own letters before it.
        pl.Series("after_elided", known & sentences.after_elided[word] & (inside == 0)),
        pl.Series("bound", inside > 0),  # a later part of a transparent multiword token
        # The words around, by offsets into the text (§4.1's written surface): the surface
        # word before and after, and the token a transparent multiword token's part lies in.
        *_around(sentences, word, known, part),
        # Read by the rules about a relation only (`relation_skip_reason`).
        (pl.col("unagreeing") & (pl.col("feature") == "Person")).alias("unagreeing"),
        (pl.col("predicative") & (pl.col("feature") == "Person")).alias("predicative"),
        "in_mwt",
        "coordinated",
        "duplicate",
        derived_by_attempt().alias("derived_bits"),
        "unmarked",
        "borrowed",
        # The feature's value came from the antecedent (§4.2, decided with the language's rates).
        pl.concat_str(pl.lit(","), "lent", pl.lit(","))
        .str.contains(pl.concat_str(pl.lit(","), "feature", pl.lit(",")), literal=True)
        .fill_null(False)
        .alias("lent"),
    )


def _as_read(member: str, name: str, varied: str = "") -> str:
    """The column of a member's values that an attempt reads: §4.2's (`with_subject_facts`)
    where the target is varied, the relation's own where the controller is."""
    if (varied or member) == "target" and name != "case":
        return f"{member[0]}_{name}"
    return f"{member}_{name}"


def _target_only(role: str) -> list[pl.Expr]:
    """§4.2's flags of a varied target (a varied controller reads its own values); `unmarked`
    as `Feature=Value` joined by `,` (null: none)."""
    if role != "target":
        return [
            pl.lit(None, pl.String).alias("unmarked"),
            pl.lit(None, pl.String).alias("borrowed"),
            pl.lit(None, pl.String).alias("lent"),
            pl.lit(False).alias("from_antecedent"),
            pl.lit(False).alias("from_dependent"),
        ]
    return [
        pl.col("unmarked"),
        pl.col("borrowed"),
        pl.col("lent"),
        (pl.col("from_antecedent") | (pl.col("relative") & pl.col("implicit"))).alias(
            "from_antecedent"
        ),
        pl.col("from_dependent"),
    ]


def _around(
    sentences: SentenceFacts, word: np.ndarray, known: np.ndarray, part: np.ndarray
) -> list[pl.Series]:
    """Start and end offsets of the surface words before and after each attempt's word (null
    where there is none), and of its token where it is part of a multiword token."""
    start, length = sentences.start, sentences.length
    has_before = known & ~sentences.first[word]
    has_after = known & ~sentences.last[word]
    before = np.maximum(word - 1, 0)
    after = np.minimum(word + 1, len(start) - 1)
    columns = {
        "before_start": (start[before], has_before),
        "before_end": (start[before] + length[before], has_before),
        "after_start": (start[after], has_after),
        "after_end": (start[after] + length[after], has_after),
        "token_start": (start[word], part),
        "token_end": (start[word] + length[word], part),
    }
    return [
        pl.Series(name, pa.array(values.astype(np.int32), mask=~mask))
        for name, (values, mask) in columns.items()
    ]


# §3 `derived`, one bit per value while attempts flow through the rules: a list column would
# be copied by every join, sort and filter (it cost more than the rest of the row).
DERIVED = (
    "implicit-person",
    "transparent-token",
    "unimorph-form",
    BACKED_OFF,
    UNMEASURED,
    "antecedent",
    "dependent-number",
    "unmarked-cell",
    "lexicon-features",
)


def derived_bit(name: str, condition: pl.Expr) -> pl.Expr:
    """`derived`'s bit of `name` where `condition` holds (a null condition: not set)."""
    return condition.fill_null(False).cast(pl.UInt16) * (1 << DERIVED.index(name))


def derived_names(bits: pl.Series) -> pl.Series:
    """The `derived` list of each attempt's bits, its names sorted (looked up for the few codes
    present: a lookup table of every code costs more than the rows)."""
    names = {
        code: sorted(name for bit, name in enumerate(DERIVED) if code >> bit & 1)
        for code in {0, *bits.unique().to_list()}  # an empty mapping would keep the codes' type
    }
    return bits.replace_strict(names, return_dtype=pl.List(pl.String))


def derived_by_attempt() -> pl.Expr:
    """What beyond §4's plain rule an attempt needs (§3 `derived`), as far as its relation
    tells: the implicit third person, a part of a transparent multiword token, §4.2's values
    from an antecedent or a dependent (as bits)."""
    implicit = pl.col("implicit") & (pl.col("feature") == "Person")
    return (
        derived_bit("implicit-person", implicit)
        + derived_bit("transparent-token", pl.col("mwt_offset").is_not_null())
        + derived_bit("antecedent", pl.col("from_antecedent"))
        + derived_bit("dependent-number", pl.col("from_dependent"))
    )


@dataclass
class SentenceFacts:
    """Per sentence key, its first occurrence's row in the sentences table (`sentence`), whether
    the key repeats, and the index of its first word; per word of those sentences, its start
    offset in the text and whether the word before is elided onto it (*s'* glued to *est*)."""

    keys: pl.DataFrame  # treebank, sent_id, sentence, duplicate, first_word
    start: np.ndarray
    after_elided: np.ndarray
    words: pa.ChunkedArray  # the surface words themselves
    length: np.ndarray  # per word: its length in characters
    first: np.ndarray  # per word: it is its sentence's first
    last: np.ndarray  # per word: it is its sentence's last


def _sentence_key(columns: list[str]) -> list[str]:
    """What names a sentence: treebank and sent_id, and its file in a bundle (`prepare_bundle`)."""
    return ["part", "treebank", "sent_id"] if "part" in columns else ["treebank", "sent_id"]


def _sentence_facts(sentences: pa.Table) -> SentenceFacts:
    """A file's sentences as the attempts at pairs read them."""
    keys = _sentence_key(sentences.column_names)
    frame = pl.DataFrame(sentences.select(keys)).with_row_index("sentence")
    first = frame.select(pl.struct(keys).is_first_distinct()).to_series().to_numpy()
    # The text joins surface words with a space except after SpaceAfter=No (mine.surface): a
    # word starts after the words before it and their spaces. Words of all sentences at once.
    chosen = pa.array(first)
    words = sentences.column("words").filter(chosen)
    lengths = pc.list_value_length(words).to_numpy(zero_copy_only=False).astype(np.int64)
    texts = frame.with_columns(pl.struct(keys).is_duplicated().alias("duplicate")).filter(
        pl.Series(first)
    )
    texts = texts.with_columns(
        pl.Series("first_word", np.cumsum(lengths) - lengths, dtype=pl.Int64)
    )
    flat = pc.list_flatten(words)
    if "space_after" in sentences.column_names:
        space = pc.list_flatten(sentences.column("space_after").filter(chosen)).to_numpy(
            zero_copy_only=False
        )
    else:
        space = np.ones(len(flat), dtype=bool)
    # Each word is followed by one space or none, or by MISC SpacesAfter='s whitespace.
    after = space.astype(np.int64)
    if "spaces_after" in sentences.column_names:
        spaces = pc.list_flatten(sentences.column("spaces_after").filter(chosen))
        given = ~spaces.is_null().to_numpy(zero_copy_only=False)
        if given.any():
            lengths_given = pc.fill_null(pc.utf8_length(spaces), 0).to_numpy(zero_copy_only=False)
            after[given] = lengths_given[given]
    length = pc.utf8_length(flat).to_numpy(zero_copy_only=False).astype(np.int64)
    width = length + after
    begin = np.repeat(np.cumsum(lengths) - lengths, lengths)  # each word's sentence's first word
    total = np.cumsum(width)
    start = total - width - (total[begin] - width[begin]) if len(width) else total
    surface = np.arange(len(width)) - begin
    # An elided word ends in an apostrophe after a letter (*s'*, *n'*, not a quote mark), glued
    # to the next word or apart where the treebank writes a space (UD_French-ALTS: *n' est*).
    ends = pc.or_(pc.ends_with(flat, APOSTROPHES[0]), pc.ends_with(flat, APOSTROPHES[1]))
    elided = ends.to_numpy(zero_copy_only=False).astype(bool)
    some = np.flatnonzero(elided)
    if some.size:
        letter = pc.utf8_is_alpha(pc.utf8_slice_codeunits(flat.take(pa.array(some)), -2, -1))
        elided[some] = letter.to_numpy(zero_copy_only=False).astype(bool)
    before = np.zeros(len(width), dtype=bool)
    if len(width):
        before[1:] = elided[:-1]
        before &= surface > 0
    # One spare word: a relation without its sentence reads index 0 (masked out by `known`).
    chunks = flat.chunks if isinstance(flat, pa.ChunkedArray) else [flat]
    spare = pa.array([""], pa.string())
    words_and_spare = pa.chunked_array([*(c.cast(pa.string()) for c in chunks), spare])
    last = surface == np.repeat(lengths, lengths) - 1
    return SentenceFacts(
        texts,
        np.append(start, 0),
        np.append(before, False),
        words_and_spare,
        np.append(length, 0),
        np.append(surface == 0, True),
        np.append(last, True),
    )


# What an attempt holds after the rules about its relation (the spilled table's columns).
ATTEMPT_COLUMNS = [
    "rel", "lang", "treebank", "sent_id", "type", "target_id", "controller_id", "varied",
    "role_rank", "form", "lemma", "upos", "feature", *CONFIGURATION,
]  # fmt: skip


def configuration(relations: pl.DataFrame) -> pl.DataFrame:
    """Each relation's configuration of §4.1 (`mine.rules.certainty`), keyed as the rates are
    (`rules.relations.set_key`): the controller's Case, the target's upos and VerbForm, order."""
    case = pl.col("controller_case")
    verbform = relations.select(
        pl.col("target_feats").str.extract(r"(?:^|\|)VerbForm=([^|]+)", 1)
    ).to_series()
    # A set key: the rare multi-valued VerbForm sorted, once per distinct value.
    unsorted = {
        value: ",".join(sorted(value.split(",")))
        for value in verbform.unique().drop_nulls().to_list()
        if "," in value
    }
    return relations.select(
        pl.when(case.list.len() > 0)
        .then(case.list.join(","))
        .otherwise(pl.lit(NO_VALUE))
        .alias("controller_case"),
        pl.col("target_upos"),
        verbform.replace(unsorted).fill_null(NO_VALUE).alias("target_verbform"),
        pl.col("order"),
    )
