"""Tiny GGUF files written here (never downloaded): a random 2-layer Llama with the byte-level BPE
of tiny-fr-ud-gpt2, stored as llama.cpp's converter stores it (q and k rows permuted for its
rotary layout, tensors under its names), beside the same weights as a float32 transformers
folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.evaluate.test_backends import save_random_llama
from tests.paths import TINY_GPT2

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
gguf = pytest.importorskip("gguf")

HEADS, KV_HEADS = 4, 2  # grouped keys and values: k is permuted with its own head count


def tiny_llama(folder: Path) -> Path:
    """A 2-layer Llama with random weights (random norms too) and tiny-fr-ud-gpt2's tokenizer,
    saved as a float32 transformers folder."""
    if not TINY_GPT2.is_dir():
        pytest.skip("shared tiny-fr-ud-gpt2 tokenizer not present")
    tokenizer = transformers.AutoTokenizer.from_pretrained(TINY_GPT2)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=HEADS, num_key_value_heads=KV_HEADS, max_position_embeddings=64,
        rms_norm_eps=1e-5, tie_word_embeddings=False,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
    )  # fmt: skip
    return save_random_llama(config, tokenizer, folder)


def _permute(weights: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's rotary layout of q or k rows (convert_hf_to_gguf.py's `permute`)."""
    return (
        weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


NAMES = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def _tensors(model) -> dict[str, np.ndarray]:
    """The model's weights under llama.cpp's names, q and k permuted."""
    out: dict[str, np.ndarray] = {}
    for name, value in model.state_dict().items():
        array = value.float().numpy()
        if name == "model.embed_tokens.weight":
            out["token_embd.weight"] = array
        elif name == "model.norm.weight":
            out["output_norm.weight"] = array
        elif name == "lm_head.weight":
            out["output.weight"] = array
        else:
            _, _, layer, rest = name.split(".", 3)
            if rest.endswith("q_proj.weight"):
                array = _permute(array, HEADS)
            elif rest.endswith("k_proj.weight"):
                array = _permute(array, KV_HEADS)
            out[f"blk.{layer}.{NAMES[rest]}"] = array
    return out


def write_gguf(folder: Path, path: Path, quantized: bool = False) -> Path:
    """The float32 folder's model and tokenizer as one GGUF file: F32 tensors (dequantized
    exactly), or with `quantized` its matrices in Q8_0."""
    import json

    model = transformers.LlamaForCausalLM.from_pretrained(folder, dtype=torch.float32)
    config = model.config
    bpe = json.loads((folder / "tokenizer.json").read_text())
    vocab = bpe["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    merges = [m if isinstance(m, str) else " ".join(m) for m in bpe["model"]["merges"]]
    special = {t["content"] for t in bpe["added_tokens"] if t["special"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("tiny-llama")
    writer.add_file_type(
        gguf.LlamaFileType.MOSTLY_Q8_0 if quantized else gguf.LlamaFileType.ALL_F32
    )
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_rope_freq_base(10000.0)
    writer.add_vocab_size(config.vocab_size)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt2")
    writer.add_token_list(tokens)
    writer.add_token_types([3 if t in special else 1 for t in tokens])  # 3: control, 1: normal
    writer.add_token_merges(merges)
    writer.add_bos_token_id(config.bos_token_id)
    writer.add_eos_token_id(config.eos_token_id)
    writer.add_add_bos_token(False)
    for name, array in _tensors(model).items():
        if quantized and array.ndim == 2 and array.shape[1] % 32 == 0:
            kind = gguf.GGMLQuantizationType.Q8_0
            writer.add_tensor(name, gguf.quants.quantize(array, kind), raw_dtype=kind)
        else:
            writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
