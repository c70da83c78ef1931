"""Each shared prefix computed once (DESIGN §5): families and packed rows on sequences written here,
and the causal scorer's packed path equal to one full forward per sequence (tiny random GPT-2 and
Mistral), whatever the batch size and order; next-token distributions read off longer forwards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ud_agree.evaluate.backends.prefixes import longest_holders, pack, rows, shared_length

from tests.paths import MODELS

GOOD = [0, 5, 6, 7, 8, 9]
BAD = [0, 5, 6, 4, 8, 9]  # the varied word is token 3
OTHER = [0, 1, 2]


def test_a_variant_shares_the_row_of_the_sentence_it_shares_a_prefix_with():
    assert rows([GOOD, BAD, OTHER], max_length=100) == [[2], [1, 0]]  # lexicographic order
    assert rows([], max_length=100) == []


def test_a_packed_row_reads_every_token_from_its_own_context():
    row = pack([1, 0], [GOOD, BAD])
    # Each member's last token (9) predicts nothing and is not run.
    assert row.ids == [*BAD[:-1], 7, 8] and row.positions == [0, 1, 2, 3, 4, 3, 4]
    # GOOD's own tokens see the shared prefix only, then each other.
    assert row.allowed[5].tolist() == [True, True, True, False, False, True, False]
    assert row.allowed[6].tolist() == [True, True, True, False, False, True, True]
    assert row.members == [1, 0] and row.counts == [5, 5]
    reads = list(zip(row.read_at.tolist(), row.read_tokens.tolist(), strict=True))
    # BAD's tokens are predicted by its own outputs; GOOD's 5 and 6 by the same outputs (the
    # shared prefix), its 7 after the prefix's last token, then by its own outputs.
    assert reads[:5] == [(0, 5), (1, 6), (2, 4), (3, 8), (4, 9)]
    assert reads[5:] == [(0, 5), (1, 6), (2, 7), (5, 8), (6, 9)]


def test_a_member_that_another_goes_on_from_keeps_its_last_token():
    short, long = [0, 5, 6], [0, 5, 6, 7, 8]
    row = pack([0, 1], [short, long])
    assert row.ids == [0, 5, 6, 7]  # 6 is run (long reads 7 after it), 8 is not
    reads = list(zip(row.read_at.tolist(), row.read_tokens.tolist(), strict=True))
    assert reads == [(0, 5), (1, 6), (0, 5), (1, 6), (2, 7), (3, 8)]


def test_each_distinct_prefix_is_one_token_of_the_row():
    # Two words varied: each variant shares more with another variant than with the first.
    variants = [[0, 5, 6, 7, 8, 9], [0, 5, 6, 7, 8, 1], [0, 5, 6, 4, 8, 9], [0, 5, 6, 4, 8, 1]]
    row = pack(*rows(variants, max_length=100), variants)
    # Every distinct prefix that predicts a token (each variant's whole sequence predicts none).
    distinct = {tuple(v[:k]) for v in variants for k in range(1, len(v))}
    assert len(row.ids) == len(distinct) == 7
    # Each token attends to exactly the tokens of its prefix, at its depth.
    for query, depth in enumerate(row.positions):
        assert row.allowed[query].sum() == depth + 1


def test_short_sharing_and_long_rows_get_rows_of_their_own():
    assert rows([[0, 1, 2, 3], [0, 1, 9, 9]], 100) == [[0], [1]]  # 2 shared
    long = rows([GOOD, BAD, [0, 5, 6, 3, 3, 3]], max_length=len(GOOD) + 3)
    assert sorted(map(len, long)) == [1, 2]


def test_a_prefix_is_read_off_the_longest_sequence_holding_it():
    sequences = [[0, 1], [0, 1, 2, 3], [0, 1, 2], [0, 4]]
    assert longest_holders(sequences).tolist() == [1, 1, 1, 3]
    assert shared_length([0, 1, 2], [0, 1, 3]) == 2


torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ud_agree.evaluate.backends.causal import CausalLM, head_chunk  # noqa: E402
from ud_agree.evaluate.backends.models import CAUSAL, load_model  # noqa: E402

TEXTS = [
    "Les chats du voisin dorment dans le jardin.",
    "Les chats du voisin dort dans le jardin.",
    "Les chats du voisins dorment dans le jardin.",
    "Le chat du voisin dort dans le jardin.",
    "Le chat du voisin dorment dans le jardin.",
    "La petite fille regarde les oiseaux blancs.",
    "La petite fille regardent les oiseaux blancs.",
    "Il parle.",
    "Il",
]


def build(kind: str, folder: Path) -> Path:
    if kind == "gpt2":
        if not (MODELS / "tiny-fr-ud-gpt2").is_dir():
            pytest.skip("shared tiny-fr-ud-gpt2 not present")
        tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "tiny-fr-ud-gpt2")
        config = transformers.GPT2Config(vocab_size=len(tokenizer), n_embd=32, n_layer=2,
                                         n_head=2, n_positions=64,
                                         bos_token_id=tokenizer.bos_token_id,
                                         eos_token_id=tokenizer.eos_token_id)  # fmt: skip
        model = transformers.GPT2LMHeadModel(config)
    else:
        if not (MODELS / "mistral-v0.3-tokenizer").is_dir():
            pytest.skip("shared mistral-v0.3-tokenizer not present")
        tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "mistral-v0.3-tokenizer")
        config = transformers.MistralConfig(vocab_size=len(tokenizer), hidden_size=32,
                                            intermediate_size=64, num_hidden_layers=2,
                                            num_attention_heads=4, num_key_value_heads=2,
                                            max_position_embeddings=64,
                                            bos_token_id=tokenizer.bos_token_id,
                                            eos_token_id=tokenizer.eos_token_id)  # fmt: skip
        torch.manual_seed(0)
        model = transformers.MistralForCausalLM(config)
    torch.manual_seed(0)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.parametrize("kind", ["gpt2", "mistral"])
def test_shared_prefixes_give_the_full_forwards_log_probabilities(tmp_path, kind):
    loaded = load_model(str(build(kind, tmp_path / kind)), "cpu", kind=CAUSAL)
    full = CausalLM(loaded, batch_size=4, share_prefixes=False)
    ids, _ = full.encode(TEXTS)
    expected = full.token_logprobs(ids)
    for batch_size, max_tokens in ((1, None), (3, None), (64, 40)):
        shared = CausalLM(loaded, batch_size=batch_size, max_tokens=max_tokens)
        assert shared.shares_prefixes and shared.facts()["shared_prefixes"] is True
        got = shared.token_logprobs(ids)
        # Fewer positions run than one forward per sequence: the variants' prefixes ran once.
        assert 0 < shared.tokens_run < full.tokens_run
        for a, b in zip(expected, got, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-4)
        reversed_order = shared.token_logprobs(ids[::-1])[::-1]
        for a, b in zip(expected, reversed_order, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-4)


def test_models_read_from_their_full_logits_score_alike(tmp_path):
    # The path for a head that is not a plain projection (soft-capping): the model's own logits.
    loaded = load_model(str(build("gpt2", tmp_path / "gpt2")), "cpu", kind=CAUSAL)
    fast = CausalLM(loaded, batch_size=3, share_prefixes=False)
    ids, _ = fast.encode(TEXTS)
    expected = fast.token_logprobs(ids)
    for share in (False, True):
        scorer = CausalLM(loaded, batch_size=3, share_prefixes=share)
        assert scorer.fast
        scorer.fast = False
        for a, b in zip(expected, scorer.token_logprobs(ids), strict=True):
            np.testing.assert_allclose(a, b, atol=1e-5)


def test_logits_computed_a_few_positions_at_a_time_score_as_all_at_once(tmp_path):
    # On a CPU a chunk's logits are held within the cache (head_chunk): a chunk boundary may fall
    # anywhere, inside a row or between a prefix and the variants read off it.
    loaded = load_model(str(build("gpt2", tmp_path / "gpt2")), "cpu", kind=CAUSAL)
    vocabulary = loaded.model.get_output_embeddings().weight.shape[0]
    whole = CausalLM(loaded, batch_size=4)
    assert whole.head_chunk == max(256, (1 << 22) // vocabulary)
    assert head_chunk(8000, torch.device("cpu")) == 524  # 4M logits, within a cache
    assert head_chunk(262_144, torch.device("cpu")) == 256  # the head read once per 256
    assert head_chunk(2_000_000, torch.device("cpu")) == 33  # within 64M logits
    assert head_chunk(128_256, torch.device("meta")) == 8192  # an accelerator: big chunks
    ids, _ = whole.encode(TEXTS)
    whole.head_chunk = 10**6
    expected = whole.token_logprobs(ids)
    for share in (True, False):
        chunked = CausalLM(loaded, batch_size=4, share_prefixes=share)
        chunked.head_chunk = 7
        for a, b in zip(expected, chunked.token_logprobs(ids), strict=True):
            np.testing.assert_allclose(a, b, atol=1e-5)


def test_packed_batches_hold_the_token_budget(tmp_path):
    loaded = load_model(str(build("gpt2", tmp_path / "gpt2")), "cpu", kind=CAUSAL)
    shapes: list[tuple[int, int]] = []
    loaded.model.base_model.register_forward_pre_hook(
        lambda module, args, kwargs: shapes.append(tuple(kwargs.get("input_ids", *args[:1]).shape)),
        with_kwargs=True,
    )
    scorer = CausalLM(loaded, batch_size=64, max_tokens=30)
    ids, _ = scorer.encode(TEXTS)
    shapes.clear()
    scorer.token_logprobs(ids)
    # Every padded batch within --max-tokens, a row's shared prefix counted once.
    assert shapes and all(rows * width <= 30 for rows, width in shapes)
    # Without it, a batch holds the tokens of `batch_size` sentences of average length.
    scorer = CausalLM(loaded, batch_size=2)
    shapes.clear()
    scorer.token_logprobs(ids)
    fits = [s for s in ids if len(s) > 1]
    average = -(-sum(map(len, fits)) // len(fits))
    assert all(rows == 1 or rows * width <= 2 * average for rows, width in shapes)
    assert any(rows > 1 for rows, _ in shapes)


@pytest.mark.parametrize("kind", ["gpt2", "mistral"])
def test_next_token_distributions_of_prefixes_come_from_one_forward(tmp_path, kind):
    loaded = load_model(str(build(kind, tmp_path / kind)), "cpu", kind=CAUSAL)
    scorer = CausalLM(loaded, batch_size=4)
    ids, _ = scorer.encode(TEXTS[:1])
    prefixes = [ids[0][:k] for k in range(2, len(ids[0]) + 1)]
    together = scorer.next_token_logits(prefixes)
    assert scorer.forwards == 1
    for k, prefix in enumerate(prefixes):
        with torch.no_grad():
            alone = loaded.model(torch.tensor([prefix])).logits[0, -1].double()
        torch.testing.assert_close(together[k], alone, atol=1e-4, rtol=1e-4)


def test_a_model_refusing_the_mask_falls_back_to_full_forwards(tmp_path, monkeypatch):
    loaded = load_model(str(build("gpt2", tmp_path / "gpt2")), "cpu", kind=CAUSAL)
    expected = CausalLM(loaded, share_prefixes=False)
    ids, _ = expected.encode(TEXTS)

    def refuse(self, *args, **kwargs):
        raise RuntimeError("this model takes no 4D attention mask")

    monkeypatch.setattr(CausalLM, "_packed_logprobs", refuse)
    fallback = CausalLM(loaded)
    assert fallback.shares_prefixes is False and fallback.facts()["shared_prefixes"] is False
    for a, b in zip(expected.token_logprobs(ids), fallback.token_logprobs(ids), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)


def sliding_mistral(folder: Path, window: int | None) -> Path:
    """A tiny random Mistral (v0.1 style) attending to its last `window` positions only."""
    config = transformers.MistralConfig(vocab_size=64, hidden_size=32, intermediate_size=64,
                                        num_hidden_layers=2, num_attention_heads=4,
                                        num_key_value_heads=2, max_position_embeddings=128,
                                        sliding_window=window, bos_token_id=1,
                                        eos_token_id=2)  # fmt: skip
    torch.manual_seed(0)
    transformers.MistralForCausalLM(config).save_pretrained(folder)
    transformers.AutoTokenizer.from_pretrained(MODELS / "mistral-v0.3-tokenizer").save_pretrained(
        folder
    )
    return folder


def loop_logprobs(model, ids: list[int]) -> np.ndarray:
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double()
    return logits[:-1].log_softmax(-1)[torch.arange(len(ids) - 1), torch.tensor(ids[1:])].numpy()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_sliding_window_is_never_crossed_in_a_packed_row(tmp_path, dtype):
    if not (MODELS / "mistral-v0.3-tokenizer").is_dir():
        pytest.skip("shared mistral-v0.3-tokenizer not present")
    rng = np.random.default_rng(0)
    # Sentences of 6 to 20 tokens sharing 5- to 12-token prefixes: rows far longer than 8.
    stems = [[1, *rng.integers(3, 64, size=int(n)).tolist()] for n in (4, 8, 11)]
    sequences = [stem + rng.integers(3, 64, size=int(k)).tolist()
                 for stem in stems for k in (1, 5, 8)]  # fmt: skip
    folder = sliding_mistral(tmp_path / "m", window=8)
    packed = CausalLM(load_model(str(folder), "cpu", kind=CAUSAL), dtype=dtype)
    assert packed.shares_prefixes and packed.sliding == 8  # the probe passes in either precision
    full = CausalLM(load_model(str(folder), "cpu", kind=CAUSAL), dtype=dtype, share_prefixes=False)
    tolerance = 1e-4 if dtype == "float32" else 0.0625
    for a, b in zip(packed.token_logprobs(sequences), full.token_logprobs(sequences), strict=True):
        np.testing.assert_allclose(a, b, atol=tolerance, rtol=tolerance)
    if dtype == "float32":  # and both are the model's own forward, window included
        for sequence, a in zip(sequences, packed.token_logprobs(sequences), strict=True):
            np.testing.assert_allclose(a, loop_logprobs(packed.model, sequence), atol=1e-4)
        # The window matters here: without it the same weights give other scores.
        wide = sliding_mistral(tmp_path / "w", window=None)
        plain = CausalLM(load_model(str(wide), "cpu", kind=CAUSAL))
        longest = max(sequences, key=len)
        assert (
            np.abs(plain.token_logprobs([longest])[0] - loop_logprobs(packed.model, longest)).max()
            > 1e-3
        )


def test_without_a_sliding_window_a_row_may_outgrow_the_models_window(tmp_path):
    # A GPT-2 of 16 positions: rows of shared prefixes are laid out past 16 tokens (positions are
    # depths), so a stem's variants share one row; capped at the window, they could not.
    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "mistral-v0.3-tokenizer")
    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_embd=32, n_layer=2, n_head=2,
                                     n_positions=16, bos_token_id=1, eos_token_id=2)  # fmt: skip
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(config).save_pretrained(tmp_path / "m")
    tokenizer.save_pretrained(tmp_path / "m")
    rng = np.random.default_rng(0)
    stem = [1, *rng.integers(3, 64, size=9).tolist()]
    sequences = [stem + rng.integers(3, 64, size=5).tolist() for _ in range(4)]  # 15 tokens each
    lm = CausalLM(load_model(str(tmp_path / "m"), "cpu", kind=CAUSAL))
    assert lm.sliding is None and lm.window == 16
    found = lm.token_logprobs(sequences)
    # One row: the stem once, each suffix once but for its last token (it predicts nothing).
    assert lm.tokens_run == len(stem) + 4 * 4
    for sequence, values in zip(sequences, found, strict=True):
        np.testing.assert_allclose(values, loop_logprobs(lm.model, sequence), atol=1e-4)


def test_half_precision_keeps_shared_prefixes_on(tmp_path):
    folder = build("gpt2", tmp_path / "gpt2")
    for dtype in ("bfloat16", "float16"):
        lm = CausalLM(load_model(str(folder), "cpu", kind=CAUSAL), dtype=dtype)
        assert lm.facts()["shared_prefixes"] is True, dtype
        full = CausalLM(load_model(str(folder), "cpu", kind=CAUSAL), dtype=dtype,
                        share_prefixes=False)  # fmt: skip
        ids, _ = lm.encode(TEXTS)
        for a, b in zip(lm.token_logprobs(ids), full.token_logprobs(ids), strict=True):
            np.testing.assert_allclose(a, b, atol=0.0625, rtol=0.0625)
