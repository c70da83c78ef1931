"""What one evaluation run is asked to do, and the names and folders that follow from it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ud_agree.errors import UserError
from ud_agree.schemas.corpus import ROLES

from .sharding.spec import shard_folder

FREQUENCY = "frequency"
TINY_RANDOM = "tiny-random"


class UsageError(UserError):
    """A user-facing error of the evaluator: printed as one line, exit status 2."""


@dataclass
class Options:
    """Everything one run depends on; the CLI fills it, tests build it directly."""

    lang: str
    corpus: str = "corpus"
    model: str = "bert-base-multilingual-cased"
    mask: str = "controller"  # controller | target | both
    match: str = "agreement"  # agreement | exact
    case: str = "fold"  # fold | exact
    min_candidates: int = 10
    device: str = "auto"
    batch_size: int = 32
    limit: int | None = None
    out: str = "results"
    resume: bool = False
    control: str = "context"  # context | no-context
    vocab_of: str | None = None  # frequency baseline: restrict to this model's whole words
    chunk_size: int = 4096
    progress: bool = True
    seed: int = 0
    reading: str = "class-average"  # class-average | pair (§5)
    pll: str = "word"  # masked LMs in the pair reading: word | sentence
    dtype: str = "float32"  # float32 | bfloat16 | float16 (autocast)
    max_tokens: int | None = None  # token budget per batch, instead of --batch-size alone
    kind: str | None = None  # masked | causal; None: read from the model's config
    shard: str | None = None  # "K/N": only the sentences of shard K of N (evaluate.shards)

    @property
    def roles(self) -> tuple[str, ...]:
        """Masked roles asked for."""
        return ROLES if self.mask == "both" else (self.mask,)

    @property
    def method(self) -> str:
        """Results column `method`: `frequency`; class-average `context` or `no-context`; pair
        `causal`, `pll-word` or `pll-sentence`."""
        if self.model == FREQUENCY:
            return "frequency"
        if self.reading == "pair":
            return "causal" if self.kind == "causal" else f"pll-{self.pll}"
        return self.control


# Options that make results incomparable: --resume refuses a folder made with others.
RESUME_OPTIONS = (
    "lang",
    "model",
    "mask",
    "match",
    "case",
    "min_candidates",
    "control",
    "vocab_of",
    "limit",
    "reading",
    "pll",
    "shard",
)


def safe_name(name: str) -> str:
    """A model name or local folder made safe for a path (`org/name` → `org--name`)."""
    path = Path(name)
    if path.is_dir():
        name = path.resolve().name
    name = name.replace("/", "--")
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", name).strip("-") or "model"


def name_of(model: str) -> str:
    """A hub name as given, or a local directory's folder name."""
    path = Path(model)
    return path.resolve().name if path.is_dir() else model


def model_label(options: Options) -> str:
    """The `model` column: hub name as given, a local directory's folder name, or `frequency-baseline`."""
    if options.model == FREQUENCY:
        # Runs with and without --vocab-of score other item sets: their labels must differ.
        if options.vocab_of:
            return f"frequency-baseline ({name_of(options.vocab_of)} vocabulary)"
        return "frequency-baseline"
    return name_of(options.model)


def out_dir(options: Options) -> Path:
    """`<out>/<lang>/<model-safe-name>[__no-context]`; non-default match/case/mask get a suffix too;
    a shard writes `shard-KK-of-NN/` inside that run folder."""
    name = "frequency-baseline" if options.model == FREQUENCY else safe_name(options.model)
    if options.model == FREQUENCY and options.vocab_of:
        name += f"__vocab-{safe_name(options.vocab_of)}"
    if options.method == "no-context":
        name += "__no-context"
    if options.match != "agreement":
        name += f"__match-{options.match}"
    if options.case != "fold":
        name += f"__case-{options.case}"
    if options.mask != "controller" and options.reading == "class-average":
        name += f"__mask-{options.mask}"
    if options.reading == "pair":
        name += "__pair" if options.method in ("causal", "frequency") else f"__{options.method}"
    run = Path(options.out) / options.lang / name
    return run if options.shard is None else shard_folder(run, options.shard)
