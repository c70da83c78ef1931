"""Another word under one lemma (§4.3): an adjective's bad form drawn from a second series of
forms that UD lemmatises with it (a suppletive comparative or superlative, a variant stem)."""

from __future__ import annotations

import polars as pl

from ..paradigms import CELL_COLUMNS

# Suppletion by degree and variant stems are adjectives'; articles, pronouns and verbs change
# their initial inside one word (*il* → *la*, *is* → *are*).
SERIES_UPOS = ("ADJ",)


# The letters a suppletive word's own forms share (*melhor*/*melhores*, *mínimo*/*mínima*,
# *υψηλό*/*υψηλά*), which its other-degree forms under the same lemma do not (*mínima*/*menores*,
# *ótima*/*óptima*).
SERIES_PREFIX = 3


def initial(form: pl.Expr, letters: int = 1) -> pl.Expr:
    """A form's first letter(s), lower-cased, without diacritics (*Ótima* → *o*)."""
    plain = form.str.to_lowercase().str.normalize("NFD").str.replace_all(r"\p{M}", "")
    return plain.str.slice(0, letters)


def other_word_spellings(
    own_cells: pl.DataFrame, spellings: pl.DataFrame, forms: pl.DataFrame
) -> pl.DataFrame:
    """The spellings (`qid`, `bad_key`) refused as another word's: per question's own cell
    (`own_cells`: `qid`, the word `key` and CELL_COLUMNS) and candidate spelling of its wanted
    cell (`spellings`), an adjective's where its own cell (`forms`, by cell) holds a form of
    another initial than the word, so that the lemma spans two words there (UD lemmatises
    *melhores* as *bom*, *mínima* as *pequeno*, Greek *υψηλές* as *ψηλός*). Then a spelling
    beginning as such a form does is the other word's (*grande* → *maiores*); and where the
    word does not begin as its lemma it is the other word itself, whose own forms share its
    first SERIES_PREFIX letters (*melhores* → *melhor*, not *boa* nor *ótima*; *mínima* →
    *mínimas*, not *menores*): the others change the degree or the stem, not only the feature.
    A suppletive form alone in its cell (Danish plural *små* of *lille*) is no other word."""
    siblings = forms.select(*CELL_COLUMNS, pl.col("bad_key").alias("sibling")).unique()
    mixed = (
        own_cells.filter(pl.col("upos").is_in(SERIES_UPOS))
        .join(siblings, on=CELL_COLUMNS)
        .filter(initial(pl.col("sibling")) != initial(pl.col("key")))
        .select("qid", "key", "lemma", initial(pl.col("sibling")).alias("other"))
        .unique()
    )
    # The word is the other word itself: only its own series' forms (same first letters) stay.
    word_is_other = initial(pl.col("key")) != initial(pl.col("lemma"))
    word_is_other = (
        word_is_other
        & (pl.col("other") == initial(pl.col("lemma")))
        & (initial(pl.col("bad_key"), SERIES_PREFIX) != initial(pl.col("key"), SERIES_PREFIX))
    )
    spelling_is_other = pl.col("other") == initial(pl.col("bad_key"))
    return (
        mixed.join(spellings.select("qid", "bad_key"), on="qid")
        .filter(word_is_other | spelling_is_other)
        .select("qid", "bad_key")
        .unique()
    )
