"""Running a mining plan: files in worker processes, then per language its tables and manifest."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ud_agree import __version__
from ud_agree.atomic import atomic_file, write_json, write_parquet
from ud_agree.errors import MachineError
from ud_agree.hold import hold
from ud_agree.schemas.corpus import (
    AGREEMENT,
    DROP_REASONS,
    DROPS,
    LEXICON,
    RELATIONS,
    SENTENCES,
    SKIP_REASONS,
    TYPES,
)

from .columnar import mine_file_columnar
from .duplicates import taken_earlier
from .extract import FileJob, FileResult
from .languages import (
    definite_in_f,
    load_adjective_declension,
    load_adjective_endings,
    load_apocope,
    load_genderless_plural_languages,
    load_optional_antecedent_agreement,
    load_optional_feminine_treebanks,
    load_reported_speech_languages,
    load_spelling_variants,
    load_value_sets,
    load_verb_prefixes,
    load_verb_suffixes,
)
from .lent import LentAgreement
from .lexicon import UniMorphMap, build_lexicons, unimorph_entries
from .pair_stream import (
    PairCounts,
    PairStream,
    write_nonce,
)
from .pairs import (
    pairs_from_attempts,
    prepare_bundle,
)
from .paradigms import ParadigmFrames, marked_cells
from .plan import LanguageRun, Options, default_unimorph_dirs, mark_miners, plan
from .pool import pool_context, start_worker
from .rules import certainty
from .rules.instrumental import instrumental_cells, load_instrumental_predicate_languages
from .rules.optional_feminine import two_gender_nouns
from .spill import SPILL, part, spill, unspill, unspill_columns
from .written import load_written_surface


def mine_files(jobs: list[FileJob], prefixes: list[Path]) -> list[FileResult]:
    """Mine a bundle of one language's files (in a worker) and spill each file's tables where
    its language's finishing reads them (`prefixes`); return their counts. The attempts at
    pairs are prepared in that finishing, a batch of files at once (`PairStream`): spilled
    here and read back, they cost more than preparing them there."""
    results = [mine_file_columnar(job) for job in jobs]
    try:
        for result, prefix in zip(results, prefixes, strict=True):
            prefix.parent.mkdir(parents=True, exist_ok=True)
            spill(result.relations, prefix, "relations")
            spill(result.sentences, prefix, "sentences")
            spill(result.lexicon_counts, prefix, "lexicon")
            spill(result.dropped, prefix, "drops")
    except OSError as error:  # pyarrow names no file: the spill folder is where it went wrong
        raise MachineError.of(error, error.filename or prefixes[0].parent) from None
    for result in results:
        result.relations = result.sentences = result.lexicon_counts = result.dropped = None
    return results


def finish_language(run: LanguageRun, options: Options, mapping: UniMorphMap) -> dict:
    """Build a language's lexicon, stream its files' tables (and their pairs) into its Parquet
    files, then write its lexicon and its manifest."""
    out_dir = options.out / run.language.key
    parts = [part(options, run, index) for index in range(len(run.jobs))]
    drop_repeats_across_files(run, options, parts)
    # The relations, sentences and drops need no lexicon: written in a thread beside the
    # lexicon and the pairs (Parquet encoding and polars release the GIL), a language finished
    # alone, as the run's last is, keeps two cores busy.
    with ThreadPoolExecutor(1, thread_name_prefix="tables") as beside:
        # Into the spill folder, moved into place once the lexicon and pairs are written (bad
        # UniMorph input fails there, and must leave no half-written language).
        plain_tables: dict[str, str] = {}
        plain = beside.submit(write_plain_tables, parts, out_dir / SPILL, plain_tables)
        # Each file's counts know its treebank: §4.1 takes the sentence's own treebank's forms
        # first.
        counts = [
            with_treebank(unspill(prefix, "lexicon"), job.treebank)
            for prefix, job in zip(parts, run.jobs, strict=True)
        ]
        # The pair rules read the lexicon with the cells UniMorph is silent on (§4.2).
        lexicon, for_pairs = build_lexicons(
            run.language.key, pa.concat_tables(counts), run.unimorph, mapping, options.pairs
        )
        written = write_tables(run, options, lexicon, out_dir, for_pairs)
        written.sentences, written.relations, written.by_type = plain.result()
        written.tables.update(plain_tables)
    for name in ("relations", "sentences", "drops"):
        os.replace(out_dir / SPILL / f"{name}.parquet", out_dir / f"{name}.parquet")
    write_parquet(lexicon, out_dir / "lexicon.parquet", LEXICON, written.tables)
    if not options.pairs:  # a stale pairs.parquet would be read as this corpus's
        (out_dir / "pairs.parquet").unlink(missing_ok=True)
        (out_dir / "pair_skips.parquet").unlink(missing_ok=True)
    shutil.rmtree(out_dir / SPILL, ignore_errors=True)
    manifest = language_manifest(run, options, lexicon, written)
    write_json(manifest, out_dir / "manifest.json")
    return manifest


def drop_repeats_across_files(run: LanguageRun, options: Options, parts: list[Path]) -> None:
    """Mine again, without them, each file holding `sent_id`s an earlier file of its treebank
    holds (its spilled tables and counts replaced): the first sentence of a key is kept, in
    the order of the files, as within a file. Rare (a treebank whose files number their
    sentences alike), so the usual run only reads the keys."""
    keys = [unspill_columns(prefix, "sentences", ["treebank", "sent_id"]) for prefix in parts]
    taken = taken_earlier(keys)
    del keys  # mapped from the spilled files, which mining again replaces
    for index, sent_ids in enumerate(taken):
        if sent_ids:
            job = replace(run.jobs[index], taken=sent_ids)
            run.jobs[index] = job
            (run.results[job.label],) = mine_files([job], [parts[index]])


def write_plain_tables(
    parts: list[Path], out_dir: Path, fingerprints: dict[str, str]
) -> tuple[int, int, Counter]:
    """Stream the spilled files' relations, sentences and drops into the language's tables
    (their fingerprints into `fingerprints`); their counts of sentences, of relations and of
    relations by type."""
    by_type: Counter = Counter()
    n_sentences = n_relations = 0
    with (
        atomic_file(out_dir / "relations.parquet", fingerprints) as relations_file,
        atomic_file(out_dir / "sentences.parquet", fingerprints) as sentences_file,
        atomic_file(out_dir / "drops.parquet", fingerprints) as drops_file,
        pq.ParquetWriter(relations_file, RELATIONS, compression="snappy") as relations_out,
        pq.ParquetWriter(sentences_file, SENTENCES, compression="snappy") as sentences_out,
        pq.ParquetWriter(drops_file, DROPS, compression="snappy") as drops_out,
    ):
        for prefix in parts:
            relations = unspill(prefix, "relations")
            sentences = unspill(prefix, "sentences")
            # §4.2's pair-only candidates (not `listed`) stay out of `relations`.
            listed = relations.filter(relations.column("listed"))
            relations_out.write_table(listed.select(RELATIONS.names).cast(RELATIONS))
            sentences_out.write_table(sentences.select(SENTENCES.names).cast(SENTENCES))
            drops_out.write_table(unspill(prefix, "drops"))
            by_type.update(listed.column("type").to_pylist())
            n_sentences += sentences.num_rows
            n_relations += listed.num_rows
    return n_sentences, n_relations, by_type


def with_treebank(counts: pa.Table, treebank: str) -> pa.Table:
    """A file's lexicon counts with its treebank as a column."""
    column = pa.array([treebank], pa.string()).take(pa.array(np.zeros(counts.num_rows, np.int64)))
    return counts.append_column("treebank", column)


@dataclass
class Written:
    """What a language's tables hold, for its manifest."""

    sentences: int
    relations: int
    by_type: Counter
    pairs_by_type: Counter
    nonce_by_type: Counter
    pair_skips: Counter
    rates: pl.DataFrame  # AGREEMENT rows (§4.1)
    agreement_flags: Counter  # pairs per `agreement_flag`
    lent: LentAgreement = field(default_factory=LentAgreement)  # §4.2's antecedent agreement
    # Each table's fingerprint (`sha256:<hex>`) by file name, hashed as it was written.
    tables: dict[str, str] = field(default_factory=dict)


def language_rates(run: LanguageRun, lexicon: pa.Table) -> pl.DataFrame:
    """§4.1: the language's agreement rates, from its files' counts (AGREEMENT rows); a
    disagreement whose target's form `lexicon` attests with the controller's value counts as
    agreeing (`certainty.syncretic_agree`)."""
    rated: Counter = Counter()
    rated_agree: Counter = Counter()
    disagreeing: Counter = Counter()
    for result in run.results.values():
        rated.update(result.rated)
        rated_agree.update(result.rated_agree)
        disagreeing.update(result.rated_disagree)
    value_sets = load_value_sets().get(run.language.code) or {}
    rows = pl.DataFrame(lexicon.filter(pc.equal(lexicon.column("source"), "ud")))
    definite = definite_in_f(run.language.key)
    rated_agree.update(certainty.syncretic_agree(disagreeing, rows, value_sets, definite))
    return certainty.rate_table(run.language.key, rated, rated_agree)


def lent_agreement(run: LanguageRun) -> LentAgreement:
    """§4.2: the language's counts of agreement with an antecedent, from its files, and the
    relative pronouns its data lists as agreeing optionally."""
    lent = LentAgreement(listed=load_optional_antecedent_agreement().get(run.language.code, {}))
    for result in run.results.values():
        lent.n.update(result.lent)
        lent.agree.update(result.lent_agree)
    return lent


def finite_cells(run: LanguageRun) -> Counter:
    """§4.2: the language's finite verb tokens per (Tense, Mood, feature), from its files."""
    cells: Counter = Counter()
    for result in run.results.values():
        cells.update(result.finite_cells)
    return cells


def write_tables(
    run: LanguageRun,
    options: Options,
    lexicon: pa.Table,
    out_dir: Path,
    for_pairs: pa.Table | None = None,
) -> Written:
    """Write the language's agreement rates, and stream its files' pairs (and nonce variants)
    into `pairs.parquet` (its sentences and relations: counted by `write_plain_tables`); the
    pair rules read `for_pairs` where given (the lexicon with §4.2's silent UniMorph cells),
    nonce draws read `lexicon`."""
    mark_miners(out_dir)  # before its first table: a run cut short leaves tables it may replace
    attempts = [part(options, run, index) for index in range(len(run.jobs))]
    rates = language_rates(run, lexicon if for_pairs is None else for_pairs)
    lent = lent_agreement(run)
    tables: dict[str, str] = {}
    write_parquet(certainty.as_arrow(rates), out_dir / "agreement.parquet", AGREEMENT, tables)
    counts = PairCounts()
    if options.pairs:
        frames = paradigm_frames(run, lexicon if for_pairs is None else for_pairs)
        tokens = pl.Series(
            "token", sorted(set().union(*(r.tokens for r in run.results.values()))), pl.String
        )
        decide = partial(
            pairs_from_attempts,
            frames=frames,
            rates=rates,
            surface=load_written_surface(run.language.code),
            tokens=tokens,
            lent=lent,
            possessives=pl.Series(
                "form",
                sorted(set().union(*(r.possessive_forms for r in run.results.values()))),
                pl.String,
            ),
            multiplicatives=pl.Series(
                "form",
                sorted(set().union(*(r.multiplicative_forms for r in run.results.values()))),
                pl.String,
            ),
        )
        first = run.jobs[0]  # the language's facts, as each of its jobs holds them
        prepare = partial(
            prepare_bundle,
            vary=options.vary,
            unagreement=first.unagreement,
            pro_drop=first.pro_drop,
        )
        stream = PairStream(out_dir, prepare, decide, counts, bool(options.nonce), tables)
        with stream:
            for prefix in attempts:
                stream.add_file(prefix)
            stream.finish()
            if options.nonce:
                nonce, more_skips = write_nonce(run, options, lexicon, frames, rates, stream)
                counts.nonce = nonce
                counts.pair_skips.update(more_skips)
    # The sentences and relations are counted by `write_plain_tables` (set by the caller).
    return Written(
        sentences=0,
        relations=0,
        by_type=Counter(),
        pairs_by_type=counts.pairs_by_type,
        nonce_by_type=counts.nonce,
        pair_skips=counts.pair_skips,
        rates=rates,
        agreement_flags=counts.flags,
        lent=lent,
        tables=tables,
    )


def paradigm_frames(run: LanguageRun, lexicon: pa.Table) -> ParadigmFrames:
    """The lexicon indexed for the pair rules, with the language's data tables."""
    code = run.language.code
    frames = ParadigmFrames(
        lexicon,
        load_value_sets().get(code),
        reported_speech=code in load_reported_speech_languages(),
        genderless_plural=code in load_genderless_plural_languages(),
        endings=load_adjective_endings().get(code),
        declension=load_adjective_declension().get(code),
        apocope=load_apocope().get(code),
        prefixes=load_verb_prefixes().get(code),
        suffixes=load_verb_suffixes().get(code),
    )
    frames.marked = marked_cells(finite_cells(run))
    frames.instrumental_predicate = code in load_instrumental_predicate_languages()
    if frames.instrumental_predicate:
        frames.instrumental_cells = instrumental_cells(frames.lexicon)
    frames.optional_feminine = load_optional_feminine_treebanks().get(code)
    if frames.optional_feminine is not None and run.unimorph:
        entries = pl.concat([unimorph_entries(path) for path in run.unimorph])
        frames.two_gender_nouns = two_gender_nouns(entries)
    frames.free_letters = frozenset().union(*(r.letters for r in run.results.values()))
    frames.spelling_variants = load_spelling_variants().get(code)
    return frames


def language_manifest(
    run: LanguageRun, options: Options, lexicon: pa.Table, written: Written
) -> dict:
    """What a language's output is: its options, inputs and every count."""
    ordered = [run.results[job.label] for job in run.jobs]
    drops: Counter = Counter()
    agree: Counter = Counter()
    disagree: Counter = Counter()
    duplicates: Counter = Counter()
    for job, r in zip(run.jobs, ordered, strict=True):
        duplicates[job.treebank] += r.duplicate_sent_ids
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
            "pairs": options.pairs,
            "nonce": options.nonce,
            "seed": options.seed,
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
            "sentences": written.sentences,
            "words": sum(r.words for r in ordered),
            "relations": written.relations,
            "relations_by_type": {t: written.by_type.get(t, 0) for t in TYPES},
            "lexicon": lexicon.num_rows,
            "lexicon_forms": pc.count_distinct(lexicon.column("form")).as_py(),
            "drops": {reason: drops.get(reason, 0) for reason in DROP_REASONS},
            "candidates_agree": {t: agree.get(t, 0) for t in TYPES},
            "candidates_disagree": {t: disagree.get(t, 0) for t in TYPES},
            "malformed": len(malformed),
            # Sentences dropped for repeating the (treebank, sent_id) of an earlier one.
            "duplicate_sent_ids": sum(duplicates.values()),
            "duplicate_sent_ids_by_treebank": {
                name: duplicates.get(name, 0) for name in sorted(tb.name for tb in run.treebanks)
            },
            "pairs": sum(written.pairs_by_type.values()),
            "pairs_by_type": {t: written.pairs_by_type.get(t, 0) for t in TYPES},
            "nonce_pairs": sum(written.nonce_by_type.values()),
            "nonce_pairs_by_type": {t: written.nonce_by_type.get(t, 0) for t in TYPES},
            "pair_skips": {reason: written.pair_skips.get(reason, 0) for reason in SKIP_REASONS},
        },
        "agreement": {
            **certainty.summary(written.rates),
            "pairs_backed_off": written.agreement_flags.get(certainty.BACKED_OFF, 0),
            "pairs_unmeasured": written.agreement_flags.get(certainty.UNMEASURED, 0),
            # §4.2: per relative pronoun lemma and feature, its verb's agreement with the
            # antecedent and whether the antecedent's value is lent.
            "antecedent": written.lent.summary(),
        },
        "malformed": malformed,
        # What `python -m mine` checks before it calls the output current, and readers before
        # they trust a table: a table edited, truncated or replaced no longer matches.
        "tables": dict(sorted(written.tables.items())),
    }
    return manifest


def mine_languages(options: Options, warn: Callable[[str], None] = lambda m: None) -> list[dict]:
    """Mine every selected language; returns the manifests written (raises MalformedError under strict)."""
    runs, current = plan(options, warn)
    for key in current:
        warn(f"{key}: output in {options.out / key} is current; skipped (use --force to redo)")
    mapping = UniMorphMap.load()
    with ExitStack() as held:  # each language's output folder, by this process only
        for run in runs:
            held.enter_context(hold(options.out / run.language.key))
        return _mine_held(options, runs, mapping)


def _mine_held(options: Options, runs: list[LanguageRun], mapping: UniMorphMap) -> list[dict]:
    """Mine the planned languages, whose output folders this process holds."""
    for run in runs:  # what an interrupted run spilled is stale
        shutil.rmtree(options.out / run.language.key / SPILL, ignore_errors=True)
    pending = {run.language.key: len(run.jobs) for run in runs}
    by_key = {run.language.key: run for run in runs}
    size = {job.path: job.path.stat().st_size for run in runs for job in run.jobs}
    tasks = task_order([job for run in runs for job in run.jobs], size, options.jobs)
    manifests: list[dict] = []
    progress = _progress(sum(len(task) for task in tasks), options.progress)
    try:
        _mine_jobs(options, tasks, by_key, pending, mapping, manifests, progress)
    except BaseException:
        # A failed or stopped run leaves nothing half-made: its spilled files go (the tables
        # already written whole stay, and a rerun redoes the rest).
        for run in runs:
            shutil.rmtree(options.out / run.language.key / SPILL, ignore_errors=True)
        raise
    progress(None)
    return sorted(manifests, key=lambda m: m["lang"])


BUNDLE_BYTES = 4 << 20  # a worker's task: one file, or small files of a language up to this size


def task_order(jobs: list[FileJob], size: dict[Path, int], workers: int) -> list[list[FileJob]]:
    """The workers' tasks (`bundles`) in the order they are handed out: largest language first,
    each language's largest files first, so that each language is finished in the pool while
    the next ones are mined; the last `workers` languages' tasks interleaved by the share of
    their language's bytes they complete, so that their files are all in at about the same
    time and their finishings, the run's longest tasks, run side by side at its end rather
    than the last one alone."""
    total: Counter = Counter()
    for job in jobs:
        total[job.lang] += size[job.path]
    ordered = sorted(jobs, key=lambda j: (-total[j.lang], j.lang, -size[j.path]))
    tasks = bundles(ordered, size)
    languages = list(dict.fromkeys(job.lang for job in ordered))
    last = set(languages[-workers:]) if workers > 1 else set()
    done: Counter = Counter()
    side_by_side = []
    for index, task in enumerate(tasks):
        lang = task[0].lang
        if lang in last:
            done[lang] += sum(size[job.path] for job in task)
            side_by_side.append((done[lang] / max(total[lang], 1), index, task))
    return [t for t in tasks if t[0].lang not in last] + [t for *_, t in sorted(side_by_side)]


def bundles(jobs: list[FileJob], size: dict[Path, int]) -> list[list[FileJob]]:
    """The jobs, in their order, as workers' tasks: consecutive files of one language joined
    while the task holds less than BUNDLE_BYTES (each task costs a round trip to the pool, which
    a small file's rows do not outweigh)."""
    tasks: list[list[FileJob]] = []
    held = 0
    for job in jobs:
        if tasks and tasks[-1][0].lang == job.lang and held < BUNDLE_BYTES:
            tasks[-1].append(job)
            held += size[job.path]
        else:
            tasks.append([job])
            held = size[job.path]
    return tasks


def _mine_jobs(
    options: Options,
    tasks: list[list[FileJob]],
    by_key: dict[str, LanguageRun],
    pending: dict[str, int],
    mapping: UniMorphMap,
    manifests: list[dict],
    progress: Callable[[str | None], None],
) -> None:
    """Mine the files, a bundle (`bundles`) at a time, and finish each language once its files
    are in (in the pool with --jobs)."""

    def spilled(jobs: list[FileJob]) -> tuple[list[FileJob], list[Path]]:
        run = by_key[jobs[0].lang]
        return jobs, [part(options, run, run.jobs.index(job)) for job in jobs]

    def collect(results: list[FileResult], jobs: list[FileJob]) -> LanguageRun | None:
        """Keep spilled files' counts; the language's run once its last file is in."""
        run = by_key[jobs[0].lang]
        for result, job in zip(results, jobs, strict=True):
            run.results[job.label] = result
            progress(job.label)
        pending[run.language.key] -= len(jobs)
        return run if pending[run.language.key] == 0 else None

    if options.jobs <= 1 or len(tasks) <= 1:
        for jobs in tasks:
            if done := collect(mine_files(*spilled(jobs)), jobs):
                manifests.append(finish_language(done, options, mapping))
                done.release()
    else:
        # A language is finished (lexicon, pairs, Parquet) in the pool too, as soon as its last
        # file is in: tasks are handed out one free worker at a time, finishing first.
        waiting = list(reversed(tasks))
        ready: list[LanguageRun] = []
        with ProcessPoolExecutor(
            max_workers=options.jobs, mp_context=pool_context(), initializer=start_worker
        ) as pool:
            running: dict[Future, list[FileJob] | LanguageRun] = {}
            try:
                while waiting or ready or running:
                    while len(running) < options.jobs and (ready or waiting):
                        if ready:
                            run = ready.pop()
                            running[pool.submit(finish_language, run, options, mapping)] = run
                        else:
                            jobs = waiting.pop()
                            running[pool.submit(mine_files, *spilled(jobs))] = jobs
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        task = running.pop(future)
                        if isinstance(task, LanguageRun):
                            manifests.append(future.result())
                            # Only now: the pool pickles a task's arguments when it sends it.
                            task.release()
                        elif done := collect(future.result(), task):
                            ready.append(done)
            except BaseException:
                # Stopped (an error, Ctrl-C, SIGTERM): the workers stop now, not after their file.
                for process in list(getattr(pool, "_processes", {}).values()):
                    process.kill()
                pool.shutdown(wait=False, cancel_futures=True)
                raise


def _progress(total: int, enabled: bool) -> Callable[[str | None], None]:
    """A progress bar, made at the first file done: tqdm starts a monitor thread, and the pool
    forks its workers from this process only while no thread but the imports' runs."""
    if not enabled or total == 0:
        return lambda label: None
    from tqdm import tqdm

    bar: tqdm | None = None

    def step(label: str | None) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(
                total=total, unit="file", desc="mining", file=sys.stderr, leave=False, disable=None
            )
        if label is None:
            bar.close()
        else:
            bar.set_postfix_str(Path(label).name, refresh=False)
            bar.update(1)

    return step
