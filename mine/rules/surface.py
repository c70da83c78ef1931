"""The surface tables of the bad form (§4): capitalisation, elision, Spanish apocope, prefixes that
agree."""

from __future__ import annotations

import polars as pl


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


def capitalised_word_like(form: str, model: str) -> str:
    """`capitalised_like` of one word, for code that fills words one at a time (nonce variants);
    `tests/mine/test_surface_rules.py` holds the two equal."""
    if len(model) > 1 and model.isupper():
        return form.upper()
    if model[:1].isupper():
        return form[:1].upper() + form[1:]
    return form


def breaks_apocope(apocope: dict[str, str]) -> pl.Expr:
    """Over attempts with a bad form (`bad_key`) and the relation's `order`: a short form that
    would not stand before its noun (Spanish *relación algún*, *es buen*), or a full form that
    would (*alguno libro*): the bad sentence breaks the surface, not the agreement."""
    before_noun = pl.col("order") == "target-first"
    short = pl.col("bad_key").is_in(list(apocope))
    full = pl.col("bad_key").is_in(sorted(set(apocope.values())))
    return ((short & ~before_noun) | (full & before_noun)).fill_null(False)


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
