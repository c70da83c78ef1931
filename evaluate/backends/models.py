"""Loading masked and causal LMs (offline-friendly), their kind and precision, random-weight
detection; a masked LM's logits at mask positions only, and candidate forms read off logits."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import torch

if TYPE_CHECKING:
    from transformers import PreTrainedModel  # imported lazily at run time: it is slow

from ud_agree.errors import UserError

from .spec import MODEL_FILE_ERRORS, Kind


class ModelNotFound(UserError):
    """The model is neither a local directory nor obtainable from the Hugging Face Hub."""


@dataclass
class LoadedModel:
    """A masked or causal LM with its tokenizer and the facts the manifest records."""

    name: str
    model: PreTrainedModel
    tokenizer: Any  # a transformers fast tokenizer (PreTrainedTokenizerBase), used by duck typing
    random_weights: bool
    window: int  # most tokens one forward pass may take, specials included
    device: torch.device
    gguf: dict[str, Any] | None = None  # a GGUF file's facts (gguf_weights.GgufFacts)


def resolve_device(device: str) -> torch.device:
    """`auto` picks CUDA when present; `cuda` without a GPU is an error."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelNotFound("--device cuda asked for, but torch sees no CUDA device")
    return torch.device(device)


def _not_found(name: str) -> ModelNotFound:
    return ModelNotFound(
        f"model '{name}' not found: it is not a local directory and is not in the Hugging Face "
        "cache (offline?); pass a local directory holding config.json, tokenizer files and "
        "weights with --model /path/to/model"
    )


def _has_weights(path: Path) -> bool:
    return any(path.glob("*.safetensors")) or any(path.glob("pytorch_model*.bin"))


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hub answers at all: offline, fail at once instead of minutes of retries."""
    import socket
    from urllib.parse import urlparse

    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False"):
        return False
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    try:
        socket.create_connection((url.hostname, url.port or 443), timeout=timeout).close()
    except OSError:
        return False
    return True


# What a model folder's tokenizer may be saved as (fast, WordPiece, byte-BPE, SentencePiece).
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "*.model", "tiktoken*")
# Ordinary text every usable tokenizer turns into tokens.
PROBE = "The cat sleeps. Le chat dort. Die Katze schläft."


def _cause(error: BaseException) -> str:
    """An exception's first line, short: what a load failure says of its cause."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _in_folder(path: Path, patterns: tuple[str, ...]) -> list[Path]:
    return sorted(p for pattern in patterns for p in path.glob(pattern))


# What `from_pretrained` raises for files that are absent, not cached or not a model's
# (`spec.MODEL_FILE_ERRORS`), and ImportError (a repository's own code needing a package);
# safetensors' SafetensorError (a damaged header) is told by name.
LOAD_ERRORS: tuple[type[BaseException], ...] = (*MODEL_FILE_ERRORS, ImportError)


def _expected(error: BaseException) -> bool:
    """A load failure of the kinds above (the `tokenizers` and `safetensors` libraries raise
    their own: a bare `Exception` for a file they cannot parse, `SafetensorError`)."""
    name = type(error).__name__
    return isinstance(error, LOAD_ERRORS) or type(error) is Exception or name == "SafetensorError"


Loaded = TypeVar("Loaded")


def local_or_hub(
    name: str,
    load: Callable[[bool], Loaded],
    local_failure: Callable[[BaseException], ModelNotFound],
) -> Loaded:
    """`load(local_files_only=True)`: a local folder, or a hub name in the cache; else, for a hub
    name only and where the Hub answers, `load(False)` from the Hub. A local folder that does not
    load is `local_failure(error)`; a name neither here nor on the Hub is `_not_found`. Anything
    else a load raises (a bug, an interrupt) goes up as it is."""
    try:
        return load(True)
    except Exception as first:
        if not _expected(first):
            raise
        if Path(name).is_dir():
            raise local_failure(first) from None
        if not hub_reachable():
            raise _not_found(name) from first
    try:
        return load(False)
    except Exception as error:
        if not _expected(error):
            raise
        raise _not_found(name) from error


def load_tokenizer(name: str, trust_remote_code: bool = False):
    """The fast tokenizer of a hub name or a local directory, from the local cache first; a
    folder without tokenizer files, one whose files do not load, or a tokenizer that gives no
    tokens for ordinary text is refused, naming what is missing."""
    from transformers import AutoTokenizer

    from .gguf_weights import cached_folder

    name, _ = cached_folder(name)  # a GGUF file: its dequantized folder
    remote = {"trust_remote_code": trust_remote_code}
    if Path(name).is_dir() and not _in_folder(Path(name), TOKENIZER_FILES):
        raise ModelNotFound(
            f"model folder '{name}' has no tokenizer files (tokenizer.json, vocab.txt, "
            "vocab.json with merges.txt, or a SentencePiece *.model); copy them from the "
            "model's repository"
        )

    def unloadable(error: BaseException) -> ModelNotFound:
        files = ", ".join(p.name for p in _in_folder(Path(name), TOKENIZER_FILES))
        return ModelNotFound(
            f"the tokenizer of model folder '{name}' does not load from {files}: {_cause(error)}"
        )

    tokenizer = local_or_hub(
        name,
        lambda cached: AutoTokenizer.from_pretrained(name, local_files_only=cached, **remote),
        unloadable,
    )
    if not tokenizer(PROBE, add_special_tokens=False)["input_ids"]:
        raise ModelNotFound(
            f"the tokenizer of model '{name}' gives no tokens for ordinary text "
            f"({PROBE!r}): its vocabulary is empty or its files are not the model's"
        )
    return tokenizer


def config_error(name: str, error: BaseException) -> ModelNotFound:
    """A local folder's config that does not load: the file and its cause."""
    config = Path(name) / "config.json"
    if not config.is_file():
        return ModelNotFound(f"model folder '{name}' has no config.json")
    return ModelNotFound(f"model config {config} does not load: {_cause(error)}")


def weights_error(name: str, error: BaseException) -> ModelNotFound:
    """A local folder's weights that do not load: the files and the cause."""
    path = Path(name)
    files = _in_folder(path, ("*.safetensors", "pytorch_model*.bin")) or [path]
    where = ", ".join(str(p) for p in files[:3])
    return ModelNotFound(f"model weights {where} do not load: {_cause(error)}")


def looks_untrained(model: torch.nn.Module) -> bool:
    """True when every LayerNorm still holds its initial weight 1 and bias 0 (never trained)."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.LayerNorm)]
    if not norms:
        return False
    return all(
        torch.all(m.weight == 1).item() and (m.bias is None or torch.all(m.bias == 0).item())
        for m in norms
    )


def model_window(model: PreTrainedModel, tokenizer) -> int:
    """Longest input the model takes: position embeddings (less RoBERTa's padding offset), tokenizer limit."""
    config = model.config
    limit = int(
        getattr(config, "max_position_embeddings", None)
        or getattr(config, "n_positions", 512)
        or 512
    )
    if config.model_type in {"roberta", "xlm-roberta", "camembert"}:
        limit -= (config.pad_token_id or 0) + 1  # positions start after the padding index
    tok_max = getattr(tokenizer, "model_max_length", None)
    if tok_max and tok_max < 1_000_000:
        limit = min(limit, int(tok_max))
    return limit


MASKED: Kind = "masked"
CAUSAL: Kind = "causal"


def model_kind(name: str, trust_remote_code: bool = False) -> Kind:
    """`masked` or `causal`, from the model's config (architectures first: BERT has both heads)."""
    from transformers import AutoConfig

    from .gguf_weights import cached_folder

    name, _ = cached_folder(name)  # a GGUF file: its dequantized folder
    remote = {"trust_remote_code": trust_remote_code}
    config = local_or_hub(
        name,
        lambda cached: AutoConfig.from_pretrained(name, local_files_only=cached, **remote),
        lambda error: config_error(name, error),
    )
    for architecture in config.architectures or ():
        if architecture.endswith("ForMaskedLM"):
            return MASKED
        if architecture.endswith(("ForCausalLM", "LMHeadModel")):
            return CAUSAL
    if getattr(config, "is_decoder", False) or config.model_type in _CAUSAL_TYPES:
        return CAUSAL
    return MASKED


# Model types without an `architectures` entry that are causal LMs (GPT-2 style configs).
_CAUSAL_TYPES = frozenset(
    {"gpt2", "gpt_neo", "gpt_neox", "gptj", "llama", "mistral", "qwen2", "opt"}
)


def autocast(device: torch.device, dtype: str):
    """The one place a forward's precision opens (§5.2), for every path alike: autocast to
    bfloat16 or float16 where asked; float32 and `auto` (weights in their stored precision) run
    as loaded."""
    if dtype in ("float32", "auto"):
        return torch.autocast(device.type, enabled=False)
    return torch.autocast(device.type, dtype=getattr(torch, dtype))


def dtype_fact(model: torch.nn.Module, dtype: str) -> str:
    """The precision the manifest records: `auto` names the checkpoint's own (`auto (bfloat16)`)."""
    if dtype != "auto":
        return dtype
    weight = next(model.parameters(), None)
    stored = torch.float32 if weight is None else weight.dtype
    return f"auto ({str(stored).removeprefix('torch.')})"


def load_model(
    name: str,
    device: str = "auto",
    tokenizer=None,
    kind: str = MASKED,
    trust_remote_code: bool = False,
    dtype: str = "float32",
) -> LoadedModel:
    """Load tokenizer (unless given) and a masked or causal LM in float32 (autocast does the
    rest), or under `dtype="auto"` in the checkpoint's stored precision (lm-eval's default);
    a weightless directory is an error."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM
    from transformers.utils import logging as hf_logging

    from .gguf_weights import cached_folder, facts_record

    hf_logging.disable_progress_bar()  # our own bar counts items; a weight-loading bar is noise
    auto = AutoModelForCausalLM if kind == CAUSAL else AutoModelForMaskedLM
    given, (name, gguf) = name, cached_folder(name)  # a GGUF file: its dequantized folder
    if tokenizer is None:
        tokenizer = load_tokenizer(name, trust_remote_code)
    if Path(name).is_dir() and not _has_weights(Path(name)):
        raise ModelNotFound(
            f"model directory '{name}' has no weights (*.safetensors or pytorch_model*.bin); "
            "it holds only a config and tokenizer"
        )
    target = resolve_device(device)
    weights: Any = "auto" if dtype == "auto" else torch.float32
    model, info = local_or_hub(
        name,
        lambda cached: _with_info(
            auto.from_pretrained(
                name,
                dtype=weights,
                output_loading_info=True,
                local_files_only=cached,
                trust_remote_code=trust_remote_code,
            )
        ),
        lambda error: weights_error(name, error),
    )
    missing = [k for k in info.get("missing_keys", []) if "position_ids" not in k]
    model.eval().to(target)
    return LoadedModel(
        name=given,
        model=model,
        tokenizer=tokenizer,
        random_weights=bool(missing) or looks_untrained(model),
        window=model_window(model, tokenizer),
        device=target,
        gguf=facts_record(gguf),
    )


def _with_info(loaded: object) -> tuple[PreTrainedModel, dict[str, Any]]:
    """from_pretrained's (model, loading info) under output_loading_info=True, which transformers'
    annotations (the model alone) do not tell apart."""
    return cast("tuple[PreTrainedModel, dict[str, Any]]", loaded)


def logprobs_at(logits: torch.Tensor, rows: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log-softmax of float32 logits at (rows, targets): the logit less its row's logsumexp.
    Not `log_softmax`: on a CPU its float32 kernel sums a row's exponentials with a bias that
    grows with the vocabulary (every log-probability too high by about 1e-6 at 49k tokens, 1e-5
    at 262k: 1e-4 to 1e-3 over a sentence), where logsumexp's sum stays within 1e-7."""
    return logits[rows, targets] - row_logsumexp(logits)[rows]


# On a CPU, logsumexp runs over a chunk of logits _LSE_FLOATS floats (512 KiB) at a time: its
# passes (max, difference, exp, sum) then read a block from the cache, not from memory, where
# log_softmax's fused kernel did (tiny-fr-ud-gpt2's pair bench: 1.06 s of logsumexp in 524-row
# chunks against 0.50 s of log_softmax; 256 × 49,152 logits: 88 ms whole, 33 ms in blocks).
_LSE_FLOATS = 1 << 17


def row_logsumexp(logits: torch.Tensor) -> torch.Tensor:
    """`torch.logsumexp(logits, dim=-1)` of 2D logits, on a CPU a block of rows at a time. The same
    bits: every row is summed alone either way (threads share out rows), except a lone row,
    which threads may split: no block holds one row unless the whole tensor does."""
    rows, width = logits.shape
    step = max(2, _LSE_FLOATS // max(width, 1))
    if logits.device.type != "cpu" or rows <= step + 1:
        return torch.logsumexp(logits, dim=-1)
    starts = list(range(0, rows, step))
    if rows - starts[-1] == 1:  # a last block of one row joins the one before it
        starts.pop()
    ends = [*starts[1:], rows]
    return torch.cat(
        [torch.logsumexp(logits[a:b], dim=-1) for a, b in zip(starts, ends, strict=True)]
    )


def lm_head(model: torch.nn.Module) -> torch.nn.Module | None:
    """The prediction head: `cls` for BERT, `lm_head` for RoBERTa/CamemBERT/XLM-R."""
    for attribute in ("cls", "lm_head"):
        head = getattr(model, attribute, None)
        if head is not None:
            return head
    return None


def mask_logits(
    model: PreTrainedModel,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    mask_positions: torch.Tensor,
) -> torch.Tensor:
    """(B, V) logits at one position per row: encoder, gather, head only there."""
    rows = torch.arange(input_ids.shape[0], device=input_ids.device)
    head = lm_head(model)
    if head is None:  # an unknown architecture: full logits, then gather
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
        return logits[rows, mask_positions]
    base = model.base_model
    encoder: Any = getattr(base, "encoder", None)  # BERT-style models' stack of layers
    layers = getattr(encoder, "layer", None)
    if model.training or not layers or not all(map(_bert_style, layers)):
        hidden = base(input_ids=input_ids, attention_mask=attention_mask)[0]
        return head(hidden[rows, mask_positions])
    # Only the mask's output of the last layer is needed: run the others as usual, then that
    # layer for the mask query alone (its keys and values still see every token). This saves
    # most of one layer's work; a test checks it against the full model on each architecture.
    encoder.layer = layers[:-1]
    try:
        hidden = base(input_ids=input_ids, attention_mask=attention_mask)[0]
    finally:
        encoder.layer = layers
    return head(_layer_at(layers[-1], hidden, attention_mask, rows, mask_positions))


def _bert_style(layer: torch.nn.Module) -> bool:
    """A BERT/RoBERTa encoder layer with absolute positions and no cross-attention."""
    attention = getattr(layer, "attention", None)
    self_attention = getattr(attention, "self", None)
    return (
        self_attention is not None
        and all(
            hasattr(self_attention, n) for n in ("query", "key", "value", "attention_head_size")
        )
        and hasattr(attention, "output")
        and hasattr(layer, "intermediate")
        and hasattr(layer, "output")
        and getattr(self_attention, "position_embedding_type", "absolute") == "absolute"
        and not getattr(layer, "add_cross_attention", False)
    )


def _layer_at(
    layer: Any,  # a BERT-style layer (see _bert_style): its submodules are reached by name
    hidden: torch.Tensor,
    attention_mask: torch.Tensor,
    rows: torch.Tensor,
    positions: torch.Tensor,
) -> torch.Tensor:
    """A BERT-style layer's output at one position per row (eval mode: no dropout)."""
    attention = layer.attention.self
    batch, length, _ = hidden.shape
    size = attention.attention_head_size
    query_input = hidden[rows, positions]  # (B, D)
    query = attention.query(query_input).view(batch, -1, 1, size)  # (B, H, 1, d)
    key = attention.key(hidden).view(batch, length, -1, size).transpose(1, 2)  # (B, H, T, d)
    value = attention.value(hidden).view(batch, length, -1, size).transpose(1, 2)
    scores = (query @ key.transpose(-1, -2)) / math.sqrt(size)
    scores = scores.masked_fill(attention_mask[:, None, None, :] == 0, float("-inf"))
    context = (scores.softmax(-1) @ value).reshape(batch, -1)  # (B, H·d)
    output = layer.attention.output
    attended = output.LayerNorm(output.dense(context) + query_input)
    return layer.output.LayerNorm(layer.output.dense(layer.intermediate(attended)) + attended)


class FormIndex:
    """Gathers per-form values from (B, V) logits: a form sums its vocabulary casings."""

    def __init__(self, forms: Sequence[Sequence[int]], device: torch.device):
        width = max((len(ids) for ids in forms), default=1) or 1
        index = torch.zeros((len(forms), width), dtype=torch.long)
        valid = torch.zeros((len(forms), width), dtype=torch.bool)
        for i, ids in enumerate(forms):
            index[i, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            valid[i, : len(ids)] = True
        self.index = index.to(device)
        self.valid = valid.to(device)

    def values(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(form probability, form logit) per form, float64: sum of casings / log-sum-exp of casings."""
        # The normaliser over the whole vocabulary in float32 (relative error ~1e-7); only the
        # candidates' logits are taken to float64.
        log_z = torch.logsumexp(logits.float(), dim=1, keepdim=True).double()
        gathered = logits[:, self.index].double()  # (B, n_forms, width)
        gathered = gathered.masked_fill(~self.valid, float("-inf"))
        form_logit = torch.logsumexp(gathered, dim=2)
        return torch.exp(form_logit - log_z), form_logit


def tiny_random_model(
    vocabulary: Iterable[str], device: str = "auto", seed: int = 0
) -> LoadedModel:
    """A 1-layer BERT with random weights and a WordPiece vocabulary of the words given (a
    corpus's own: evaluate/corpus.py's `corpus_words`).

    It needs no download, so the demo runs offline; its accuracy is chance by construction.
    """
    # transformers 5 keeps BertTokenizerFast as a runtime alias of BertTokenizer but leaves it out
    # of its typed exports; transformers 4 (still supported) needs the Fast class by that name.
    from transformers import (  # type: ignore[attr-defined]
        BertConfig,
        BertForMaskedLM,
        BertTokenizerFast,
    )

    words = set(vocabulary)
    chars = sorted({c for w in words for c in w})
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = specials + chars + [f"##{c}" for c in chars] + sorted(w for w in words if len(w) > 1)
    vocab = list(dict.fromkeys(vocab))
    tokenizer = BertTokenizerFast(
        vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=False, model_max_length=128
    )
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    torch.manual_seed(seed)
    model = BertForMaskedLM(config).eval()
    target = resolve_device(device)
    model.to(target)
    return LoadedModel(
        "tiny-random", model, tokenizer, True, model_window(model, tokenizer), target
    )
