"""Masked sentences from surface words, windowing, and distance in model tokens (DESIGN.md §1.4–1.5)."""

from __future__ import annotations

import polars as pl
import pytest
from ud_agree.evaluate.backends.api import Blank
from ud_agree.evaluate.backends.encoding import encode, window
from ud_agree.evaluate.backends.masking import hide, mask_position
from ud_agree.evaluate.readings.distance import masked_distances
from ud_agree.evaluate.tasks.class_average import blanks
from ud_agree.evaluate.tasks.spec import ItemChoice

from ud_agree.surface import surface_text

transformers = pytest.importorskip("transformers")
from tests.paths import FAMILIES, needs_models  # noqa: E402

WORDS = ["Les", "clés", "de", "la", "porte", "sont", "cassées", "."]
SPACE = [True, True, True, True, True, True, False, False]


def masked_text(words, space_after, masked, token):
    """A sentence's text with the words `masked` hidden behind `token`, as a masked LM reads it."""
    text, spans = surface_text(words, space_after)
    return hide(text, [spans[m] for m in masked], token)


def test_masked_text_follows_space_after_and_masks_the_whole_surface_word():
    text, spans = masked_text(
        ["J'", "aime", "du", "pain", "."], [False, True, True, False, False], [2, 3], "[MASK]"
    )
    assert text == "J'aime [MASK] [MASK]."
    assert [text[slice(*s)] for s in spans] == ["[MASK]", "[MASK]"]
    assert spans == [(7, 13), (14, 20)]


def test_masked_text_without_space_after_joins_with_spaces():
    text, spans = masked_text(["a", "b", "."], None, [1], "<mask>")
    assert text == "a <mask> ." and spans == [(2, 8)]


def test_a_hidden_word_reads_as_the_word_replaced_in_the_sentence():
    # Hiding a word's span in the sentence gives the sentence written with the mask in its place.
    words, space = ["J'", "aime", "", "pain", "."], [False, True, True, False, False]
    text, spans = surface_text(words, space)
    for at in range(len(words)):
        expected, where = surface_text(words, space, {at: "<mask>"})
        assert hide(text, [spans[at]], "<mask>") == (expected, [where[at]])


def test_the_class_average_task_asks_its_blanks_in_the_sentence():
    items = pl.DataFrame(
        {"words": [["Le", "chat", "dort"]], "space_after": [None], "masked_surface": [1]}
    )
    (context,) = blanks(items, ItemChoice().control)
    assert context == Blank("Le chat dort", ((3, 7),))
    (alone,) = blanks(items, "no-context")
    assert alone == Blank("Le chat dort", ((0, 2), (3, 7), (8, 12)), 1)
    assert alone.span == (3, 7)


def test_window_keeps_the_mask_inside_and_the_special_tokens():
    ids = [101, *list(range(1000, 1300)), 102]
    cut, position = window(ids, 250, 64)
    assert len(cut) == 64 and cut[0] == 101 and cut[-1] == 102
    assert cut[position] == ids[250]
    assert 20 < position < 44  # near the middle
    same, p = window(ids[:50], 10, 64)
    assert same == ids[:50] and p == 10


@needs_models
@pytest.mark.parametrize("name", FAMILIES)
def test_distance_in_tokens_counts_from_the_mask_to_the_other_words_first_token(tokenizers, name):
    tok = tokenizers[name]
    text, spans = surface_text(WORDS, SPACE, {1: tok.mask_token})
    # Les [MASK] de la porte sont cas… : mask at 2; "cassées" starts at 7 in all three families.
    enc = encode(tok, [text, text], [spans[1]] * 2, [0, 0], 512)
    assert enc.input_ids[0][enc.mask_position[0]] == tok.mask_token_id
    assert enc.mask_position.tolist() == [2, 2]
    assert masked_distances(tok, [text, text], [spans[1]] * 2, [spans[6], spans[0]]) == [5, 1]
    assert not enc.windowed.any()


@needs_models
def test_long_sentences_are_windowed_around_the_mask_and_counted(tokenizers):
    tok = tokenizers["bert-base-multilingual-cased"]
    words = ["maison"] * 300 + ["les", "clés", "."]
    text, spans = surface_text(words, None, {301: tok.mask_token})
    enc = encode(tok, [text], [spans[301]], [0], 128)
    assert enc.windowed.tolist() == [True]
    ids = enc.input_ids[0]
    assert len(ids) == 128 and ids[enc.mask_position[0]] == tok.mask_token_id
    # Counted in the whole sentence, not the window.
    assert masked_distances(tok, [text], [spans[301]], [spans[300]]) == [1]


@needs_models
def test_no_context_text_scores_the_masked_words_own_mask(tokenizers):
    tok = tokenizers["xlm-roberta-base"]
    text, spans = surface_text(WORDS, SPACE, dict.fromkeys(range(len(WORDS)), tok.mask_token))
    enc = encode(tok, [text], [spans[4]], [4], 512)
    ids = enc.input_ids[0]
    assert ids.count(tok.mask_token_id) == len(WORDS)
    assert [k for k, t in enumerate(ids) if t == tok.mask_token_id][4] == enc.mask_position[0]


class WhitespaceTokenizer:
    """A tokenizer written here: one token a whitespace chunk, `[CLS]`/`[SEP]` around when asked."""

    mask_token, mask_token_id = "[MASK]", 1

    def __call__(self, texts, add_special_tokens=True, return_offsets_mapping=True, **_):
        import re

        ids, offsets = [], []
        for text in texts:
            spans = [m.span() for m in re.finditer(r"\S+", text)]
            tokens = [1 if text[a:b] == self.mask_token else 5 for a, b in spans]
            if add_special_tokens:
                tokens, spans = [2, *tokens, 3], [(0, 0), *spans, (0, 0)]
            ids.append(tokens)
            offsets.append(spans)
        return {"input_ids": ids, "offset_mapping": offsets}


class EncodeOnly:
    """A back-end that only encodes (no `distance_tokens` of its own), as every back-end now does."""

    def __init__(self, context):
        self.context, self.tokenizer = context, WhitespaceTokenizer()

    def encode(self, blanks):
        return None, 0


# The causal reading keeps only items whose other word comes first: one item for "left".
@pytest.mark.parametrize(
    ("context", "masked", "other", "expected"),
    [("both", [1, 5], [5, 1], [4, 4]), ("left", [5], [1], [4])],
)
def test_the_class_average_task_counts_distance_tokens_itself(context, masked, other, expected):
    import polars as pl
    from ud_agree.evaluate.tasks.class_average import ClassAverage

    # Le chat que je vois dort: target dort (5), controller chat (1). Masking chat, the masked
    # sentence reads [CLS] Le [MASK] que je vois dort [SEP]: mask at 2, dort at 6, 4 apart.
    # Masking dort, the causal prefix "Le chat que je vois" holds 4 tokens from chat on.
    words = ["Le", "chat", "que", "je", "vois", "dort"]
    items = pl.DataFrame(
        {
            "words": [words] * len(masked),
            "space_after": [None] * len(masked),
            "masked_surface": masked,
            "other_surface": other,
        }
    )
    task = ClassAverage.__new__(ClassAverage)
    task.backend, task.context, task.choice = EncodeOnly(context), context, ItemChoice()
    out, _, windowed = task.encode(items)
    assert out["distance_tokens"].to_list() == expected and windowed == 0


def test_the_scored_mask_is_the_one_over_the_word_else_by_rank():
    # One rule for the encoder (which mask is scored) and the token distance (counted from it).
    mask = 9
    ids = [1, mask, 5, mask, 2]
    offsets = [(0, 0), (0, 6), (7, 9), (10, 16), (0, 0)]
    assert mask_position(ids, offsets, (10, 16), mask) == 3  # the mask over the word
    drifted = [(0, 0), (0, 0), (7, 9), (0, 0), (0, 0)]  # offsets that place no mask
    assert mask_position(ids, drifted, (10, 16), mask, ordinal=1) == 3
    assert mask_position(ids, drifted, (10, 16), mask) == 1
    assert mask_position([1, 5, 2], [(0, 0), (7, 9), (0, 0)], (7, 9), mask) == 1  # no mask
