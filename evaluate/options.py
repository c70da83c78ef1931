"""What one evaluation run is asked to do, and the names and folders that follow from it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Literal, cast, get_args

from ud_agree.errors import UsageError, UserError, did_you_mean
from ud_agree.names import SAFE_NAME
from ud_agree.schemas.corpus import ROLES
from ud_agree.schemas.results import Rule

from .backends.gguf_weights import missing_package
from .backends.spec import (
    FREQUENCY,
    KINDS,
    TINY_RANDOM,
    Dtype,
    Kind,
    ModelSpec,
    Pll,
    name_of,
    safe_name,
)
from .corpus import corpus_not_found
from .output.writer import RunOutput
from .sharding.spec import Shard, parse_shard, shard_folder
from .tasks.spec import ItemChoice, Pace, Scoring
from .tasks.suite_files import SuiteRun

__all__ = [
    "FREQUENCY",
    "TINY_RANDOM",
    "Dtype",
    "Kind",
    "ModelSpec",
    "Options",
    "Pll",
    "Rule",
    "UsageError",
    "corpus_not_found",
    "name_of",
    "safe_name",
]


Mask = Literal["controller", "target", "both"]
Match = Literal["agreement", "exact"]
Case = Literal["fold", "exact"]
Device = Literal["auto", "cpu", "cuda"]
Control = Literal["context", "no-context"]
Reading = Literal["class-average", "pair"]
# Rules whose ingredients cost work of their own, run only when a run names them (§5.1):
# `minicons` needs a forward without BOS where the tokenizer adds none.
COSTLY_RULES: tuple[Rule, ...] = ("minicons",)
# context | no-context | frequency | pll-word | pll-sentence, or a kind's own (`causal`: KINDS).
Method = str

# The enumerated fields and their values: the CLI's `choices` and the checks below share them.
CHOICES: dict[str, tuple[str, ...]] = {
    "mask": get_args(Mask),
    "match": get_args(Match),
    "case": get_args(Case),
    "device": get_args(Device),
    "control": get_args(Control),
    "reading": get_args(Reading),
    "pll": get_args(Pll),
    "dtype": get_args(Dtype),
    "kind": tuple(KINDS),
    "rule": get_args(Rule),
}


@dataclass(frozen=True)
class Options:
    """Everything one run depends on; the CLI fills it, tests build it directly. Checked when
    built (`UsageError`), so options made in Python are held to the CLI's rules."""

    lang: str
    corpus: str = "corpus"
    model: str = "bert-base-multilingual-cased"
    mask: Mask = "controller"
    match: Match = "agreement"
    case: Case = "fold"
    min_candidates: int = 10
    device: Device = "auto"
    batch_size: int = 32
    limit: int | None = None
    out: str = "results"
    resume: bool = False
    force: bool = False  # a run folder holding a suite's results is cleared first
    control: Control = "context"
    vocab_of: str | None = None  # frequency baseline: restrict to this model's whole words
    chunk_size: int = 4096
    progress: bool = True
    seed: int = 0
    reading: Reading = "class-average"  # §5
    pll: Pll = "word"
    dtype: Dtype = "float32"
    max_tokens: int | None = None  # token budget per batch, instead of --batch-size alone
    kind: Kind | None = None  # None: read from the model's config
    # Only the sentences of shard K of N (evaluate.sharding); given as "K/N", parsed here once.
    shard: Shard | None = None
    rule: Rule = "sum"  # §5.1: the pair reading's headline rule (`right`)
    rules: tuple[Rule, ...] = ()  # §5.1: extra rules whose ingredients cost work (`minicons`)
    leading_space: bool = False  # score " " + each sentence (lm-eval's `blimp_*` delimiter)
    trust_remote_code: bool = False  # passed to from_pretrained: runs the model repo's own code

    def __post_init__(self) -> None:
        for problem in option_problems(self):
            raise UsageError(problem)
        if isinstance(self.rules, list):
            object.__setattr__(self, "rules", tuple(self.rules))
        if isinstance(self.shard, str):
            object.__setattr__(self, "shard", parse_shard(self.shard))

    def as_record(self) -> dict[str, object]:
        """The options as the manifest writes them (the shard spelled `K/N`)."""
        record = {f.name: getattr(self, f.name) for f in fields(self)}
        record["shard"] = None if self.shard is None else str(self.shard)
        record["rules"] = list(self.rules)  # as JSON reads it back
        return record

    @property
    def model_spec(self) -> ModelSpec:
        """What the back-end needs of this run (its kind as resolved so far)."""
        return ModelSpec(
            model=self.model,
            kind=None if self.model == FREQUENCY else self.kind,
            device=self.device,
            batch_size=self.batch_size,
            max_tokens=self.max_tokens,
            dtype=self.dtype,
            trust_remote_code=self.trust_remote_code,
            progress=self.progress,
            seed=self.seed,
            pll=self.pll,
            method=self.method,
            chunk_size=self.chunk_size,
            vocab_of=self.vocab_of,
            native=self.runs_native,
        )

    @property
    def run_output(self) -> RunOutput:
        """What the run's output needs of it (its kind as resolved so far)."""
        pair = self.reading == "pair"
        return RunOutput(
            model=model_label(self),
            method=self.method,
            reading=self.reading,
            match=None if pair else self.match,
            case=None if pair else self.case,
            chunk_size=self.chunk_size,
            resume=self.resume,
            force=self.force,
            record=self.as_record(),
            resume_keys=RESUME_OPTIONS,
        )

    @property
    def runs_native(self) -> bool:
        """Whether the `minicons` rule's own forward is asked for (§5.1)."""
        return self.scoring.native

    @property
    def scoring(self) -> Scoring:
        """How the pair reading decides a pair and which texts it scores (§5.1)."""
        return Scoring(self.rule, self.rules, self.leading_space)

    @property
    def item_choice(self) -> ItemChoice:
        """Which class-average items the run builds, and what counts as correct (§1.5)."""
        return ItemChoice(self.roles, self.match, self.case, self.min_candidates, self.control)

    @property
    def roles(self) -> tuple[str, ...]:
        """Masked roles asked for."""
        return ROLES if self.mask == "both" else (self.mask,)

    @property
    def method(self) -> Method:
        """Results column `method`: `frequency`; class-average `context` or `no-context`; pair
        `causal`, `pll-word` or `pll-sentence`."""
        if self.model == FREQUENCY:
            return "frequency"
        if self.reading == "pair":
            family = KINDS.get(self.kind or "")
            if family is not None and family.pair_method is not None:
                return family.pair_method
            return "pll-word" if self.pll == "word" else "pll-sentence"
        return self.control


def option_problems(options: Options) -> list[str]:
    """What is wrong with `options`, one line each (empty when they can run)."""
    problems = [
        f"--{name.replace('_', '-')} {value!r}: expected one of {', '.join(CHOICES[name])}"
        for name, value in ((f.name, getattr(options, f.name)) for f in fields(options))
        if name in CHOICES and value is not None and value not in CHOICES[name]
    ]
    o = options
    if not o.lang:
        problems.append("--lang is empty")
    elif not SAFE_NAME.fullmatch(o.lang):  # a folder's name, never a path: results stay under --out
        problems.append(
            f"--lang {o.lang!r}: a language key of the corpus (letters, digits, '-', '_'), "
            "not a path"
        )
    if o.reading == "class-average" and o.kind in KINDS and KINDS[o.kind].form_scorer is None:
        problems.append(f"--kind {o.kind} scores pairs only: --reading pair")
    if o.batch_size < 1 or o.min_candidates < 1 or (o.limit is not None and o.limit < 0):
        problems.append("--batch-size and --min-candidates must be ≥ 1, --limit ≥ 0")
    if o.max_tokens is not None and o.max_tokens < 1:
        problems.append("--max-tokens must be ≥ 1")
    if o.chunk_size < 1:
        problems.append("--chunk-size must be ≥ 1")
    if o.force and o.resume:
        problems.append(FORCE_AND_RESUME)
    problems += [
        f"--rules {rule!r}: expected one of {', '.join(CHOICES['rule'])}"
        for rule in o.rules
        if rule not in CHOICES["rule"]
    ]
    if o.reading != "pair" and (o.rule != "sum" or o.rules or o.leading_space):
        problems.append("--rule, --rules and --leading-space belong to the pair reading")
    if o.reading == "pair" and o.control != "context":
        problems.append("--control no-context belongs to the class-average reading")
    problems += [
        problem
        for flag, model in (("--model", o.model), ("--vocab-of", o.vocab_of))
        if model and (problem := model_typo(flag, model) or missing_package(model, flag))
    ]
    if o.vocab_of and o.model != FREQUENCY:
        problems.append("--vocab-of goes with --model frequency only")
    if o.vocab_of and o.reading == "pair":
        problems.append(
            "--vocab-of belongs to the class-average reading (the pair reading's frequency "
            "baseline compares the two forms' counts, whatever the vocabulary)"
        )
    if o.model == FREQUENCY and o.control != "context":
        problems.append("--control no-context needs a masked LM, not the frequency baseline")
    return problems


FORCE_AND_RESUME = "--force clears a results folder and --resume keeps it: give one of them"
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
    "rule",
    "rules",
    "leading_space",
)


def option_defaults() -> dict[str, object]:
    """Each option's default, as a manifest's `options` would record it (the report lists what
    differs from them)."""
    defaults: dict[str, object] = {}
    for field in fields(Options):
        if field.default is not MISSING:
            defaults[field.name] = field.default
        elif field.default_factory is not MISSING:
            defaults[field.name] = field.default_factory()
    return defaults


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
        if options.rule != "sum":  # another headline `right`: its own folder, as other options
            name += f"__rule-{options.rule}"
        if options.leading_space:  # other texts scored
            name += "__leading-space"
    run = Path(options.out) / options.lang / name
    return run if options.shard is None else shard_folder(run, options.shard)


def missing_extra() -> str:
    """`No module named 'torch'` where the evaluate extra (torch, transformers) is not installed,
    found without importing either (that takes seconds); empty when both are there."""
    from importlib.util import find_spec

    missing = [name for name in ("torch", "transformers") if find_spec(name) is None]
    return f"No module named '{missing[0]}'" if missing else ""


def model_typo(flag: str, model: str, names: tuple[str, ...] = (FREQUENCY, TINY_RANDOM)) -> str:
    """A model name that is almost one of the built-in names or of a local folder's siblings
    (`frequncy`, `../models/tiny-fr-ud-gtp2`), said at once: before a hub lookup of a name that
    is no model. Empty when the name may well be one."""
    if model in names or Path(model).exists():
        return ""
    close = did_you_mean(model, names)
    parent = Path(model).parent
    if close is None and "/" in model and parent.is_dir():  # a local folder's path, misspelt
        siblings = sorted(child.name for child in parent.iterdir() if child.is_dir())
        sibling = did_you_mean(Path(model).name, siblings)
        close = None if sibling is None else str(parent / sibling)
        if close is None and model.startswith(("/", "./", "../", "~")):
            there = ", ".join(siblings) or "none"
            return f"{flag} {model}: no such folder (folders in {parent}: {there})"
    if close is None and model.startswith(("/", "./", "../", "~")) and not parent.is_dir():
        return f"{flag} {model}: no such folder ({parent} does not exist either)"  # no hub name
    return f"{flag} {model}: no such model; did you mean {close}?" if close else ""


def suite_run(
    files: Sequence[str | Path],
    model: str,
    *,
    format: str | None = None,
    good: str | None = None,
    bad: str | None = None,
    condition: str | None = None,
    pll: str = "sentence",
    device: str = "auto",
    batch_size: int = 32,
    max_tokens: int | None = None,
    dtype: str = "float32",
    out: str | Path = "results",
    resume: bool = False,
    force: bool = False,
    strict: bool = False,
    chunk_size: int = 4096,
    progress: bool = True,
    rule: str = "sum",
    rules: Sequence[str] = (),
    leading_space: bool = False,
) -> SuiteRun:
    """A `python -m evaluate.suite` run resolved once from its flags (the CLI passes them, tests
    name them), refused (`UserError`) where it cannot be scored, before anything is read or loaded."""
    if model.lower() in (FREQUENCY, "frequency-baseline"):
        raise UserError(
            "--model frequency: the frequency baseline scores mined pairs by lexicon counts "
            "and is not defined for arbitrary suites; give a language model"
        )
    typo = model_typo("--model", model, names=()) or missing_package(model)
    if typo:
        raise UserError(typo)
    if pll != "sentence":
        raise UserError(
            "--pll word needs the varied word, which peers' suites do not mark; use --pll sentence"
        )
    if batch_size < 1 or chunk_size < 1:
        raise UserError("--batch-size and --chunk-size must be ≥ 1")
    if max_tokens is not None and max_tokens < 1:
        raise UserError("--max-tokens must be ≥ 1")
    if not files:
        raise UserError("no suite files given")
    if force and resume:
        raise UserError(FORCE_AND_RESUME)
    for name in (rule, *rules):
        if name not in CHOICES["rule"]:
            raise UserError(f"--rule {name!r}: expected one of {', '.join(CHOICES['rule'])}")
    scoring = Scoring(cast(Rule, rule), tuple(cast(Rule, r) for r in rules), leading_space)
    spec = ModelSpec(
        model=model,
        device=device,
        batch_size=batch_size,
        max_tokens=max_tokens,
        dtype=cast(Dtype, dtype),
        progress=progress,
        pll=cast(Pll, pll),
        chunk_size=chunk_size,
        native=scoring.native,
    )
    return SuiteRun(
        files=tuple(str(f) for f in files),
        model=spec,
        format=format,
        good=good,
        bad=bad,
        condition=condition,
        strict=strict,
        scoring=scoring,
        pace=Pace(chunk_size, progress),
        out=str(out),
        resume=resume,
        force=force,
    )
