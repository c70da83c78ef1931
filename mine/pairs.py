"""Minimal pairs (DESIGN.md §4): a kept relation's sentence as written, and the same sentence with
one member re-inflected so that it disagrees — a form of the same lemma from the lexicon. The
rules are the modules of `rules/`, one per rule; here they run over a file's relations, and over a batch of a
language's attempts (joins: each distinct word asked about is decided once per batch)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import FEATURES, PAIRS

from .attempts import DERIVED, attempts_of, derived_bit, derived_names, sentence_facts
from .fold import one_row_per_bad_sentence
from .languages import ValueSets
from .lent import REFUSED, LentAgreement
from .paradigms import LIST_COLUMNS, ParadigmFrames, cell_key_of_joined, with_prefix
from .questions import first_asking, numbered, parted, when_rows
from .rules.bad_forms import ambiguity_of, bad_forms_of
from .rules.cells import (
    changes_layered,
    contested_forms,
    lexicon_licensed,
    licensed_cells,
    unattested_readings,
)
from .rules.certainty import BACKED_OFF, CONFIGURATION, UNMEASURED, VALUE, decide
from .rules.declension import changes_declension, changes_declension_class
from .rules.eligibility import relation_skip_reason
from .rules.hosts import agrees_with_another_host
from .rules.instrumental import instrumental_predicate, instrumental_reading
from .rules.numerals import adverb_reading
from .rules.optional_feminine import optional_feminine
from .rules.partitive import partitive_genitive
from .rules.possessives import not_possessive, other_possessor
from .rules.predicate_adverbs import adverb_predicate
from .rules.surface import breaks_apocope, breaks_elision, capitalised_like, changes_prefix
from .rules.verb_context import clitic_form, verb_context_skip
from .rules.words import NO_VALUE
from .skips import skip_table, skipped_rows
from .written import NO_SURFACE, WrittenSurface, write_surface


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
    attempts = attempts_of(
        pl.DataFrame(relations), sentence_facts(sentences), vary, unagreement, pro_drop
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


def pairs_from_attempts(
    attempts: pl.DataFrame,
    frames: ParadigmFrames,
    texts: pl.Series,
    rates: pl.DataFrame | None = None,
    fold: bool = True,
    surface: WrittenSurface | None = None,
    tokens: pl.Series | None = None,
    lent: LentAgreement | None = None,
    possessives: pl.Series | None = None,
    multiplicatives: pl.Series | None = None,
) -> tuple[pa.Table, pl.DataFrame, Counter]:
    """The pairs of prepared attempts, a row (SKIPPED columns) per skip for want of a usable
    bad form or of certain agreement (`rates`: the language's AGREEMENT rows, §4.1; None: not
    checked), and the pairs written per agreement flag of `derived` (`texts`: the sentences'
    texts, indexed by the attempts' `sentence`). `fold`: one row per bad sentence (§4.1);
    without it, a row per contrast (nonce variants fold their own, keyed on their original's
    contrast). The bad sentence is written as the language writes it (`surface`; `tokens`: its
    multiword tokens, lower-cased, §4.1). `lent`: the language's measure of agreement with an
    antecedent (§4.2; None: every value an antecedent gives is lent). `possessives`: the forms,
    lower-cased, of the language's possessive targets, and `multiplicatives` those of its
    multiplicative adverbs (§1.7; None: not checked)."""
    skipped: list[pl.DataFrame] = []
    if attempts.height == 0:
        return PAIRS.empty_table(), pl.DataFrame(), Counter()
    marked = frames.marked  # the language's, before the frames are narrowed to the batch
    if frames.prefixes or frames.suffixes:  # §1.7: a layered view's affixes are its cell's
        attempts = attempts.with_columns(
            with_prefix(
                pl.col("feats"), pl.col("form"), pl.col("upos"), frames.prefixes, frames.suffixes
            )
        )
    # Only the paradigms of the words varied and of the other members are read.
    frames = frames.narrowed(
        pl.concat(
            [
                attempts.select("lemma", "upos"),
                attempts.select(pl.col("o_lemma").alias("lemma"), pl.col("o_upos").alias("upos")),
            ]
        )
    )
    attempts = _worth_asking(attempts, frames, marked, rates, lent, skipped)
    if attempts.height == 0:
        return PAIRS.empty_table(), pl.concat(skipped), Counter()
    tries = _with_bad_forms(attempts, frames, rates, skipped)
    if possessives is not None:
        tries = _skip(tries, not_possessive(tries, possessives), "not-possessive", skipped)
        tries = _skip(tries, other_possessor(tries), "other-possessor", skipped)
    if frames.optional_feminine is not None:
        masculine = optional_feminine(tries, frames.optional_feminine, frames.two_gender_nouns)
        tries = _skip(tries, masculine, "optional-feminine", skipped)
    if multiplicatives is not None:
        adverb = adverb_reading(tries, multiplicatives)
        tries = _skip(tries, adverb, "adverb-reading", skipped)
    tries = _other_member(tries, frames, skipped)
    pairs = tries.sort("rel", "role_rank", "feature", "bad_value")
    pairs = pairs.with_columns(texts.gather(pairs.get_column("sentence")).alias("text"))
    pairs, ambiguous, unattested, unelided = write_surface(pairs, surface or NO_SURFACE, tokens)
    skipped.append(skipped_rows(ambiguous, "ambiguous-onset"))
    skipped.append(skipped_rows(unattested, "unattested-token"))
    skipped.append(skipped_rows(unelided, "elision"))
    table = _pair_rows(pairs)
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


def _skip(
    tries: pl.DataFrame, which: pl.Series, reason: str | pl.Expr, skipped: list[pl.DataFrame]
) -> pl.DataFrame:
    """`tries` without the rows `which` marks, which go to `skipped` as `reason`."""
    kept, refused = parted(tries, which)  # most rules skip nothing: then no copy
    skipped.append(skipped_rows(refused, reason))
    return kept


def _worth_asking(
    attempts: pl.DataFrame,
    frames: ParadigmFrames,
    marked: pl.DataFrame,
    rates: pl.DataFrame | None,
    lent: LentAgreement | None,
    skipped: list[pl.DataFrame],
) -> pl.DataFrame:
    """The attempts whose bad forms are worth finding: licensed (§4.2), of an attested reading
    (§4.1), lent by an antecedent that is agreed with (§4.2), of certain agreement where the
    target is varied (§4.1, §4.3)."""
    # §4.2: an unmarked cell its language does not license, or a value borrowed by a pronoun
    # without FEATS that its form's tokens do not give, makes no attempt (nor a skip).
    attempts = _borrowed(_licensed(attempts, frames, marked), frames)
    # §4.1: a word whose tense or mood its form's tokens hardly ever have is mis-tagged.
    attempts = _skip(attempts, unattested_readings(attempts, frames), "unattested-reading", skipped)
    if attempts.height == 0:
        return attempts
    # §4.2: a value lent by the antecedent where the pronoun's verb need not agree with it.
    if lent is not None:
        attempts = lent.decide(attempts)
        attempts = _skip(attempts, ~attempts.get_column("lends"), REFUSED, skipped)
        attempts = attempts.with_columns(
            pl.col("derived_bits") | derived_bit(UNMEASURED, pl.col("lent_unmeasured"))
        ).drop("lends", "lent_unmeasured")
        if attempts.height == 0:
            return attempts
    attempts = attempts.drop("lent")
    # §4.1: is agreement in the feature certain in the relation's configuration? The flag
    # (null, `backed-off`, `agreement-unmeasured`) stays with each attempt up to its pair's
    # `derived`.
    # §4.3: the rate read is that of the controller's value in the bad sentence: its own where
    # the target is varied; a varied controller's bad value is known once its forms are found.
    if rates is None:
        return attempts.with_columns(pl.lit(None, pl.String).alias("agreement_flag"))
    return _certain(attempts, rates, pl.col("varied") == "target", skipped)


def _with_bad_forms(
    attempts: pl.DataFrame,
    frames: ParadigmFrames,
    rates: pl.DataFrame | None,
    skipped: list[pl.DataFrame],
) -> pl.DataFrame:
    """Each attempt with its bad forms, less those the rules of the bad form refuse: no form,
    uncertain agreement of a varied controller's bad value, another host, apocope, another
    declension class, contested features, an aspect prefix (§4.1, §4.3)."""
    # The bad forms are decided per distinct word asked about (they recur), then joined.
    attempts = numbered(attempts, "asked", _WORD)
    asked = attempts.filter(first_asking("asked"))
    tries = attempts.drop("k_agreeing").join(
        _bad_forms(asked.select("asked", *_WORD, "values"), frames), on="asked"
    )
    # `outcome` null: no form in the wanted cell (not asked).
    no_form = tries.get_column("bad_key").is_null()
    tries = _skip(tries, no_form, pl.col("outcome").fill_null("no-form"), skipped)
    if rates is not None:
        tries = _certain(tries, rates, pl.col("varied") == "controller", skipped)
    # §4.3: the bad form reads as another noun's (a noun between target and controller).
    tries = _skip(tries, agrees_with_another_host(tries), "ambiguous-host", skipped)
    if frames.instrumental_predicate:  # §4.1: *víno bylo dobrým* is Czech
        reading = instrumental_reading(tries, frames.lexicon, frames.instrumental_cells)
        refused = instrumental_predicate(tries) | reading
        tries = _skip(tries, refused, "instrumental-predicate", skipped)
    # §4.3: *co je nelogického* beside *co je nelogické*: a partitive genitive, not agreement.
    tries = _skip(tries, partitive_genitive(tries), "partitive-genitive", skipped)
    # Greek *οι τιμές είναι ψηλά* beside *ψηλές*: the bad form is also an adverb of place.
    tries = _skip(tries, adverb_predicate(tries), "adverb-reading", skipped)
    tries = tries.drop("between_feats")
    # §4.3: a finite *have* after a modal of its chain is a mis-tagged infinitive.
    tries = _skip(tries, verb_context_skip(tries), pl.col("target_context"), skipped)
    tries = tries.drop("target_context")
    if frames.free_letters is not None:  # §4.3: Persian *م* is written on its host
        refused = clitic_form(tries, frames.free_letters)
        tries = _skip(tries, refused, "clitic-form", skipped)
    if frames.apocope:
        apocopated = tries.select(breaks_apocope(frames.apocope)).to_series()
        tries = _skip(tries, apocopated, "apocope", skipped)
    tries = tries.drop(*CONFIGURATION)
    if frames.endings:
        declension = tries.select(changes_declension(frames.endings)).to_series()
        tries = _skip(tries, declension, "declension-class", skipped)
    if frames.declension:
        declension = tries.select(changes_declension_class(frames.declension)).to_series()
        tries = _skip(tries, declension, "declension-class", skipped)
    tries = _skip(tries, _contested(tries, frames), "contested-feats", skipped)
    # What the word's cell and other FEATS decide is decided: later steps copy less.
    tries = tries.drop("key", "feats", *(f"k_{n}" for n in LIST_COLUMNS))
    if frames.prefixes:
        prefixed = tries.select(changes_prefix(frames.prefixes)).to_series()
        tries = _skip(tries, prefixed, "aspect-prefix", skipped)
    return tries


def _contested(tries: pl.DataFrame, frames: ParadigmFrames) -> pl.Series:
    """§4.1: a bad form whose other FEATS another treebank contradicts changes more than f;
    §4.3: or the layered features the treebanks give the two forms differ (the possessor's)."""
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
    return contested | changes_layered(tries, frames.layered)


def _other_member(
    tries: pl.DataFrame, frames: ParadigmFrames, skipped: list[pl.DataFrame]
) -> pl.DataFrame:
    """The tries whose other member is not ambiguous with the bad form (§4), the bad form
    capitalised as the word it replaces, less those that break an elision."""
    # Each distinct question is answered once, and its answer joined back on its number.
    tries = numbered(tries, "_question", _AMBIGUITY)
    tries = tries.join(_ambiguity(tries, frames), on="_question", how="left").drop(
        "_question", "o_key", "o_lemma", "o_upos", "k_o_values"
    )
    other_role = pl.when(pl.col("varied") == "target").then(pl.lit("controller"))
    reason = pl.lit("ambiguous-") + other_role.otherwise(pl.lit("target"))
    tries = _skip(tries, tries.get_column("ambiguous"), reason, skipped)
    # Most words are written lower-case, their bad form as its key: only the others are read.
    capitalised = pl.col("form") != pl.col("form").str.to_lowercase()
    written = when_rows(
        tries, capitalised, capitalised_like(pl.col("bad_key"), pl.col("form")), pl.col("bad_key")
    )
    tries = tries.with_columns(written.alias("bad_form"))
    return _skip(tries, tries.select(breaks_elision()).to_series(), "elision", skipped)


def _pair_rows(pairs: pl.DataFrame) -> pl.DataFrame:
    """The PAIRS columns of written pairs (`derived`: still bits)."""
    return pairs.select(
        *("lang", "treebank", "sent_id", "type", "target_id", "controller_id", "varied"),
        "feature",
        pl.col("values").list.first().alias("good_value"),
        "bad_value",
        "lemma",
        pl.col("upos").str.replace(r"\[[a-z]+\]$", "").alias("upos"),  # a layer's view: the UPOS
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
