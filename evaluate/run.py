"""One evaluation run, stage by stage: corpus → items → back-end → candidates → output → score → summary."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from ud_agree import __version__
from ud_agree.atomic import write_json
from ud_agree.errors import MachineError
from ud_agree.hold import hold
from ud_agree.schemas.manifests import RunManifest

from .backends import TokenScorer
from .corpus import Corpus, read_corpus
from .options import FREQUENCY, TINY_RANDOM, Kind, Options, UsageError, model_label, out_dir
from .output.writer import ChunkWriter, chunk_paths, prepare_folder, skip_done
from .readings import open_reading
from .sharding.spec import select_shard, shard_entry


@dataclass
class Outcome:
    """What a run did: where it wrote, and the manifest it wrote."""

    out_dir: Path
    manifest: RunManifest
    summary: pl.DataFrame | None = None
    counts: dict = field(default_factory=dict)


def evaluate(options: Options, scorer: TokenScorer | None = None) -> Outcome:
    """Run one evaluation end to end and write results, manifest and summary (`scorer`: a
    sentence scorer standing in for the model in the pair reading, e.g. a test's oracle)."""

    started = time.time()
    # 1. The corpus and the model's kind (read from its config: it decides the method and the
    # folder), checked before anything is loaded.
    corpus = read_corpus(options.corpus, options.lang, pairs=options.reading == "pair")
    options = resolve_kind(options, scorer)
    # 2. The results folder, held by this process before the model loads (a second run on it,
    # or a folder that cannot be written, stops at once).
    folder = out_dir(options)
    with hold(folder):
        # 3. The reading's items and its back-end (the model loads in `ready`).
        reading = open_reading(options, corpus, scorer)
        items, counts = reading.items()
        if options.limit is not None:
            items = items.head(options.limit)
        # The split comes after --limit: the shards of a limited run are that run, split up.
        # Counts made so far are the whole run's in every shard.
        whole_run_counts = list(counts)
        items = select_shard(items, options.shard)
        counts["items_eligible"] = items.height
        if not items.height and options.shard is None and not options.resume:
            raise NothingToScore(
                f"nothing to score for {options.lang}: {why_none(counts, options.min_candidates)}"
            )
        facts = reading.ready()
        return _run_in(
            folder, options, corpus, reading, items, counts, facts, whole_run_counts, started
        )


class NothingToScore(UsageError):
    """A run whose every item is skipped or left out: exit 2, never an empty 'result'."""


def why_none(counts: dict[str, Any], min_candidates: int | None = None) -> str:
    """The skip counts of a run with no item, in words, and the option that would keep the items
    skipped for too few candidates."""
    # Skip reasons are hyphenated (too-few-candidates, too-long…); other counts are not.
    skipped = [f"{k} {v}" for k, v in counts.items() if "-" in k and isinstance(v, int) and v]
    fix = ""
    if counts.get("too-few-candidates") and min_candidates is not None:
        fix = (
            f"; an item needs {min_candidates} correct and {min_candidates} incorrect "
            f"candidates (--min-candidates {min_candidates}): pass a lower --min-candidates to "
            "keep more"
        )
    return "0 eligible items" + (f" (skipped: {', '.join(skipped)})" if skipped else "") + fix


def _run_in(
    folder: Path,
    options: Options,
    corpus: Corpus,
    reading: Any,
    items: pl.DataFrame,
    counts: dict[str, Any],
    facts: dict[str, Any],
    whole_run_counts: list[str],
    started: float,
) -> Outcome:
    """Steps 4–6 of a run, in its held folder."""
    from .report.summary import summarize, write_summary

    # 4. The manifest written first, so that --resume can check it.
    done = prepare_folder(folder, options.run_output, corpus.manifest_sha256)
    base = manifest_base(options, corpus.manifest_sha256, facts)
    base.update(shard_entry(options.shard, whole_run_counts))  # type: ignore[typeddict-item]
    write_json({**base, "complete": False}, folder / "manifest.json")

    # 5. Encode, leave out what an earlier run already scored, score in chunks.
    timings = {"start-up": time.time() - started}
    items, encoded, counts["windowed"] = reading.encode(items)
    timings["encoding"] = time.time() - started - timings["start-up"]
    items, keep, counts["resumed_already_done"] = skip_done(items, done)
    if keep is not None:
        encoded = reading.subset(encoded, keep)
    writer = ChunkWriter(folder, options.run_output)
    scoring_started = time.time()
    if items.height:
        try:
            counts.update(reading.score(items, encoded, writer))
        except MachineError as error:
            saved = len(done) if done is not None else 0
            raise error.saving(
                f"{saved + writer.written} items are saved in {folder}; free space (or fix the "
                "fault) and rerun with --resume"
            ) from None
    timings["scoring"] = time.time() - scoring_started
    counts["items_scored_now"] = writer.written
    counts["forward_inputs"] = writer.forwards

    # 6. Summary over every chunk of the folder, and the finished manifest.
    elapsed = time.time() - started
    paths = chunk_paths(folder)
    results = pl.scan_parquet(paths) if paths else None
    counts["items_in_results"] = 0 if results is None else results.select(pl.len()).collect().item()
    if not counts["items_in_results"] and options.shard is None:
        raise NothingToScore(
            f"nothing scored in {folder}: {why_none(counts, options.min_candidates)}"
        )
    manifest: RunManifest = {
        **base,
        "complete": True,
        "counts": counts,
        # Without the miner's space_after column words are joined by spaces (l' armoire).
        "space_after_missing": "space_after" not in corpus.sentences.columns,
        **reading.extra,
        "seconds": round(elapsed, 3),
        # Where the time went: start-up (corpus, items, model load and checks), encoding, scoring
        # (forwards, decisions, chunks written); the summary is the rest of `seconds`.
        "timings": {stage: round(seconds, 3) for stage, seconds in timings.items()},
        "items_per_second": round(writer.written / elapsed, 3)
        if elapsed and writer.written
        else None,
    }
    summary = None
    if results is not None:
        summary = summarize(results)
        write_summary(summary, folder, manifest)
    write_json(manifest, folder / "manifest.json")
    return Outcome(folder, manifest, summary, counts)


def resolve_kind(options: Options, scorer: TokenScorer | None = None) -> Options:
    """Options with the model's kind filled in (masked or causal), read from its config."""
    if options.kind is not None or options.model == FREQUENCY:
        return options
    kind: Kind
    if scorer is not None:
        kind = "causal" if scorer.method == "causal" else "masked"
    elif options.model == TINY_RANDOM:
        kind = "masked"
    else:
        from .backends.models import model_kind

        kind = model_kind(options.model, options.trust_remote_code)
    return replace(options, kind=kind)


def manifest_base(options: Options, corpus_sha: str | None, facts: dict[str, Any]) -> RunManifest:
    """What a run was: tool, options, model, corpus, and the back-end's facts."""
    model_path = Path(options.model)
    return {
        "tool": "ud-agree evaluate",
        "tool_version": __version__,
        "options": {k: v for k, v in options.as_record().items() if k != "progress"},
        "method": options.method,
        "model": model_label(options),
        "reading": options.reading,
        "random_weights": facts.get("random_weights", False),
        "model_family": facts.get("model_family"),
        "window_tokens": facts.get("window_tokens"),
        "device": facts.get("device"),
        "scorer": facts,
        "corpus": str(Path(options.corpus).resolve() / options.lang),
        "corpus_manifest_sha256": corpus_sha,
        "model_path": str(model_path.resolve()) if model_path.is_dir() else None,
    }
