"""A word quoted after a noun that names words is mentioned, not used (`mentioned-word`):
*el término "histórico"* agrees with nothing, so *el término "históricos"* is as grammatical
(Rey-Debove, *Le Métalangage*, on autonymy). Sentences written here, where the right pairs are
known; the relations' context is checked against the word-by-word reference too."""

from __future__ import annotations

from mine.languages import VerbContext, load_verb_contexts
from tests.mine.test_pairs import mine_with_skips
from tests.mine.test_participle_context import contexts, made, reasons

EL = "Definite=Def|Gender=Masc|Number=Sing|PronType=Art"
LA = "Definite=Def|Gender=Fem|Number=Sing|PronType=Art"


def quoted(noun: str, gender: str, adjective: str, feats: str) -> tuple[str, ...]:
    """*El <noun> "<adjective>"*: the adjective alone in quotation marks, the noun's `amod`."""
    return (
        f"1 {'El' if gender == 'Masc' else 'La'} el DET {EL if gender == 'Masc' else LA} 2 det",
        f"2 {noun} {noun} NOUN Gender={gender}|Number=Sing 0 root",
        '3 " " PUNCT _ 4 punct',
        f"4 {adjective} {adjective.rstrip('s')} ADJ {feats} 2 amod",
        '5 " " PUNCT _ 4 punct',
    )


MENTIONED = quoted("término", "Masc", "histórico", "Gender=Masc|Number=Sing")
# Scare quotes: the word is used, and agrees (*la reforma "protestantes"* is no Spanish).
SCARE = quoted("reforma", "Fem", "protestante", "Number=Sing")
UNQUOTED = (
    f"1 El el DET {EL} 2 det",
    "2 término término NOUN Gender=Masc|Number=Sing 0 root",
    "3 histórico histórico ADJ Gender=Masc|Number=Sing 2 amod",
)
# The adjectives' other forms, for the lexicon.
FORMS = (
    (
        "1 Los el DET Definite=Def|Gender=Masc|Number=Plur|PronType=Art 2 det",
        "2 libros libro NOUN Gender=Masc|Number=Plur 0 root",
        "3 históricos histórico ADJ Gender=Masc|Number=Plur 2 amod",
        "4 protestantes protestante ADJ Number=Plur 2 amod",
    ),
)


def test_a_word_quoted_after_a_noun_that_names_words_makes_no_pair(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, MENTIONED, SCARE, UNQUOTED, *FORMS, lang="Spanish")
    assert made(pairs, "s1", "attributive") == set()
    assert "mentioned-word" in reasons(skips, "s1")
    # Its determiner still agrees with the noun: *los término* is no Spanish.
    assert ("El", "Los") in made(pairs, "s1", "determiner")
    # A word in scare quotes is used, and the same word unquoted too.
    assert made(pairs, "s2", "attributive") == {("protestante", "protestantes")}
    assert made(pairs, "s3", "attributive") == {("histórico", "históricos")}
    assert "mentioned-word" not in reasons(skips, "s2") | reasons(skips, "s3")


def test_the_engine_and_the_reference_read_a_mentioned_word_alike():
    spanish = load_verb_contexts()["es"]
    assert "término" in spanish.metalinguistic_nouns
    assert ("attributive", 4, "mentioned-word") in contexts(*MENTIONED, context=spanish)
    assert ("attributive", 4, None) in contexts(*SCARE, context=spanish)
    assert ("attributive", 3, None) in contexts(*UNQUOTED, context=spanish)
    # A language without the list reads the quoted word as used.
    assert ("attributive", 4, None) in contexts(*MENTIONED, context=VerbContext())
