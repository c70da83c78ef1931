"""Subjects (§4.2): subjects without features, unmarked cells, implicit third person, unagreement
and dropped subjects, as columns over relations."""

from __future__ import annotations

import polars as pl

from ud_agree.schemas.corpus import FEATURES

from ..questions import first_asking, numbered
from .features import Shown, meets

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
    frame = _agreement_then(_cells_taken(_values_taken(frame, pro_drop)), unagreement, pro_drop)
    return (
        frame.drop(
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


def _values_taken(frame: pl.LazyFrame, pro_drop: bool) -> pl.LazyFrame:
    """The controller's values as pairs read them (`c_<feature>`): a relative pronoun's from
    its antecedent, a bare noun's Number from its dependents, a pronoun without FEATS the
    target's; none where the target's own contradicts them."""
    upos = pl.col("controller_upos")
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
    return _without_clash(frame, from_antecedent)


def _without_clash(frame: pl.LazyFrame, from_antecedent: dict[str, pl.Expr]) -> pl.LazyFrame:
    """No value taken where the target's own contradicts it; `lent`: the features whose value
    the antecedent gave."""
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
    return frame


def _cells_taken(frame: pl.LazyFrame) -> pl.LazyFrame:
    """`noun_like`, and the target's values (`t_<feature>`): an unmarked cell of a finite verb
    takes the controller's (`unmarked`)."""
    upos = pl.col("controller_upos")
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
    return frame


def _agreement_then(frame: pl.LazyFrame, unagreement: bool, pro_drop: bool) -> pl.LazyFrame:
    """The agreeing features with §4.2's (`agreeing_eff`), and whether the relation is
    `implicit`, `unagreeing` or `predicative`."""
    upos = pl.col("controller_upos")
    # The agreeing features with §4.2's, in the relations' (alphabetical) order: one bit per
    # feature, its list looked up (lists built per row cost far more).
    agrees = {
        feature: pl.col("agreeing").list.contains(feature)
        | (~_empty(f"t_{name}") & ~_empty(f"c_{name}") & meets(f"t_{name}", f"c_{name}"))
        for feature, name in DERIVABLE
    }
    agrees["Case"] = pl.col("agreeing").list.contains("Case")
    agrees["Definite"] = pl.col("agreeing").list.contains("Definite")
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
    return frame.with_columns(
        implicit.alias("implicit"),
        unagreeing.alias("unagreeing"),
        predicative.alias("predicative"),
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
