"""Whether one checkout of ud-agree scores as fast as another: the same work, timed in each tree.

    python bench/compare_trees.py OLD [NEW] [--parts causal,masked,suite,evaluate,evaluate-causal]
                                  [--turns 8] [--pairs 1000] [--items 400]
    python bench/compare_trees.py --smoke     # this checkout against itself, tiny, once a part (CI)

OLD and NEW are source trees (NEW: this one), e.g. `git worktree add /tmp/old <commit>`. The
inputs are made once, by NEW, and given to both: French-PUD mined by NEW's miner, its first
--pairs pairs, those pairs in the BLiMP layout. Each turn runs every part in OLD and in NEW (the
order swapped every other turn), each in a process of its own with torch on one thread, so that
another job's load falls on both sides alike. The parts, as the benches time them:

- causal: `sentence_scores` of tiny-fr-ud-gpt2 over the pairs' good and bad sentences
  (bench/pairs.py's ud-agree side); masked: the same with tiny-fr-ud-bert's word PLL;
- suite: `run_suites` of tiny-fr-ud-gpt2 on the BLiMP file, the model loaded once (bench/suite.py);
- evaluate, evaluate-causal: `python -m evaluate --limit --items` over the mined corpus with a
  random full-size mBERT, and with tiny-fr-ud-gpt2 (bench/evaluate.py's runs); OLD's evaluator
  must read NEW's corpus.

A part in a process is one untimed warm-up, then --repeat timed runs (its figure: the least).
Prints per part and tree the median, least and spread of CPU seconds (user + system) and of wall
seconds, the median of the turns' ratios new/old, a bootstrap 95% interval of that median, and
how many turns NEW was the slower; the verdict is `slower` or `faster` only where the whole
interval is above or below 1 (and five turns at least).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"
PARTS = ("causal", "masked", "suite", "evaluate", "evaluate-causal")
# One thread everywhere: the two sides then compete for the same share of a busy machine.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1",
              "TOKENIZERS_PARALLELISM": "false"}  # fmt: skip


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("old", nargs="?", type=Path, help="the older source tree")
    p.add_argument("new", nargs="?", type=Path, default=ROOT, help="the newer (default: this one)")
    p.add_argument("--parts", default=",".join(PARTS), help=f"of {', '.join(PARTS)}")
    p.add_argument("--turns", type=int, default=8, help="turns of each tree, interleaved")
    p.add_argument("--repeat", type=int, default=2, help="timed runs of a part in one process")
    p.add_argument("--pairs", type=int, default=1000)
    p.add_argument("--items", type=int, default=400, help="--limit of the evaluate parts")
    p.add_argument(
        "--smoke",
        action="store_true",
        help="this tree against itself, tiny, each part run once (CI)",
    )
    p.add_argument(
        "--probe", nargs=4, metavar=("PART", "TREE", "INPUTS", "OUT"), help=argparse.SUPPRESS
    )
    args = p.parse_args()
    if args.smoke:
        args.old = args.new = ROOT
        args.turns, args.repeat, args.pairs, args.items = 1, 1, 40, 40
    elif args.old is None and args.probe is None:
        p.error("give the older tree (a folder holding evaluate/ and ud_agree/)")
    for tree in () if args.probe else (args.old, args.new):
        if not all((tree / name / "__init__.py").is_file() for name in ("evaluate", "ud_agree")):
            p.error(f"{tree}: not a source tree of ud-agree (no evaluate/ and ud_agree/ there)")
    if min(args.turns, args.repeat, args.pairs, args.items) < 1:
        p.error("--turns, --repeat, --pairs and --items take 1 or more")
    args.parts = [part for part in args.parts.split(",") if part]
    unknown = sorted(set(args.parts) - set(PARTS))
    if unknown:
        p.error(f"unknown part(s) {', '.join(unknown)}; the parts: {', '.join(PARTS)}")
    return args


def probe(part: str, tree: Path, inputs: Path, out: Path, repeat: int) -> dict[str, list[float]]:
    """In a process of its own: `part` run once, then `repeat` times timed, with `tree`'s code."""
    sys.path[:] = [str(tree)] + [p for p in sys.path if Path(p or ".").resolve() != HERE]
    import polars as pl
    import torch

    torch.set_num_threads(1)
    torch.set_grad_enabled(False)
    from ud_agree.evaluate.backends.models import CAUSAL, load_model
    from ud_agree.evaluate.readings.token_sums import sentence_scores

    pairs = pl.read_parquet(inputs / "pairs.parquet")
    texts = pairs["sentence_good"].to_list() + pairs["sentence_bad"].to_list()
    spans = list(zip(pairs["start"], pairs["end_good"], strict=True))
    spans += list(zip(pairs["start"], pairs["end_bad"], strict=True))
    gpt2 = str(SHARED / "models/tiny-fr-ud-gpt2")
    if part == "causal":
        from ud_agree.evaluate.backends.causal import CausalLM

        lm = CausalLM(load_model(gpt2, "cpu", kind=CAUSAL), batch_size=32)
        work = lambda: sentence_scores(lm, texts, spans)  # noqa: E731
    elif part == "masked":
        from ud_agree.evaluate.backends.masked import MaskedPLL

        bert = load_model(str(SHARED / "models/tiny-fr-ud-bert"), "cpu")
        pll = MaskedPLL(bert, "word", batch_size=32)
        work = lambda: sentence_scores(pll, texts, spans)  # noqa: E731
    else:
        work = suite_work(gpt2, inputs / "pairs.jsonl", out / "suite")
    seconds: dict[str, list[float]] = {"cpu": [], "wall": []}
    for turn in range(repeat + 1):
        cpu, wall = own_cpu(), time.perf_counter()
        work()
        if turn:  # the first is a warm-up
            seconds["cpu"].append(own_cpu() - cpu)
            seconds["wall"].append(time.perf_counter() - wall)
    return seconds


def suite_work(model: str, suite: Path, out: Path):
    """`run_suites` on the file, the scorer loaded once (as bench/suite.py times it)."""
    from ud_agree.evaluate.backends import load_scorer
    from ud_agree.evaluate.options import suite_run
    from ud_agree.evaluate.run import run_suites

    scorer = load_scorer(model, device="cpu", batch_size=32)

    def work() -> None:
        shutil.rmtree(out, ignore_errors=True)
        options = suite_run(files=[suite], model=model, out=out, batch_size=32, progress=False)
        run_suites(options, scorer_factory=lambda *a, **k: scorer)

    return work


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def make_inputs(work: Path, args: argparse.Namespace) -> Path:
    """French-PUD mined by this tree, its first pairs, those in the BLiMP layout, a random mBERT."""
    import polars as pl
    from floors import mine_french_pud

    from bench.evaluate import save_random_model

    inputs = work / "inputs"
    inputs.mkdir()
    corpus = mine_french_pud(work / "mined")
    shutil.move(corpus, inputs / "corpus")
    pairs = pl.read_parquet(inputs / "corpus/fr/pairs.parquet").head(args.pairs)
    pairs.write_parquet(inputs / "pairs.parquet")
    command = [sys.executable, "-m", "mine.export", str(inputs / "pairs.parquet"), "--format"]
    command += ["blimp", "--out", str(inputs / "pairs.jsonl")]
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    if "evaluate" in args.parts:
        save_random_model(str(SHARED / "models/bert-base-multilingual-cased"),
                          inputs / "random-mbert", small=args.smoke)  # fmt: skip
    return inputs


def run_part(part: str, tree: Path, inputs: Path, out: Path, args) -> dict[str, float]:
    """One part in `tree`, in processes of its own: its CPU and wall seconds."""
    env = {**os.environ, **ONE_THREAD, "PYTHONPATH": str(tree)}
    out.mkdir(parents=True, exist_ok=True)
    if part in ("causal", "masked", "suite"):
        command = [sys.executable, str(Path(__file__).resolve()), "--probe", part, str(tree),
                   str(inputs), str(out), "--repeat", str(args.repeat)]  # fmt: skip
        done = subprocess.run(
            command, cwd=tree, env=env, check=True, capture_output=True, text=True
        )
        seconds = json.loads(done.stdout.splitlines()[-1])
        return {"cpu": min(seconds["cpu"]), "wall": min(seconds["wall"])}
    model = inputs / "random-mbert" if part == "evaluate" else SHARED / "models/tiny-fr-ud-gpt2"
    shutil.rmtree(out / part, ignore_errors=True)
    command = [sys.executable, "-m", "evaluate", "--lang", "fr", "--corpus", str(inputs / "corpus"),
               "--model", str(model), "--limit", str(args.items), "--batch-size", "32", "--mask",
               "controller", "--out", str(out / part), "--device", "cpu", "--no-progress"]  # fmt: skip
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    return {"cpu": children_cpu() - cpu, "wall": time.perf_counter() - wall}


def side(seconds: list[float]) -> str:
    least, most = min(seconds), max(seconds)
    return f"median {statistics.median(seconds):.2f} s, min {least:.2f}, spread {most - least:.2f}"


def summary(old: list[float], new: list[float]) -> str:
    """Each side's median, least and spread; the turns' ratios new/old and the verdict."""
    import numpy as np

    ratios = np.asarray(new) / np.asarray(old)
    boot = np.median(np.random.default_rng(0).choice(ratios, (10_000, len(ratios))), axis=1)
    low, high = np.percentile(boot, [2.5, 97.5])
    verdict = "slower" if low > 1 else "faster" if high < 1 else "no difference beyond the noise"
    if len(ratios) < 5:  # a bootstrap of fewer turns tells nothing
        verdict = "too few turns to tell"
    return (
        f"old {side(old)} | new {side(new)} | new/old {float(np.median(ratios)):.3f} (median of "
        f"{len(ratios)} turns, bootstrap 95% {low:.3f}-{high:.3f}, new slower in "
        f"{int((ratios > 1).sum())}/{len(ratios)}): {verdict}"
    )


def main() -> None:
    args = parse()
    if args.probe:
        part, tree, inputs, out = args.probe
        print(json.dumps(probe(part, Path(tree), Path(inputs), Path(out), args.repeat)))
        return
    sys.path.insert(0, str(HERE))  # floors, as the other benches import it
    sys.path.insert(0, str(ROOT))
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    times: dict[tuple[str, str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        inputs = make_inputs(Path(tmp), args)
        print(f"old {trees['old']}, new {trees['new']}; {args.pairs} pairs, {args.items} items, "
              f"{args.turns} turns, one thread", flush=True)  # fmt: skip
        for turn in range(args.turns):
            order = ["old", "new"] if turn % 2 == 0 else ["new", "old"]
            for part in args.parts:
                # --smoke: one tree, so each part runs once and is read as both sides (CI time).
                for name in order[:1] if args.smoke else order:
                    got = run_part(part, trees[name], inputs, Path(tmp) / name, args)
                    for measure, value in got.items():
                        sides = order if args.smoke else [name]
                        for side in sides:
                            times.setdefault((part, measure, side), []).append(value)
            print(f"turn {turn + 1} done", flush=True)
    for part in args.parts:
        for measure in ("cpu", "wall"):
            old, new = times[(part, measure, "old")], times[(part, measure, "new")]
            print(f"{part} {measure}: {summary(old, new)}")


if __name__ == "__main__":
    main()
