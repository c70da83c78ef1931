"""Running a mining plan: files in worker processes, then per language its tables and manifest."""

from __future__ import annotations

import hashlib
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import pyarrow.parquet as pq

from mine.columnar import mine_file_columnar
from mine.extract import FileJob, FileResult
from mine.languages import load_value_sets
from mine.lexicon import UniMorphMap, build_lexicon
from mine.pairs import Paradigms, build_pairs
from mine.plan import LanguageRun, Options, default_unimorph_dirs, plan
from mine.schema import DROP_REASONS, LEXICON, PAIR_SKIPS, PAIRS, RELATIONS, SENTENCES, TYPES
from ud_agree import __version__
from ud_agree.atomic import atomic_file, write_json, write_parquet


def spill(run: LanguageRun, result: FileResult, job: FileJob, options: Options) -> None:
    """Keep a mined file's counts and move its tables to disk: memory then holds one file's
    tables at a time, whatever the size of the release."""
    parts = options.out / run.language.key / SPILL
    parts.mkdir(parents=True, exist_ok=True)
    index = run.jobs.index(job)
    pq.write_table(result.relations, parts / f"{index:05d}.relations.parquet")
    pq.write_table(result.sentences, parts / f"{index:05d}.sentences.parquet")
    run.lexicon_counts.update(result.lexicon_counts)
    result.lexicon_counts = Counter()
    result.relations = result.sentences = None
    run.results[job.label] = result


SPILL = ".parts"  # a language's mined files, waiting for its lexicon (removed when it is written)


def finish_language(run: LanguageRun, options: Options, mapping: UniMorphMap) -> dict:
    """Build a language's lexicon, then stream its files' tables (and their pairs) into its
    Parquet files, one file at a time; write the manifest."""
    ordered = [run.results[job.label] for job in run.jobs]
    lexicon = build_lexicon(run.language.key, run.lexicon_counts, run.unimorph, mapping)
    paradigms = Paradigms(lexicon, load_value_sets().get(run.language.code))
    out_dir = options.out / run.language.key
    parts = out_dir / SPILL
    by_type: Counter = Counter()
    pairs_by_type: Counter = Counter()
    pair_skips: Counter = Counter()
    n_sentences = n_relations = n_pairs = 0
    with (
        atomic_file(out_dir / "relations.parquet") as relations_file,
        atomic_file(out_dir / "sentences.parquet") as sentences_file,
        atomic_file(out_dir / "pairs.parquet") as pairs_file,
        pq.ParquetWriter(relations_file, RELATIONS, compression="snappy") as relations_out,
        pq.ParquetWriter(sentences_file, SENTENCES, compression="snappy") as sentences_out,
        pq.ParquetWriter(pairs_file, PAIRS, compression="snappy") as pairs_out,
    ):
        for index in range(len(run.jobs)):
            relations = pq.read_table(parts / f"{index:05d}.relations.parquet")
            sentences = pq.read_table(parts / f"{index:05d}.sentences.parquet")
            pairs, skips = build_pairs(relations, sentences, paradigms, options.vary)
            relations_out.write_table(relations.select(RELATIONS.names).cast(RELATIONS))
            sentences_out.write_table(sentences.select(SENTENCES.names).cast(SENTENCES))
            pairs_out.write_table(pairs.cast(PAIRS))
            by_type.update(relations.column("type").to_pylist())
            pairs_by_type.update(pairs.column("type").to_pylist())
            pair_skips.update(skips)
            n_sentences += sentences.num_rows
            n_relations += relations.num_rows
            n_pairs += pairs.num_rows
    write_parquet(lexicon, out_dir / "lexicon.parquet", LEXICON)
    shutil.rmtree(parts, ignore_errors=True)
    drops: Counter = Counter()
    agree: Counter = Counter()
    disagree: Counter = Counter()
    for r in ordered:
        drops.update(r.drops)
        agree.update(r.agree)
        disagree.update(r.disagree)
    malformed = [f"{r.label}:{line}: {reason}" for r in ordered for line, reason in r.malformed]
    manifest = {
        "tool": "ud-agree mine",
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "lang": run.language.key,
        "language": run.language.name,
        "iso639_3": run.language.iso3,
        "fingerprint": run.fingerprint,
        "options": {
            "ud_dir": str(options.ud_dir),
            "unimorph_dirs": [str(p) for p in options.unimorph_dirs or default_unimorph_dirs()],
            "all_types": options.all_types,
            "strict": options.strict,
            "vary": options.vary,
            "valid_types": [t for t in TYPES if t in run.valid_types],
        },
        "inputs": [
            {"file": r.label, "treebank": job.treebank, "sha256": r.sha256, "bytes": r.size}
            for job, r in zip(run.jobs, ordered, strict=True)
        ],
        "unimorph_files": [
            {"file": str(p), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
            for p in run.unimorph
        ],
        "counts": {
            "treebanks": sorted({tb.name for tb in run.treebanks}),
            "sentences": n_sentences,
            "words": sum(r.words for r in ordered),
            "relations": n_relations,
            "relations_by_type": {t: by_type.get(t, 0) for t in TYPES},
            "lexicon": lexicon.num_rows,
            "lexicon_forms": len(set(lexicon.column("form").to_pylist())),
            "drops": {reason: drops.get(reason, 0) for reason in DROP_REASONS},
            "candidates_agree": {t: agree.get(t, 0) for t in TYPES},
            "candidates_disagree": {t: disagree.get(t, 0) for t in TYPES},
            "malformed": len(malformed),
            "duplicate_sent_ids": sum(r.duplicate_sent_ids for r in ordered),
            "pairs": n_pairs,
            "pairs_by_type": {t: pairs_by_type.get(t, 0) for t in TYPES},
            "pair_skips": {reason: pair_skips.get(reason, 0) for reason in PAIR_SKIPS},
        },
        "malformed": malformed,
    }
    write_json(manifest, out_dir / "manifest.json")
    return manifest


def mine_languages(options: Options, warn: Callable[[str], None] = lambda m: None) -> list[dict]:
    """Mine every selected language; returns the manifests written (raises MalformedError under strict)."""
    runs, current = plan(options, warn)
    for key in current:
        warn(f"{key}: output in {options.out / key} is current; skipped (use --force to redo)")
    mapping = UniMorphMap.load()
    for run in runs:  # what an interrupted run spilled is stale
        shutil.rmtree(options.out / run.language.key / SPILL, ignore_errors=True)
    pending = {run.language.key: len(run.jobs) for run in runs}
    by_key = {run.language.key: run for run in runs}
    jobs = sorted((job for run in runs for job in run.jobs), key=lambda j: -j.path.stat().st_size)
    manifests = []
    progress = _progress(len(jobs), options.progress)

    def collect(result: FileResult, job: FileJob) -> None:
        run = by_key[job.lang]
        spill(run, result, job, options)
        pending[job.lang] -= 1
        progress(job.label)
        if pending[job.lang] == 0:
            manifests.append(finish_language(run, options, mapping))
            run.results.clear()
            run.lexicon_counts.clear()

    if options.jobs <= 1 or len(jobs) <= 1:
        for job in jobs:
            collect(mine_file_columnar(job), job)
    else:
        with ProcessPoolExecutor(max_workers=options.jobs) as pool:
            futures = {pool.submit(mine_file_columnar, job): job for job in jobs}
            try:
                for future in as_completed(futures):
                    collect(future.result(), futures[future])
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    progress(None)
    return sorted(manifests, key=lambda m: m["lang"])


def _progress(total: int, enabled: bool) -> Callable[[str | None], None]:
    if not enabled or total == 0:
        return lambda label: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="file", desc="mining", file=sys.stderr, leave=False, disable=None)

    def step(label: str | None) -> None:
        if label is None:
            bar.close()
        else:
            bar.set_postfix_str(Path(label).name, refresh=False)
            bar.update(1)

    return step
