"""§4.3 another word under one lemma: UD lemmatises Portuguese *melhores* as *bom*, so the
lemma's paradigm holds two words; a bad form of the other word changes the degree, not only the
feature. Sentences written here, where the right pairs are known."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips


def predicate(noun: str, gender: str, number: str, copula: str, adjective: str, lemma: str):
    """*<article> <noun> <copula> <adjective>*: a predicative adjective with its subject."""
    article = {"FemSing": "a", "FemPlur": "as", "MascSing": "o", "MascPlur": "os"}
    feats = f"Gender={gender}|Number={number}"
    return (
        f"1 {article[gender + number]} o DET Definite=Def|{feats}|PronType=Art 2 det",
        f"2 {noun} {noun} NOUN {feats} 4 nsubj",
        f"3 {copula} ser AUX Mood=Ind|Number={number}|Person=3|Tense=Pres|VerbForm=Fin 4 cop",
        f"4 {adjective} {lemma} ADJ {feats} 0 root",
    )


# The base adjective's paradigm, and the comparative lemmatised with it (as Bosque does).
BOM = [
    predicate("casa", "Fem", "Sing", "é", "boa", "bom"),
    predicate("carro", "Masc", "Sing", "é", "bom", "bom"),
    predicate("casas", "Fem", "Plur", "são", "boas", "bom"),
    predicate("carros", "Masc", "Plur", "são", "bons", "bom"),
    predicate("ruas", "Fem", "Plur", "são", "melhores", "bom"),
    predicate("rua", "Fem", "Sing", "é", "melhor", "bom"),
]


def contrasts(pairs: pl.DataFrame, sent_id: str) -> set[tuple[str, str, str]]:
    rows = pairs.filter((pl.col("sent_id") == sent_id) & (pl.col("type") == "predicative"))
    return set(rows.select("feature", "good_form", "bad_form").iter_rows())


def skipped(skips: pl.DataFrame, sent_id: str) -> set[tuple[str, str | None, str]]:
    rows = skips.filter((pl.col("sent_id") == sent_id) & (pl.col("type") == "predicative"))
    return set(rows.select("feature", "bad_value", "reason").iter_rows())


def test_a_comparative_lemmatised_as_its_base_is_varied_within_its_own_forms(tmp_path):
    # *as coisas são melhores* → *boa*: *boa* is *bom*'s, another word (the degree changes).
    # s1's own cell (Fem Plur of *bom*) holds *boas*, so *melhores* is the other word: its
    # Number is varied into *melhor*, and its Gender, whose cell holds *bons* alone, not at all.
    s1 = predicate("coisas", "Fem", "Plur", "são", "melhores", "bom")
    pairs, skips, _ = mine_with_skips(tmp_path, s1, *BOM * 2, lang="Portuguese")
    assert contrasts(pairs, "s1") == {("Number", "melhores", "melhor")}
    assert ("Gender", "Masc", "other-word") in skipped(skips, "s1")


def test_the_base_adjective_is_not_varied_into_the_comparative(tmp_path):
    # *a casa é boa* → Plur: *boas*, never *melhores* (the Fem Sing cell holds *melhor*, the
    # other word's initial), even where *melhores* is the Plur cell's most frequent spelling.
    more = [predicate("ruas", "Fem", "Plur", "são", "melhores", "bom")] * 4
    pairs, _, _ = mine_with_skips(tmp_path, *BOM, *more, lang="Portuguese")
    assert ("Number", "boa", "boas") in contrasts(pairs, "s1")
    assert ("Number", "boa", "melhores") not in contrasts(pairs, "s1")


def test_a_suppletive_form_alone_in_its_cell_is_still_the_bad_form(tmp_path):
    # Danish-like suppletion with one word per cell: *lille* → Plur *små* is the lemma's only
    # plural, no other word beside it, so *as casas são lille* → the pair stands (here with
    # Portuguese spelling of made-up forms: *lile* Sing, *sma* Plur).
    s1 = predicate("casa", "Fem", "Sing", "é", "lile", "lile")
    plural = predicate("casas", "Fem", "Plur", "são", "sma", "lile")
    pairs, _, _ = mine_with_skips(tmp_path, s1, plural, plural, lang="Portuguese")
    assert ("Number", "lile", "sma") in contrasts(pairs, "s1")
