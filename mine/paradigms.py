"""The lexicon indexed for DESIGN.md §4: a lemma's paradigm cells, the bundles of each form, the
values each UPOS attests, as tables the §4 rules join (`rules/`)."""

from __future__ import annotations

from copy import copy
from functools import cached_property

import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import FEATURES

from .features import LAYERS, OWN_LAYER, layer_view, parse_layer
from .languages import Declension, Endings, ValueSets

Bundle = tuple[frozenset[str], ...]  # values of FEATURES, in that order
APOSTROPHES = ("'", "\u2019")
LIST_COLUMNS = [f.lower() for f in FEATURES]  # the lexicon's and relations' columns of FEATURES


def elided(form: pl.Expr) -> pl.Expr:
    """An elided form (*l'*) or a clitic written onto the word before (*'m*, *’s*): an
    apostrophe at either end; its spelling depends on its neighbour, so it is never varied
    nor a bad form (§4 `elision`)."""
    return pl.any_horizontal(
        *(form.str.starts_with(mark) for mark in APOSTROPHES),
        *(form.str.ends_with(mark) for mark in APOSTROPHES),
    )


# A paradigm cell as join keys (value sets `,`-joined), as `ParadigmFrames.forms` holds them.
CELL_COLUMNS = ["lemma", "upos", *(f"cell_{n}" for n in LIST_COLUMNS), "feats"]


def expanded(values: pl.Expr, feature: str, value_sets: ValueSets) -> pl.Expr:
    """A list column of one feature's values, each value replaced by those it stands for (§1.2:
    Norwegian Com = {Masc, Fem})."""
    stands_for = value_sets.get(feature)
    if not stands_for:
        return values
    joined = {value: ",".join(sorted(many)) for value, many in stands_for.items()}
    return (
        values.list.eval(pl.element().replace(joined))
        .list.join(",")
        .str.split(",")
        .list.eval(pl.element().filter(pl.element() != ""))
    )


def cell_key(values: pl.Expr) -> pl.Expr:
    """A sorted list of distinct values (the lexicon's and the relations' value sets) as a
    paradigm cell's join key: `,`-joined, without the empty value (`""` when none). Never
    written: the key a table shows is `rules.words.set_key` (`_` when none)."""
    return cell_key_of_joined(values.list.join(","))


def cell_key_of_joined(joined: pl.Expr) -> pl.Expr:
    """`cell_key` of a value set already sorted and `,`-joined (its empty value, if any, first)."""
    return joined.str.strip_chars_start(",").fill_null("")


# §4.1 attestation: a UD row counts for the pair rules when its bundle holds this share of its
# (form, lemma, upos)'s tokens; a bad value when it holds this share of the language's tokens of
# the upos that carry the feature.
ATTESTED_SHARE = 0.05
MIN_TOKENS = 2  # below this, a UD row blocks a form only when it is all its form's tokens
RARE_SHARE = 0.01

# Unicode scripts a bad form may be written in (one of them, as the word varied is); Japanese
# and Korean mix their scripts within a word, so theirs count as one.
SCRIPTS = {
    name: rf"\p{{{name}}}"
    for name in (
        "Latin", "Greek", "Cyrillic", "Armenian", "Georgian", "Hebrew", "Arabic", "Syriac",
        "Thaana", "Nko", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil",
        "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao", "Tibetan", "Myanmar",
        "Khmer", "Ethiopic", "Cherokee", "Mongolian", "Coptic", "Gothic", "Glagolitic", "Runic",
        "Ogham", "Old_Italic", "Tifinagh", "Canadian_Aboriginal", "Old_Turkic", "Cuneiform",
    )
} | {"CJK": r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{30FC}"}  # fmt: skip
# Marks written inside a word between letters: apostrophes, hyphens, the Catalan middle dot,
# and the zero-width (non-)joiners of Persian and Indic spelling.
JOINERS = "'\u2019\u02bc\\-\u2010\u00b7\u200c\u200d"


_LETTER_SCRIPTS: dict[str, str | None] = {}  # first letters met so far in this process


def _letter_scripts(letters: list[str]) -> dict[str, str]:
    """The script (a key of SCRIPTS) of each character that has one; each character's found
    once per process (38 Unicode-class patterns cost more than the forms they sort)."""
    new = [c for c in letters if c not in _LETTER_SCRIPTS]
    if new:
        unknown = pl.Series(new, dtype=pl.String)
        found = {
            letter: name
            for name, chars in SCRIPTS.items()
            for letter in unknown.filter(unknown.str.contains(f"^[{chars}]$")).to_list()
        }
        _LETTER_SCRIPTS.update((c, found.get(c)) for c in new)
    return {c: name for c in letters if (name := _LETTER_SCRIPTS[c]) is not None}


def script_of(forms: pl.Series) -> pl.Series:
    """Per form, the one script (a key of SCRIPTS) it is written in — letters and marks of that
    script, with JOINERS only between letters; null for anything else (digits, brackets,
    slashes, two scripts)."""
    distinct = forms.unique()
    if len(distinct) < len(forms):  # each distinct form once (a form asked about recurs)
        scripts = pl.DataFrame({"form": distinct, "script": script_of(distinct)})
        asked = pl.DataFrame({"form": forms})
        return asked.join(scripts, on="form", how="left", nulls_equal=True, maintain_order="left")[
            "script"
        ]
    first = forms.str.slice(0, 1)
    # The script of each distinct first letter (few), then each form checked against it alone.
    named = _letter_scripts(first.unique().drop_nulls().to_list())
    candidate = first.replace_strict(named, default=None, return_dtype=pl.String)
    frame = pl.DataFrame({"form": forms, "script": candidate})
    whole = pl.lit(False)
    for name in frame.get_column("script").unique().drop_nulls().to_list():
        letter = f"[{SCRIPTS[name]}\\p{{M}}]"
        written = pl.col("form").str.contains(f"^{letter}+(?:[{JOINERS}]{letter}+)*$")
        whole = pl.when(pl.col("script") == name).then(written).otherwise(whole)
    return frame.select(
        pl.when(whole.fill_null(False)).then(pl.col("script")).alias("script")
    ).to_series()


def attestation(lexicon: pl.DataFrame) -> pl.DataFrame:
    """Per lexicon row, whether it counts for the pair rules (§4.1): a UniMorph row always; a UD
    row when it holds ATTESTED_SHARE of its (form lower-cased, lemma, upos)'s tokens — the row
    itself, other FEATS included (`attested`: a bad form fills a cell with them), or all its
    rows with its bundle (`attested_bundle`: the ambiguity rule reads bundles alone); and
    whether it may make a form "possibly correct" (`decisive`: a single UD token only where it
    is all its form's tokens, so one *Sou* tagged 3sg among twelve 1sg does not block *sou* for
    *é*, leaving the choice to a rare *sô*)."""
    count = pl.col("count").fill_null(0)
    word = [pl.col("form").str.to_lowercase(), pl.col("lemma"), pl.col("upos")]
    # Tokens of the bundle over all its rows: treebanks spell the same cell's FEATS differently
    # (German PUD leaves VerbForm out), and one token there is not one token of the bundle.
    sums = lexicon.select(
        count.alias("row"),
        count.sum().over(word).alias("word"),
        count.sum().over([*word, *(cell_key(pl.col(n)) for n in LIST_COLUMNS)]).alias("bundle"),
        (pl.col("source") != "ud").alias("unimorph"),
    )
    return sums.select(
        (pl.col("unimorph") | (pl.col("row") >= ATTESTED_SHARE * pl.col("word"))).alias("attested"),
        (pl.col("unimorph") | (pl.col("bundle") >= ATTESTED_SHARE * pl.col("word"))).alias(
            "attested_bundle"
        ),
        (
            pl.col("unimorph")
            | (pl.col("bundle") >= MIN_TOKENS)
            | (pl.col("bundle") == pl.col("word"))
        ).alias("decisive"),
    )


LAYERED = r"^[A-Za-z]+\[[a-z]+\]="  # a layered feature's item (`Number[psor]=Sing`)


def layered_features(lexicon: pl.DataFrame) -> pl.DataFrame:
    """Per (lower-cased form `key`, lemma, upos), a row per layered feature any of its tokens
    carries (`name`, and `item`: `Name[layer]=Values`, every value a token gives it, `,`-joined).
    One treebank that marks it is enough: UD_French-Sequoia's *votre* has no Person[psor] (111
    of the language's 166 tokens), the others' has 2. Every value counts: German *ihrem* is 'her'
    and 'their' (Number[psor] Sing 1, Plur 5), so *ihrem* → *ihres* keeps a possessor it may
    have. A form without the feature (Italian *suo*) is compared on none
    (`rules.cells.changes_layered`)."""
    word = ["key", "lemma", "upos"]
    rows = lexicon.select(
        pl.col("form").str.to_lowercase().alias("key"),
        "lemma",
        "upos",
        pl.col("feats").str.split("|").alias("item"),
    )
    items = (
        rows.explode("item")
        .filter(pl.col("item").str.contains(LAYERED))
        .with_columns(pl.col("item").str.extract(r"^([^=]+)=(.*)$", 1).alias("name"))
        .with_columns(pl.col("item").str.extract(r"=(.*)$", 1).str.split(",").alias("value"))
        .explode("value")
        .group_by(*word, "name")
        .agg(pl.col("value").unique().sort().str.join(","))
    )
    return items.select(*word, "name", (pl.col("name") + "=" + pl.col("value")).alias("item"))


def rare_values(lexicon: pl.DataFrame) -> pl.DataFrame:
    """(upos, feature, bad_value) of each value that holds less than RARE_SHARE of the
    language's UD tokens of the upos carrying the feature (§4.1 `rare-value`); where no UD
    token of the upos carries the feature, no value of it is rare (nothing to measure)."""
    ud = lexicon.filter(pl.col("count").fill_null(0) > 0)
    carrying = pl.concat(
        ud.select("upos", pl.lit(feature).alias("feature"), pl.col(name).alias("v"), "count")
        for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
    ).filter(pl.col("v").list.len() > 0)
    totals = carrying.group_by("upos", "feature").agg(pl.col("count").sum().alias("total"))
    tokens = (
        carrying.explode("v")
        .group_by("upos", "feature", "v")
        .agg(pl.col("count").sum().alias("tokens"))
    )
    values = pl.concat(
        lexicon.select("upos", pl.lit(feature).alias("feature"), pl.col(name).alias("v"))
        for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
    )
    return (
        values.explode("v")
        .drop_nulls("v")
        .unique()
        .join(totals, on=["upos", "feature"])
        .join(tokens, on=["upos", "feature", "v"], how="left")
        .filter(pl.col("tokens").fill_null(0) < RARE_SHARE * pl.col("total"))
        .select("upos", "feature", pl.col("v").alias("bad_value"), pl.lit(True).alias("rare"))
    )


# §4.2 unmarked cells: the language marks f on finite verbs of a Tense and Mood when this share
# of their tokens carries it.
MARKED_SHARE = 0.2


def marked_cells(counts: dict[tuple[str, str, str], int]) -> pl.DataFrame:
    """§4.2: (tense, mood, feature) where at least MARKED_SHARE of the language's finite verb
    tokens of that Tense and Mood carry the feature (`counts`: per (tense, mood, feature), ""
    for all tokens)."""
    # A verb with neither Tense nor Mood has no cell to speak of: its bad form's same FEATS
    # could be another tense (Old French *demandoient* → *demande*).
    rows = [
        (tense, mood, feature)
        for (tense, mood, feature), n in counts.items()
        if feature
        and (tense, mood) != ("_", "_")
        and n >= MARKED_SHARE * counts.get((tense, mood, ""), 0)
    ]
    schema = {"tense": pl.String, "mood": pl.String, "feature": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


# UPOS whose words of one lemma share one paradigm (the other's forms fill a cell one lacks).
SHARED_UPOS = ("AUX", "VERB")


def _other_upos() -> pl.Expr:
    """Over rows of SHARED_UPOS: the other one, as `upos`."""
    return (
        pl.when(pl.col("upos") == "AUX").then(pl.lit("VERB")).otherwise(pl.lit("AUX")).alias("upos")
    )


def marked_in_lexicon(lexicon: pl.DataFrame) -> pl.DataFrame:
    """§4.2's marked cells (`marked_cells`) from a lexicon's UD rows of finite
    VERB and AUX forms."""
    feats = pl.col("feats").fill_null("")
    finite = lexicon.filter(
        (pl.col("count").fill_null(0) > 0)
        & pl.col("upos").is_in(["VERB", "AUX"])
        & feats.str.contains(r"(?:^|\|)VerbForm=Fin(?:\||$)")
    ).select(
        *(
            feats.str.extract(rf"(?:^|\|){name}=([^|]+)", 1).fill_null("_").alias(name)
            for name in ("Tense", "Mood")
        ),
        "count",
        *(pl.col(name).list.len().alias(name) for name in LIST_COLUMNS),
    )
    counts: dict[tuple[str, str, str], int] = {}
    for row in finite.iter_rows(named=True):
        tense, mood = row["Tense"], row["Mood"]
        counts[(tense, mood, "")] = counts.get((tense, mood, ""), 0) + row["count"]
        for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True):
            if row[name] and feature != "Case":
                key = (tense, mood, feature)
                counts[key] = counts.get(key, 0) + row["count"]
    return marked_cells(counts)


Suffixes = dict[str, tuple[tuple[str, str], ...]]  # per UPOS: (ending, class)


def with_prefix(
    feats: pl.Expr,
    form: pl.Expr,
    upos: pl.Expr,
    prefixes: dict[str, tuple[str, ...]],
    suffixes: Suffixes | None = None,
) -> pl.Expr:
    """A layered view's other FEATS (§1.7) with the prefix and the suffix class its UPOS's
    `prefixes` and `suffixes` give the form (`Prefix[self]=z`, `Suffix[self]=la`), so that a bad
    form keeps them: UD_Basque-BDT marks no Tense, which the auxiliary's first letter shows (*du*
    / *zuen*), nor the subordinator (*dutela*)."""
    lower = form.str.to_lowercase()
    items: list[pl.Expr] = []
    for name in sorted({*prefixes, *(suffixes or {})}):
        if "[" not in name:
            continue
        prefix: pl.Expr = pl.lit("")
        for start in sorted(prefixes.get(name, ()), key=len):  # the longest last: it wins
            prefix = pl.when(lower.str.starts_with(start)).then(pl.lit(start)).otherwise(prefix)
        suffix: pl.Expr = pl.lit("")
        for end, kind in sorted((suffixes or {}).get(name, ()), key=lambda item: len(item[0])):
            suffix = pl.when(lower.str.ends_with(end)).then(pl.lit(kind)).otherwise(suffix)
        added = pl.lit(f"Prefix[{OWN_LAYER}]=") + prefix + f"|Suffix[{OWN_LAYER}]=" + suffix
        items.append(pl.when(upos == name).then(added))
    if not items:
        return feats
    found = pl.coalesce(items)
    return (
        pl.when(found.is_null())
        .then(feats)
        .when(feats == "")
        .then(found)
        .otherwise(feats + "|" + found)
    )


def with_layer_views(
    lexicon: pl.DataFrame,
    prefixes: dict[str, tuple[str, ...]] | None = None,
    suffixes: Suffixes | None = None,
) -> pl.DataFrame:
    """§1.7: the lexicon's rows with a value of F, and for each layer of LAYERS a row per form
    carrying it, its UPOS marked with the layer (`AUX[abs]`), its values of F the layer's and
    its other FEATS that layer's view (`features.layer_view`: the plain values kept as
    `Name[self]`), so that a layered target's bad form is found, cell by cell, as any other's."""
    plain = lexicon.filter(pl.any_horizontal(pl.col(n).list.len() > 0 for n in LIST_COLUMNS))
    pattern = r"\[(?:" + "|".join(LAYERS) + r")\]="
    carrying = lexicon.filter(pl.col("feats").str.contains(pattern).fill_null(False))
    if carrying.height == 0:
        return plain
    rows = []
    for row in carrying.iter_rows(named=True):
        own = tuple(frozenset(row[name]) for name in LIST_COLUMNS)
        for layer in LAYERS:
            values = parse_layer(row["feats"], layer)
            if any(values):
                view = dict(row)
                view["upos"] = f"{row['upos']}[{layer}]"
                view.update(zip(LIST_COLUMNS, map(sorted, values), strict=True))
                view["feats"] = layer_view(row["feats"], own, layer)
                rows.append(view)
    views = pl.DataFrame(rows, schema=lexicon.schema, orient="row")
    if prefixes or suffixes:
        views = views.with_columns(
            with_prefix(
                pl.col("feats"), pl.col("form"), pl.col("upos"), prefixes or {}, suffixes
            ).alias("feats")
        )
    return pl.concat([plain, views])


class ParadigmFrames:
    """The lexicon indexed as tables, for the §4 rules run over columns (`rules/bad_forms.py`, `rules/cells.py`):
    the rows that can be a bad form by paradigm cell (`forms`), every bundle of each (form,
    lemma, upos) with its values expanded through the value sets (`bundles`), and the values
    each (upos, feature) attests, with the rare ones (`rare`). Only rows attested as §4.1 asks
    are read; `narrowed` keeps the paradigms that a batch of questions reads."""

    # Its adjective predicates may be instrumental (`rules.instrumental`; set by the miner).
    instrumental_predicate: bool = False
    # Its case cells syncretic with the instrumental (`rules.instrumental.instrumental_cells`;
    # set by the miner from the whole lexicon, before any narrowing; None: none read).
    instrumental_cells: pl.DataFrame | None = None
    # The treebanks whose feminine nouns may take masculine agreement (`rules.optional_feminine`;
    # set by the miner; empty: all the language's; None: none).
    optional_feminine: frozenset[str] | None = None
    # Its noun lemmas (lower-cased) → whether its UniMorph paradigms give them both genders
    # (`rules.optional_feminine.two_gender_nouns`; set by the miner where the feminine is
    # optional; None: not read).
    two_gender_nouns: dict[str, bool] | None = None
    # The one-letter words written as words of their own (`rules.verb_context.clitic_form`;
    # set by the miner; None: not checked).
    free_letters: frozenset[str] | None = None
    # Letters that vary between spellings of one form (Russian *ё* printed *е*, Greek stress
    # marks): spellings that differ only so are one (`rules.bad_forms`; set by the miner).
    spelling_variants: dict[str, str] | None = None

    def __init__(
        self,
        lexicon: pa.Table,
        value_sets: ValueSets | None = None,
        reported_speech: bool = False,
        genderless_plural: bool = False,
        endings: Endings | None = None,
        declension: Declension | None = None,
        apocope: dict[str, str] | None = None,
        prefixes: dict[str, tuple[str, ...]] | None = None,
        suffixes: Suffixes | None = None,
    ) -> None:
        """`lexicon`: as `build_lexicon` makes it (value lists are sorted sets; without its
        in-memory attestation columns, every token counts as unmarked, of no treebank);
        `reported_speech`: the language's subjunctive stands in main clauses, so syncretism is
        judged across moods; `genderless_plural`: its plural distinguishes no gender;
        `endings`: the endings its attributive words may have (`load_adjective_endings`); `prefixes`: per UPOS, the prefixes that mark an aspect
        FEATS leave out (`load_verb_prefixes`)."""
        self.value_sets = value_sets or {}
        self.reported_speech = reported_speech
        self.genderless_plural = genderless_plural
        self.endings = endings or {}
        self.declension = declension or {}
        self.apocope = apocope or {}
        self.prefixes = prefixes or {}
        self.suffixes = suffixes or {}  # §1.7: per layered UPOS, (ending, class)
        frame = pl.DataFrame(lexicon)
        if "typo_count" not in frame.columns:
            frame = frame.with_columns(pl.lit(0, dtype=pl.Int64).alias("typo_count"))
        if "clean_count" not in frame.columns:
            frame = frame.with_columns(pl.col("count").fill_null(0).alias("clean_count"))
        if "treebanks" not in frame.columns:
            frame = frame.with_columns(pl.lit([], pl.List(pl.String)).alias("treebanks"))
        frame = with_layer_views(frame, self.prefixes, self.suffixes)
        self.attested = (
            pl.concat(
                frame.select("upos", pl.lit(feature).alias("feature"), pl.col(name).alias("v"))
                for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
            )
            .explode("v")
            .drop_nulls("v")
            .unique()
            .group_by("upos", "feature")
            .agg(pl.col("v").sort().alias("bad_value"))
        )
        self.rare = rare_values(frame)
        # §4.3: a form's layered features as its treebanks give them (French ParisStories and
        # Rhapsodie leave out *vos*'s Person[psor], so *vos* → *son* kept the same FEATS).
        self.layered = layered_features(frame)
        rows = attestation(frame)
        frame = frame.with_columns(rows.get_column("attested"), rows.get_column("decisive"))
        frame = frame.filter(rows.get_column("attested_bundle"))
        self.lexicon = frame.with_columns(script_of(frame.get_column("form").str.to_lowercase()))

    def narrowed(self, lemmas: pl.DataFrame) -> ParadigmFrames:
        """The index of the paradigms of `lemmas` (lemma, upos) only; the values attested stay
        the whole lexicon's."""
        narrow = copy(self)
        # An AUX's paradigm is its lemma's VERB rows too (`forms`), and the other way round.
        other = lemmas.filter(pl.col("upos").is_in(SHARED_UPOS)).with_columns(_other_upos())
        lemmas = pl.concat([lemmas, other.select(lemmas.columns)])
        narrow.lexicon = self.lexicon.join(lemmas.unique(), on=["lemma", "upos"], how="semi")
        narrow.__dict__.pop("forms", None)
        narrow.__dict__.pop("bundles", None)
        return narrow

    @cached_property
    def marked(self) -> pl.DataFrame:
        """§4.2: where finite verbs mark each feature. The miner sets it from every token; a
        lexicon alone tells it from its rows (which leave out tokens without F's values)."""
        return marked_in_lexicon(self.lexicon)

    @cached_property
    def forms(self) -> pl.DataFrame:
        """Rows that can be a bad form, by paradigm cell (lemma, upos, set keys, other FEATS),
        with the script they are written in and the treebanks where they were seen unmarked."""
        # §4.1: a form seen only marked (a typo, foreign, an abbreviation, a style, corrected) is
        # no bad form, nor one out of its script, nor an elided one or a clitic.
        count = pl.col("count").fill_null(0)
        clean = (count == 0) | (pl.col("clean_count") > 0)
        usable = (
            pl.col("attested") & clean & pl.col("script").is_not_null() & ~elided(pl.col("form"))
        )
        own = self.lexicon.filter(usable & pl.col("feats").is_not_null()).select(
            "lemma",
            "upos",
            *(cell_key(pl.col(name)).alias(f"cell_{name}") for name in LIST_COLUMNS),
            "feats",
            pl.col("form").str.to_lowercase().alias("bad_key"),
            pl.when(count > 0).then(pl.col("clean_count")).otherwise(0).alias("bad_count"),
            "source",
            "script",
            "treebanks",
            pl.col("upos").alias("form_upos"),
        )
        # AUX and VERB of one lemma are one paradigm (UPOS tells the word's function, not its
        # inflection): a cell the word's UPOS lacks takes the other's forms (Greek perfect
        # auxiliary *είχε* → *είχα*, seen as a VERB only).
        # Forms seen in the treebanks only (UniMorph's V is the verb: English *wills* is not
        # the modal's); `rules.bad_forms.bad_forms_of` lends them only to a word whose own cell
        # the other UPOS fills with the word's form alone.
        shared = own.filter(pl.col("upos").is_in(SHARED_UPOS) & (pl.col("source") != "unimorph"))
        lent = shared.with_columns(_other_upos())
        lent = lent.join(own.select(CELL_COLUMNS).unique(), on=CELL_COLUMNS, how="anti")
        return pl.concat([own, lent])

    @cached_property
    def bundles(self) -> pl.DataFrame:
        """Every bundle of each (lower-cased form, lemma, upos) attested as §4.1 asks, values
        expanded (§1.2), with the row's other FEATS (`b_feats`) and whether the row itself is
        attested (`b_attested`; the ambiguity rule reads the bundle's rows together)."""
        return self.lexicon.select(
            pl.col("form").str.to_lowercase().alias("form_key"),
            "lemma",
            "upos",
            *(
                expanded(pl.col(name), feature, self.value_sets).alias(f"b_{name}")
                for feature, name in zip(FEATURES, LIST_COLUMNS, strict=True)
            ),
            pl.col("feats").alias("b_feats"),
            (pl.col("attested") & pl.col("decisive")).alias("b_attested"),
            pl.col("decisive").alias("b_decisive"),
        )
