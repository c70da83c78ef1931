"""Whole-word vocabulary per tokenizer family, case folding, and coverage (DESIGN.md §1.5)."""

from __future__ import annotations

import polars as pl
import pytest
from ud_agree.evaluate.readings.candidates import (
    build_candidates,
    coverage,
    vocab_casings,
    whole_word_vocab,
)

transformers = pytest.importorskip("transformers")

from tests.paths import needs_models  # noqa: E402


def lexicon(rows):
    """A lexicon frame from (form, upos, number, count) rows."""
    return pl.DataFrame(
        {
            "form": [r[0] for r in rows],
            "upos": [r[1] for r in rows],
            "number": [[r[2]] for r in rows],
            "gender": [[] for _ in rows],
            "case": [[] for _ in rows],
            "person": [[] for _ in rows],
            "definite": [[] for _ in rows],
            "count": [r[3] for r in rows],
        },
        schema_overrides={
            "gender": pl.List(pl.String),
            "case": pl.List(pl.String),
            "person": pl.List(pl.String),
            "definite": pl.List(pl.String),
        },
    )


@needs_models
def test_wordpiece_whole_words_exclude_continuations_specials_and_unused(tokenizers):
    tok = tokenizers["bert-base-multilingual-cased"]
    words = whole_word_vocab(tok)
    vocab = tok.get_vocab()
    assert words["maison"] == vocab["maison"]
    assert not any(w.startswith("##") for w in words)
    assert "[MASK]" not in words and "[CLS]" not in words and "[unused1]" not in words
    assert "sées" not in words or vocab.get("sées") is not None  # "##sées" never becomes "sées"
    assert len(words) == sum(
        1
        for t, i in vocab.items()
        if not t.startswith("##") and not t.startswith("[unused") and i not in tok.all_special_ids
    )


@needs_models
@pytest.mark.parametrize("name", ["xlm-roberta-base", "camembert-base"])
def test_sentencepiece_whole_words_start_with_the_marker_which_is_stripped(tokenizers, name):
    tok = tokenizers[name]
    words = whole_word_vocab(tok)
    vocab = tok.get_vocab()
    assert words["porte"] == vocab["\u2581porte"]
    assert "\u2581" not in words and "" not in words
    assert tok.mask_token not in words and "<s>" not in words and "</s>" not in words
    # Pieces without the marker continue a word: "s" of "▁clé s" is no candidate as such.
    assert all(vocab["\u2581" + w] == i for w, i in list(words.items())[:1000])


def test_fold_merges_casings_and_sums_their_token_ids():
    words = {"Le": 1, "le": 2, "LE": 3, "chat": 4}
    assert vocab_casings(words, fold=True)["le"] == [1, 2, 3]
    assert vocab_casings(words, fold=False)["Le"] == [1]
    lex = lexicon([("Le", "DET", "Sing", 3), ("le", "DET", "Sing", 9), ("chat", "NOUN", "Sing", 2)])
    folded = build_candidates(lex, words, fold=True)
    assert folded.keys == ["le", "chat"] or sorted(folded.keys) == ["chat", "le"]
    le = folded.keys.index("le")
    assert folded.token_ids[le] == [1, 2, 3] and folded.counts[le] == 12
    exact = build_candidates(lex, words, fold=False)
    assert sorted(zip(exact.keys, map(tuple, exact.token_ids), strict=False)) == [
        ("Le", (1,)),
        ("chat", (4,)),
        ("le", (2,)),
    ]


def test_folded_bundles_are_the_union_over_casings():
    lex = lexicon([("Sheep", "NOUN", "Sing", 1), ("sheep", "NOUN", "Plur", 1)])
    cands = build_candidates(lex, {"sheep": 7}, fold=True)
    assert len(cands) == 1
    assert {b[0] for b in cands.bundles[0]} == {frozenset({"Sing"}), frozenset({"Plur"})}


def test_forms_outside_the_vocabulary_are_no_candidates_and_lower_coverage():
    lex = lexicon(
        [("chat", "NOUN", "Sing", 1), ("chats", "NOUN", "Plur", 1), ("le", "DET", "Sing", 1)]
    )
    cands = build_candidates(lex, {"chat": 1, "le": 2}, fold=True)
    assert sorted(cands.keys) == ["chat", "le"]
    cov = coverage(lex, cands, [("NOUN", "chats"), ("NOUN", "Chat"), ("DET", "le")], fold=True)
    figures = cov.as_dict()
    assert (figures["lexicon_forms"], figures["lexicon_forms_scorable"]) == (3, 2)
    assert (figures["masked_words"], figures["masked_words_scorable"]) == (3, 2)


def test_frequency_candidates_need_a_positive_count_and_no_vocabulary():
    lex = lexicon([("chat", "NOUN", "Sing", 2), ("chats", "NOUN", "Plur", 0)])
    cands = build_candidates(lex, None, fold=True, min_count=1)
    assert cands.keys == ["chat"] and cands.token_ids == [[]]


def test_byte_bpe_whole_words_start_with_g_and_decode_non_ascii_letters():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(["les clés ont été cassées", "la clé est cassée"] * 20, trainer)
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
        unk_token="<unk>", mask_token="<mask>",
    )  # fmt: skip
    words = whole_word_vocab(tok)
    # "Ġcl\u00c3\u00a9s" in the vocabulary is the word "clés".
    assert tok.convert_ids_to_tokens(words["clés"]).startswith("\u0120")
    assert {"clés", "cassées", "été", "les"} <= set(words)
    assert not any(w.startswith("\u0120") for w in words) and "<mask>" not in words
