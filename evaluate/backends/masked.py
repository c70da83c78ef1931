"""Masked LM back-end: the distribution at a blank (its words masked), batched forwards at the
mask; and the pseudo-log-likelihood of texts' tokens (§5)."""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .api import Blank, FormBatch, Span, TokenScores
from .batching import length_batches, pad
from .encoding import Encoded, encode, window
from .masking import hide, with_offsets
from .spec import TINY_RANDOM, ModelSpec, name_of

if TYPE_CHECKING:
    from concurrent.futures import Future

    from .models import LoadedModel


class MaskedBackend:
    """A masked LM: one forward per distinct masked input, the head at the mask only."""

    context = "both"

    def __init__(self, spec: ModelSpec, vocabulary: Collection[str] = ()) -> None:
        """`vocabulary`: the words of the tiny random model's own vocabulary (`tiny-random`)."""
        from .models import load_model, load_tokenizer, tiny_random_model

        self.spec = spec
        self.forwards = 0
        self.loaded: LoadedModel | None = None
        self._pending: tuple[ThreadPoolExecutor, Future[LoadedModel]] | None = None
        if spec.model == TINY_RANDOM:
            self.loaded = tiny_random_model(vocabulary, spec.device, spec.seed)
            self.tokenizer = self.loaded.tokenizer
        else:
            self.tokenizer = load_tokenizer(spec.model, spec.trust_remote_code)
            # The weights load in a thread while candidates and splits are built: reading and
            # torch release the GIL, and start-up is most of a short run's overhead.
            pool = ThreadPoolExecutor(max_workers=1)
            self._pending = (
                pool,
                pool.submit(
                    load_model,
                    spec.model,
                    spec.device,
                    tokenizer=self.tokenizer,
                    trust_remote_code=spec.trust_remote_code,
                    dtype=spec.dtype,
                ),
            )

    def ready(self) -> dict[str, Any]:
        """Wait for the weights; random weights, window and device for the manifest."""
        if self._pending is not None:
            pool, future = self._pending
            try:
                self.loaded = future.result()
            finally:
                pool.shutdown()
            self._pending = None
        loaded = self.model
        return {
            "random_weights": loaded.random_weights,
            "model_family": type(loaded.tokenizer).__name__,
            "window_tokens": loaded.window,
            "device": str(loaded.device),
        }

    @property
    def model(self) -> LoadedModel:
        """The loaded model: at once for the tiny random one, after ready() for others."""
        if self.loaded is None:
            raise RuntimeError("the model is still loading: call ready() first")
        return self.loaded

    def encode(self, blanks: Sequence[Blank]) -> tuple[Encoded | None, int]:
        """Masked texts as token ids, and how many were windowed."""
        if not blanks:
            return None, 0
        encoded = encode_blanks(blanks, self.tokenizer, self.model.window)
        return encoded, int(encoded.windowed.sum())

    def subset(self, encoded: Encoded, keep: np.ndarray) -> Encoded:
        """The encoded items where `keep` is true."""
        ids = [x for x, k in zip(encoded.input_ids, keep, strict=True) if k]
        return Encoded(ids, encoded.mask_position[keep], encoded.windowed[keep])

    def form_scores(
        self, encoded: Encoded, forms: Sequence[Sequence[int]], n_items: int
    ) -> Iterator[FormBatch]:
        """Batched forwards at the mask, one per distinct masked input, read over the forms."""
        yield from mask_form_scores(self, encoded, forms, self.model, self.spec)


def encode_blanks(blanks: Sequence[Blank], tokenizer, window_limit: int) -> Encoded:
    """Encode blanks: each hidden word replaced by the mask token, the scored mask being that of
    the word asked at."""
    mask = tokenizer.mask_token
    texts, spans_at, ordinals = [], [], []
    for blank in blanks:
        text, spans = hide(blank.text, blank.hidden, mask)
        texts.append(text)
        spans_at.append(spans[blank.scored])
        ordinals.append(blank.scored)
    return encode(tokenizer, texts, spans_at, ordinals, window_limit)


def mask_form_scores(
    backend: MaskedBackend,
    encoded: Encoded,
    forms: Sequence[Sequence[int]],
    loaded: LoadedModel,
    spec: ModelSpec,
) -> Iterator[FormBatch]:
    """One forward per distinct masked input (items that share a masked sentence share it), the
    head at the mask only, each form's probability and logit per item; no host sync per batch."""
    import torch
    from tqdm import tqdm

    from .models import FormIndex, autocast, mask_logits

    device = loaded.device
    index = FormIndex(forms, device)
    distinct, where = distinct_inputs(encoded.input_ids, encoded.mask_position)
    backend.forwards += len(distinct)
    # Items grouped by their distinct input, so that a batch of inputs finds its items at once.
    order = np.argsort(where, kind="stable")
    bounds = np.searchsorted(where[order], np.arange(len(distinct) + 1))
    lengths = np.asarray([len(ids) for ids, _ in distinct])
    pad_id = loaded.tokenizer.pad_token_id or 0
    bar = tqdm(total=len(where), unit="item", disable=not spec.progress, smoothing=0.1)
    with torch.inference_mode(), autocast(device, spec.dtype):
        for batch in length_batches(lengths, spec.batch_size, spec.max_tokens):
            padded = pad([distinct[i][0] for i in batch], pad_id, "right", device)
            at = torch.as_tensor([distinct[i][1] for i in batch], device=device)
            logits = mask_logits(loaded.model, padded.input_ids, padded.attention_mask, at)
            prob, logit = index.values(logits.float())
            rows = np.concatenate([order[bounds[i] : bounds[i + 1]] for i in batch])
            local = np.repeat(np.arange(len(batch)), bounds[batch + 1] - bounds[batch])
            r = torch.as_tensor(local, device=device)
            yield FormBatch(rows, prob[r], logit[r])
            bar.update(len(rows))
    bar.close()


def distinct_inputs(
    input_ids: Sequence[Sequence[int]], positions: Sequence[int] | np.ndarray
) -> tuple[list[tuple[tuple[int, ...], int]], np.ndarray]:
    """The distinct (token ids, scored position) inputs, and per item the index of its own."""
    index: dict[tuple[tuple[int, ...], int], int] = {}
    where = [
        index.setdefault((tuple(ids), int(p)), len(index))
        for ids, p in zip(input_ids, positions, strict=True)
    ]
    return list(index), np.asarray(where, dtype=np.int64)


class MaskedPLL:
    """Pseudo-log-likelihood of a masked LM (DESIGN.md §5, Kauf & Ivanova 2023): each token's
    log-probability with it and the later tokens of its word masked. `word` scores the tokens of
    one word given by its character span; `sentence` every token (Salazar et al. 2020)."""

    def __init__(
        self,
        loaded: Any,
        pll: str = "word",
        batch_size: int = 32,
        max_tokens: int | None = None,
        dtype: str = "float32",
    ) -> None:
        self.loaded, self.model, self.tokenizer = loaded, loaded.model, loaded.tokenizer
        self.name, self.device, self.window = name_of(loaded.name), loaded.device, loaded.window
        self.pll, self.method = pll, f"pll-{pll}"
        self.batch_size, self.max_tokens, self.dtype = batch_size, max_tokens, dtype
        self.pad_id = self.tokenizer.pad_token_id or 0
        self.windowed = 0
        self.forwards = 0  # masked copies run through the model

    def with_pll(self, pll: str) -> MaskedPLL:
        """The same model scoring another PLL (`word` or `sentence`)."""
        view = copy.copy(self)
        view.pll, view.method = pll, f"pll-{pll}"
        return view

    def facts(self) -> dict[str, Any]:
        """What the manifest records."""
        from .models import dtype_fact

        return {
            "model_kind": "masked",
            "pll": self.pll,
            "window_tokens": self.window,
            "device": str(self.device),
            "dtype": dtype_fact(self.model, self.dtype),
            "random_weights": self.loaded.random_weights,
            "model_family": type(self.tokenizer).__name__,
            "windowed": self.windowed,
        }

    def token_scores(
        self, texts: Sequence[str], words: Sequence[Sequence[Span] | None] | None = None
    ) -> list[TokenScores]:
        """Each scored token's within-word PLL term with its character span: the tokens of the
        words `words[i]` (e.g. one word's span: word PLL), else of every word of the tokenizer's
        pre-tokenization (sentence PLL, as minicons' `within_word_l2r`)."""
        given = [None] * len(texts) if words is None else [_spans(w) for w in words]
        return [
            TokenScores(spans, lp, native=lp, ids=ids)  # §5.1: nothing is conditioned on BOS
            for spans, lp, ids in self._token_logprobs(texts, [None] * len(texts), given)
        ]

    def _token_logprobs(
        self,
        texts: Sequence[str],
        words: Sequence[tuple[int, int] | None],
        known: Sequence[Sequence[tuple[int, int]] | None] | None = None,
    ) -> list[tuple[list[tuple[int, int]], np.ndarray, np.ndarray]]:
        """Per text: scored tokens' spans, PLL terms and ids (only the word's tokens when one is
        given)."""
        import torch

        from .models import autocast, logprobs_at, mask_logits

        plan = pll_copies(self.tokenizer, texts, words, self.window, known)
        self.windowed += plan.windowed
        self.forwards += len(plan.copies)
        values = torch.zeros(len(plan.copies), dtype=torch.float64, device=self.device)
        if plan.copies:
            lengths = np.asarray([len(c) for c in plan.copies])
            with torch.inference_mode(), autocast(self.device, self.dtype):
                # All masked copies of one sentence share a batch (same length, one padding).
                for rows in length_batches(lengths, self.batch_size, self.max_tokens, plan.owner):
                    padded = pad([plan.copies[i] for i in rows], self.pad_id, "right", self.device)
                    where = torch.as_tensor(plan.positions[rows], device=self.device)
                    logits = mask_logits(
                        self.model, padded.input_ids, padded.attention_mask, where
                    ).float()
                    wanted = torch.as_tensor(plan.targets[rows], device=self.device)
                    logprobs = logprobs_at(
                        logits, torch.arange(len(rows), device=self.device), wanted
                    )
                    values[torch.as_tensor(rows, device=self.device)] = logprobs.double()
        host = values.cpu().numpy()
        # Copies were made text by text: each text's terms are one slice.
        bounds = np.searchsorted(plan.owner, np.arange(len(texts) + 1))
        return [
            (
                plan.scored[i],
                host[bounds[i] : bounds[i + 1]],
                plan.targets[bounds[i] : bounds[i + 1]],
            )
            for i in range(len(texts))
        ]


@dataclass
class PllCopies:
    """The masked copies that a PLL needs: one per scored token, in text order."""

    copies: list[list[int]]
    positions: np.ndarray  # the scored position of each copy
    targets: np.ndarray  # the token id it must predict there
    owner: np.ndarray  # the text each copy belongs to (non-decreasing)
    scored: list[list[tuple[int, int]]]  # per text: character spans of its scored tokens
    windowed: int  # texts longer than the window


def pll_copies(
    tokenizer: Any,
    texts: Sequence[str],
    words: Sequence[tuple[int, int] | None],
    limit: int,
    known: Sequence[Sequence[tuple[int, int]] | None] | None = None,
) -> PllCopies:
    """Copy j of a word masks its tokens j… (the within-word rule): each predicts token j. The
    words: `words[i]` alone (word PLL), else `known[i]` (given spans), else the tokenizer's own."""
    batch = with_offsets(tokenizer, texts, special_tokens_mask=True)
    mask_id = tokenizer.mask_token_id
    copies: list[list[int]] = []
    positions, targets, owner, scored = [], [], [], []
    windowed = 0
    for text_index, (ids, offsets, special, text, word) in enumerate(
        zip(
            batch["input_ids"],
            batch["offset_mapping"],
            batch["special_tokens_mask"],
            texts,
            words,
            strict=True,
        )
    ):
        given = known[text_index] if known is not None else None
        word_ids = batch.word_ids(text_index) if batch.is_fast else None
        groups = token_words(offsets, special, text, word, given, word_ids)
        scored.append([tuple(offsets[k]) for group in groups for k in group])
        windowed += len(ids) > limit
        for group in groups:
            for j, position in enumerate(group):
                masked = list(ids)
                for later in group[j:]:
                    masked[later] = mask_id
                masked, at = window(masked, position, limit)
                copies.append(masked)
                positions.append(at)
                targets.append(ids[position])
                owner.append(text_index)
    return PllCopies(
        copies,
        np.asarray(positions, dtype=np.int64),
        np.asarray(targets, dtype=np.int64),
        np.asarray(owner, dtype=np.int64),
        scored,
        windowed,
    )


def token_words(
    offsets: Sequence[Sequence[int]],
    special: Sequence[int],
    text: str,
    word: tuple[int, int] | None,
    given: Sequence[tuple[int, int]] | None = None,
    word_ids: Sequence[int | None] | None = None,
) -> list[list[int]]:
    """Token positions grouped by word, in order (DESIGN.md §5): the tokens of the span `word`;
    else of each span of `given` (the UD surface words); else of each word of the tokenizer's
    pre-tokenization (`word_ids`, what minicons uses); else of each whitespace-separated chunk (a
    slow tokenizer). A token without characters (a lone `▁`) goes with the token after it."""
    if word is None and given is None and word_ids is not None:
        by_id: dict[int, list[int]] = {}
        for k, (w, is_special) in enumerate(zip(word_ids, special, strict=True)):
            if w is not None and not is_special:
                by_id.setdefault(w, []).append(k)
        return [by_id[w] for w in sorted(by_id, key=lambda w: by_id[w][0])]
    chunks: list[tuple[int, int]] = []
    if word is not None:
        chunks = [word]
    elif given is not None:
        chunks = [tuple(c) for c in given if c[1] > c[0]]  # type: ignore[misc]
    else:
        start = None
        for i, ch in enumerate(text + " "):
            if ch.isspace():
                if start is not None:
                    chunks.append((start, i))
                    start = None
            elif start is None:
                start = i
    owner: list[int | None] = []
    for (a, b), is_special in zip(offsets, special, strict=True):
        if is_special:
            owner.append(None)
            continue
        found = None
        for c, (lo, hi) in enumerate(chunks):
            if (b > a and a < hi and b > lo) or (b <= a and lo <= a < hi):
                found = c
                break
        owner.append(found)
    # Empty tokens take the word of the next token that has characters.
    for k in range(len(owner) - 2, -1, -1):
        a, b = offsets[k]
        if not special[k] and b <= a and owner[k] is None:
            owner[k] = owner[k + 1]
    groups: dict[int, list[int]] = {}
    for k, chunk in enumerate(owner):
        if chunk is not None:
            groups.setdefault(chunk, []).append(k)
    return [groups[c] for c in sorted(groups)]


def _spans(words: Sequence[Span] | None) -> tuple[Span, ...] | None:
    return None if words is None else tuple((int(a), int(b)) for a, b in words)


def token_scorer(
    model: str,
    *,
    pll: str,
    device: str,
    batch_size: int,
    max_tokens: int | None,
    dtype: str,
    trust_remote_code: bool,
    **_: Any,
) -> MaskedPLL:
    """A masked LM loaded as a token scorer (`loading.load_scorer`, through `spec.KINDS`)."""
    from .models import MASKED, load_model

    loaded = load_model(
        model, device, kind=MASKED, trust_remote_code=trust_remote_code, dtype=dtype
    )
    return MaskedPLL(loaded, pll, batch_size, max_tokens, dtype)
