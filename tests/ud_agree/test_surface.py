"""Surface text and surface words (DESIGN.md §1.4, §5) on sentences written here."""

from __future__ import annotations

from ud_agree.surface import surface_text, word_spans

WORDS = ["L'", "homme", "précédent", ",", "est", "parti", "."]
SPACE_AFTER = [False, True, False, True, True, False, False]


def pieces(text: str, spans) -> list[str]:
    return [text[a:b] for a, b in spans]


def test_text_joins_words_with_a_space_except_after_space_after_no():
    text, spans = surface_text(WORDS, SPACE_AFTER)
    assert text == "L'homme précédent, est parti."
    assert pieces(text, spans) == WORDS


def test_a_sentence_with_replaced_words_splits_into_the_same_words():
    for replaced in ({1: "chat", 5: "mangé"}, {1: "hommes", 2: "précédents"}, {4: "sont"}, {}):
        text, spans = surface_text(WORDS, SPACE_AFTER, replaced)
        assert word_spans(text, WORDS, SPACE_AFTER) == spans, replaced


def test_glued_words_are_split_with_punctuation_as_written():
    # "précédents," is the adjective replaced and its comma, never "précédent" + "s,".
    text = "L'homme précédents, est parti."
    assert pieces(text, word_spans(text, WORDS, SPACE_AFTER))[2:4] == ["précédents", ","]
    # "mangé." is one replaced word and the period, not "m" + "angé.".
    text = "L'homme précédent, est mangé."
    assert pieces(text, word_spans(text, WORDS, SPACE_AFTER))[5:] == ["mangé", "."]


def test_a_sentence_not_written_from_the_words_has_no_split():
    assert word_spans("L'homme est parti.", WORDS, SPACE_AFTER) is None
    assert word_spans("L'homme précédent; est parti.", WORDS, SPACE_AFTER) is None
