"""Causal LM back-end (DESIGN.md §5): sentence log-probabilities, and the next-token distribution
for the class-average reading.

score(s) = Σ log P(tᵢ | BOS, t₁…tᵢ₋₁) over the tokens of s; BOS is the model's `bos_token`, else
its `eos_token`; a model with neither does not score its first token. Sequences are batched by
length with explicit position ids, so neither batch size nor padding side changes a score.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch

from ud_agree.errors import UsageError

from .api import Blank, FormBatch, Span, TokenScores
from .batching import Padded, length_batches, pad
from .models import (
    CAUSAL,
    LoadedModel,
    autocast,
    dtype_fact,
    load_model,
    load_tokenizer,
    logprobs_at,
)
from .prefixes import PackedRow, longest_holders, pack, rows
from .spec import ModelSpec, name_of

# Logits are computed for this many scored positions at a time on an accelerator: (tokens ×
# vocabulary) floats. On a CPU a chunk's logits are held to _CPU_LOGITS floats (16 MiB, within a
# server's last-level cache): log-softmax then reads them from the cache, not from memory; with an
# 8,000-token vocabulary, chunks of 512 positions instead of a whole batch cut the pair bench's
# time by about a tenth (bench/pairs.py). But each chunk reads the whole head (vocabulary ×
# width weights: 670 MB for Gemma 3's 262k × 640), so a chunk holds at least _CPU_POSITIONS
# positions, within _CPU_MOST_LOGITS floats (256 MiB): the head alone over 1,024 positions ran
# 51–125 positions/s in chunks of 16, 283–299 in chunks of 256 (262k); 1,515 in chunks of 85,
# 1,810 in chunks of 256 (49k tokens, SmolLM2's).
_HEAD_CHUNK = 8192
_CPU_LOGITS = 1 << 22
_CPU_POSITIONS = 256
_CPU_MOST_LOGITS = 1 << 26


def head_chunk(vocabulary: int, device: torch.device) -> int:
    """Scored positions whose logits are computed at a time (see _HEAD_CHUNK)."""
    if torch.device(device).type != "cpu":
        return _HEAD_CHUNK
    vocabulary = max(vocabulary, 1)
    least = min(_CPU_POSITIONS, _CPU_MOST_LOGITS // vocabulary)
    return max(16, least, _CPU_LOGITS // vocabulary)


class CausalLM:
    """A loaded causal LM with its BOS choice, window, and batched scoring of token sequences."""

    method = "causal"

    def __init__(
        self,
        loaded: LoadedModel,
        batch_size: int = 32,
        max_tokens: int | None = None,
        dtype: str = "float32",
        padding_side: str = "right",
        progress: bool = False,
        share_prefixes: bool = True,
        native: bool = False,
    ) -> None:
        self.loaded, self.model, self.tokenizer = loaded, loaded.model, loaded.tokenizer
        self.name, self.device = name_of(loaded.name), loaded.device
        self.batch_size, self.max_tokens, self.padding_side = batch_size, max_tokens, padding_side
        self.dtype, self.progress = dtype, progress
        tok = self.tokenizer
        self.bos = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        self.bos_token = tok.convert_ids_to_tokens(self.bos) if self.bos is not None else None
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else (self.bos or 0)
        # §5.1's `lp_native` is `lp_sum` where the tokenizer puts BOS first itself (or the model
        # has none: nothing is scored given BOS); elsewhere a forward without BOS, run when asked.
        # A tokenizer adding anything else (EOS, [CLS] … [SEP]) leaves `lp_native` unknown: refused
        # only where the `minicons` rule is asked; elsewhere that column stays null.
        self.native_unknown: str | None = None
        try:
            adds_bos = tokenizer_adds_bos(tok, self.name)
        except UsageError as error:
            if native:
                raise
            adds_bos, self.native_unknown = False, str(error)
        self.native_free = self.native_unknown is None and (adds_bos or self.bos is None)
        self.native = native
        self.window = loaded.window
        # A model attending to its last `sliding` positions only (Mistral v0.1, Gemma-2's local
        # layers): a packed row's 4D mask would let it see past them, so rows stay within it and
        # longer sequences run whole (transformers then masks the window itself). Without one, a
        # row may outgrow the model's window: its positions are depths, each within its sequence.
        self.sliding = sliding_window(self.model.config)
        # Sequences scored (each distinct one once; a packed row holds several, a batch several
        # rows): inputs, not forward passes, as the manifest's `forward_inputs` says.
        self.forwards = 0
        self.tokens_run = 0  # positions run through the model, padding left out
        # Scoring reads every position of one forward: a key/value cache (transformers builds
        # one by default, a copy of every layer's keys and values per forward) is never read.
        self.no_cache = {"use_cache": False} if _takes(self.model, "use_cache") else {}
        self.head = self.model.get_output_embeddings()
        weight = getattr(self.head, "weight", None)
        self.head_chunk = head_chunk(len(tok) if weight is None else weight.shape[0], self.device)
        self.fast = self._head_matches_model()
        self.shares_prefixes = share_prefixes and self._packing_matches_model()
        self.tokens_run = 0  # the probes' do not count

    def facts(self) -> dict[str, Any]:
        """BOS used (§5: recorded), window, device, dtype, random weights."""
        return {
            "model_kind": CAUSAL,
            "bos_token": self.bos_token,
            "bos_scored_first_token": self.bos is not None,
            "window_tokens": self.window,
            "device": str(self.device),
            "dtype": dtype_fact(self.model, self.dtype),
            "random_weights": self.loaded.random_weights,
            "model_family": type(self.tokenizer).__name__,
            "lp_native": self.native_fact(),
            # Which path ran: shared prefixes packed behind one another (a 4D attention mask), or
            # one full forward per distinct sequence (a model that does not take such a mask).
            "shared_prefixes": self.shares_prefixes,
            # A GGUF file's sha256 and quantization (None for a transformers model).
            "gguf": self.loaded.gguf,
        }

    def encode(self, texts: Sequence[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
        """Token ids (BOS first when the model has one) and each text token's character span."""
        if not texts:  # fast tokenizers fail on an empty batch
            return [], []
        batch = self.tokenizer(
            list(texts), add_special_tokens=False, return_offsets_mapping=True, verbose=False
        )
        prefix = [] if self.bos is None else [self.bos]
        ids = [prefix + list(x) for x in batch["input_ids"]]
        return ids, [list(map(tuple, o)) for o in batch["offset_mapping"]]

    def native_fact(self) -> str:
        """How §5.1's `lp_native` (the `minicons` rule) was had, or why it is null."""
        if self.native_unknown is not None:
            return f"null: {self.native_unknown}"
        if self.native_free:
            return "lp_sum (the tokenizer puts BOS first itself, or the model has no BOS)"
        if self.native:
            return "a forward of each sentence without BOS (the tokenizer adds none)"
        return "not run (null): ask --rule minicons or --rules minicons"

    def autocast(self):
        """The run's precision (models.autocast), for every path of this model."""
        return autocast(self.device, self.dtype)

    def _run(self, padded, head: bool) -> torch.Tensor:
        """(B, L, ·) outputs of a padded batch: the last hidden states (`head` False) or the
        model's full logits."""
        inputs = {
            "input_ids": padded.input_ids,
            "attention_mask": padded.attention_mask,
            "position_ids": padded.position_ids,
            **self.no_cache,
        }
        if head:
            return self.model(**inputs).logits
        return self.model.base_model(**inputs)[0]

    def _outputs(self, padded, at: Any) -> tuple[torch.Tensor, torch.nn.Module | None]:
        """The outputs at positions `at` (an index of the batch's (B, L) positions) and the head
        still to apply to them: the hidden states and the LM head where head(base(x)) is the
        model's logits (`fast`: only the positions read go through the head), else the logits
        themselves and None."""
        if self.fast:
            return self._run(padded, head=False)[at], self.head
        return self._run(padded, head=True)[at], None

    def _packing_matches_model(self) -> bool:
        """Whether the model takes a 4D attention mask with explicit positions and gives a packed
        suffix the log-probabilities of its own forward, both in the run's precision (§5.2):
        then shared prefixes run once."""
        probe = [[1, 2, 3, 4, 5, 6], [1, 2, 3, 7, 8]]
        if self.window < 16:
            return False
        try:
            with torch.inference_mode(), self.autocast():
                packed = self._packed_logprobs(probe)
                single = [self._full_logprobs([s])[0] for s in probe]
        except (RuntimeError, ValueError, TypeError, IndexError):  # the mask refused: full forwards
            return False
        tolerance = probe_tolerance(self.compute_dtype())
        return all(
            np.allclose(a, b, atol=tolerance, rtol=tolerance)
            for a, b in zip(packed, single, strict=True)
        )

    def compute_dtype(self) -> torch.dtype:
        """The precision the forwards compute in: autocast's, else the weights'."""
        if self.dtype in ("bfloat16", "float16"):
            return getattr(torch, self.dtype)
        weight = next(self.model.parameters(), None)  # a stub model may have none
        return torch.float32 if weight is None else weight.dtype

    def _head_matches_model(self) -> bool:
        """Whether head(base(x)) is the model's logits (no soft-capping or scaling in between):
        then only scored positions go through the head."""
        if self.head is None:
            return False
        probe = [list(range(1, min(8, self.window) + 1))]
        padded = pad(probe, self.pad_id, device=self.device)
        with torch.inference_mode():
            full = self._run(padded, head=True).float()
            fast = self.head(self._run(padded, head=False)).float()
        return bool(torch.allclose(full, fast, atol=1e-4, rtol=1e-4))

    def token_logprobs(self, sequences: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """log P of every token after the first, given the tokens before it, per sequence; a
        sequence longer than the window gets NaN scores (counted `too-long` by the callers).
        Each distinct prefix is computed once where the model allows it (`shares_prefixes`)."""
        out: list[np.ndarray] = [np.full(max(len(s) - 1, 0), np.nan) for s in sequences]
        fits = [i for i, s in enumerate(sequences) if 1 < len(s) <= self.window]
        if not fits:
            return out
        self.forwards += len(fits)
        # Packed rows hold sequences within the sliding window; the others run whole.
        within = self.sliding or self.window
        packed = [i for i in fits if self.shares_prefixes and len(sequences[i]) <= within]
        whole = sorted(set(fits) - set(packed))
        with torch.inference_mode(), self.autocast():  # one precision for both paths
            for chosen, run in ((packed, self._packed_logprobs), (whole, self._full_logprobs)):
                if chosen:
                    found = run([sequences[i] for i in chosen])
                    for row, values in zip(chosen, found, strict=True):
                        out[row] = values
        return out

    def _packed_logprobs(self, sequences: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """Token log-probabilities of every sequence, the rows sharing their prefixes run in
        batches: --max-tokens bounds a batch's tokens, a row's shared prefixes counted once."""
        longest = min(2 * self.window, self.max_tokens or 2 * self.window)
        longest = min(longest, self.sliding or longest)
        packed = [pack(group, sequences) for group in rows(sequences, longest)]
        out: list[np.ndarray] = [np.zeros(0)] * len(sequences)
        lengths = np.asarray([len(r.ids) for r in packed])
        for batch in length_batches(lengths, self.batch_size, self._row_budget(sequences)):
            chosen = [packed[i] for i in batch]
            self.tokens_run += int(lengths[batch].sum())
            values = self._row_logprobs(chosen)
            parts = torch.split(values.double().cpu(), [c for row in chosen for c in row.counts])
            members = [m for row in chosen for m in row.members]
            for sequence, part in zip(members, parts, strict=True):
                out[sequence] = part.numpy()
        return out

    def _row_budget(self, sequences: Sequence[Sequence[int]]) -> int:
        """Tokens per batch of packed rows: --max-tokens, else `batch_size` sentences of average
        length (--batch-size counts sentences and a row holds several: more rows of fewer tokens
        would not fill a forward; more tokens run slower per token on a CPU: bench/pairs.py)."""
        average = -(-sum(map(len, sequences)) // len(sequences))
        return self.max_tokens or self.batch_size * average

    def _row_logprobs(self, chosen: Sequence[PackedRow]) -> torch.Tensor:
        """One forward of packed rows: every member's token log-probabilities, concatenated in
        the rows' order (float32, on the device)."""
        batch = _row_tensors(chosen, self.pad_id, self.device)
        width = batch.input_ids.shape[1]
        places = np.concatenate([b * width + row.read_at for b, row in enumerate(chosen)])
        # A position predicting the next token of several members (a good sentence and its
        # variants before the varied word) goes through the head once.
        unique, which = np.unique(places, return_inverse=True)
        at = torch.as_tensor(unique, device=self.device)
        outputs, head = self._outputs(batch, (at // width, at % width))
        wanted = torch.as_tensor(
            np.concatenate([row.read_tokens for row in chosen]), device=self.device
        )
        reading = torch.as_tensor(which.ravel(), device=self.device)
        return _gather_logprobs(head, outputs, wanted, reading, self.head_chunk)

    def _full_logprobs(self, sequences: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """Token log-probabilities of every sequence, one padded forward each (batched); the
        caller opens the run's precision."""
        out: list[np.ndarray] = [np.zeros(0)] * len(sequences)
        lengths = np.asarray([len(s) for s in sequences])
        results: list[tuple[np.ndarray, torch.Tensor, torch.Tensor]] = []
        for batch in length_batches(lengths, self.batch_size, self.max_tokens):
            padded = pad([sequences[i] for i in batch], self.pad_id, self.padding_side, self.device)
            self.tokens_run += int(lengths[batch].sum())
            mask = padded.attention_mask.bool()
            scored = mask[:, :-1] & mask[:, 1:]  # position t predicts token t + 1
            targets = padded.input_ids[:, 1:][scored]
            # Position t predicts token t + 1: the outputs read are `scored`, the last never.
            outputs, head = self._outputs(padded, torch.nn.functional.pad(scored, (0, 1)))
            values = _gather_logprobs(head, outputs, targets, chunk=self.head_chunk)
            # Kept on the device: one transfer at the end, no host sync per batch.
            results.append((np.asarray(batch), scored.sum(1), values.double()))
        for at, counts, kept in results:
            for row, part in zip(at, torch.split(kept.cpu(), counts.cpu().tolist()), strict=True):
                out[row] = part.numpy()
        return out

    def token_scores(
        self, texts: Sequence[str], words: Sequence[Sequence[Span] | None] | None = None
    ) -> list[TokenScores]:
        """Each token's character span and log-probability given BOS and the tokens before it
        (the first token is unscored without BOS); `words` are ignored: every token is scored."""
        distinct, where = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
        ids, offsets = self.encode(distinct.tolist())
        first = 0 if self.bos is not None else 1
        bare = self.native and not self.native_free
        # The BOS-less sequences run with the others: their prefixes are packed alike.
        runs = ids + [s[1:] for s in ids] if bare else ids
        logprobs = self.token_logprobs(runs)
        sums, native = logprobs[: len(ids)], logprobs[len(ids) :]
        found = [
            TokenScores(
                spans[first:],
                lp,
                native=lp if self.native_free else (native[i] if bare else None),
                # Every token after the sequence's first is scored (BOS first, or none).
                ids=np.asarray(sequence[1:], dtype=np.int64),
            )
            for i, (spans, lp, sequence) in enumerate(zip(offsets, sums, ids, strict=True))
        ]
        return [found[i] for i in where.ravel()]

    def next_token_logits(self, sequences: Sequence[Sequence[int]]) -> torch.Tensor:
        """(N, V) logits of the token after each whole sequence, float64, on the device. A sequence
        that is a prefix of another is read off that one's forward (one forward per sentence
        serves every item whose prefix it holds)."""
        holders = longest_holders(sequences)
        runs = np.unique(holders)
        readers: dict[int, list[int]] = {}
        for sequence, holder in enumerate(holders.tolist()):
            readers.setdefault(holder, []).append(sequence)
        lengths = np.asarray([len(sequences[r]) for r in runs])
        self.forwards += len(runs)
        vocabulary = self.model.config.vocab_size
        out = torch.empty((len(sequences), vocabulary), dtype=torch.float64, device=self.device)
        with torch.inference_mode(), self.autocast():
            for batch in length_batches(lengths, self.batch_size, self.max_tokens):
                padded = pad(
                    [sequences[runs[k]] for k in batch], self.pad_id, self.padding_side, self.device
                )
                self.tokens_run += int(lengths[batch].sum())
                rows, places, which = [], [], []
                for b, k in enumerate(batch):
                    for sequence in readers[int(runs[k])]:
                        rows.append(b)
                        places.append(int(padded.offsets[b]) + len(sequences[sequence]) - 1)
                        which.append(sequence)
                at = (torch.as_tensor(rows, device=self.device),
                      torch.as_tensor(places, device=self.device))  # fmt: skip
                outputs, head = self._outputs(padded, at)
                logits = outputs if head is None else head(outputs)
                out[torch.as_tensor(which, device=self.device)] = logits.double()
        return out


def _row_tensors(chosen: Sequence[PackedRow], pad_id: int, device: torch.device) -> Padded:
    """Packed rows as one padded batch: ids, positions and a 4D mask (B, 1, L, L) saying what
    each position attends to (a padding position to itself alone: no row of the mask is empty)."""
    lengths = np.asarray([len(r.ids) for r in chosen])
    width = int(lengths.max())
    ids = np.full((len(chosen), width), pad_id, dtype=np.int64)
    positions = np.zeros((len(chosen), width), dtype=np.int64)
    allowed = np.zeros((len(chosen), 1, width, width), dtype=bool)
    for b, (row, n) in enumerate(zip(chosen, lengths.tolist(), strict=True)):
        ids[b, :n] = row.ids
        positions[b, :n] = row.positions
        allowed[b, 0, :n, :n] = row.allowed
        allowed[b, 0, range(n, width), range(n, width)] = True
    return Padded(
        torch.from_numpy(ids).to(device),
        torch.from_numpy(allowed).to(device),
        torch.from_numpy(positions).to(device),
        np.zeros(len(chosen), dtype=np.int64),
        lengths,
    )


def _gather_logprobs(
    head: torch.nn.Module | None,
    outputs: torch.Tensor,
    targets: torch.Tensor,
    reading: torch.Tensor | None = None,
    chunk: int = _HEAD_CHUNK,
) -> torch.Tensor:
    """log-softmax of head(outputs) (of the outputs themselves, logits, without a head) at the
    targets, the i-th read off output `reading[i]` (default: i), a chunk of outputs at a time."""
    if reading is None:  # one read per output, already in order: nothing to sort
        reading = order = torch.arange(len(targets), device=targets.device)
    else:
        order = torch.argsort(reading, stable=True)
    # Each chunk of outputs serves one slice of the reads sorted by output.
    bounds = torch.searchsorted(
        reading[order],
        torch.arange(0, len(outputs) + chunk, chunk, device=targets.device),
    ).tolist()
    values = torch.empty(len(targets), dtype=torch.float32, device=targets.device)
    for at, (low, high) in enumerate(itertools.pairwise(bounds)):
        start = at * chunk
        logits = outputs[start : start + chunk]
        logits = (logits if head is None else head(logits)).float()
        reads = order[low:high]
        values[reads] = logprobs_at(logits, reading[reads] - start, targets[reads])
    return values


def _takes(model: Any, name: str) -> bool:
    """Whether the model's forward names keyword `name` (stand-in models take only a few)."""
    return name in inspect.signature(model.forward).parameters


def sliding_window(config: Any) -> int | None:
    """The model's sliding attention window in tokens, None where it attends to every token."""
    window = getattr(config, "sliding_window", None)
    if not window or getattr(config, "use_sliding_window", True) is False:  # Qwen2 names one off
        return None
    return int(window)


def probe_tolerance(dtype: torch.dtype) -> float:
    """How far packed and full forwards may differ in `dtype`, per token, as t·(1 + |value|):
    1e-4 in float32, 8 units of the last place in half precision (bfloat16: 0.0625, float16:
    0.0078), where other shapes round otherwise (French-PUD pairs, tiny-fr-ud-gpt2, bfloat16:
    0.021 at most) while a wrong mask moves a log-probability by far more."""
    if dtype in (torch.float32, torch.float64):
        return 1e-4
    return 8 * torch.finfo(dtype).eps


def tokenizer_adds_bos(tokenizer: Any, model: str) -> bool:
    """Whether the tokenizer's default encoding puts BOS before a sentence (Llama, Mistral, Gemma)
    rather than nothing (GPT-2, Qwen, Pythia, OLMo); any other convention is refused (§5.2): the
    `minicons` rule's value would be silently wrong."""
    probe = "The keys to the cabinet are here."
    plain = list(tokenizer(probe, add_special_tokens=False)["input_ids"])
    default = list(tokenizer(probe)["input_ids"])
    if default == plain:
        return False
    if default == [tokenizer.bos_token_id, *plain]:
        return True
    added = tokenizer.convert_ids_to_tokens([i for i in default if i not in plain])
    raise UsageError(
        f"model {model}: its tokenizer ({type(tokenizer).__name__}) adds {added} around a "
        "sentence; ud-agree knows only BOS first or nothing added (see docs/evaluating/scoring-rules.md)"
    )


def load_causal(spec: ModelSpec, tokenizer=None) -> CausalLM:
    """A causal LM for `spec.model`, ready to score."""
    loaded = load_model(
        spec.model,
        spec.device,
        tokenizer=tokenizer,
        kind=CAUSAL,
        trust_remote_code=spec.trust_remote_code,
        dtype=spec.dtype,
    )
    return CausalLM(loaded, spec.batch_size, spec.max_tokens, spec.dtype, progress=spec.progress)


class CausalBackend:
    """A causal LM's distribution at a blank (§5): the next-token distribution after the text
    before the word asked at (the reading leaves out items whose other member is not in it)."""

    context = "left"

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.tokenizer = load_tokenizer(spec.model, spec.trust_remote_code)
        self.lm: CausalLM | None = None
        self.forwards = 0

    def ready(self) -> dict[str, Any]:
        """Load the weights."""
        if self.lm is None:
            self.lm = load_causal(self.spec, self.tokenizer)
        return self.lm.facts()

    def encode(self, blanks: Sequence[Blank]) -> tuple[list[list[int]], int]:
        """Prefix token ids (BOS first): the text before the word asked at, without the space
        before it (a token carries its own); how many were cut to the window."""
        assert self.lm is not None
        ids, _ = self.lm.encode([b.text[: b.span[0]].rstrip(" ") for b in blanks])
        too_long = sum(len(s) >= self.lm.window for s in ids)
        return [s[-(self.lm.window - 1) :] for s in ids], too_long

    def subset(self, encoded: list[list[int]], keep: np.ndarray) -> list[list[int]]:
        """The prefixes of the items kept."""
        return [s for s, k in zip(encoded, keep, strict=True) if k]

    def form_scores(
        self, encoded: list[list[int]], forms: Sequence[Sequence[int]], n_items: int
    ) -> Iterator[FormBatch]:
        """Next-token logits once per distinct prefix of a chunk, read over the forms."""
        from .models import FormIndex

        assert self.lm is not None
        device = self.lm.device
        index = FormIndex(forms, device)
        size = self.spec.chunk_size
        for start in range(0, n_items, size):
            rows = np.arange(start, min(start + size, n_items))
            distinct, where = _distinct([encoded[i] for i in rows])
            before = self.lm.forwards
            logits = self.lm.next_token_logits(distinct)[torch.as_tensor(where, device=device)]
            self.forwards += self.lm.forwards - before
            prob, logit = index.values(logits)
            yield FormBatch(rows, prob, logit)


def _distinct(sequences: Sequence[Sequence[int]]) -> tuple[list[list[int]], np.ndarray]:
    """The distinct sequences and, per input, the index of its distinct one."""
    index: dict[tuple[int, ...], int] = {}
    where = np.asarray([index.setdefault(tuple(s), len(index)) for s in sequences], dtype=np.int64)
    return [list(s) for s in index], where


def token_scorer(
    model: str,
    *,
    device: str,
    batch_size: int,
    max_tokens: int | None,
    dtype: str,
    trust_remote_code: bool,
    native: bool,
    **_: Any,
) -> CausalLM:
    """A causal LM loaded as a token scorer (`loading.load_scorer`, through `spec.KINDS`)."""
    loaded = load_model(
        model, device, kind=CAUSAL, trust_remote_code=trust_remote_code, dtype=dtype
    )
    return CausalLM(loaded, batch_size, max_tokens, dtype, native=native)
