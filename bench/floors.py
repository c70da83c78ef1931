"""The floors the benchmarks compare against: the minimum work of a reading, as a bare loop of
batched forward passes over the same inputs, sorted by length, at the same batch size (inputs
are built before the clock starts). Shared by bench/pairs.py, bench/suite.py and bench/evaluate.py;
a module, not a script (it has no --smoke: the scripts that use it do)."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
# This folder holds bench/evaluate.py: keep it off the path so `import evaluate` is the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))


def pair_arguments(description: str | None) -> argparse.ArgumentParser:
    """The options the pair and suite benches share."""
    p = argparse.ArgumentParser(description=(description or "").splitlines()[0])
    p.add_argument("--corpus", type=Path, default=None, help="a mined corpus with fr/pairs.parquet")
    p.add_argument("--pairs", type=int, default=2000)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--repeat", type=int, default=5, help="turns of each side, interleaved")
    p.add_argument("--smoke", action="store_true", help=SMOKE)
    return p


SMOKE = "tiny sizes and one repeat, no goal enforced: that the bench runs at all (CI)"


def smoke_sizes(args: argparse.Namespace, **sizes: int) -> None:
    """With --smoke: one repeat and the tiny sizes given (attribute name → value)."""
    if getattr(args, "smoke", False):
        args.repeat = 1
        for name, value in sizes.items():
            setattr(args, name, value)


def mine_french_pud(work: Path, nonce: int = 0) -> Path:
    """French-PUD mined alone (`--all-types`, no UniMorph) with the project's miner; with `nonce`,
    that many nonce variants of every pair (DESIGN.md §9)."""
    (work / "ud").mkdir(parents=True)
    (work / "ud" / "UD_French-PUD").symlink_to(SHARED / "data/ud/UD_French-PUD")
    out = work / "corpus"
    (work / "none").mkdir()  # an empty UniMorph root: no paradigms (a missing one is refused)
    command = [sys.executable, "-m", "mine", "--ud-dir", str(work / "ud"), "--all-types"]
    command += ["--unimorph-dir", str(work / "none"), "--out", str(out), "--quiet"]
    command += ["--nonce", str(nonce)]
    subprocess.run(command, check=True, cwd=ROOT)
    return out


def causal_floor(model, sequences: Sequence[Sequence[int]], batch_size: int, pad_id: int) -> float:
    """Seconds of `model(ids, attention_mask)` over the sequences: one forward per sentence."""

    def run(batch: list[Sequence[int]]) -> None:
        ids, mask = _padded(batch, pad_id)
        model(input_ids=ids, attention_mask=mask).logits.log_softmax(-1)

    return _timed_batches(sequences, batch_size, run)


def masked_floor(
    model, copies: Sequence[Sequence[int]], positions: np.ndarray, batch_size: int, pad_id: int
) -> float:
    """Seconds of one forward per masked copy, the LM head at the masked position only."""
    import torch
    from ud_agree.evaluate.backends.models import lm_head

    head = lm_head(model)
    order = {id(c): i for i, c in enumerate(copies)}

    def run(batch: list[Sequence[int]]) -> None:
        ids, mask = _padded(batch, pad_id)
        at = torch.as_tensor([positions[order[id(c)]] for c in batch])
        hidden = model.base_model(input_ids=ids, attention_mask=mask)[0]
        head(hidden[torch.arange(len(batch)), at]).log_softmax(-1)

    return _timed_batches(copies, batch_size, run)


def _padded(batch: list[Sequence[int]], pad_id: int):
    """Right-padded token ids and attention mask of a batch."""
    import torch

    width = max(len(s) for s in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, sequence in enumerate(batch):
        ids[row, : len(sequence)] = torch.tensor(sequence)
        mask[row, : len(sequence)] = 1
    return ids, mask


def _timed_batches(
    sequences: Sequence[Sequence[int]], batch_size: int, run: Callable[[list], None]
) -> float:
    import torch

    order = np.argsort([len(s) for s in sequences], kind="stable")
    start = time.perf_counter()
    with torch.inference_mode():
        for at in range(0, len(order), batch_size):
            run([sequences[i] for i in order[at : at + batch_size]])
    return time.perf_counter() - start


@dataclass(frozen=True)
class Timing:
    """The seconds of one side over its turns."""

    seconds: tuple[float, ...]

    @property
    def min(self) -> float:
        return min(self.seconds)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def spread(self) -> float:
        """Slowest minus fastest turn: a ratio that moves by less than this over its floor's is
        noise."""
        return max(self.seconds) - min(self.seconds)

    def __str__(self) -> str:
        return (
            f"min {self.min:.2f} s, median {self.median:.2f} s, spread {self.spread:.2f} s "
            f"(n={len(self.seconds)})"
        )


def interleaved(repeat: int, sides: dict[str, Callable[[], float]]) -> dict[str, Timing]:
    """Run the sides in turn, A B A B …, `repeat` turns each, so that a machine's slow spell
    falls on every side alike; each side's seconds over its turns."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    for turn in range(repeat):
        for name, side in sides.items():
            times[name].append(side())
        print(
            f"turn {turn + 1}: " + ", ".join(f"{n} {t[-1]:.2f} s" for n, t in times.items()),
            flush=True,
        )
    return {name: Timing(tuple(values)) for name, values in times.items()}


def ratio(ours: Timing, floor: Timing) -> str:
    """The ratio as the benches print it: the median of each turn's ratio (its two sides ran back
    to back), then min over min, and the range of the turns' ratios."""
    turns = [a / b for a, b in zip(ours.seconds, floor.seconds, strict=True)]
    return (
        f"ratio {statistics.median(turns):.3f} (median of turns; min/min "
        f"{ours.min / floor.min:.3f}, turns {min(turns):.3f}–{max(turns):.3f})"
    )
