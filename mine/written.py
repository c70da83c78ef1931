"""The surface the language writes (DESIGN.md §4.1): a bad form spliced into a sentence may need
another written shape. Data tables in `mine/data/` (each row cites its grammar source):
`contractions.tsv` (two words → one written form: French *de le* → *du*), `allomorphs.tsv` (a set
of written forms of one word, the member picked by the next word's onset: Italian *il*/*lo*/*l'*),
`elision.tsv` (words written elided before a vowel: French *je* → *j'*), `alternating_clitics.tsv`
(a clitic after the word written by its final sound: Ukrainian *б*/*би*), `dropped_finals.tsv` (a
word's other spelling before some onsets: Greek *τον* written *το* before a continuant, so a bad
form spelled so reads as the good one) and `onsets.tsv` (the onset
classes, as patterns over the next word, first match wins; a word that matches none is
`consonant`; the next word is the first written with letters or digits, past punctuation). A
rebuilt multiword token must be a token the language's treebanks write, standing as a word of its
own, not glued to another (`unattested-token`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import polars as pl

from .questions import and_rows, parted, when_rows
from .resources import read_rows
from .rules.surface import capitalised_like

CONSONANT = "consonant"  # the onset class of a next word that no pattern matches (or of none)
APOSTROPHE_ENDS = ("'", "’")
WORD_CHARACTER = r"[\p{L}\p{M}\p{N}]"  # a letter, mark or digit: what punctuation lacks
NOT_WORD = r"[^\p{L}\p{M}\p{N}]"


@dataclass(frozen=True)
class WrittenSurface:
    """A language's surface tables: onset classes in order (class, pattern), the written member
    per (upos, member, onset class) (None: the onset cannot tell), and contractions."""

    onsets: tuple[tuple[str, str], ...]
    allomorphs: pl.DataFrame  # upos, key, onset, written (null: no written form)
    contractions: pl.DataFrame  # first, second, written
    elidable: frozenset[str] = frozenset()  # words elided before a vowel (*je* → *j'*)
    # A clitic after the word written by the word's final sound (Ukrainian *б* after a vowel,
    # *би* after a consonant): (after a vowel, after a consonant, the vowels).
    clitics: tuple[tuple[str, str, str], ...] = ()
    # A word's other spelling before some onset classes, as "upos\tform\tspelling\tonset" (Greek
    # *τον* written *το* before a continuant).
    spelled_before: frozenset[str] = frozenset()

    @property
    def other_spellings(self) -> frozenset[str]:
        """`spelled_before` without the onset class: "upos\tform\tspelling"."""
        return frozenset(key.rpartition("\t")[0] for key in self.spelled_before)


NO_SURFACE = WrittenSurface(
    (),
    pl.DataFrame(
        schema={"upos": pl.String, "key": pl.String, "onset": pl.String, "written": pl.String}
    ),
    pl.DataFrame(schema={"first": pl.String, "second": pl.String, "written": pl.String}),
)


@cache
def load_written_surface(code: str) -> WrittenSurface:
    """The tables of the language with UD code `code` (empty where it has none)."""
    onsets = tuple((r["onset"], r["pattern"]) for r in read_rows("onsets.tsv") if r["code"] == code)
    classes = {CONSONANT, *(name for name, _ in onsets)}
    sets: dict[tuple[str, str], dict[str, set[str]]] = {}  # (upos, set) → member → onsets
    for row in read_rows("allomorphs.tsv"):
        if row["code"] == code:
            members = sets.setdefault((row["upos"], row["set"]), {})
            members[row["member"]] = {c.strip() for c in row["onsets"].split(",") if c.strip()}
    # A member may belong to several sets (*l'* is *le* and *la*): written only where every set
    # it belongs to writes the same member for the onset.
    chosen: dict[tuple[str, str, str], set[str]] = {}
    for (upos, _), members in sets.items():
        for member in members:
            for onset in classes:
                picks = {m for m, where in members.items() if onset in where}
                chosen.setdefault((upos, member, onset), set()).update(picks or {""})
    allomorphs = pl.DataFrame(
        [
            (
                upos,
                member,
                onset,
                next(iter(picks)) if len(picks) == 1 and "" not in picks else None,
            )
            for (upos, member, onset), picks in chosen.items()
        ],
        schema={"upos": pl.String, "key": pl.String, "onset": pl.String, "written": pl.String},
        orient="row",
    )
    contractions = pl.DataFrame(
        [
            (r["first"], r["second"], r["written"])
            for r in read_rows("contractions.tsv")
            if r["code"] == code
        ],
        schema={"first": pl.String, "second": pl.String, "written": pl.String},
        orient="row",
    )
    elidable = frozenset(r["word"] for r in read_rows("elision.tsv") if r["code"] == code)
    clitics = tuple(
        (r["after_vowel"], r["after_consonant"], r["vowels"])
        for r in read_rows("alternating_clitics.tsv")
        if r["code"] == code
    )
    spelled_before = frozenset(
        f"{r['upos']}\t{r['form']}\t{r['written']}\t{onset.strip()}"
        for r in read_rows("dropped_finals.tsv")
        if r["code"] == code
        for onset in r["onsets"].split(",")
    )
    return WrittenSurface(onsets, allomorphs, contractions, elidable, clitics, spelled_before)


def onset_class(word: pl.Expr, onsets: tuple[tuple[str, str], ...]) -> pl.Expr:
    """The onset class of `word` (lower-cased; null word: `consonant`), first pattern matching."""
    lower = word.str.to_lowercase()
    expr: pl.Expr = pl.lit(CONSONANT)
    for name, pattern in reversed(onsets):
        expr = pl.when(lower.str.contains(pattern)).then(pl.lit(name)).otherwise(expr)
    return pl.when(word.is_null()).then(pl.lit(CONSONANT)).otherwise(expr)


def write_surface(
    tries: pl.DataFrame, surface: WrittenSurface, tokens: pl.Series | None
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The tries (with `text`, `start`, `form`, `bad_form` and the words around) as the language
    writes them: `cut_start`/`cut_end`, the stretch of the good sentence replaced, and
    `bad_form`, what is written there; and the tries with no written form, per reason
    (`ambiguous-onset`, `unattested-token`, `elision`)."""
    text = pl.col("text")
    word_end = pl.col("start") + pl.col("form").str.len_chars()
    after = text.str.slice(pl.col("after_start"), pl.col("after_end") - pl.col("after_start"))
    before = text.str.slice(pl.col("before_start"), pl.col("before_end") - pl.col("before_start"))
    # The word whose onset picks an allomorph: the next one written with letters or digits, past
    # any punctuation between (*lo "svizzero"* → *gli "svizzero"*, not *i*: a quote has no onset).
    following = text.str.slice(pl.col("after_start")).str.replace(rf"^{NOT_WORD}+", "")
    own_word = pl.col("token_start").is_null()
    tries = tries.with_columns(
        pl.col("bad_form").str.to_lowercase().alias("_key"),
        before.str.to_lowercase().alias("_before"),
        pl.col("start").alias("cut_start"),
        word_end.alias("cut_end"),
    )
    tries = tries.with_columns(_set_onsets(tries, surface, following))
    tries, ambiguous = _allomorphs(tries, surface, own_word)
    spelled = tries.clear()
    if surface.spelled_before:
        tries, spelled = parted(tries, _good_form_spelled(tries, surface, following))
    if surface.contractions.height:
        tries = _contracted(tries, surface, own_word, before)
    tries, unwritten = parted(tries, _unelided(tries, surface, own_word, after))
    if tokens is not None:
        tries, missing = parted(tries, _unattested_parts(tries, tokens))
    else:
        missing = tries.clear()
    helpers = ["_key", "onset", "_before", "_member", "_in_set", "_elided"]
    return (
        tries.drop(helpers),
        pl.concat([ambiguous.drop(helpers, strict=False), spelled.drop(helpers)]),
        missing.drop(helpers),
        unwritten.drop(helpers, strict=False),
    )


def _good_form_spelled(
    tries: pl.DataFrame, surface: WrittenSurface, following: pl.Expr
) -> pl.Series:
    """Whether the bad form, as written, is the good form's other spelling before the next
    word's onset (Greek *τον Β' Παγκόσμιο Πόλεμο* → *το*: the masculine without its -ν, read
    as the good sentence)."""
    key = pl.concat_str(
        [pl.col("upos"), pl.col("form").str.to_lowercase(), pl.col("bad_form").str.to_lowercase()],
        separator="\t",
    )
    onset = onset_class(following, surface.onsets)
    return when_rows(
        tries,
        key.is_in(list(surface.other_spellings)),
        pl.concat_str([key, onset], separator="\t").is_in(list(surface.spelled_before)),
        pl.lit(False),
    )


def _set_onsets(tries: pl.DataFrame, surface: WrittenSurface, following: pl.Expr) -> pl.Series:
    """The onset class of the word after each try whose bad form is in an allomorph set (null
    elsewhere: no set to pick a member from, and the class is only asked of a set)."""
    onset = pl.Series("onset", dtype=pl.String).extend_constant(None, tries.height)
    if surface.allomorphs.height == 0:
        return onset
    sets = surface.allomorphs.select("upos", pl.col("key").alias("_key")).unique()
    # Only these rows' rest of the sentence is sliced and matched (the costly part).
    rows = (
        tries.select("upos", "_key")
        .with_row_index("_row")
        .join(sets, on=["upos", "_key"], how="semi")
        .get_column("_row")
    )
    if rows.len():
        asked = tries.select(pl.col("text", "after_start").gather(rows))
        onset.scatter(rows, asked.select(onset_class(following, surface.onsets)).to_series())
    return onset


def _unattested_parts(tries: pl.DataFrame, tokens: pl.Series) -> pl.Series:
    """`_unattested` per try, read only where the word is part of a multiword token (elsewhere
    it is False: the word is written on its own)."""
    part = pl.col("token_start").is_not_null()
    return when_rows(tries, part, _unattested(tokens, ~part), pl.lit(False))


def _allomorphs(
    tries: pl.DataFrame, surface: WrittenSurface, own_word: pl.Expr
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The tries with the member of the bad form's allomorph set that the next word's onset
    picks (an elided one glued to it), and those whose onset picks none (`ambiguous-onset`)."""
    # The next word's onset picks the member of the bad form's set (the word's own, not a part).
    tries = tries.join(
        surface.allomorphs.rename({"key": "_key", "written": "_member"}).with_columns(
            pl.lit(True).alias("_in_set")
        ),
        on=["upos", "_key", "onset"],
        how="left",
    )
    in_set = pl.col("_in_set").fill_null(False) & own_word
    unwritable = in_set & pl.col("_member").is_null()
    ambiguous = tries.filter(unwritable)
    tries = tries.filter(~unwritable)
    member = pl.when(in_set).then(pl.col("_member")).otherwise(pl.col("_key"))
    elided = (
        in_set
        & pl.col("_member").str.ends_with(APOSTROPHE_ENDS[0])
        & (pl.col("after_start").is_not_null())
    )
    written = when_rows(
        tries, in_set, capitalised_like(pl.col("_member"), pl.col("form")), pl.col("bad_form")
    )
    tries = tries.with_columns(
        written.alias("bad_form"),
        member.alias("_key"),
        # An elided member is glued to the next word: the whitespace after the word goes too.
        pl.when(elided).then(pl.col("after_start")).otherwise(pl.col("cut_end")).alias("cut_end"),
        elided.alias("_elided"),
    )
    return tries, ambiguous


def _contracted(
    tries: pl.DataFrame, surface: WrittenSurface, own_word: pl.Expr, before: pl.Expr
) -> pl.DataFrame:
    """Two words → one written form (*de* + *le* → *du*): the word before, if written apart."""
    tries = tries.join(
        surface.contractions.rename(
            {"first": "_before", "second": "_key", "written": "_contracted"}
        ),
        on=["_before", "_key"],
        how="left",
    )
    apart = pl.col("before_end") < pl.col("start")
    contract = pl.col("_contracted").is_not_null() & own_word & apart & ~pl.col("_elided")
    written = when_rows(
        tries, contract, capitalised_like(pl.col("_contracted"), before), pl.col("bad_form")
    )
    tries = tries.with_columns(
        written.alias("bad_form"),
        pl.when(contract)
        .then(pl.col("before_start"))
        .otherwise(pl.col("cut_start"))
        .alias("cut_start"),
    ).drop("_contracted")
    return tries


def _unelided(
    tries: pl.DataFrame, surface: WrittenSurface, own_word: pl.Expr, after: pl.Expr
) -> pl.Series:
    """Per try, whether the bad form would rewrite a word around it: elide the word before, or
    switch the clitic after (`elision`)."""
    # A word written whole before the varied one that the bad form's onset would elide (*je
    # vais* → *je allons*, which French writes *j'allons*): rewriting the word before is no
    # re-inflection, so no pair (an onset the table cannot class, *h*, neither).
    unelided: pl.Expr = pl.lit(False)
    if surface.elidable:
        apart = pl.col("before_end") < pl.col("start")
        full = pl.col("_before").is_in(sorted(surface.elidable)) & own_word & apart
        elides = onset_class(pl.col("bad_form"), surface.onsets) != CONSONANT
        # The onsets are classed only after a word that elides (few rows).
        found = and_rows(
            tries, full, elides & (onset_class(pl.col("form"), surface.onsets) == CONSONANT)
        )
        unelided = pl.lit(found)
    # A clitic after the word that its final sound picks (Ukrainian *були б* → *був б*, which is
    # written *був би*): the bad form must end in the same class of sound as the word.
    for after_vowel, after_consonant, vowels in surface.clitics:
        next_word = after.str.to_lowercase().is_in([after_vowel, after_consonant]).fill_null(False)
        final = f"[{vowels}]$"
        switches = pl.col("form").str.to_lowercase().str.contains(final) != pl.col(
            "bad_form"
        ).str.to_lowercase().str.contains(final)
        unelided = unelided | (next_word & own_word & switches)
    return tries.with_columns(unelided.alias("_unelided")).get_column("_unelided")


def _unattested(tokens: pl.Series, own_word: pl.Expr) -> pl.Expr:
    """Whether a multiword token rebuilt with the bad form is one the language never writes."""
    text = pl.col("text")
    # A part of a multiword token rebuilt: the token must be one the language writes.
    token = text.str.slice(pl.col("token_start"), pl.col("token_end") - pl.col("token_start"))
    offset = pl.col("start") - pl.col("token_start")
    rebuilt = (
        token.str.slice(0, offset)
        + pl.col("bad_form")
        + token.str.slice(offset + pl.col("form").str.len_chars())
    )
    # A token glued to another word with no whitespace between (*isn'ta*, a space missing;
    # *viva,ao*) is written inside a longer word: the token's attestation does not vouch for
    # that word (*aren'ta*), so it is no written word the language is known to have.
    glued = text.str.slice(0, pl.col("token_start")).str.contains(
        rf"{WORD_CHARACTER}\S*$"
    ) | text.str.slice(pl.col("token_end")).str.contains(rf"^\S*{WORD_CHARACTER}")
    attested = rebuilt.str.to_lowercase().is_in(tokens.implode()) & ~glued
    unattested = ~own_word & ~attested
    return unattested
