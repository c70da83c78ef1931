"""The plan of runs: every (language, model, reading) asked for, as checked `Options`.

`python -m evaluate --lang fr de --model A B --reading class-average pair` runs the plan in turn;
`python -m evaluate.cluster` sends each run's shards to Ray workers. Both build it here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ud_agree.errors import did_you_mean

from .backends.api import TokenScorer
from .backends.spec import KINDS
from .options import (
    FREQUENCY,
    RESUME_OPTIONS,
    TINY_RANDOM,
    Kind,
    Options,
    Reading,
    UsageError,
    corpus_not_found,
    out_dir,
)

ALL = "all"  # --lang all: every language folder of the corpus


def corpus_languages(corpus: str) -> list[str]:
    """The languages of a corpus: its folders holding a mined `relations.parquet`, sorted."""
    root = Path(corpus)
    if not root.is_dir():
        raise UsageError(corpus_not_found(corpus))
    langs = sorted(p.name for p in root.iterdir() if (p / "relations.parquet").is_file())
    if not langs:
        raise UsageError(f"--lang all: corpus '{corpus}' holds no mined language")
    return langs


def language_names(corpus: str) -> dict[str, str]:
    """Every name a corpus' languages go by, lower-cased → folder: the folder (`fr`), and the
    language's name (`French`) and ISO 639-3 code (`fra`) from its manifest, as `mine --lang`
    takes them."""
    root = Path(corpus)
    names: dict[str, str] = {}
    if not root.is_dir():
        return names
    for folder in sorted(p for p in root.iterdir() if (p / "relations.parquet").is_file()):
        try:
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):  # read_corpus says what is wrong with it
            manifest = {}
        manifest = manifest if isinstance(manifest, dict) else {}
        aliases = [folder.name, manifest.get("language"), manifest.get("iso639_3")]
        for alias in aliases:
            if isinstance(alias, str) and alias:
                names.setdefault(alias.lower(), folder.name)
                names.setdefault(alias.lower().replace("_", " "), folder.name)
    return names


def resolve_languages(corpus: str, requests: Sequence[str]) -> list[str]:
    """`--lang` values as the corpus' folder names (`French`, `fra` → `fr`); one the corpus does
    not hold is a UsageError that names the closest it does."""
    if not Path(corpus).is_dir():
        return list(requests)  # the run says the corpus is missing
    names = language_names(corpus)
    resolved = []
    for request in requests:
        if request == ALL or (Path(corpus) / request / "relations.parquet").is_file():
            resolved.append(request)
        elif request.lower() in names:
            resolved.append(names[request.lower()])
        else:
            close = did_you_mean(request.lower(), list(names))
            hint = f"did you mean {names[close]}?" if close else "mine it first"
            have = ", ".join(sorted(set(names.values()))) or "none"
            raise UsageError(
                f"--lang {request}: not in corpus '{corpus}' (languages there: {have}); {hint}"
            )
    return resolved


def plan_runs(
    base: Options,
    langs: Sequence[str],
    models: Sequence[str],
    readings: Sequence[Reading],
    pair: Mapping[str, Any] | None = None,
) -> list[Options]:
    """One Options per (language, model, reading), in that nesting order, each made once with
    its model's kind resolved (read once per model); `pair`: the options only pair runs take
    (--rule, --rules, --leading-space). A name given twice counts once (two runs would write one
    folder). `all` among the languages: every one."""
    if ALL in langs:
        langs = corpus_languages(base.corpus)
    kinds = {model: kind_of(model, base.trust_remote_code) for model in dict.fromkeys(models)}
    return [
        replace(
            base,
            lang=lang,
            model=model,
            reading=reading,
            kind=base.kind or kinds[model],
            **((pair or {}) if reading == "pair" else {}),
        )
        for lang in dict.fromkeys(langs)
        for model in dict.fromkeys(models)
        for reading in dict.fromkeys(readings)
    ]


def kind_of(
    model: str, trust_remote_code: bool = False, scorer: TokenScorer | None = None
) -> Kind | None:
    """The model's kind (masked or causal), read from its config: the one place that reads it
    (None: the frequency baseline). `scorer`: a test's stand-in, whose method says it."""
    if model == FREQUENCY:
        return None
    if scorer is not None:
        methods = {family.pair_method: kind for kind, family in KINDS.items()}
        return methods.get(scorer.method, "masked")
    if model == TINY_RANDOM:
        return "masked"
    from .backends.models import model_kind

    return model_kind(model, trust_remote_code)


def resolve_kind(options: Options, scorer: TokenScorer | None = None) -> Options:
    """Options made in Python (not by `plan_runs`) with the model's kind filled in."""
    if options.kind is not None or options.model == FREQUENCY:
        return options
    return replace(options, kind=kind_of(options.model, options.trust_remote_code, scorer))


def run_folder(options: Options) -> Path:
    """The folder a run writes (a shard's run folder for a shard), for options as `plan_runs`
    made them (the kind resolved): a causal LM's pair run is `…__pair`, a masked LM's
    `…__pll-word`."""
    return out_dir(replace(options, shard=None))


def finished(options: Options) -> bool:
    """A complete run of these options already lies in its folder (manifest `complete`, made
    with the same options that change results, its chunks holding the rows it counts): `--resume`
    skips it. One made from a corpus mined since is not: its run refuses --resume."""
    from ud_agree.atomic import edited_since_written

    from .corpus import language_folder, manifest_digest, table_files
    from .output.store import check_folder, manifest_file
    from .output.writer import chunk_paths

    folder = out_dir(options)
    manifest = manifest_file(folder)  # None: none yet, or damaged (the run itself says which)
    if manifest is None or manifest.get("complete") is not True:
        return False
    before = manifest.get("options") or {}
    # An option a run's manifest does not name yet (written before it existed) had its default.
    now = options.as_record()
    if not all(before[k] == now[k] for k in RESUME_OPTIONS if k in before):
        return False
    recorded = manifest.get("corpus_manifest_sha256")
    try:
        language = language_folder(options.corpus, options.lang)
        corpus = manifest_digest(language)
    except UsageError:  # the run says what is wrong with the corpus
        return False
    if recorded is not None and recorded != corpus:
        return False
    # A table edited since it was mined: not finished, so that the run refuses the corpus.
    if edited_since_written(language, table_files(options.reading == "pair")):
        return False
    return check_folder(folder, chunk_paths(folder)) is None
