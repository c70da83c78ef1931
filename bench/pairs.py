"""Pair-reading scoring speed against its floor, measured side by side in one run.

    python bench/pairs.py [--corpus DIR] [--pairs 1000] [--batch-size 32] [--repeat 5] [--large]
    python bench/pairs.py --smoke     # tiny sizes, one repeat: that it runs (CI)
    python bench/pairs.py --model M [--corpus DIR --lang en] [--minicons] [--head-chunk N]

On French-PUD's minimal pairs (mined here unless --corpus is given): the causal LM's token
log-probabilities summed per sentence (`readings.token_sums.sentence_scores` over the good and bad
sentences; each shared prefix run once, DESIGN.md §5) against one bare batched forward per
distinct sentence; the same on the pairs with three nonce variants each (§9, no goal); the
masked LM's word PLL against one bare forward per masked copy. Models: the shared
tiny-fr-ud-gpt2 and tiny-fr-ud-bert, and with --large a random 12-layer, 768-wide GPT-2 (the size
of `gpt2`), whose forwards dominate. The sides run in turn (A B A B …, --repeat turns each); prints
each side's min, median and spread, pairs/s, the tokens each ran and the ratio, the median of the
turns' ratios (goals: causal ≤ 0.62 tiny, ≤ 0.70 gpt2-sized; masked ≤ 1.3).

With --model (a causal LM's folder, hub name or GGUF file), that model alone on the pairs of
--lang (French-PUD's unless --corpus is given), against its floor; --minicons adds minicons 0.3's
IncrementalLMScorer (`sequence_score`, BOS first, batches of --batch-size) as a third side, and
--head-chunk sets the positions whose logits a CPU computes at a time (default: the back-end's).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from floors import (
    SHARED,
    Timing,
    causal_floor,
    interleaved,
    masked_floor,
    mine_french_pud,
    pair_arguments,
    ratio,
    smoke_sizes,
)


def main() -> None:
    p = pair_arguments(__doc__)
    p.set_defaults(pairs=1000)
    p.add_argument("--large", action="store_true", help="also a random gpt2-sized causal LM")
    p.add_argument("--model", help="a causal LM (folder, hub name or .gguf) benched alone")
    p.add_argument("--lang", default="fr", help="the language of --corpus (default: fr)")
    p.add_argument("--minicons", action="store_true", help="with --model: minicons as a side")
    p.add_argument("--head-chunk", type=int, default=None, help="with --model: CPU head chunk")
    args = p.parse_args()
    smoke_sizes(args, pairs=40)
    if args.model:
        return bench_model(args)

    import polars as pl
    import torch

    torch.set_grad_enabled(False)
    from ud_agree.evaluate.backends.causal import CausalLM
    from ud_agree.evaluate.backends.masked import MaskedPLL, pll_copies
    from ud_agree.evaluate.backends.models import CAUSAL, load_model
    from ud_agree.evaluate.readings.token_sums import sentence_scores

    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus or mine_french_pud(Path(tmp) / "plain")
        pairs = pl.read_parquet(corpus / "fr" / "pairs.parquet").head(args.pairs)
        nonce_corpus = mine_french_pud(Path(tmp) / "nonce", nonce=3)
        originals = pairs.select("sent_id", "target_id", "controller_id").unique()
        nonce_pairs = pl.read_parquet(nonce_corpus / "fr" / "pairs.parquet").join(
            originals, on=["sent_id", "target_id", "controller_id"]
        )
    sets = {"pairs": pairs, "pairs with --nonce 3": nonce_pairs}
    print(f"{pairs.height} French-PUD pairs ({nonce_pairs.height} with nonce variants), "
          f"batch size {args.batch_size}")  # fmt: skip

    models = {"tiny-fr-ud-gpt2": (str(SHARED / "models/tiny-fr-ud-gpt2"), 0.62)}
    if args.large:
        models["random gpt2-size"] = (random_gpt2(Path(tempfile.mkdtemp())), 0.70)
    for name, (path, goal) in models.items():
        loaded = load_model(path, "cpu", kind=CAUSAL)
        for label, frame in sets.items():
            if label != "pairs" and name != "tiny-fr-ud-gpt2":
                continue  # the nonce line is the tiny model's: the large one's would take hours
            texts, spans = sides(frame)
            lm = CausalLM(loaded, batch_size=args.batch_size)
            sequences, _ = lm.encode(sorted(set(texts)))
            best = interleaved(
                args.repeat,
                {
                    "ud-agree": lambda lm=lm, t=texts, s=spans: _timed(
                        lambda: sentence_scores(lm, t, s)
                    ),
                    "floor": lambda lm=lm, s=sequences: causal_floor(
                        lm.model, s, args.batch_size, lm.pad_id
                    ),
                },
            )
            runs = max(1, args.repeat)
            tokens = f"tokens run {lm.tokens_run // runs:,} vs {sum(map(len, sequences)):,}"
            shown = goal if label == "pairs" else None
            report(f"causal, {name}, {label} ({tokens})", frame.height, best, shown, args.smoke)
            print(f"  path: {'shared prefixes' if lm.shares_prefixes else 'full forwards'}")

    texts, spans = sides(pairs)
    loaded = load_model(str(SHARED / "models/tiny-fr-ud-bert"), "cpu")
    pll = MaskedPLL(loaded, "word", batch_size=args.batch_size)
    distinct = sorted(set(zip(texts, spans, strict=True)))
    plan = pll_copies(
        loaded.tokenizer, [t for t, _ in distinct], [s for _, s in distinct], loaded.window
    )
    pad = loaded.tokenizer.pad_token_id or 0
    best = interleaved(
        args.repeat,
        {
            "ud-agree": lambda: _timed(lambda: sentence_scores(pll, texts, spans)),
            "floor": lambda: masked_floor(
                loaded.model, plan.copies, plan.positions, args.batch_size, pad
            ),
        },
    )
    report(
        f"masked word PLL, tiny-fr-ud-bert ({len(plan.copies)} masked copies)",
        pairs.height,
        best,
        1.3,
        args.smoke,
    )


def bench_model(args) -> None:
    """The causal pair bench on one given model: ud-agree against its floor (and minicons)."""
    import time

    import polars as pl
    import torch

    torch.set_grad_enabled(False)
    from ud_agree.evaluate.backends.causal import CausalLM
    from ud_agree.evaluate.backends.models import CAUSAL, load_model
    from ud_agree.evaluate.readings.token_sums import sentence_scores

    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus or mine_french_pud(Path(tmp) / "plain")
        pairs = pl.read_parquet(corpus / args.lang / "pairs.parquet").head(args.pairs)
    start = time.perf_counter()
    loaded = load_model(args.model, "cpu", kind=CAUSAL)
    loading = time.perf_counter() - start
    lm = CausalLM(loaded, batch_size=args.batch_size)
    if args.head_chunk:
        lm.head_chunk = args.head_chunk
    name = Path(args.model).name
    texts, spans = sides(pairs)
    sequences, _ = lm.encode(sorted(set(texts)))
    vocabulary = lm.model.get_output_embeddings().weight.shape[0]
    print(f"{pairs.height} {args.lang} pairs, batch size {args.batch_size}, {name} loaded in "
          f"{loading:.1f} s, vocabulary {vocabulary:,}, head chunk {lm.head_chunk} positions, "
          f"{torch.get_num_threads()} threads")  # fmt: skip
    runs = {
        "ud-agree": lambda: _timed(lambda: sentence_scores(lm, texts, spans)),
        "floor": lambda: causal_floor(lm.model, sequences, args.batch_size, lm.pad_id),
    }
    if args.minicons:
        runs["minicons"] = minicons_side(loaded, texts, args.batch_size)
    best = interleaved(args.repeat, runs)
    tokens = f"tokens run {lm.tokens_run // max(1, args.repeat):,} vs {sum(map(len, sequences)):,}"
    report(f"causal, {name}, pairs ({tokens})", pairs.height, best, None, args.smoke)
    print(f"  path: {'shared prefixes' if lm.shares_prefixes else 'full forwards'}")
    if "minicons" in best:
        them = best["minicons"]
        print(f"  minicons {them} ({pairs.height / them.median:.1f} pairs/s at the median)")
        print(f"  minicons / ud-agree: {ratio(them, best['ud-agree'])}")


def minicons_side(loaded, texts: list[str], batch_size: int):
    """minicons' sums of the texts (BOS first: `bos_token=True` unless the tokenizer adds it),
    timed; its scorer made once, on a copy of the tokenizer (minicons changes it)."""
    import copy

    from minicons import scorer

    tokenizer = copy.deepcopy(loaded.tokenizer)
    if not hasattr(tokenizer, "batch_encode_plus"):  # minicons 0.3 on transformers 5
        tokenizer.batch_encode_plus = lambda batch, **kw: tokenizer(batch, **kw)
    adds_bos = tokenizer("The cat")["input_ids"][:1] == [tokenizer.bos_token_id]
    lm = scorer.IncrementalLMScorer(loaded.model, "cpu", tokenizer=tokenizer)

    def run() -> None:
        for at in range(0, len(texts), batch_size):
            lm.sequence_score(texts[at : at + batch_size], reduction=lambda x: x.sum(0).item(),
                              bos_token=not adds_bos)  # fmt: skip

    return lambda: _timed(run)


def sides(pairs) -> tuple[list[str], list[tuple[int, int]]]:
    """The good then the bad sentences of the pairs, with the varied word's span in each."""
    texts = pairs["sentence_good"].to_list() + pairs["sentence_bad"].to_list()
    spans = list(zip(pairs["start"], pairs["end_good"], strict=True))
    spans += list(zip(pairs["start"], pairs["end_bad"], strict=True))
    return texts, spans


def _timed(work) -> float:
    import time

    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def random_gpt2(folder: Path) -> str:
    """A gpt2-sized causal LM (12 layers, 768 wide) with random weights and the tiny tokenizer."""
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(SHARED / "models/tiny-fr-ud-gpt2")
    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_positions=256)
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def report(what: str, pairs: int, best: dict[str, Timing], goal: float | None, smoke: bool) -> None:
    ours, floor = best["ud-agree"], best["floor"]
    target = "no goal" if goal is None or smoke else f"goal <= {goal}"
    print(f"{what}: {ratio(ours, floor)} ({target})")
    print(f"  ud-agree {ours} ({pairs / ours.median:.1f} pairs/s at the median)")
    print(f"  floor    {floor} ({pairs / floor.median:.1f} pairs/s at the median)")


if __name__ == "__main__":
    main()
