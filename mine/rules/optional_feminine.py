"""Where the feminine is optional (Norwegian Bokmål): a feminine noun may take the masculine's
agreement, so a word agreeing with it varied from feminine into masculine is no violation; and a
noun of both genders (*en/ei regjering*) tagged masculine may take the feminine's."""

from __future__ import annotations

import polars as pl

# The types whose target agrees with a noun's gender in the noun phrase: *kona di* / *kona din*,
# *ei bok* / *en bok*, *ei lita bok* / *en liten bok* (Faarlund, Lie & Vannebo 1997).
TYPES = ("possessive", "determiner", "attributive")
# UniMorph's tags of a noun of both genders (UniMorph 4's `+` joins the values a form has).
BOTH_GENDERS = frozenset({"FEM+MASC", "MASC+FEM"})
# The types whose target goes with the noun's indefinite form, which does not show its gender:
# a possessive follows the definite form, whose *-en* or *-a* does (*stillingen sin*).
INDEFINITE_TYPES = ("determiner", "attributive")
# The shortest compound head read for a noun UniMorph does not list (*flertalls|regjering*).
SHORTEST_HEAD = 4


def optional_feminine(
    tries: pl.DataFrame, treebanks: frozenset[str], nouns: dict[str, bool] | None = None
) -> pl.Series:
    """A possessive, determiner or attributive of a feminine noun varied into the masculine, in
    the `treebanks` (names) whose feminine is optional (empty: every treebank of the language):
    Bokmål, not Nynorsk, which shares the code and whose feminine is obligatory. And one of a
    masculine noun varied into the feminine where the noun has both genders (`nouns`: lemma →
    both genders, from the language's UniMorph paradigms; `two_genders`), a determiner or
    attributive only (*en/ei regjering*)."""
    where = pl.col("treebank").is_in(sorted(treebanks)) if treebanks else pl.lit(True)
    gender = (pl.col("type").is_in(TYPES)) & (pl.col("varied") == "target") & where
    gender &= pl.col("feature") == "Gender"
    into_masculine = (pl.col("k_o_values") == "Fem") & (pl.col("bad_value") == "Masc")
    refused = into_masculine
    if nouns:
        lemmas = tries.get_column("o_lemma").drop_nulls().unique().to_list()
        both = sorted(lemma for lemma in lemmas if two_genders(lemma, nouns))
        into_feminine = (
            (pl.col("k_o_values") == "Masc")
            & (pl.col("bad_value") == "Fem")
            & pl.col("type").is_in(INDEFINITE_TYPES)
        )
        refused = into_masculine | (into_feminine & pl.col("o_lemma").is_in(both))
    return tries.select((gender & refused).fill_null(False)).to_series()


def two_genders(lemma: str, nouns: dict[str, bool]) -> bool:
    """Whether a noun has both genders: as its paradigm says, or, for a compound no paradigm
    lists, as the longest final part that one lists says (*flertallsregjering*: *regjering*,
    both; *journalist* is listed itself, masculine, so its *list* is never read)."""
    lemma = lemma.lower()
    if lemma in nouns:
        return nouns[lemma]
    for start in range(1, len(lemma) - SHORTEST_HEAD + 1):
        if lemma[start:] in nouns:
            return nouns[lemma[start:]]
    return False


def two_gender_nouns(entries: pl.DataFrame) -> dict[str, bool]:
    """Noun lemma (lower-cased) → whether its UniMorph paradigm gives it both genders, from
    (form, lemma, tags) lines."""
    nouns = entries.filter(pl.col("tags").str.split(";").list.contains("N")).select(
        pl.col("lemma").str.to_lowercase(),
        pl.col("tags")
        .str.split(";")
        .list.eval(pl.element().is_in(sorted(BOTH_GENDERS)))
        .list.any()
        .alias("both"),
    )
    return dict(nouns.group_by("lemma").agg(pl.col("both").any()).iter_rows())
