"""Pair-reading scoring speed against its floor, measured side by side in one run.

    python bench/pairs.py [--corpus DIR] [--pairs 2000] [--batch-size 32] [--repeat 3]

On French-PUD's minimal pairs (mined here unless --corpus is given): the causal LM's sentence
log-probabilities (`CausalLM.sentence_scores` over the good and bad sentences) against one bare
forward per distinct sentence; the masked LM's word PLL (`MaskedPLL.sentence_scores`) against one
bare forward per masked copy. Models: the shared tiny-fr-ud-gpt2 and tiny-fr-ud-bert, and with
--large a random 12-layer, 768-wide GPT-2 (the size of `gpt2`), whose forwards dominate. Prints
each side's best time, pairs/s and the ratio (goal ≤ 1.3).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from floors import SHARED, best_of, causal_floor, masked_floor, mine_french_pud, pair_arguments


def main() -> None:
    p = pair_arguments(__doc__)
    p.add_argument("--large", action="store_true", help="also a random gpt2-sized causal LM")
    args = p.parse_args()

    import polars as pl
    import torch

    torch.set_grad_enabled(False)
    from ud_agree.evaluate.backends.causal import CausalLM
    from ud_agree.evaluate.backends.masked import MaskedPLL, pll_copies
    from ud_agree.evaluate.backends.models import CAUSAL, load_model

    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.corpus or mine_french_pud(Path(tmp))
        pairs = pl.read_parquet(corpus / "fr" / "pairs.parquet").head(args.pairs)
    texts = pairs["sentence_good"].to_list() + pairs["sentence_bad"].to_list()
    spans = list(zip(pairs["start"], pairs["end_good"], strict=True))
    spans += list(zip(pairs["start"], pairs["end_bad"], strict=True))
    print(
        f"{pairs.height} French-PUD pairs, {len(set(texts))} distinct sentences, batch size {args.batch_size}"
    )

    models = {"tiny-fr-ud-gpt2": str(SHARED / "models/tiny-fr-ud-gpt2")}
    if args.large:
        models["random gpt2-size"] = random_gpt2(Path(tempfile.mkdtemp()))
    for name, path in models.items():
        lm = CausalLM(load_model(path, "cpu", kind=CAUSAL), batch_size=args.batch_size)
        sequences, _ = lm.encode(sorted(set(texts)))
        best = best_of(
            args.repeat,
            {
                "ud-agree": lambda lm=lm: _timed(lambda: lm.sentence_scores(texts, spans)),
                "floor": lambda lm=lm, s=sequences: causal_floor(
                    lm.model, s, args.batch_size, lm.pad_id
                ),
            },
        )
        report(f"causal, {name}", pairs.height, best)

    loaded = load_model(str(SHARED / "models/tiny-fr-ud-bert"), "cpu")
    pll = MaskedPLL(loaded, "word", batch_size=args.batch_size)
    distinct = sorted(set(zip(texts, spans, strict=True)))
    plan = pll_copies(
        loaded.tokenizer, [t for t, _ in distinct], [s for _, s in distinct], loaded.window
    )
    pad = loaded.tokenizer.pad_token_id or 0
    best = best_of(
        args.repeat,
        {
            "ud-agree": lambda: _timed(lambda: pll.sentence_scores(texts, spans)),
            "floor": lambda: masked_floor(
                loaded.model, plan.copies, plan.positions, args.batch_size, pad
            ),
        },
    )
    report(
        f"masked word PLL, tiny-fr-ud-bert ({len(plan.copies)} masked copies)", pairs.height, best
    )


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


def report(what: str, pairs: int, best: dict[str, float]) -> None:
    ours, floor = best["ud-agree"], best["floor"]
    print(f"{what}: ud-agree {ours:.2f} s ({pairs / ours:.1f} pairs/s), floor {floor:.2f} s "
          f"({pairs / floor:.1f} pairs/s), ratio {ours / floor:.3f} (goal <= 1.3)")  # fmt: skip


if __name__ == "__main__":
    main()
