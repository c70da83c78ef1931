"""The rules of DESIGN.md §4 (minimal pairs), written once: which relations give pairs, the bad
form of a varied word, the other member's ambiguity, capitalisation and elision. Decisions over
one question are plain functions; the rules about a relation are column expressions."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ud_agree.schemas.corpus import FEATURES

from ..paradigms import (
    CELL_COLUMNS,
    LIST_COLUMNS,
    SHARED_UPOS,
    ParadigmFrames,
    cell_key_of_joined,
    expanded,
    script_of,
)
from ..questions import first_asking, numbered
from .cells import agrees_in_another_tense, another_cell
from .features import meets, of_feature, value_list
from .other_word import other_word_spellings
from .same_word import other_series_spellings


def transparent_offsets(token: str, forms: Sequence[str]) -> list[int] | None:
    """Where each word of a multiword token begins in it, when the token is exactly its words'
    forms run together (case-insensitively: *Isn't* = *is* + *n't*, *στη* = *σ* + *τη*), so that
    one word can be replaced in it (§4); None for an opaque token (*du* = *de* + *le*)."""
    joined = "".join(forms)
    if len(joined) != len(token) or joined.lower() != token.lower():
        return None
    offsets, at = [], 0
    for form in forms:
        offsets.append(at)
        at += len(form)
    return offsets


def bad_forms_of(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.DataFrame:
    """§4's bad form for each question (a row, `qid`; every question of a batch of a language's
    attempts at once): the word (`key`, `lemma`, `upos`, `feats`, its value
    sets `k_<feature>`, `k_agreeing`) and the cell wanted (`cell_<feature>`, with the word's
    other FEATS: *est* never becomes *étaient*). None where the word's own spelling is in the
    cell; among the cell's spellings, none that also has a bundle agreeing on every agreeing
    feature (it could be correct); the highest count, then the first alphabetically. Per
    question whose cell holds a form, `bad_key`, `bad_count`, `bad_source`, or `outcome`
    'syncretic'; the others (`no-form`) are left out. §4.1: a spelling in the word's own script
    only, and the cell's spellings of the sentence's own `treebank` where it has some."""
    spellings = _spellings(questions, frames)
    could_agree, elsewhere = _readings(frames)
    readings = spellings.join(_word(questions, frames), on="qid").join(
        frames.bundles,
        left_on=["bad_key", "lemma", "form_upos"],
        right_on=["form_key", "lemma", "upos"],
        how="left",
    )
    # Decided once per distinct set of what it reads (some hundreds among tens of thousands of
    # a spelling's bundles beside its word: list and regex steps cost per row), joined back.
    read = sorted(set(could_agree.meta.root_names()) | set(elsewhere.meta.root_names()))
    readings = numbered(readings, "_reading", read)
    decided = readings.filter(first_asking("_reading")).select(
        "_reading",
        could_agree.fill_null(False).alias("could_agree"),
        elsewhere.fill_null(False).alias("elsewhere"),
    )
    checked = (
        readings.join(decided, on="_reading")
        .group_by("qid", "bad_key")
        .agg(
            pl.col("bad_count", "bad_source", "key").first(),
            pl.col("could_agree", "elsewhere").any(),
        )
    )
    # §4.3: a spelling of another word that UD lemmatises with the word (*melhores* → *boa*).
    own = own_cell_of(questions)
    other = other_word_spellings(own, spellings, frames.forms)
    # §4.3: a spelling of the other series where a lemma spans two words (*stalo* → *stála*).
    series = other_series_spellings(own, spellings, frames.forms)
    for name, refused in (("other_word", other), ("other_series", series)):
        checked = checked.join(
            refused.with_columns(pl.lit(True).alias(name)), on=["qid", "bad_key"], how="left"
        ).with_columns(pl.col(name).fill_null(False))
    return _chosen(checked, frames.spelling_variants)


def _spellings(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.DataFrame:
    """Per question, the spellings of its wanted cell (`bad_key`) with their count, source and
    the UPOS their bundles are read under."""
    found = (
        questions.select("qid", *CELL_COLUMNS, "treebank", script_of(questions["key"]))
        .join(frames.forms, on=[*CELL_COLUMNS, "script"])
        # The sentence's own treebank's forms of the cell, where it has one (its spelling and
        # annotation are the sentence's); the others' and UniMorph's only where it has none.
        .with_columns(pl.col("treebanks").list.contains(pl.col("treebank")).alias("own"))
        .filter(pl.col("own") | ~pl.col("own").any().over("qid"))
    )
    # A UniMorph paradigm that fills the word's own cell with other forms only is of another
    # inflection class than the word: its forms are no bad forms for it (Romanian *înceta*:
    # UniMorph's 3sg is *înceată*, the treebanks' *încetează*, so UniMorph's 1sg *încet*, an
    # adverb, is not the word's 1sg *încetez*).
    foreign = other_class(questions, frames)
    found = found.filter(~((pl.col("source") == "unimorph") & pl.col("qid").is_in(foreign)))
    # A form lent by the lemma's other UPOS (AUX or VERB) only where that UPOS's paradigm is the
    # word's: it fills the word's own cell with the word's form alone (UD_Persian-Seraji lemmas
    # *شد* 'became' as *کرد*, whose VERB cell holds *شد* and *کرد*: no lending there).
    lent = pl.col("form_upos") != pl.col("upos")
    found = found.filter(~lent | pl.col("qid").is_in(one_paradigm(questions, frames)))
    sources = pl.col("source")
    spellings = found.group_by("qid", "bad_key").agg(
        pl.col("bad_count").sum(),
        pl.col("form_upos").first(),  # the UPOS the spelling's bundles are read under
        pl.when((sources == "both").any() | (sources.n_unique() > 1))
        .then(pl.lit("both"))
        .otherwise(sources.first())
        .alias("bad_source"),
    )
    return spellings


def _word(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.DataFrame:
    """Per question, the word's values (`w_<feature>`), other FEATS and agreeing features."""
    return questions.select(
        "qid",
        "key",
        "lemma",
        "upos",
        pl.col("feats").alias("w_feats"),
        pl.col("k_agreeing").str.split(",").alias("agreeing"),
        "feature",
        *(
            expanded(value_list(f"k_{name}"), feature, frames.value_sets).alias(f"w_{name}")
            for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
        ),
    )


def _readings(frames: ParadigmFrames) -> tuple[pl.Expr, pl.Expr]:
    """Over a spelling's bundles beside its word: whether the bundle could be correct
    (`could_agree`: §4's syncretism) and whether it is another cell's agreeing reading
    (`elsewhere`: §4.3)."""
    # A spelling with a bundle that meets the word's values on every agreeing feature could be
    # correct (syncretism), and so could the word's own spelling; only its rows with the word's
    # own other FEATS (or unknown ones) are read: a subjunctive *remain* tagged 3sg does not make
    # indicative *remains* → *remain* correct (§4.1). Where the subjunctive stands in main
    # clauses (German reported speech: *Der Veteran habe versucht*), every attested bundle of the
    # form counts, whatever its mood or other FEATS (treebanks spell them differently): *hat* →
    # *habe* could be correct.
    if frames.reported_speech:
        same_feats = pl.col("b_decisive")
    else:
        same_feats = pl.col("b_attested") & (
            pl.col("b_feats").is_null() | (pl.col("b_feats") == pl.col("w_feats"))
        )
    # A bundle that meets the word's values on every feature the word agrees in.
    agreeing_bundle = pl.all_horizontal(
        ~pl.col("agreeing").list.contains(feature) | meets(f"b_{name}", f"w_{name}")
        for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
    )
    could_agree = same_feats & agreeing_bundle
    could_agree = could_agree | agrees_in_another_tense(frames.marked, frames.reported_speech)
    # §4.3: a spelling attested (any mood, tense, VerbForm or other FEATS) in a cell of the
    # lemma that agrees with the controller in the feature varied, and in every other feature
    # the word agrees in, has a grammatical reading: Italian *entra* → *entri* (also the
    # subjunctive 3sg); English *is* → *are* has none (2sg *are* is no reading with *he*).
    # Where the word has no Person (Dutch verbs), a reading of the first or second person is
    # none with a noun subject: *de kinderen krijgen* → *krijgt* (also 2pl) stays a pair.
    person = (
        (pl.col("b_person").list.len().fill_null(0) == 0)
        | meets("b_person", "w_person")
        | (
            (pl.col("w_person").list.len().fill_null(0) == 0)
            & pl.col("b_person").list.contains("3")
        )
    )
    # Another cell: the word's own is §4's syncretism (`could_agree`).
    elsewhere = pl.col("b_attested") & another_cell() & person & agreeing_bundle
    return could_agree, elsewhere


def _chosen(checked: pl.DataFrame, spelling_variants: dict[str, str] | None) -> pl.DataFrame:
    """Per question, the usable spelling of the highest count (then the first alphabetically),
    none of another cell's reading, another word's or the other series' (§4.3), or why there is
    none (`outcome`); spellings that differ only by `spelling_variants` are one."""
    # Where the word's own spelling fills the wanted cell too (*you do* → 1sg *do*, German
    # *dem Ersten* → fem. dat. *ersten*), the cell's other spellings are variants of it, not a
    # violation (*du*, *Erster*): the contrast is syncretic. So where the cell's spelling is the
    # word's but for a letter that varies between spellings of one form (Russian *своем* beside
    # *своём*, Greek *υπόλοιπων* beside *υπολοίπων*).
    own_in_cell = checked.group_by("qid").agg(
        (
            _spelled(pl.col("bad_key"), spelling_variants)
            == _spelled(pl.col("key"), spelling_variants)
        )
        .any()
        .alias("own_in_cell")
    )
    checked = checked.join(own_in_cell, on="qid")
    usable = ~pl.col("own_in_cell") & ~pl.col("could_agree")
    chosen = (
        checked.filter(
            usable & ~pl.col("elsewhere") & ~pl.col("other_word") & ~pl.col("other_series")
        )
        .sort("bad_count", "bad_key", descending=[True, False])
        .group_by("qid", maintain_order=True)
        .first()
        .select(
            "qid", "bad_key", "bad_count", "bad_source", pl.lit(None, pl.String).alias("outcome")
        )
    )
    # No form: `syncretic-elsewhere` where some spelling was refused for another cell's
    # reading alone, `other-word` or `other-series` where for being another word's alone, else
    # `syncretic`.
    syncretic = (
        checked.join(chosen, on="qid", how="anti")
        .group_by("qid")
        .agg(
            (usable & pl.col("elsewhere")).any().alias("elsewhere"),
            (usable & pl.col("other_word")).any().alias("other_word"),
            (usable & pl.col("other_series")).any().alias("other_series"),
        )
        .select(
            "qid",
            pl.lit(None, pl.String).alias("bad_key"),
            pl.lit(None, pl.Int64).alias("bad_count"),
            pl.lit(None, pl.String).alias("bad_source"),
            pl.when("elsewhere")
            .then(pl.lit("syncretic-elsewhere"))
            .when("other_word")
            .then(pl.lit("other-word"))
            .when("other_series")
            .then(pl.lit("other-series"))
            .otherwise(pl.lit("syncretic"))
            .alias("outcome"),
        )
    )
    return pl.concat([chosen, syncretic])


def _spelled(key: pl.Expr, spelling_variants: dict[str, str] | None) -> pl.Expr:
    """A spelling with each letter that varies between spellings of one form written as its plain
    letter (Russian *ё* as *е*, Greek *ά* as *α*)."""
    if not spelling_variants:
        return key
    return key.str.replace_many(list(spelling_variants), list(spelling_variants.values()))


def own_cell_of(questions: pl.DataFrame) -> pl.DataFrame:
    """Per question (`qid`), the word (`key`) and its own cell as CELL_COLUMNS."""
    return questions.select(
        "qid",
        "key",
        "lemma",
        "upos",
        *(cell_key_of_joined(pl.col(f"k_{n}")).alias(f"cell_{n}") for n in LIST_COLUMNS),
        "feats",
    )


def one_paradigm(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.Series:
    """The `qid`s of questions whose own cell the other UPOS of SHARED_UPOS fills with the
    word's form (`key`) alone, among forms seen under it."""
    other = pl.when(pl.col("upos") == "AUX").then(pl.lit("VERB")).otherwise(pl.lit("AUX"))
    asked = own_cell_of(questions).filter(pl.col("upos").is_in(SHARED_UPOS))
    seen = frames.forms.filter(pl.col("form_upos") == pl.col("upos"))
    return (
        asked.with_columns(other.alias("upos"))
        .join(seen.select(*CELL_COLUMNS, "bad_key"), on=CELL_COLUMNS)
        .group_by("qid")
        .agg((pl.col("bad_key") == pl.col("key")).all().alias("one"))
        .filter("one")
        .get_column("qid")
        .implode()
    )


def other_class(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.Series:
    """The `qid`s of questions (the word `key`, `lemma`, `upos`, `feats`, its values `k_<name>`)
    whose own cell UniMorph fills, with none of its forms the word's."""
    own_cell = own_cell_of(questions)
    unimorph = frames.forms.filter(
        (pl.col("source") != "ud") & (pl.col("form_upos") == pl.col("upos"))
    ).select(*CELL_COLUMNS, "bad_key")
    return (
        own_cell.join(unimorph, on=CELL_COLUMNS)
        .group_by("qid")
        .agg((pl.col("bad_key") == pl.col("key")).any().alias("has_own"))
        .filter(~pl.col("has_own"))
        .get_column("qid")
        .implode()
    )


def ambiguity_of(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.DataFrame:
    """§4's ambiguity rule for each question: whether the other member could carry the bad value,
    in its sentence or as another bundle of its own form (*le prix augmentent*: *prix* is
    singular and plural). The other member (`o_key`, `o_lemma`, `o_upos`, its values
    of the feature `k_o_values`), the `feature` and the `bad_value`; per question, `ambiguous`."""
    value_sets = frames.value_sets
    asked = questions.select(
        "qid",
        "o_key",
        "o_lemma",
        "o_upos",
        of_feature(lambda f, _: expanded(pl.concat_list(pl.col("bad_value")), f, value_sets)).alias(
            "bad_set"
        ),
        of_feature(lambda f, _: expanded(value_list("k_o_values"), f, value_sets)).alias("own"),
        "feature",
    )
    return (
        asked.join(
            frames.bundles,
            left_on=["o_key", "o_lemma", "o_upos"],
            right_on=["form_key", "lemma", "upos"],
            how="left",
        )
        .group_by("qid")
        .agg(
            (
                meets("own", "bad_set").fill_null(False).first()
                | of_feature(lambda _, name: meets(f"b_{name}", "bad_set")).fill_null(False).any()
            ).alias("ambiguous")
        )
    )
