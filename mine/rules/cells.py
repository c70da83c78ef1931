"""Other cells of the paradigm (§4.2, §4.3): unmarked cells licensed, another Tense or Mood that
agrees, layered and contested features, unattested readings."""

from __future__ import annotations

import polars as pl

from ud_agree.schemas.corpus import FEATURES

from ..paradigms import (
    ATTESTED_SHARE,
    LIST_COLUMNS,
    ParadigmFrames,
    cell_key,
    cell_key_of_joined,
)
from .features import meets, value_list
from .subjects import DERIVABLE


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
            *(cell_key(pl.col(name)).alias(f"s_{name}") for name in LIST_COLUMNS),
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
        *(cell_key_of_joined(pl.col(f"k_{n}")).alias(f"g_{n}") for n in LIST_COLUMNS),
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
    )
    # The VerbForm is the FEATS': read once per distinct word, and not a key to join back on.
    distinct = own.unique().with_columns(verb_form.fill_null("").alias("verb_form"))
    distinct = distinct.with_row_index("_w")
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
        flagged,
        on=["form_key", "lemma", "upos", "feats"],
        how="left",
        nulls_equal=True,
        maintain_order="left",
    ).get_column("m")
