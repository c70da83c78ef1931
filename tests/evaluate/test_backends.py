"""Sentence scorers (DESIGN.md §5) against plain one-at-a-time loops, and their invariance to batch
size, padding side and order, on tiny models built offline from config and the shared tiny ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.readings.token_sums import sentence_scores

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ud_agree.evaluate.backends import load_scorer  # noqa: E402
from ud_agree.evaluate.backends.causal import CausalLM  # noqa: E402
from ud_agree.evaluate.backends.masked import MaskedPLL, token_words  # noqa: E402
from ud_agree.evaluate.backends.models import CAUSAL, load_model  # noqa: E402

from tests.paths import TINY_BERT, TINY_GPT2, needs_pud_models  # noqa: E402

SENTENCES = [
    "Les clés de l'armoire sont cassées.",
    "La petite fille regarde les oiseaux blancs.",
    "Il parle du chat.",
    "Nous sommes fatigués",
    "Le président des États-Unis est arrivé hier.",
    "Elle a été malade pendant trois semaines, puis elle est revenue au bureau.",
    "Un",
]


def tiny_gpt2(folder: Path) -> Path:
    """A 2-layer GPT-2 with random weights and the byte-level BPE of tiny-fr-ud-gpt2."""
    if not TINY_GPT2.is_dir():
        pytest.skip("shared tiny-fr-ud-gpt2 tokenizer not present")
    tokenizer = transformers.AutoTokenizer.from_pretrained(TINY_GPT2)
    config = transformers.GPT2Config(
        vocab_size=len(tokenizer), n_embd=32, n_layer=2, n_head=2, n_positions=64,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def tiny_llama(folder: Path, bos: bool = True) -> Path:
    """A 2-layer Llama-style model with random weights and a SentencePiece-style BPE (▁ marker)
    trained here on a few sentences; without `bos`, the tokenizer has neither BOS nor EOS."""
    from tokenizers import SentencePieceBPETokenizer

    pieces = SentencePieceBPETokenizer()
    specials = ["<unk>", "<s>", "</s>"] if bos else ["<unk>"]
    pieces.train_from_iterator(SENTENCES * 3, vocab_size=300, special_tokens=specials)
    extra = {"bos_token": "<s>", "eos_token": "</s>"} if bos else {}
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=pieces, unk_token="<unk>", **extra
    )
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
    )  # fmt: skip
    return save_random_llama(config, tokenizer, folder)


def causal(folder: Path, **kwargs) -> CausalLM:
    return CausalLM(load_model(str(folder), "cpu", kind=CAUSAL), **kwargs)


def loop_log_probability(model, tokenizer, text: str) -> float:
    """Σ log P(token | BOS, earlier tokens), one sentence at a time, from model(ids).logits."""
    bos = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    ids = ([bos] if bos is not None else []) + ids
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double()
    logprobs = logits[:-1].log_softmax(-1)
    return float(logprobs[torch.arange(len(ids) - 1), torch.tensor(ids[1:])].sum())


@pytest.mark.parametrize("build", [tiny_gpt2, tiny_llama])
def test_causal_scores_do_not_depend_on_batch_size_padding_side_or_order(tmp_path, build):
    folder = build(tmp_path / "model")
    reference = sentence_scores(causal(folder, batch_size=1), SENTENCES)
    for batch_size in (1, 3, 16):
        for side in ("left", "right"):
            scorer = causal(folder, batch_size=batch_size, padding_side=side)
            np.testing.assert_allclose(sentence_scores(scorer, SENTENCES), reference, atol=1e-4)
            shuffled = sentence_scores(scorer, SENTENCES[::-1])[::-1]
            np.testing.assert_allclose(shuffled, reference, atol=1e-4)
    budget = sentence_scores(causal(folder, batch_size=16, max_tokens=40), SENTENCES)
    np.testing.assert_allclose(budget, reference, atol=1e-4)


@pytest.mark.parametrize("build", [tiny_gpt2, tiny_llama])
def test_causal_scores_equal_the_loop_over_model_logits(tmp_path, build):
    folder = build(tmp_path / "model")
    scorer = causal(folder, batch_size=4, padding_side="left")
    expected = [loop_log_probability(scorer.model, scorer.tokenizer, s) for s in SENTENCES]
    np.testing.assert_allclose(sentence_scores(scorer, SENTENCES), expected, atol=1e-4)


def test_bos_is_recorded_and_without_one_the_first_token_is_not_scored(tmp_path):
    with_bos = causal(tiny_llama(tmp_path / "bos"))
    assert with_bos.facts()["bos_token"] == "<s>"
    scores = with_bos.token_scores(["Il parle du chat."])[0]
    assert scores.spans[0][0] == 0 and len(scores.spans) == len(scores.logprobs)
    without = causal(tiny_llama(tmp_path / "plain", bos=False))
    assert without.facts()["bos_token"] is None
    ids, offsets = without.encode(["Il parle du chat."])
    scores = without.token_scores(["Il parle du chat."])[0]
    assert scores.spans == offsets[0][1:] and len(scores.logprobs) == len(ids[0]) - 1
    expected = loop_log_probability(without.model, without.tokenizer, "Il parle du chat.")
    assert abs(sentence_scores(without, ["Il parle du chat."])[0] - expected) < 1e-4


def test_sentence_longer_than_the_window_is_not_scored(tmp_path):
    scorer = causal(tiny_gpt2(tmp_path / "model"))
    long = " ".join(["chat"] * 200)
    scores = sentence_scores(scorer, [long, "Il parle du chat."])
    assert np.isnan(scores[0]) and np.isfinite(scores[1])


def test_scoring_asks_no_key_value_cache_and_scores_as_the_model_with_one(tmp_path):
    # transformers builds a cache per forward by default (a copy of every layer's keys and
    # values); scoring never reads one. The scores are the plain forward's either way.
    scorer = causal(tiny_gpt2(tmp_path / "model"))
    asked: list[object] = []

    def recording(forward):
        def run(*args, **kwargs):
            asked.append(kwargs.get("use_cache"))
            return forward(*args, **kwargs)

        return run

    # The LM head runs apart from the base model (only the positions read go through it).
    for module in (scorer.model, scorer.model.base_model):
        module.forward = recording(module.forward)
    text = "Il parle du chat."
    score = sentence_scores(scorer, [text])[0]
    assert asked and set(asked) == {False}
    expected = loop_log_probability(scorer.model, scorer.tokenizer, text)
    assert abs(score - expected) < 1e-4


def test_word_tokens_are_grouped_by_span_or_whitespace():
    offsets = [(0, 0), (0, 2), (2, 5), (6, 7), (8, 8), (8, 11), (0, 0)]
    special = [1, 0, 0, 0, 0, 0, 1]
    text = "Lesch a xyz"
    assert token_words(offsets, special, text, (0, 5)) == [[1, 2]]
    # The empty token at 8 goes with the token after it, inside the word "xyz".
    assert token_words(offsets, special, text, None) == [[1, 2], [3], [4, 5]]
    # Given words (UD surface words) split "Lesch" in two; the tokenizer's words group by id.
    assert token_words(offsets, special, text, None, [(0, 2), (2, 5), (6, 11)]) == [
        [1], [2], [3, 4, 5]
    ]  # fmt: skip
    word_ids = [None, 0, 0, 1, 2, 2, None]
    assert token_words(offsets, special, text, None, None, word_ids) == [[1, 2], [3], [4, 5]]


def loop_pll(model, tokenizer, text: str, span: tuple[int, int] | None) -> float:
    """Within-word left-to-right PLL, one masked copy at a time, from model(ids).logits."""
    encoded = tokenizer(
        text, return_offsets_mapping=True, return_special_tokens_mask=True, add_special_tokens=True
    )
    ids = encoded["input_ids"]
    # Sentence PLL: the tokenizer's own words (DESIGN.md §5, minicons' within_word_l2r).
    word_ids = encoded.word_ids() if span is None else None
    groups = token_words(
        encoded["offset_mapping"], encoded["special_tokens_mask"], text, span, None, word_ids
    )
    total = 0.0
    for group in groups:
        for j, position in enumerate(group):
            masked = list(ids)
            for later in group[j:]:
                masked[later] = tokenizer.mask_token_id
            with torch.no_grad():
                logits = model(torch.tensor([masked])).logits[0, position].double()
            total += float(logits.log_softmax(-1)[ids[position]])
    return total


@pytest.fixture(scope="module")
def tiny_bert():
    if not TINY_BERT.is_dir():
        pytest.skip("shared tiny-fr-ud-bert not present")
    return load_model(str(TINY_BERT), "cpu")


def test_sentence_pll_equals_the_loop_and_ignores_batch_size(tiny_bert):
    reference = sentence_scores(MaskedPLL(tiny_bert, "sentence", batch_size=1), SENTENCES)
    expected = [loop_pll(tiny_bert.model, tiny_bert.tokenizer, s, None) for s in SENTENCES]
    np.testing.assert_allclose(reference, expected, atol=1e-4)
    for batch_size, budget in ((7, None), (64, 100)):
        scorer = MaskedPLL(tiny_bert, "sentence", batch_size=batch_size, max_tokens=budget)
        np.testing.assert_allclose(
            sentence_scores(scorer, SENTENCES[::-1])[::-1], reference, atol=1e-4
        )


def test_word_pll_needs_the_span_of_the_word(tiny_bert):
    with pytest.raises(ValueError, match="span"):
        sentence_scores(MaskedPLL(tiny_bert, "word"), SENTENCES)


@needs_pud_models
def test_pud_pair_scores_equal_one_at_a_time_loops(pud_corpus, tiny_bert):
    """200 French-PUD pairs: causal log-probabilities and word PLL equal plain loops (1e-4)."""
    pairs = pl.read_parquet(pud_corpus / "fr" / "pairs.parquet").sample(200, seed=7)
    texts = pairs["sentence_good"].to_list() + pairs["sentence_bad"].to_list()
    spans = list(zip(pairs["start"], pairs["end_good"], strict=True)) + list(
        zip(pairs["start"], pairs["end_bad"], strict=True)
    )
    gpt2 = load_scorer(str(TINY_GPT2), device="cpu", batch_size=16)
    expected = [loop_log_probability(gpt2.model, gpt2.tokenizer, t) for t in texts]
    np.testing.assert_allclose(sentence_scores(gpt2, texts, spans), expected, atol=1e-4)
    pll = MaskedPLL(tiny_bert, "word", batch_size=16)
    expected = [
        loop_pll(tiny_bert.model, tiny_bert.tokenizer, t, s)
        for t, s in zip(texts, spans, strict=True)
    ]
    np.testing.assert_allclose(sentence_scores(pll, texts, spans), expected, atol=1e-4)


@pytest.mark.parametrize("build", [tiny_gpt2, tiny_llama])
def test_bfloat16_autocast_scores_near_float32(tmp_path, build):
    """The GPU path's dtype, run on the CPU: bfloat16 keeps about three significant digits."""
    folder = build(tmp_path / "model")
    full = sentence_scores(causal(folder), SENTENCES)
    half = sentence_scores(causal(folder, dtype="bfloat16", max_tokens=64), SENTENCES)
    assert np.isfinite(half).all()
    np.testing.assert_allclose(half, full, rtol=0.05, atol=0.5)
    assert causal(folder, dtype="bfloat16").facts()["dtype"] == "bfloat16"


def test_masked_pll_under_bfloat16_autocast_is_near_float32(tiny_bert):
    spans = [(0, 3)] * len(SENTENCES)
    full = sentence_scores(MaskedPLL(tiny_bert, "word"), SENTENCES, spans)
    half = sentence_scores(MaskedPLL(tiny_bert, "word", dtype="bfloat16"), SENTENCES, spans)
    np.testing.assert_allclose(half, full, rtol=0.05, atol=0.5)


def test_log_probabilities_over_a_big_vocabulary_carry_no_float32_bias():
    """A 262k-token vocabulary (Gemma 3's): each value within 5e-6 of float64's and no bias,
    where a float32 log_softmax on a CPU puts every value about 1e-5 too high."""
    from ud_agree.evaluate.backends.models import logprobs_at

    torch.manual_seed(0)
    logits = torch.randn(16, 262_144) * 3
    targets = torch.randint(0, 262_144, (16,))
    rows = torch.arange(16)
    found = logprobs_at(logits, rows, targets).double()
    exact = logits.double().log_softmax(-1)[rows, targets]
    assert (found - exact).abs().max() < 5e-6
    assert abs((found - exact).mean()) < 1e-6


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(("rows", "width"), [(1, 50_257), (40, 8_000), (33, 8_000), (5, 65_537)])
def test_logsumexp_by_blocks_of_rows_gives_the_same_bits(rows, width, threads):
    """Rows of 8,000 logits in blocks of 16 (of 33 rows, the last block of one joined to the one
    before), a lone row, two-row blocks of a wide row: equal to one logsumexp, bit for bit."""
    from ud_agree.evaluate.backends.models import row_logsumexp

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        torch.manual_seed(rows)
        logits = torch.randn(rows, width) * 4
        assert torch.equal(row_logsumexp(logits), torch.logsumexp(logits, dim=-1))
    finally:
        torch.set_num_threads(before)


def save_random_llama(config: Any, tokenizer: Any, folder: Path) -> Path:
    """A Llama of `config` with random weights, its norms random too (so that nothing is
    trivially symmetric), saved with `tokenizer` into `folder`."""
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config)
    with torch.no_grad():
        for module in model.modules():
            if hasattr(module, "weight") and module.weight.dim() == 1:
                module.weight.uniform_(0.5, 1.5)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
