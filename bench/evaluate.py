"""Class-average evaluation speed against its floors, measured side by side in one run.

    python bench/evaluate.py [--items 1500] [--batch-size 32] [--repeat 5] [--corpus DIR]
                             [--config ../shared/models/bert-base-multilingual-cased] [--mask controller]

A random-weight model of the config's real architecture (full-size mBERT by default, built from
the shared config and vocabulary) scores the first N eligible French-PUD items (mined here unless
--corpus is given). Items that share a masked input (a noun with a determiner and an adjective is
one masked sentence, twice) are run once. The script prints the forward passes saved and the
wall time of `python -m evaluate` (a subprocess, start-up included) against two floors of bare
batched forwards with the head at the mask only: one forward per item, and one per distinct
input, the sides in turn (A B A B …, --repeat turns each; min, median, spread of each, and the
median of the turns' ratios). The run's start-up (interpreter and imports, corpus, items, model
load and validation, the token-unigram count) is timed apart from its scoring, from the stage
times its manifest records. Goals: forward passes ≤ 0.8 × items; scoring ≤ 1.05 × the
distinct-input floor. A causal line does the same with tiny-fr-ud-gpt2 (next-token distributions
after each item's prefix, the prefixes of one sentence read off one forward) against one bare
forward per distinct prefix (no goal). `--smoke`: a few items, a 1-layer model of the config's
vocabulary, one turn (CI).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from floors import ROOT, SHARED, SMOKE, Timing, interleaved, masked_floor, mine_french_pud, ratio


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--items", type=int, default=1500)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--config", default=str(SHARED / "models/bert-base-multilingual-cased"))
    p.add_argument(
        "--corpus", type=Path, default=None, help="a mined corpus with fr/ (skips mining)"
    )
    p.add_argument("--mask", default="controller", choices=("controller", "target", "both"))
    p.add_argument("--device", default="cpu")
    p.add_argument("--repeat", type=int, default=5, help="turns of each side, interleaved")
    p.add_argument("--smoke", action="store_true", help=SMOKE)
    args = p.parse_args()
    if args.smoke:
        args.items, args.repeat = 40, 1
    return args


def save_random_model(config_dir: str, target: Path, small: bool = False) -> None:
    """Full-size random model of the config's architecture (`small`: one narrow layer), saved
    with save_pretrained."""
    import torch
    from transformers import AutoConfig, AutoModelForMaskedLM, AutoTokenizer

    torch.manual_seed(0)
    config = AutoConfig.from_pretrained(config_dir)
    if small:
        config.update({"num_hidden_layers": 1, "hidden_size": 32, "num_attention_heads": 2,
                       "intermediate_size": 64})  # fmt: skip
    AutoModelForMaskedLM.from_config(config).save_pretrained(target)
    AutoTokenizer.from_pretrained(config_dir).save_pretrained(target)


class Evaluator:
    """`python -m evaluate` as a subprocess: each call's wall time, and its scoring time apart
    (the manifest's stage times) in `scoring`."""

    def __init__(self, corpus: Path, model: Path | str, work: Path, args) -> None:
        self.corpus, self.model, self.work, self.args = corpus, model, work, args
        self.scoring: list[float] = []
        self.counts: dict = {}

    def __call__(self) -> float:
        args, out = self.args, self.work / f"out{time.time_ns()}"
        command = [
            sys.executable, "-m", "evaluate", "--lang", "fr", "--corpus", str(self.corpus),
            "--model", str(self.model), "--limit", str(args.items), "--batch-size",
            str(args.batch_size), "--out", str(out), "--device", args.device, "--mask", args.mask,
            "--no-progress",
        ]  # fmt: skip
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        seconds = time.perf_counter() - start
        manifest = json.loads(next(out.glob("fr/*/manifest.json")).read_text())
        self.counts.update(manifest["counts"])
        self.scoring.append(manifest["timings"]["scoring"])
        return seconds

    def lines(self, wall: Timing, floor: Timing, goal: float | None) -> list[str]:
        """Wall, start-up and scoring of the runs, each scoring against the floor."""
        scoring = Timing(tuple(self.scoring))
        startup = Timing(tuple(w - s for w, s in zip(wall.seconds, self.scoring, strict=True)))
        target = "no goal" if goal is None else f"goal <= {goal}"
        return [
            f"  python -m evaluate, wall (subprocess): {wall}; {ratio(wall, floor)}",
            f"  start-up (interpreter, imports, corpus, items, model load, unigram count): {startup}",
            f"  scoring: {scoring}; {ratio(scoring, floor)} ({target})",
            f"  floor: {floor}",
        ]


def floor_inputs(corpus: Path, model: Path, items: int, mask: str):
    """The masked inputs the evaluator scores, per item (built with its functions, not timed)."""
    from ud_agree.evaluate.backends.masked import encode_blanks
    from ud_agree.evaluate.backends.models import load_tokenizer
    from ud_agree.evaluate.corpus import read_corpus
    from ud_agree.evaluate.options import Options
    from ud_agree.evaluate.readings.candidates import build_candidates, whole_word_vocab
    from ud_agree.evaluate.readings.class_decisions import attach_splits, enough_candidates
    from ud_agree.evaluate.tasks.class_average import blanks, build_items

    tokenizer = load_tokenizer(str(model))
    data = read_corpus(str(corpus), "fr")
    table, _ = build_items(data, Options(lang="fr", mask=mask).roles)
    candidates = build_candidates(data.lexicon, whole_word_vocab(tokenizer), True)
    table, _ = attach_splits(table, candidates, "agreement")
    table = table.filter(enough_candidates(10)).head(items)
    encoded = encode_blanks(blanks(table, "context"), tokenizer, 512)
    return encoded.input_ids, encoded.mask_position, tokenizer.pad_token_id or 0


def main() -> None:
    args = parse()
    import torch
    from transformers import AutoModelForMaskedLM
    from ud_agree.evaluate.backends.masked import distinct_inputs

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        corpus = args.corpus or mine_french_pud(work)
        model = work / "random-model"
        started = time.perf_counter()
        save_random_model(args.config, model, small=args.smoke)
        print(
            f"random {Path(args.config).name}-architecture model saved in {time.perf_counter() - started:.0f} s"
        )
        ids, positions, pad = floor_inputs(corpus, model, args.items, args.mask)
        distinct, _ = distinct_inputs(ids, positions)
        unique_ids = [list(d[0]) for d in distinct]
        unique_positions = [d[1] for d in distinct]
        floor_model = AutoModelForMaskedLM.from_pretrained(model, dtype=torch.float32).eval()
        ours = Evaluator(corpus, model, work, args)
        unique_floor = lambda: masked_floor(  # noqa: E731
            floor_model, unique_ids, unique_positions, args.batch_size, pad
        )
        timings = interleaved(
            args.repeat,
            {
                "evaluate": ours,
                "floor per distinct input": unique_floor,
                "floor per item": lambda: masked_floor(
                    floor_model, ids, positions, args.batch_size, pad
                ),
            },
        )
    items, forwards = ours.counts["items_in_results"], ours.counts["forward_inputs"]
    assert items == len(ids) and forwards == len(distinct), (
        items,
        len(ids),
        forwards,
        len(distinct),
    )
    print(
        f"items: {items}  mask: {args.mask}  batch size: {args.batch_size}  device: {args.device}"
    )
    print(f"forward passes: {forwards} for {items} items ({forwards / items:.3f} x one per item, "
          f"{items - forwards} saved; goal <= 0.8)")  # fmt: skip
    wall, unique = timings["evaluate"], timings["floor per distinct input"]
    print("masked class-average against one forward per distinct input:")
    for line in ours.lines(wall, unique, None if args.smoke else 1.05):
        print(line)
    print(f"  floor, one forward per item: {timings['floor per item']}; scoring "
          f"{ratio(Timing(tuple(ours.scoring)), timings['floor per item'])}")  # fmt: skip
    causal_line(args)


def causal_prefixes(corpus: Path, model: str, items: int, mask: str) -> list[list[int]]:
    """The distinct prefixes the causal class-average reading asks about (its own functions)."""
    from ud_agree.evaluate.corpus import read_corpus
    from ud_agree.evaluate.options import Options
    from ud_agree.evaluate.run import open_task

    options = Options(lang="fr", corpus=str(corpus), model=model, kind="causal", mask=mask,
                      device="cpu", progress=False)  # fmt: skip
    reading = open_task(options, read_corpus(str(corpus), "fr"))
    table, _ = reading.items()
    reading.ready()
    _, encoded, _ = reading.encode(table.head(items))
    return [list(s) for s in dict.fromkeys(tuple(s) for s in encoded)]


def causal_line(args) -> None:
    """tiny-fr-ud-gpt2's class-average reading against one bare forward per distinct prefix."""
    import torch
    from ud_agree.evaluate.backends.models import CAUSAL, load_model

    model = str(SHARED / "models/tiny-fr-ud-gpt2")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        corpus = args.corpus or mine_french_pud(work)
        prefixes = causal_prefixes(corpus, model, args.items, args.mask)
        loaded = load_model(model, "cpu", kind=CAUSAL)
        head, pad = loaded.model.get_output_embeddings(), loaded.tokenizer.pad_token_id or 0

        def floor() -> float:
            order = sorted(range(len(prefixes)), key=lambda i: len(prefixes[i]))
            start = time.perf_counter()
            with torch.inference_mode():
                for at in range(0, len(order), args.batch_size):
                    batch = [prefixes[i] for i in order[at : at + args.batch_size]]
                    width = max(map(len, batch))
                    ids = torch.tensor([s + [pad] * (width - len(s)) for s in batch])
                    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in batch])
                    hidden = loaded.model.base_model(input_ids=ids, attention_mask=mask)[0]
                    last = torch.tensor([len(s) - 1 for s in batch])
                    head(hidden[torch.arange(len(batch)), last]).log_softmax(-1)
            return time.perf_counter() - start

        ours = Evaluator(corpus, model, work, args)
        timings = interleaved(args.repeat, {"evaluate": ours, "floor per distinct prefix": floor})
    print(f"causal class-average, tiny-fr-ud-gpt2: {ours.counts['items_in_results']} items, "
          f"{len(prefixes)} distinct prefixes, {ours.counts['forward_inputs']} forwards "
          "(no goal):")  # fmt: skip
    for line in ours.lines(timings["evaluate"], timings["floor per distinct prefix"], None):
        print(line)


if __name__ == "__main__":
    main()
