"""The rules of DESIGN.md §4 (minimal pairs), written once: which relations give pairs, the bad
form of a varied word, the other member's ambiguity, capitalisation and elision. Decisions over
one question are plain functions; the rules about a relation are column expressions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from ud_agree.schemas.corpus import FEATURES

from ..languages import Declension, Endings
from ..paradigms import (
    ATTESTED_SHARE,
    CELL_COLUMNS,
    LIST_COLUMNS,
    SHARED_UPOS,
    ParadigmFrames,
    elided,
    expanded,
    script_of,
    set_key,
)
from ..questions import first_asking, numbered

if TYPE_CHECKING:
    import numpy as np


# A rule written once over either a polars expression or a numpy mask.
Shown = TypeVar("Shown", pl.Expr, "np.ndarray")


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
    'syncretic'; the others (`no-form`) are left out. §4.1: a spelling in the word's own script only, and the cell's spellings of the
    sentence's own `treebank` where it has some."""
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
    word = questions.select(
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
    readings = spellings.join(word, on="qid").join(
        frames.bundles,
        left_on=["bad_key", "lemma", "form_upos"],
        right_on=["form_key", "lemma", "upos"],
        how="left",
    )
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
    # Where the word's own spelling fills the wanted cell too (*you do* → 1sg *do*, German
    # *dem Ersten* → fem. dat. *ersten*), the cell's other spellings are variants of it, not a
    # violation (*du*, *Erster*): the contrast is syncretic.
    own_in_cell = checked.group_by("qid").agg(
        (pl.col("bad_key") == pl.col("key")).any().alias("own_in_cell")
    )
    checked = checked.join(own_in_cell, on="qid")
    usable = ~pl.col("own_in_cell") & ~pl.col("could_agree")
    chosen = (
        checked.filter(usable & ~pl.col("elsewhere"))
        .sort("bad_count", "bad_key", descending=[True, False])
        .group_by("qid", maintain_order=True)
        .first()
        .select(
            "qid", "bad_key", "bad_count", "bad_source", pl.lit(None, pl.String).alias("outcome")
        )
    )
    # No form: `syncretic-elsewhere` where some spelling was refused for another cell's
    # reading alone, else `syncretic`.
    syncretic = (
        checked.join(chosen, on="qid", how="anti")
        .group_by("qid")
        .agg((usable & pl.col("elsewhere")).any().alias("elsewhere"))
        .select(
            "qid",
            pl.lit(None, pl.String).alias("bad_key"),
            pl.lit(None, pl.Int64).alias("bad_count"),
            pl.lit(None, pl.String).alias("bad_source"),
            pl.when("elsewhere")
            .then(pl.lit("syncretic-elsewhere"))
            .otherwise(pl.lit("syncretic"))
            .alias("outcome"),
        )
    )
    return pl.concat([chosen, syncretic])


def _tense_mood(feats: pl.Expr) -> list[pl.Expr]:
    """A FEATS string's Tense, Mood and VerbForm, "_" where it has none (as `marked_cells` keys
    them)."""
    return [
        feats.fill_null("").str.extract(rf"(?:^|\|){name}=([^|]+)", 1).fill_null("_")
        for name in ("Tense", "Mood", "VerbForm")
    ]


def another_cell() -> pl.Expr:
    """Over a bad form's bundles (`b_feats`) beside the word (`w_feats`): whether the bundle is
    of another Tense, Mood or VerbForm than the word, where both give it (a value left off one
    side is how a treebank spells the same cell), and no imperative (it has no subject)."""
    read = [_tense_mood(pl.col(column)) for column in ("b_feats", "w_feats")]
    differs = pl.any_horizontal(
        (b != w) & (b != "_") & (w != "_") for b, w in zip(*read, strict=True)
    )
    return differs & (read[0][1] != "Imp")


def agrees_in_another_tense(marked: pl.DataFrame, subjunctive_in_main: bool = False) -> pl.Expr:
    """§4.1, over a bad form's bundles (`b_*`) beside the word (`w_*`, `w_feats`,
    `agreeing`): whether an attested reading of another Tense or Mood makes the bad sentence
    grammatical: of the word's VerbForm, on each agreeing feature it has the word's (the
    controller's) value, or, finite, none where the language does not mark that feature on
    finite verbs of that Tense and Mood (`marked`, `marked_cells`). English *casts* → *cast* (also the past, which has no Number),
    German *fühlt* → *fühle* (also Konjunktiv I 3sg), Romanian *acoperă* → *acoperi* (also the
    3sg perfect simplu)."""
    b_tense, b_mood, b_form = _tense_mood(pl.col("b_feats"))
    w_tense, w_mood, w_form = _tense_mood(pl.col("w_feats"))
    # A reading of another VerbForm is no reading of the sentence (French *je fais* → *fait*,
    # also the participle; Finnish *minä ostan* → *ostaa*, also the infinitive).
    # An imperative has no subject of its own (Dutch *hieronder volgen → volgt enkele
    # voorbeelden*: *volgt* is also the plural imperative, which has no Number).
    # A Tense or Mood left off one side is no other reading (Hindi *हूं* `Tense=Pres` beside
    # *है* `Mood=Ind|Tense=Pres`: treebanks spell one cell's FEATS differently).
    tense = (b_tense != w_tense) & (b_tense != "_") & (w_tense != "_")
    mood = (b_mood != w_mood) & (b_mood != "_") & (w_mood != "_")
    # A subjunctive reading stands in main clauses only where reported speech puts it there
    # (`subjunctive_in_main`: German *Man fühle sich*); elsewhere it is no reading of a main
    # clause (Dutch *hat* → *habe* stays a pair, as the same-FEATS rule above has it).
    another = (tense | mood) & (b_form == w_form) & (b_mood != "Imp")
    if not subjunctive_in_main:
        another = another & (b_mood != "Sub")
    finite = b_form == "Fin"
    keys = marked.select(
        pl.concat_str("tense", pl.lit("|"), "mood", pl.lit("|"), "feature").alias("k")
    )["k"].to_list()
    here = pl.concat_str(b_tense, pl.lit("|"), b_mood, pl.lit("|"))
    return (
        pl.col("b_attested")
        & another
        & pl.all_horizontal(
            ~pl.col("agreeing").list.contains(feature)
            | meets(f"b_{name}", f"w_{name}")
            | (
                (pl.col(f"b_{name}").list.len().fill_null(0) == 0)
                & finite
                & ~(here + pl.lit(feature)).is_in(keys)
            )
            for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
        )
    )


def _own_cell(questions: pl.DataFrame) -> pl.DataFrame:
    """Per question (`qid`), the word (`key`) and its own cell as CELL_COLUMNS."""
    return questions.select(
        "qid",
        "key",
        "lemma",
        "upos",
        *(
            pl.col(f"k_{n}").str.strip_chars_start(",").fill_null("").alias(f"cell_{n}")
            for n in LIST_COLUMNS
        ),
        "feats",
    )


def one_paradigm(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.Series:
    """The `qid`s of questions whose own cell the other UPOS of SHARED_UPOS fills with the
    word's form (`key`) alone, among forms seen under it."""
    other = pl.when(pl.col("upos") == "AUX").then(pl.lit("VERB")).otherwise(pl.lit("AUX"))
    asked = _own_cell(questions).filter(pl.col("upos").is_in(SHARED_UPOS))
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
    own_cell = _own_cell(questions)
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


def of_feature(expression: Callable[[str, str], pl.Expr]) -> pl.Expr:
    """Per row, `expression` of the row's `feature`, given the feature's name and its column
    name (`number`, `gender`, …)."""
    return pl.coalesce(
        pl.when(pl.col("feature") == feature).then(expression(feature, name))
        for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
    )


def value_list(joined: str) -> pl.Expr:
    """A `,`-joined value set (a join key) as a list."""
    return pl.col(joined).str.split(",").list.eval(pl.element().filter(pl.element() != ""))


def meets(a: str, b: str) -> pl.Expr:
    """Whether two (expanded) value lists share a value."""
    return pl.col(a).list.set_intersection(pl.col(b)).list.len() > 0


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


# §4.2: the pronouns that count as Person 3 where they have none (*this costs*, *everyone
# knows*); personal, interrogative and reflexive ones do not.
THIRD_PERSON_PRONOUNS = ("Dem", "Ind", "Tot", "Neg")
SUBJECT_TYPES = ("subject-verb", "predicative")  # the controller is the subject
DERIVABLE = (("Number", "number"), ("Gender", "gender"), ("Person", "person"))
NOUNS = ("NOUN", "PROPN")

# Columns §4.2 reads beyond `relations`, and their values where a table lacks them.
SUBJECT_FACTS = {
    "listed": pl.lit(True),
    "antecedent_upos": pl.lit(None, pl.String),
    "antecedent_number": pl.lit(None, pl.List(pl.String)),
    "antecedent_gender": pl.lit(None, pl.List(pl.String)),
    "antecedent_person": pl.lit(None, pl.List(pl.String)),
    "controller_det_number": pl.lit([], pl.List(pl.String)),
    "controller_determined": pl.lit(False),
    "controller_nominal_predicate": pl.lit(False),
}


# Agreeing feature sets as bits (bit i: _SORTED[i]) → the sorted list of names.
_SORTED = sorted(FEATURES)
_AGREEING_LISTS = pl.lit(
    pl.Series(
        [[f for i, f in enumerate(_SORTED) if bits >> i & 1] for bits in range(1 << len(_SORTED))],
        dtype=pl.List(pl.String),
    )
)


def _third_person_pronoun() -> pl.Expr:
    """Over a FEATS string (`value`): a pronoun that counts as Person 3 where it has none — every
    value of its PronType one of THIRD_PERSON_PRONOUNS, not reflexive."""
    kinds = "|".join(THIRD_PERSON_PRONOUNS)
    feats = pl.col("value").fill_null("")
    pron_type = feats.str.extract(r"(?:^|\|)PronType=([^|]+)", 1)
    return pron_type.str.contains(f"^(?:{kinds})(?:,(?:{kinds}))*$").fill_null(
        False
    ) & ~feats.str.contains(r"(?:^|\|)Reflex=Yes")


def _finite_form() -> pl.Expr:
    """Over a FEATS string (`value`): VerbForm=Fin, or no VerbForm."""
    verbform = pl.col("value").fill_null("").str.extract(r"(?:^|\|)VerbForm=([^|]+)", 1)
    return verbform.is_null() | (verbform == "Fin")


def _tensed_form() -> pl.Expr:
    """Over a FEATS string (`value`): it has a Tense or a Mood."""
    return pl.col("value").fill_null("").str.contains(r"(?:^|\|)(?:Tense|Mood)=")


def _by_feats(frame: pl.LazyFrame, column: str, **facts: pl.Expr) -> pl.LazyFrame:
    """`frame` with each of `facts` (expressions over `value`) of each row's `column` as a
    column of its name, computed once per distinct string."""
    values = frame.select(pl.col(column).alias("value")).unique()
    return frame.join(
        values.with_columns(fact.alias(name) for name, fact in facts.items()),
        left_on=column,
        right_on="value",
        how="left",
        nulls_equal=True,
        maintain_order="left",
    )


def _only(column: str, value: str) -> pl.Expr:
    """Whether a value list is exactly [`value`] (cheaper than comparing lists)."""
    return (pl.col(column).list.len() == 1) & (pl.col(column).list.first() == value)


def _empty(column: str) -> pl.Expr:
    return pl.col(column).list.len().fill_null(0) == 0


def with_subject_facts(
    relations: pl.DataFrame, unagreement: bool, pro_drop: bool = False
) -> pl.DataFrame:
    """§4's implicit third person and §4.2's subjects without features and unmarked cells, over
    relations (RELATIONS_MINED), for pairs only: the controller's values as pairs read them
    (`c_<feature>`: a relative pronoun's from its antecedent, a bare noun's Number from its
    determiner or adjective), `noun_like` (counts as Person 3 where it has no Person), the
    target's values (`t_<feature>`: an unmarked cell takes the controller's, named in
    `unmarked` as `Feature=Value` to be licensed per language, `licensed_cells`), the agreeing
    features then (`agreeing_eff`), `implicit`, `unagreeing` (`unagreement`: the language has
    it), `predicative` (`pro_drop`: the language drops subjects, and the noun controller of a
    copular clause could be the predicate) and what came from where (`from_antecedent`, `from_dependent`;
    `lent`: the features whose value the antecedent gave, `,`-joined; `borrowed`: a pronoun
    subject without FEATS takes the target's values, `Feature=Value`, to be licensed by its
    form's other tokens, `lexicon_licensed`)."""
    missing = [value.alias(name) for name, value in SUBJECT_FACTS.items()]
    frame = relations.with_columns(
        m for m in missing if m.meta.output_name() not in relations.columns
    )
    # Only a subject (subject-verb, predicative) can take §4.2's values: the other types'
    # rows (most of them in many languages) keep their own, without the rules' cost.
    subject = frame.select(pl.col("type").is_in(SUBJECT_TYPES)).to_series()
    if subject.all():
        return _decided_once(frame, unagreement, pro_drop)
    kept = frame.filter(~subject).with_columns(
        *(pl.col(f"controller_{name}").alias(f"c_{name}") for _, name in DERIVABLE),
        *(pl.col(f"target_{name}").alias(f"t_{name}") for _, name in DERIVABLE),
        pl.lit(False).alias("from_antecedent"),
        pl.lit(False).alias("from_dependent"),
        pl.lit(False).alias("relative"),
        pl.lit(False).alias("noun_like"),
        pl.lit(None, pl.String).alias("unmarked"),
        pl.lit(None, pl.String).alias("borrowed"),
        pl.lit(None, pl.String).alias("lent"),
        pl.col("agreeing").alias("agreeing_eff"),
        pl.lit(False).alias("implicit"),
        pl.lit(False).alias("unagreeing"),
        pl.lit(False).alias("predicative"),
    )
    if not subject.any():
        return kept
    # Attempts need no order (pairs and skips are sorted when written).
    subjects = _decided_once(frame.filter(subject), unagreement, pro_drop)
    return pl.concat([subjects, kept.select(subjects.columns)])


# What `_subject_facts` reads of a relation.
SUBJECT_READ = [
    "type", "agreeing", "controller_upos", "controller_feats", "controller_case",
    *(f"controller_{name}" for _, name in DERIVABLE), "controller_det_number",
    "controller_determined", "controller_nominal_predicate", "antecedent_upos",
    *(f"antecedent_{name}" for _, name in DERIVABLE), "target_upos", "target_feats",
    *(f"target_{name}" for _, name in DERIVABLE),
]  # fmt: skip


def _decided_once(subjects: pl.DataFrame, unagreement: bool, pro_drop: bool) -> pl.DataFrame:
    """`_subject_facts` of each distinct set of what it reads (a few hundred among thousands of
    subjects: its list steps cost per row), joined back to the subjects."""
    subjects = numbered(subjects, "_facts", SUBJECT_READ)
    distinct = subjects.filter(first_asking("_facts")).select("_facts", *SUBJECT_READ)
    decided = _subject_facts(distinct, unagreement, pro_drop).drop(SUBJECT_READ)
    return subjects.join(decided, on="_facts", how="left", maintain_order="left").drop("_facts")


def _subject_facts(relations: pl.DataFrame, unagreement: bool, pro_drop: bool) -> pl.DataFrame:
    """`with_subject_facts` over relations of the subject types."""
    # What FEATS strings tell, read once per distinct string (few), then joined.
    frame = _by_feats(
        relations.lazy(), "controller_feats", _third_person_pronoun=_third_person_pronoun()
    )
    frame = _by_feats(
        frame, "target_feats", _finite_form=_finite_form(), _tensed_form=_tensed_form()
    )
    subject = pl.col("type").is_in(SUBJECT_TYPES)
    upos = pl.col("controller_upos")
    relative = (
        subject
        & (upos == "PRON")
        & pl.col("antecedent_upos").is_not_null()
        & shown_subject(pro_drop)
    )
    from_antecedent = {
        name: relative & _empty(f"controller_{name}") & ~_empty(f"antecedent_{name}")
        for _, name in DERIVABLE
    }
    from_dependent = (
        subject & upos.is_in(NOUNS) & _empty("controller_number") & ~_empty("controller_det_number")
    )
    # A pronoun subject without any FEATS (a treebank that leaves them off: LinES's *it*) takes
    # the target's one value of each feature, to be licensed by its form's other tokens
    # (`borrowed`, `Feature=Value`; `lexicon_licensed`).
    bare = (
        (pl.col("type") == "subject-verb")
        & (upos == "PRON")
        & pl.col("controller_feats").fill_null("_").is_in(["", "_"])
    )
    # As for unmarked cells (`marked_cells`), a finite verb with neither Tense nor Mood has no
    # cell to speak of: its bad form's same FEATS could be another tense or mood (UD_French-ALTS:
    # *aucun seroit* → present *sont*), so it lends nothing.
    untensed = (
        pl.col("target_upos").is_in(["VERB", "AUX"])
        & pl.col("_finite_form")
        & ~pl.col("_tensed_form")
    )
    from_form = {
        name: bare & ~untensed & (pl.col(f"target_{name}").list.len() == 1) for _, name in DERIVABLE
    }
    frame = frame.with_columns(
        *(
            pl.when(from_antecedent[name])
            .then(pl.col(f"antecedent_{name}"))
            .when(from_dependent if name == "number" else pl.lit(False))
            .then(pl.col("controller_det_number"))
            .when(from_form[name])
            .then(pl.col(f"target_{name}"))
            .otherwise(pl.col(f"controller_{name}"))
            .alias(f"c_{name}")
            for _, name in DERIVABLE
        ),
        pl.any_horizontal(from_antecedent.values()).alias("from_antecedent"),
        from_dependent.alias("from_dependent"),
        relative.alias("relative"),
        pl.concat_str(
            [
                pl.when(from_form[name]).then(
                    pl.lit(f"{feature}=") + pl.col(f"target_{name}").list.first()
                )
                for feature, name in DERIVABLE
            ],
            separator=",",
            ignore_nulls=True,
        )
        .replace("", None)
        .alias("borrowed"),
    )
    # A value taken from elsewhere that the target's own contradicts: none is taken.
    clash = pl.any_horizontal(
        ~_empty(f"target_{name}") & ~_empty(f"c_{name}") & ~meets(f"c_{name}", f"target_{name}")
        for _, name in DERIVABLE
    )
    frame = frame.with_columns(clash.alias("clash")).with_columns(
        *(
            pl.when("clash")
            .then(pl.col(f"controller_{name}"))
            .otherwise(pl.col(f"c_{name}"))
            .alias(f"c_{name}")
            for _, name in DERIVABLE
        ),
        pl.col("from_antecedent") & ~pl.col("clash"),
        pl.col("from_dependent") & ~pl.col("clash"),
        pl.col("relative") & ~pl.col("clash"),
        # The features whose value came from the antecedent, `,`-joined (null: none), for the
        # measured decision whether the pronoun's verb agrees with it (`mine.lent`).
        pl.concat_str(
            [
                pl.when(from_antecedent[name] & ~pl.col("clash")).then(pl.lit(feature))
                for feature, name in DERIVABLE
            ],
            separator=",",
            ignore_nulls=True,
        )
        .replace("", None)
        .alias("lent"),
    )
    noun_like = (
        (pl.col("type") == "subject-verb")
        & _empty("c_person")
        & (
            upos.is_in(NOUNS)
            | ((upos == "PRON") & pl.col("_third_person_pronoun"))
            | (pl.col("relative") & pl.col("antecedent_upos").is_in(NOUNS))
        )
    )
    finite = (
        (pl.col("type") == "subject-verb")
        & pl.col("target_upos").is_in(["VERB", "AUX"])
        & pl.col("_finite_form")
    )
    frame = frame.with_columns(noun_like.alias("noun_like"), finite.alias("_finite"))
    # The controller's value of each feature as a cell takes it (a noun-like one's Person: 3).
    frame = frame.with_columns(
        pl.when("noun_like")
        .then(pl.concat_list(pl.lit("3")))
        .otherwise(pl.col("c_person"))
        .alias("_value_person"),
    )
    value = {"number": "c_number", "gender": "c_gender", "person": "_value_person"}
    # A controller in a case that does not trigger agreement gives no cell: a quantified
    # genitive takes the default 3sg (*15,5 milionů by šlo*), so do dative or ergative subjects.
    case = pl.col("controller_case")
    oblique = (case.list.len().fill_null(0) > 0) & ~case.list.contains("Nom").fill_null(False)
    frame = frame.with_columns(
        (
            pl.col("_finite")
            & ~oblique
            & _empty(f"target_{name}")
            & (pl.col(value[name]).list.len() == 1)
        ).alias(f"_unmarked_{name}")
        for _, name in DERIVABLE
    )
    frame = frame.with_columns(
        *(
            pl.when(f"_unmarked_{name}")
            .then(pl.col(value[name]))
            .otherwise(pl.col(f"target_{name}"))
            .alias(f"t_{name}")
            for _, name in DERIVABLE
        ),
        # `Feature=Value` of each cell taken, `,`-joined (null: none).
        pl.concat_str(
            [
                pl.when(f"_unmarked_{name}").then(
                    pl.lit(f"{feature}=") + pl.col(value[name]).list.first()
                )
                for feature, name in DERIVABLE
            ],
            separator=",",
            ignore_nulls=True,
        )
        .replace("", None)
        .alias("unmarked"),
    )
    # The agreeing features with §4.2's, in the relations' (alphabetical) order: one bit per
    # feature, its list looked up (lists built per row cost far more).
    agrees = {
        feature: pl.col("agreeing").list.contains(feature)
        | (~_empty(f"t_{name}") & ~_empty(f"c_{name}") & meets(f"t_{name}", f"c_{name}"))
        for feature, name in DERIVABLE
    }
    agrees["Case"] = pl.col("agreeing").list.contains("Case")
    code = sum(agrees[feature].cast(pl.UInt8) * (1 << bit) for bit, feature in enumerate(_SORTED))
    frame = frame.with_columns(_AGREEING_LISTS.gather(code).alias("agreeing_eff"))
    implicit = (
        pl.col("noun_like")
        & _only("t_person", "3")
        & ~pl.col("agreeing_eff").list.contains("Person")
    )
    # §4.2: unagreement is licit for a definite plural (*οι φοιτητές διαβάζουμε*; kept out of
    # the rule too: possessed, demonstrative, quantified or counted plurals) and, kept
    # out of the rule, for plural pronouns (*todos sabemos*, *los que trabajamos*); a bare
    # plural noun (*φοιτητές διαβάζουμε*) is not.
    licit = pl.col("controller_determined").fill_null(False) | (upos == "PRON")
    unagreeing = implicit & pl.lit(unagreement) & _only("t_number", "Plur") & licit
    # With a dropped first or second person subject, a copular clause's noun subject reads as
    # the predicate: *že bych toho roku byl výjimečný přestupný rok* ("that I would be an
    # exceptional leap year that year") is grammatical.
    predicative = (
        implicit & pl.lit(pro_drop) & pl.col("controller_nominal_predicate").fill_null(False)
    )
    return (
        frame.with_columns(
            implicit.alias("implicit"),
            unagreeing.alias("unagreeing"),
            predicative.alias("predicative"),
        )
        .drop(
            "clash",
            "_finite",
            "_value_person",
            "_third_person_pronoun",
            "_finite_form",
            "_tensed_form",
            *(f"_unmarked_{n}" for _, n in DERIVABLE),
        )
        # A file's relations are small: the streaming engine's batches and threads cost more.
        .collect(engine="in-memory")
    )


def subject_shown(nominative_only: Shown, caseless: Shown, pro_drop: bool) -> Shown:
    """Whether a relative pronoun's form shows it is the subject, so that it may take its
    antecedent's values (§4.2): its Case is the nominative alone, or it has no Case in a
    language that does not drop subjects. A caseless *que*/*che* where subjects drop reads as the
    object of a bad verb with a dropped subject of its person (*esa voz, que puedo explotar*);
    a partitive or accusative one (Finnish *joita*, Romanian *care* Acc,Nom) controls nothing.
    Over polars expressions (the pairs) or numpy masks (the miner's count, `mine.lent`)."""
    return nominative_only | (caseless & (not pro_drop))


def shown_subject(pro_drop: bool) -> pl.Expr:
    """`subject_shown` over relations (their controller's Case)."""
    return subject_shown(_only("controller_case", "Nom"), _empty("controller_case"), pro_drop)


def implicit_person() -> pl.Expr:
    """§4's implicit third person, over relations with `with_subject_facts`'s columns: a
    subject-verb relation whose noun-like controller has no Person and whose target has Person 3,
    where Person is not yet agreeing (for pairs only, the controller counts as Person 3)."""
    return pl.col("implicit")


def unagreeing() -> pl.Expr:
    """Where the implicit third person does not hold (`with_subject_facts`): a plural target in
    a language with unagreement whose definite plural subject may be first or second person."""
    return pl.col("unagreeing")


def person_agrees() -> pl.Expr:
    """Whether Person joins the features that a varied target's bad form must not meet (§4's A),
    over relations with `with_subject_facts`'s columns: where the controller's Person is
    implicitly 3, except under unagreement."""
    return implicit_person() & ~unagreeing()


def agreeing_key(with_person: pl.Expr, agreeing: str = "agreeing") -> pl.Expr:
    """The agreeing features (column `agreeing`) as a join key (sorted, `,`-joined), with Person
    where `with_person` holds: Person sorts after every other feature of F, so it goes last."""
    joined = pl.col(agreeing).list.join(",")
    person = pl.when(pl.col(agreeing).list.len() > 0).then(joined + ",Person")
    return pl.when(with_person).then(person.otherwise(pl.lit("Person"))).otherwise(joined)


def definite_determiner() -> pl.Expr:
    """Over relations: a determiner relation whose determiner is definite or demonstrative
    (German *der*, *dieser*: the adjectives of its noun take the weak endings)."""
    return (pl.col("type") == "determiner") & pl.col("target_feats").str.contains(
        r"(?:^|\|)(?:Definite=Def|PronType=Dem)(?:\||$)"
    )


# A bad form that could attach to another noun: attributive adjectives. Determiners were
# measured too broad (1 of 9 refused pairs judged invalid: *these sample questions*, the noun
# between a compound).
HOST_TYPES = ("attributive",)


def agrees_with_another_host(tries: pl.DataFrame) -> pl.Series:
    """§4.3 per try (a varied target's `type`, `feature`, `bad_value`, its values `k_number`,
    `k_gender`, `k_case`, and `between_feats`, the FEATS of the nouns between it and its
    controller): whether the bad form's bundle agrees with one of those nouns in the feature
    varied and meets it on every other feature both carry, so that it reads as that noun's
    (French *comptes d'épargne et d'investissement national*, Spanish *fuentes de energía
    basada*). Attributive targets only (HOST_TYPES): a predicative adjective does not attach to
    a noun inside its subject."""
    hosted = pl.col("type").is_in(HOST_TYPES) & (pl.col("varied") == "target")
    hosted = hosted & (pl.col("between_feats").list.len() > 0)
    host_features = ("Number", "Gender", "Case")
    asked = (
        tries.with_row_index("_t")
        .filter(hosted)
        .select(
            "_t",
            "feature",
            *(
                pl.when(pl.col("feature") == name)
                .then(pl.col("bad_value"))
                .otherwise(pl.col(f"k_{name.lower()}"))
                .fill_null("")
                .alias(f"_bad_{name}")
                for name in host_features
            ),
            pl.col("between_feats").alias("host"),
        )
        .explode("host")
        .with_columns(
            pl.col("host")
            .str.extract(rf"(?:^|\|){name}=([^|]+)", 1)
            .fill_null("")
            .alias(f"_host_{name}")
            for name in host_features
        )
    )
    if asked.height == 0:
        return pl.Series([False] * tries.height, dtype=pl.Boolean)
    varied: pl.Expr = pl.lit(False)
    others: pl.Expr = pl.lit(True)
    for name in host_features:
        host, bad = value_list(f"_host_{name}"), value_list(f"_bad_{name}")
        meet = host.list.set_intersection(bad).list.len() > 0
        varied = pl.when(pl.col("feature") == name).then(meet).otherwise(varied)
        others = others & (meet | (host.list.len() == 0) | (bad.list.len() == 0))
    agreeing = asked.filter(varied & others).get_column("_t")
    return tries.select(
        pl.int_range(pl.len(), dtype=pl.UInt32).is_in(agreeing.implode())
    ).to_series()


def breaks_apocope(apocope: dict[str, str]) -> pl.Expr:
    """Over attempts with a bad form (`bad_key`) and the relation's `order`: a short form that
    would not stand before its noun (Spanish *relación algún*, *es buen*), or a full form that
    would (*alguno libro*): the bad sentence breaks the surface, not the agreement."""
    before_noun = pl.col("order") == "target-first"
    short = pl.col("bad_key").is_in(list(apocope))
    full = pl.col("bad_key").is_in(sorted(set(apocope.values())))
    return ((short & ~before_noun) | (full & before_noun)).fill_null(False)


def declension_of_determiner() -> pl.Expr:
    """Over determiner relations: the declension their noun's adjectives take (German): weak
    after a definite, demonstrative, interrogative or total determiner (*der*, *dieser*,
    *welcher*, *jeder*), mixed after an indefinite, negative or possessive one (*ein*, *kein*,
    *mein*); null after others (*viele*, a numeral: not decided here)."""
    feats = pl.col("target_feats").fill_null("")
    weak = feats.str.contains(r"(?:^|\|)(?:Definite=Def|PronType=(?:Dem|Int|Tot))(?:\||$)")
    mixed = feats.str.contains(r"(?:^|\|)(?:Definite=Ind|Poss=Yes|PronType=Neg)(?:\||$)")
    return pl.when(weak).then(pl.lit("weak")).when(mixed).then(pl.lit("mixed"))


def changes_prefix(prefixes: dict[str, tuple[str, ...]]) -> pl.Expr:
    """Whether the bad form (`bad_key`) begins with another of the UPOS's aspect `prefixes`
    than the word (`form`), or with one where the word has none, or none where it has one
    (Persian *mi-kardand* → *kardim* loses the imperfective: UD_Persian-Seraji tags both
    Tense=Past, so the same-FEATS rule cannot tell)."""

    def prefix_of(form: pl.Expr, listed: tuple[str, ...]) -> pl.Expr:
        # The longest first: *nemi-* is not read as *n* + *mi-*.
        found: pl.Expr = pl.lit("")
        for prefix in sorted(listed, key=len):
            found = pl.when(form.str.starts_with(prefix)).then(pl.lit(prefix)).otherwise(found)
        return found

    changed: pl.Expr = pl.lit(False)
    for upos, listed in prefixes.items():
        differs = prefix_of(pl.col("form").str.to_lowercase(), listed) != prefix_of(
            pl.col("bad_key"), listed
        )
        changed = pl.when(pl.col("upos") == upos).then(differs).otherwise(changed)
    return changed


def changes_declension(endings: Endings) -> pl.Expr:
    """Over attempts with a bad form (`bad_key`): an attributive word whose bad form has an
    ending its context does not allow (§4.1: *den neuen* → *neuer* changes the declension, not
    the Number; `definite`: its noun has a definite or demonstrative determiner; contexts
    `definite-plural`, `definite`, `any`, each falling back on the next)."""
    wrong = pl.lit(False)
    # The bad form's own Number: the bad value where Number is varied.
    number = pl.when(pl.col("feature") == "Number").then(pl.col("bad_value"))
    plural = number.otherwise(pl.col("k_number")) == "Plur"
    for upos, by_context in endings.items():
        allowed = {
            context: pl.any_horizontal(pl.col("bad_key").str.ends_with(e) for e in listed)
            for context, listed in by_context.items()
        }
        anywhere = allowed.get("any", pl.lit(True))
        definite = allowed.get("definite", anywhere)
        fits = (
            pl.when(pl.col("definite") & plural)
            .then(allowed.get("definite-plural", definite))
            .when(pl.col("definite"))
            .then(definite)
            .otherwise(anywhere)
        )
        here = (pl.col("type") == "attributive") & (pl.col("upos") == upos)
        wrong = wrong | (here & ~fits)
    return wrong


ADJECTIVE_ENDINGS = ("em", "en", "er", "es", "e")  # German's, longest first


def changes_declension_class(declension: Declension) -> pl.Expr:
    """§4.3 over attempts with a bad form (`bad_key`) of an attributive adjective whose noun's
    determiner decides its declension (`declension`: weak, mixed, strong; null: not known):
    whether the bad form does not end as the declension's table has the bad cell end (*eines
    japanischen* → Nom *japanische*: mixed Nom Neut Sg is *-es*), so that it changes the
    declension, not the feature."""
    table = {"|".join(cell): ending for cell, ending in declension.items()}

    def bad_cell(feature: str) -> pl.Expr:
        varied = pl.when(pl.col("feature") == feature).then(pl.col("bad_value"))
        return varied.otherwise(pl.col(f"k_{feature.lower()}"))

    number = bad_cell("Number")
    gender = pl.when(number == "Plur").then(pl.lit("_")).otherwise(bad_cell("Gender"))
    case = bad_cell("Case")
    key = pl.concat_str([pl.col("declension"), number, gender, case], separator="|")
    wanted = key.replace_strict(table, default=None, return_dtype=pl.String)
    ending: pl.Expr = pl.lit("")
    for suffix in ADJECTIVE_ENDINGS[::-1]:  # the longest last, so that it wins
        found = pl.col("bad_key").str.ends_with(suffix)
        ending = pl.when(found).then(pl.lit(suffix)).otherwise(ending)
    here = (pl.col("type") == "attributive") & (pl.col("upos") == "ADJ")
    return (here & wanted.is_not_null() & (wanted != ending)).fill_null(False)


def licensed_cells(
    attempts: pl.DataFrame, marked: pl.DataFrame, bundles: pl.DataFrame
) -> pl.Series:
    """§4.2 per attempt (`unmarked`: `Feature=Value` of the target's unmarked cells; the
    target's values as taken, `k_<feature>`), the features whose cell is not licensed: the
    language does not mark the feature on finite verbs of the target's Tense and Mood (`marked`,
    `marked_cells`), or the target's form is attested (§4.1, with its own other FEATS) with a
    value of it other than the controller's; and every taken one where the cell as a whole is
    none its form fills (*are* is 3pl, 2sg, 1pl, never 3sg: *the range are* takes nothing)."""
    asked = (
        attempts.select(
            pl.int_range(pl.len()).alias("_a"), "key", "lemma", "upos", "feats", "unmarked"
        )
        .filter(pl.col("unmarked").list.len() > 0)
        .explode("unmarked")
        .with_columns(
            pl.col("unmarked").str.split_exact("=", 1).struct.rename_fields(["cell", "value"])
        )
        .unnest("unmarked")
        .with_columns(
            *(
                pl.col("feats")
                .fill_null("")
                .str.extract(rf"(?:^|\|){name}=([^|]+)", 1)
                .fill_null("_")
                .alias(name.lower())
                for name in ("Tense", "Mood")
            )
        )
    )
    rated = asked.join(
        marked.rename({"feature": "cell"}).with_columns(pl.lit(True).alias("marked")),
        on=["tense", "mood", "cell"],
        how="left",
    )
    carried = pl.coalesce(
        pl.when(pl.col("cell") == feature).then(pl.col(f"b_{name}")) for feature, name in DERIVABLE
    )
    own_feats = pl.col("b_feats").is_null() | (pl.col("b_feats") == pl.col("feats"))
    # Only a cell its language marks is looked up among the form's bundles.
    contradicted = (
        rated.filter(pl.col("marked").fill_null(False))
        .join(
            bundles,
            left_on=["key", "lemma", "upos"],
            right_on=["form_key", "lemma", "upos"],
            how="inner",
        )
        .filter(pl.col("b_attested") & own_feats)
        .with_columns(carried.alias("carried"))
        .group_by("_a", "cell")
        .agg(
            (
                (pl.col("carried").list.len() > 0).any()
                & ~pl.col("carried").list.contains(pl.col("value")).any()
            ).alias("contradicted")
        )
    )
    refused = (
        rated.join(contradicted, on=["_a", "cell"], how="left")
        .filter(~pl.col("marked").fill_null(False) | pl.col("contradicted").fill_null(False))
        .group_by("_a")
        .agg(pl.col("cell").alias("refused"))
    )
    # The whole cell: where rows of the form carry its features, one must hold all its values.
    unfilled = _unfilled_cells(attempts, rated, refused, bundles)
    refused = (
        pl.concat([refused.explode("refused"), unfilled])
        .unique()
        .group_by("_a")
        .agg(pl.col("refused"))
    )
    return (
        pl.DataFrame({"_a": pl.int_range(attempts.height, eager=True)})
        .join(refused, on="_a", how="left")
        .select(pl.col("refused").fill_null(pl.lit([], pl.List(pl.String))))
        .to_series()
    )


def _unfilled_cells(
    attempts: pl.DataFrame, rated: pl.DataFrame, refused: pl.DataFrame, bundles: pl.DataFrame
) -> pl.DataFrame:
    """Per attempt (`_a`) whose cell (its own values and the taken ones still licensed, `k_`) no
    attested row of its form with its own other FEATS fills, a row per taken feature (`refused`):
    the rows that carry any of the cell's features are the evidence, and one must hold each
    value it carries (a form without such rows is not judged)."""
    kept = (
        rated.filter(pl.col("marked").fill_null(False))
        .join(
            refused.explode("refused"),
            left_on=["_a", "cell"],
            right_on=["_a", "refused"],
            how="anti",
        )
        .group_by("_a")
        .agg(pl.col("cell").alias("taken"))
    )
    cells = attempts.select(
        pl.int_range(pl.len()).alias("_a"),
        "key",
        "lemma",
        "upos",
        "feats",
        pl.col("unmarked").list.eval(pl.element().str.split("=").list.first()).alias("cells"),
        *(value_list(f"k_{name}").alias(f"c_{name}") for _, name in DERIVABLE),
    ).join(kept, on="_a", how="inner")
    # A taken feature refused already leaves the cell: it is the target's own (empty) value.
    value = {
        name: pl.when(
            pl.col("cells").list.contains(feature) & ~pl.col("taken").list.contains(feature)
        )
        .then(pl.lit([], pl.List(pl.String)))
        .otherwise(pl.col(f"c_{name}"))
        for feature, name in DERIVABLE
    }
    cells = cells.with_columns(value[name].alias(f"c_{name}") for _, name in DERIVABLE)
    concerned = {name: pl.col(f"c_{name}").list.len() > 0 for _, name in DERIVABLE}
    carries = pl.any_horizontal(
        concerned[name] & (pl.col(f"b_{name}").list.len() > 0) for _, name in DERIVABLE
    )
    fits = pl.all_horizontal(
        ~concerned[name] | (pl.col(f"b_{name}").list.len() == 0) | meets(f"b_{name}", f"c_{name}")
        for _, name in DERIVABLE
    )
    own_feats = pl.col("b_feats").is_null() | (pl.col("b_feats") == pl.col("feats"))
    unfilled = (
        cells.join(
            bundles,
            left_on=["key", "lemma", "upos"],
            right_on=["form_key", "lemma", "upos"],
            how="inner",
        )
        .filter(pl.col("b_attested") & own_feats & carries)
        .group_by("_a")
        .agg(fits.any().alias("filled"), pl.col("taken").first())
        .filter(~pl.col("filled"))
    )
    return unfilled.select("_a", pl.col("taken").alias("refused")).explode("refused")


def lexicon_licensed(questions: pl.DataFrame, bundles: pl.DataFrame) -> pl.Series:
    """§4.2 per question (`o_key`, `o_lemma`, `o_upos` of a pronoun subject without FEATS, and
    `borrowed`: the list of `Feature=Value` it took from its verb), the features refused: those
    its form's attested rows (§4.1, any treebank) do not all give that one value (*it* is
    Number=Sing and Person=3 wherever it is annotated; *you* has no one Number); rows without
    any FEATS are not read."""
    asked = (
        questions.select(
            pl.int_range(pl.len()).alias("_q"), "o_key", "o_lemma", "o_upos", "borrowed"
        )
        .explode("borrowed")
        .with_columns(
            pl.col("borrowed").str.split_exact("=", 1).struct.rename_fields(["cell", "value"])
        )
        .unnest("borrowed")
    )
    carried = pl.coalesce(
        pl.when(pl.col("cell") == feature).then(pl.col(f"b_{name}")) for feature, name in DERIVABLE
    )
    # Rows without any feature are the gap itself (the bare tokens), not evidence.
    annotated = pl.col("b_attested") & (
        pl.any_horizontal(pl.col(f"b_{name}").list.len() > 0 for name in LIST_COLUMNS)
        | (pl.col("b_feats").fill_null("") != "")
    )
    rows = (
        asked.join(
            bundles.filter(annotated),
            left_on=["o_key", "o_lemma", "o_upos"],
            right_on=["form_key", "lemma", "upos"],
            how="left",
        )
        .with_columns(carried.alias("carried"))
        .group_by("_q", "cell")
        .agg(
            (
                pl.col("carried").is_not_null().all()
                & (pl.col("carried").list.len() == 1).all()
                & (pl.col("carried").list.first() == pl.col("value").first()).all()
            ).alias("licensed")
        )
    )
    refused = rows.filter(~pl.col("licensed")).group_by("_q").agg(pl.col("cell").alias("refused"))
    return (
        pl.DataFrame({"_q": pl.int_range(questions.height, eager=True)})
        .join(refused, on="_q", how="left")
        .select(pl.col("refused").fill_null(pl.lit([], pl.List(pl.String))))
        .to_series()
    )


def relation_skip_reason() -> pl.Expr:
    """The first reason of §4 about the varied word or its relation (null: go on), in order."""
    return (
        pl.when(pl.col("unagreeing"))
        .then(pl.lit("unagreement"))  # *los estudiantes trabajamos* is grammatical
        .when(pl.col("predicative"))
        .then(pl.lit("predicate-nominal"))  # *(já) bych byl rok*: the noun is the predicate
        .when(pl.col("values").list.len() > 1)
        .then(pl.lit("multi-valued"))
        .when(pl.col("lemma").is_in(["", "_"]) | pl.col("lemma").is_null())
        .then(pl.lit("no-lemma"))
        .when(pl.col("in_mwt"))
        .then(pl.lit("in-mwt"))  # re-contracting *du* is language-specific
        .when(pl.col("coordinated"))
        .then(pl.lit("coordinated"))  # the verb may agree with the whole coordination
        .when(elided(pl.col("form")))
        # *l'* depends on the next word's sound, *'m* on the word before: not on agreement.
        .then(pl.lit("elision"))
        .when(pl.col("duplicate"))
        .then(pl.lit("duplicate-sent-id"))  # a join on the sentence would be ambiguous
        .when(pl.col("sentence").is_null())
        .then(pl.lit("missing-sentence"))
    )


VOWELS = "aeiouyàâäéèêëíìîïóòôöúùûüœæh"


def breaks_elision() -> pl.Expr:
    """The word before is elided onto this one (*s'est*) and the bad form does not begin with a
    sound that allows it (*s'sont*), or the word is a later part of a transparent multiword
    token (`bound`) and the bad form begins with another letter (Greek *στη* = *σ* + *τη* would
    become *ση*): the pair would break the spelling around the word, not agreement."""
    first = lambda form: form.str.slice(0, 1).str.to_lowercase()  # noqa: E731
    vowel = lambda form: first(form).is_in(list(VOWELS))  # noqa: E731
    form, bad = pl.col("form"), pl.col("bad_form")
    elided = pl.col("after_elided") & (vowel(form) != vowel(bad))
    return elided | (pl.col("bound") & (first(form) != first(bad)))


# The FEATS a pair holds fixed that a treebank's convention may merge (§4.1, language-wide).
HELD_FIXED = ("Aspect", "Mood", "Polarity", "Tense", "VerbForm", "Voice")


def contested_forms(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.Series:
    """§4.1 nothing else changes, language-wide: per question (the good form `key`, `bad_key`,
    `lemma`, `upos`, its other FEATS `feats`, the good form's cell `k_<feature>` and the bad
    one's `cell_<feature>`), whether another treebank contradicts a HELD_FIXED value the pair
    holds fixed: it gives the bad form in its cell other values of the feature than the word's,
    and the good form in its cell only values that the bad form has in no treebank (attested
    rows, §4.1). UD_Spanish-PUD tags imperfect *había* and perfect *he* both Tense=Past; GSD
    gives *he* Pres and *había* Imp, which *he* never is: *había* → *he* changes the tense."""
    pattern = rf"(?:^|\|)(?:{'|'.join(HELD_FIXED)})=[^|]+"
    cells = [f"s_{name}" for name in LIST_COLUMNS]
    seen = (
        frames.lexicon.filter(pl.col("attested") & pl.col("feats").is_not_null())
        .select(
            pl.col("form").str.to_lowercase().alias("form_key"),
            "lemma",
            "upos",
            *(set_key(pl.col(name)).alias(f"s_{name}") for name in LIST_COLUMNS),
            pl.col("feats").str.extract_all(pattern).alias("held"),
            pl.col("treebanks").alias("tb"),
        )
        .explode("held")
        .drop_nulls("held")
        .select(
            pl.exclude("held"),
            pl.col("held").str.strip_chars_start("|").str.split("=").list.first().alias("g"),
            pl.col("held").str.strip_chars_start("|").alias("v"),
        )
    )
    asked = questions.select(
        pl.int_range(pl.len()).alias("_q"),
        pl.col("feats").fill_null("").str.extract_all(pattern).alias("own"),
        "key",
        "bad_key",
        "lemma",
        "upos",
        *(
            pl.col(f"k_{n}").str.strip_chars_start(",").fill_null("").alias(f"g_{n}")
            for n in LIST_COLUMNS
        ),
        *(pl.col(f"cell_{n}").alias(f"b_{n}") for n in LIST_COLUMNS),
    )

    def values_of(form: str, cell: str) -> pl.DataFrame:
        return asked.join(
            seen,
            left_on=[form, "lemma", "upos", *(f"{cell}_{n}" for n in LIST_COLUMNS)],
            right_on=["form_key", "lemma", "upos", *cells],
        ).select("_q", "tb", "g", "v")

    good = values_of("key", "g").explode("tb").drop_nulls("tb").unique()
    bad_anywhere = values_of("bad_key", "b")
    bad = bad_anywhere.explode("tb").drop_nulls("tb").select("_q", "tb", "g").unique()
    # A treebank that gives both forms a value of g, and the good form none that the bad form
    # holds anywhere.
    shared = good.join(bad_anywhere.select("_q", "v").unique(), on=["_q", "v"])
    # The word's own value, where a treebank's bad form has it too, is not contradicted there.
    own = asked.select("_q", pl.col("own").alias("v")).explode("v").drop_nulls("v")
    own = own.with_columns(pl.col("v").str.strip_chars_start("|"))
    kept = bad_anywhere.explode("tb").drop_nulls("tb").join(own, on=["_q", "v"])
    contested = (
        good.join(bad, on=["_q", "tb", "g"])
        .join(kept.select("_q", "tb", "g").unique(), on=["_q", "tb", "g"], how="anti")
        .select("_q", "tb", "g")
        .unique()
        .join(shared.select("_q", "tb", "g").unique(), on=["_q", "tb", "g"], how="anti")
        .select("_q")
        .unique()
    )
    return asked.select(pl.col("_q").is_in(contested.get_column("_q").implode())).to_series()


def changes_layered(tries: pl.DataFrame, layered: pl.DataFrame) -> pl.Series:
    """Per try (the word `key`, its `bad_key`, `lemma`, `upos`, the word's own `feats`) whose word
    has no layered features of its own (its treebank leaves them out; where it has them, the
    same-FEATS rule reads them): whether the two forms' layered features as the treebanks give
    them (`layered_features`) have disjoint values in a feature both have: the bad form changes
    the possessor too (*mes* → *son*, *leur* → *ses*)."""
    asked = tries.select(
        pl.int_range(pl.len()).alias("_t"),
        "key",
        "bad_key",
        "lemma",
        "upos",
        pl.col("feats").fill_null("").str.contains("[", literal=True).alias("own_layers"),
    )
    own = asked.filter(~pl.col("own_layers")).join(layered, on=["key", "lemma", "upos"])
    bad = asked.select("_t", pl.col("bad_key").alias("key"), "lemma", "upos").join(
        layered, on=["key", "lemma", "upos"]
    )
    values = [pl.col(c).str.extract(r"=(.*)$", 1).str.split(",") for c in ("item", "item_bad")]
    differ = own.join(bad.select("_t", "name", "item"), on=["_t", "name"], suffix="_bad").filter(
        values[0].list.set_intersection(values[1]).list.len() == 0
    )
    return asked.select(pl.col("_t").is_in(differ.get_column("_t").implode())).to_series()


# The FEATS that say which reading of a form a token is (its tense and mood).
READING = ("Mood", "Tense")


def unattested_readings(questions: pl.DataFrame, frames: ParadigmFrames) -> pl.Series:
    """§4.1 attestation of the word itself: per question (the word `key`, `lemma`, `upos`, its
    other FEATS `feats`), whether a READING value of its holds less than ATTESTED_SHARE of the
    tokens of its (form lower-cased, lemma, upos) that carry the feature: a tagging error whose
    bad form would change the reading too (upper-case *LA FOTO ES* tagged Tense=Past, one of
    72 *es* of *ser*, gave past *FUI*)."""
    pattern = rf"(?:^|\|)(?:{'|'.join(READING)})=[^|]+"
    # Shares within one VerbForm: French finite *fait* is not judged among participles.
    verb_form = pl.col("feats").fill_null("").str.extract(r"(?:^|\|)VerbForm=([^|]+)", 1)
    word = ["form_key", "lemma", "upos", "verb_form"]
    seen = (
        frames.lexicon.filter(pl.col("count").fill_null(0) > 0)
        .select(
            pl.col("form").str.to_lowercase().alias("form_key"),
            "lemma",
            "upos",
            verb_form.fill_null("").alias("verb_form"),
            "count",
            pl.col("feats").fill_null("").str.extract_all(pattern).alias("v"),
        )
        .explode("v")
        .drop_nulls("v")
        .with_columns(pl.col("v").str.strip_chars_start("|"))
        .with_columns(pl.col("v").str.split("=").list.first().alias("g"))
    )
    shares = (
        seen.group_by(*word, "g", "v")
        .agg(pl.col("count").sum().alias("held"))
        .with_columns(pl.col("held").sum().over(*word, "g").alias("carried"))
    )
    # Judged once per distinct word (they recur), then looked up per question.
    own = questions.select(
        pl.col("key").alias("form_key"), "lemma", "upos", pl.col("feats").fill_null("")
    ).with_columns(verb_form.fill_null("").alias("verb_form"))
    distinct = own.unique().with_row_index("_w")
    asked = (
        distinct.with_columns(pl.col("feats").str.extract_all(pattern).alias("v"))
        .explode("v")
        .drop_nulls("v")
        .with_columns(pl.col("v").str.strip_chars_start("|"))
        .with_columns(pl.col("v").str.split("=").list.first().alias("g"))
    )
    carried = shares.select(*word, "g", "carried").unique()
    judged = asked.join(carried, on=[*word, "g"]).join(
        shares.select(*word, "v", "held"), on=[*word, "v"], how="left"
    )
    rare = judged.filter(pl.col("held").fill_null(0) < ATTESTED_SHARE * pl.col("carried"))
    flagged = distinct.select(
        pl.exclude("_w"), pl.col("_w").is_in(rare.get_column("_w").unique().implode()).alias("m")
    )
    return own.join(
        flagged, on=[*word, "feats"], how="left", nulls_equal=True, maintain_order="left"
    ).get_column("m")
