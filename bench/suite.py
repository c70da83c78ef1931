"""Throughput of `evaluate.suite` against the batched forward floor of the same sentences.

    python bench/suite.py [--corpus DIR] [--pairs 2000] [--batch-size 32] [--repeat 5]

French-PUD's minimal pairs are exported in the BLiMP layout (`python -m mine.export`), then
scored by `evaluate.suite`'s run (reading the file, scoring, writing chunks, summary; the model
loaded once beforehand) with tiny-fr-ud-gpt2, against one bare forward per distinct sentence.
The sides run in turn (A B A B …); prints each side's min, median and spread, items/s and the
median of the turns' ratios (goal ≤ 1.3). `--smoke`: 40 pairs, one repeat (CI).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import cast

from floors import (
    ROOT,
    SHARED,
    causal_floor,
    interleaved,
    mine_french_pud,
    pair_arguments,
    ratio,
    smoke_sizes,
)


def main() -> None:
    p = pair_arguments(__doc__)
    args = p.parse_args()
    smoke_sizes(args, pairs=40)

    import polars as pl
    import torch

    torch.set_grad_enabled(False)
    from ud_agree.evaluate.backends import load_scorer
    from ud_agree.evaluate.backends.causal import CausalLM
    from ud_agree.evaluate.options import suite_run as suite_spec
    from ud_agree.evaluate.run import run_suites

    work = Path(tempfile.mkdtemp(prefix="bench-suite-"))
    try:
        corpus = args.corpus or mine_french_pud(work)
        subset = work / "pairs.parquet"
        pl.read_parquet(corpus / "fr" / "pairs.parquet").head(args.pairs).write_parquet(subset)
        suite = work / "fr_pairs.jsonl"
        command = [sys.executable, "-m", "mine.export", str(subset), "--format", "blimp"]
        subprocess.run([*command, "--out", str(suite)], check=True, cwd=ROOT)
        model = str(SHARED / "models/tiny-fr-ud-gpt2")
        scorer = cast(CausalLM, load_scorer(model, device="cpu", batch_size=args.batch_size))
        pairs = pl.read_ndjson(suite)
        texts = sorted(set(pairs["sentence_good"]) | set(pairs["sentence_bad"]))
        sequences, _ = scorer.encode(texts)

        def suite_run() -> float:
            out = work / "out"
            shutil.rmtree(out, ignore_errors=True)
            options = suite_spec(
                files=[suite], model=model, out=out, batch_size=args.batch_size, progress=False
            )
            start = time.perf_counter()
            run_suites(options, scorer_factory=lambda *a, **k: scorer)
            return time.perf_counter() - start

        best = interleaved(
            args.repeat,
            {
                "evaluate.suite": suite_run,
                "floor": lambda: causal_floor(
                    scorer.model, sequences, args.batch_size, scorer.pad_id
                ),
            },
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ours, floor = best["evaluate.suite"], best["floor"]
    n = pairs.height
    print(
        f"{n} pairs ({len(texts)} distinct sentences), batch size {args.batch_size}, tiny-fr-ud-gpt2, CPU"
    )
    print(f"evaluate.suite: {ours}, {n / ours.median:.1f} items/s at the median")
    print(
        f"floor (one bare forward per distinct sentence): {floor}, {n / floor.median:.1f} items/s"
    )
    print(f"{ratio(ours, floor)} ({'no goal: --smoke' if args.smoke else 'goal <= 1.3'})")


if __name__ == "__main__":
    main()
