"""Attempts (§4): per kept relation and varied member, the row the pair rules decide: both members
as the rules read them (§4.2's derived values included), the relation's configuration, and the
sentence's surface around the varied word."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ud_agree.schemas.corpus import ROLES

from .features import layer_view, parse_feats
from .languages import definite_in_f
from .lexicon import other_feats
from .paradigms import APOSTROPHES, LIST_COLUMNS
from .questions import joined
from .rules.certainty import BACKED_OFF, CONFIGURATION, UNMEASURED
from .rules.declension import declension_of_determiner
from .rules.features import of_feature
from .rules.subjects import agreeing_key, definite_determiner, person_agrees, with_subject_facts
from .rules.words import NO_VALUE

VARY_CHOICES = {"target": ("target",), "controller": ("controller",), "both": ROLES[::-1]}


def attempts_of(
    relations: pl.DataFrame,
    sentences: SentenceFacts,
    vary: str,
    unagreement: bool,
    pro_drop: bool = False,
) -> pl.DataFrame:
    """One row per (relation, varied role, agreeing feature), with what the rules read; a varied
    target of an implicit third person (`implicit_person`) has Person among its features."""
    sentence = _sentence_key(relations.columns)
    if "target_layer" not in relations.columns:  # a table written without §1.7's layers
        relations = relations.with_columns(pl.lit(None, pl.String).alias("target_layer"))
    relations = relations.with_row_index("rel").join(sentences.keys, on=sentence, how="left")
    relations = _with_declension(relations, sentence)
    # §4's implicit third person and §4.2's subjects without features and unmarked cells,
    # computed once per file (`implicit`, `unagreeing`, `agreeing_eff`, the `c_`/`t_` values).
    relations = with_subject_facts(relations, unagreement, pro_drop).rechunk()
    configured = configuration(relations).get_columns()
    frame = pl.concat(
        _role_rows(relations, role, rank, configured)
        for rank, role in enumerate(VARY_CHOICES[vary])
    )
    # The implicit Person is one more feature tried. Attempts need no order: pairs and skips
    # are sorted by relation, role, feature and bad value when written.
    person = frame.filter(pl.col("implicit")).with_columns(pl.lit("Person").alias("feature"))
    frame = pl.concat([frame.explode("feature").filter(pl.col("feature").is_not_null()), person])
    return _placed(weak_form_cells(frame), sentences)


def weak_form_cells(frame: pl.DataFrame) -> pl.DataFrame:
    """§1.7: a weak (definite) adjective marks no Number or Gender where its strong forms do
    (Swedish *stora*, Bokmål *store*), so a target varying Definite takes its controller's
    Number, and Gender unless plural (the strong plural has none), for the cell of its bad form:
    *det stora huset* → *det stort huset* (`weak_form`, derived `unmarked-cell`)."""
    definite = (pl.col("feature") == "Definite") & (pl.col("varied") == "target")
    number = (
        pl.when(definite & (pl.col("number").list.len() == 0))
        .then(pl.col("o_number"))
        .otherwise(pl.col("number"))
    )
    plural = number.list.contains("Plur").fill_null(False)
    gender = (
        pl.when(definite & (pl.col("gender").list.len() == 0) & ~plural)
        .then(pl.col("o_gender"))
        .otherwise(pl.col("gender"))
    )
    return frame.with_columns(
        number.alias("number"),
        gender.alias("gender"),
        (
            definite
            & (
                ((pl.col("number").list.len() == 0) & (pl.col("o_number").list.len() > 0))
                | ((pl.col("gender").list.len() == 0) & (gender.list.len() > 0))
            )
        )
        .fill_null(False)
        .alias("weak_form"),
    )


def _with_declension(relations: pl.DataFrame, sentence: list[str]) -> pl.DataFrame:
    """Each relation with whether its controller is `determined` (has a definite or
    demonstrative determiner) and the `declension` its determiners give its adjectives."""
    # §4.1: a noun with a definite or demonstrative determiner takes weak adjectives (German);
    # §4.3: the declension a noun's determiners give its adjectives (weak before mixed), strong
    # where it has none. Both from one pass over the determiner relations.
    keys = [*sentence, "controller_id"]
    declension = declension_of_determiner()
    determined = (
        relations.filter(pl.col("type") == "determiner")
        .group_by(keys)
        .agg(
            definite_determiner().any().alias("determined"),
            pl.when((declension == "weak").any())
            .then(pl.lit("weak"))
            .when((declension == "mixed").any())
            .then(pl.lit("mixed"))
            .alias("declension"),
        )
    )
    relations = relations.join(determined, on=keys, how="left").with_columns(
        pl.col("determined").fill_null(False),
        pl.when(pl.col("determined").is_null())
        .then(pl.lit("strong"))
        .otherwise(pl.col("declension"))
        .alias("declension"),
    )
    return relations


def _role_rows(
    relations: pl.DataFrame, role: str, rank: int, configured: list[pl.Series]
) -> pl.DataFrame:
    """The attempts of one varied role, a row per relation (its agreeing features a list)."""
    other = "target" if role == "controller" else "controller"
    # The features tried, and those a bad form must not meet (§4's A): with the implicit
    # Person where the target is varied (the controller's Person is implicit), except
    # where unagreement makes it no agreement (tried, to be skipped as `unagreement`).
    target = role == "target"
    return relations.select(
        "rel",
        *("lang", "treebank", "sent_id", "type", "target_id", "controller_id"),
        pl.lit(role).alias("varied"),
        pl.lit(rank).alias("role_rank"),
        pl.col(f"{role}_form").alias("form"),
        pl.col(f"{role}_lemma").alias("lemma"),
        layered_upos(role).alias("upos"),
        # §1.7: a varied target of a layered type reads its FEATS as that layer's view.
        (pl.col("target_layer") if target else pl.lit(None, pl.String)).alias("layer"),
        # A varied target reads its values and the controller's as §4.2 gives them.
        *(pl.col(_as_read(role, name)).alias(name) for name in LIST_COLUMNS),
        pl.col(f"{role}_feats").fill_null("").alias("raw_feats"),
        (pl.col("first_word") + pl.col(f"{role}_surface")).alias("word"),
        pl.col(f"in_mwt_{role}").alias("in_mwt"),
        pl.col(f"{role}_mwt_offset").alias("mwt_offset"),
        pl.col(f"{other}_form").str.to_lowercase().alias("o_key"),
        pl.col(f"{other}_lemma").alias("o_lemma"),
        layered_upos(other).alias("o_upos"),
        *(pl.col(_as_read(other, name, role)).alias(f"o_{name}") for name in LIST_COLUMNS),
        pl.col("coordinated").fill_null(False),
        pl.col("duplicate").fill_null(False),
        "sentence",
        "determined",
        "declension",
        (pl.col("between_feats") if target else pl.lit(None, pl.List(pl.String))).alias(
            "between_feats"
        ),
        (pl.col("target_context") if target else pl.lit(None, pl.String)).alias("target_context"),
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


def layered_upos(member: str) -> pl.Expr:
    """A member's UPOS as the paradigms index it: a §1.7 layered target's with its layer
    (`AUX[abs]`: `ParadigmFrames` holds that layer's view of its lemma's forms)."""
    upos = pl.col(f"{member}_upos")
    if member != "target":
        return upos
    layer = pl.col("target_layer")
    return pl.when(layer.is_null()).then(upos).otherwise(upos + "[" + layer + "]")


def _placed(frame: pl.DataFrame, sentences: SentenceFacts) -> pl.DataFrame:
    """The attempts' columns (ATTEMPT_COLUMNS and what the rules read), each word placed in
    its sentence's text."""
    # A word's other FEATS, as its layer's view where a layered type varies it (§1.7).
    keyed = pl.concat_str(
        pl.col("raw_feats"), pl.col("layer").fill_null(""), pl.col("lang"), separator="\t"
    )
    frame = frame.with_columns(keyed.alias("raw_feats"))
    feats = {raw: _other_feats_of(raw) for raw in frame["raw_feats"].unique().to_list()}
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
        *(joined(frame, pl.col(n)).alias(f"k_{n}") for n in LIST_COLUMNS),
        pl.col("raw_feats").replace_strict(feats, return_dtype=pl.String).alias("feats"),
        "k_agreeing",
        "o_key",
        "o_lemma",
        "o_upos",
        joined(frame, of_feature(lambda _, name: pl.col(f"o_{name}"))).alias("k_o_values"),
        "sentence",
        "determined",
        "declension",
        "between_feats",
        "target_context",
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
    if (varied or member) == "target" and name not in ("case", "definite"):
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
        + derived_bit("unmarked-cell", pl.col("weak_form"))
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


def sentence_facts(sentences: pa.Table) -> SentenceFacts:
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
    (`rules.words.set_key`): the controller's Case, the target's upos and VerbForm, order."""
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


def _other_feats_of(keyed: str) -> str:
    """`FEATS<TAB>layer<TAB>lang` → the word's other FEATS (`other_feats`, Definite among them
    unless the language has it in F), as the layer's view where one is given
    (`features.layer_view`)."""
    keyed, _, lang = keyed.rpartition("\t")
    raw, _, layer = keyed.rpartition("\t")
    definite = definite_in_f(lang)
    if not layer:
        return other_feats(raw, definite)
    return layer_view(other_feats(raw, definite), parse_feats(raw, definite).values(), layer)
