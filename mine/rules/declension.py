"""German adjective declension (§4.3): the bad form must end as its declension class's bad cell
does."""

from __future__ import annotations

import polars as pl

from ..languages import Declension, Endings


def declension_of_determiner() -> pl.Expr:
    """Over determiner relations: the declension their noun's adjectives take (German): weak
    after a definite, demonstrative, interrogative or total determiner (*der*, *dieser*,
    *welcher*, *jeder*), mixed after an indefinite, negative or possessive one (*ein*, *kein*,
    *mein*); null after others (*viele*, a numeral: not decided here)."""
    feats = pl.col("target_feats").fill_null("")
    weak = feats.str.contains(r"(?:^|\|)(?:Definite=Def|PronType=(?:Dem|Int|Tot))(?:\||$)")
    mixed = feats.str.contains(r"(?:^|\|)(?:Definite=Ind|Poss=Yes|PronType=Neg)(?:\||$)")
    return pl.when(weak).then(pl.lit("weak")).when(mixed).then(pl.lit("mixed"))


def changes_declension(endings: Endings) -> pl.Expr:
    """Over attempts with a bad form (`bad_key`): an attributive word whose bad form has an
    ending its context does not allow (§4.1: *den neuen* → *neuer* changes the declension, not
    the Number; `determined`: its noun has a definite or demonstrative determiner; contexts
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
            pl.when(pl.col("determined") & plural)
            .then(allowed.get("definite-plural", definite))
            .when(pl.col("determined"))
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
