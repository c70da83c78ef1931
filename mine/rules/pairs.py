"""The rules of DESIGN.md §4 (minimal pairs), written once: which relations give pairs, the bad
form of a varied word, the other member's ambiguity, capitalisation and elision. Decisions over
one question are plain functions; the rules about a relation are column expressions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import polars as pl

from ..paradigms import APOSTROPHES, BadForm, Bundle, LexiconRow, Member, Paradigms


def could_be_correct(
    paradigms: Paradigms, bundle: Bundle, wanted: Bundle, slots: Sequence[int]
) -> bool:
    """A bundle that meets the wanted values on every agreeing feature: the form could agree."""
    return all(bundle[s] and paradigms.meet(s, bundle[s], wanted[s]) for s in slots)


def choose_bad_form(
    paradigms: Paradigms, word: Member, slot: int, value: str, slots: tuple[int, ...]
) -> BadForm | str:
    """The bad form for `word` with feature `slot` set to `value` (§4), or why there is none."""
    lemma, upos, bundle, key = word.lemma, word.upos, word.bundle, word.form.lower()
    wanted = (*bundle[:slot], frozenset({value}), *bundle[slot + 1 :])
    found: dict[str, list[LexiconRow]] = defaultdict(list)
    # Same other inflection (never *étaient* for *est*), and no elided form.
    for row in paradigms.forms.get((lemma, upos, wanted, word.feats), ()):
        found[row.form.lower()].append(row)
    if not found:
        return "no-form"
    # The word's own spelling (*sheep*), or a form that also has a bundle agreeing on every
    # agreeing feature, could be correct: no violation.
    usable = [
        (form, rows)
        for form, rows in found.items()
        if form != key
        and not any(
            could_be_correct(paradigms, other, bundle, slots)
            for other in paradigms.bundles[(form, lemma, upos)]
        )
    ]
    if not usable:
        return "syncretic"
    form, rows = min(usable, key=lambda item: (-sum(r.occurrences for r in item[1]), item[0]))
    sources = {r.source for r in rows}
    source = "both" if "both" in sources or len(sources) > 1 else sources.pop()
    return BadForm(form, sum(r.occurrences for r in rows), source)


def ambiguous(paradigms: Paradigms, other: Member, slot: int, value: str) -> bool:
    """Whether the other member could carry the bad value: in its sentence, or as another bundle
    of its own form (*le prix augmentent*: *prix* is singular and plural)."""
    if paradigms.meet(slot, other.bundle[slot], (value,)):
        return True
    known = paradigms.bundles.get((other.form.lower(), other.lemma, other.upos), ())
    return any(paradigms.meet(slot, b[slot], (value,)) for b in known)


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


def relation_skip_reason() -> pl.Expr:
    """The first reason of §4 about the varied word or its relation (null: go on), in order."""
    return (
        pl.when(pl.col("values").list.len() > 1)
        .then(pl.lit("multi-valued"))
        .when(pl.col("lemma").is_in(["", "_"]) | pl.col("lemma").is_null())
        .then(pl.lit("no-lemma"))
        .when(pl.col("in_mwt"))
        .then(pl.lit("in-mwt"))  # re-contracting *du* is language-specific
        .when(pl.col("coordinated"))
        .then(pl.lit("coordinated"))  # the verb may agree with the whole coordination
        .when(_elided(pl.col("form")))
        .then(pl.lit("elision"))  # *l'* depends on the next word's sound, not on agreement
        .when(pl.col("duplicate"))
        .then(pl.lit("duplicate-sent-id"))  # a join on the sentence would be ambiguous
        .when(pl.col("text").is_null())
        .then(pl.lit("missing-sentence"))
    )


VOWELS = "aeiouyàâäéèêëíìîïóòôöúùûüœæh"


def breaks_elision() -> pl.Expr:
    """The word before is elided onto this one (*s'est*) and the bad form does not begin with a
    sound that allows it (*s'sont*): the pair would break elision, not agreement."""
    vowel = lambda form: form.str.slice(0, 1).str.to_lowercase().is_in(list(VOWELS))  # noqa: E731
    return pl.col("after_elided") & (vowel(pl.col("form")) != vowel(pl.col("bad_form")))


def _elided(form: pl.Expr) -> pl.Expr:
    return form.str.ends_with(APOSTROPHES[0]) | form.str.ends_with(APOSTROPHES[1])
