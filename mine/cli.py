"""`python -m mine`: a thin command line over `mine_languages`."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from mine import __version__
from mine.columnar import mine_file_columnar
from mine.extract import FileJob, FileResult
from mine.languages import (
    Language,
    Treebank,
    UsageError,
    find_treebanks,
    load_languages,
    load_valid_types,
    select,
)
from mine.lexicon import UniMorphMap, build_lexicon, unimorph_files
from mine.read import MalformedError, UnreadableError
from mine.schema import DROP_REASONS, LEXICON, RELATIONS, SENTENCES, TYPES
from mine.write import write_json, write_table


@dataclass
class Options:
    """What a mining run was asked to do."""

    ud_dir: Path
    out: Path = Path("corpus")
    langs: list[str] | None = None
    unimorph_dirs: list[Path] = field(default_factory=list)
    all_types: bool = False
    strict: bool = False
    jobs: int = 1
    force: bool = False
    progress: bool = True


def default_unimorph_dirs() -> list[Path]:
    """The `unimorph` package's cache: $UNIMORPH, else ~/.unimorph."""
    return [Path(os.environ.get("UNIMORPH") or Path.home() / ".unimorph")]


def fingerprint(
    language: Language, treebanks: list[Treebank], unimorph: list[Path], options: Options
) -> str:
    """What makes a language's output current: inputs (path, size, mtime), options and tool version."""
    digest = hashlib.sha256()
    parts = [__version__, str(options.all_types), language.key]
    for path in [f for tb in treebanks for f in tb.files] + unimorph:
        stat = path.stat()
        parts.append(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}")
    digest.update("\n".join(parts).encode())
    return digest.hexdigest()


def is_current(out_dir: Path, print_: str) -> bool:
    """Whether a complete earlier output with the same fingerprint is there (resumable runs)."""
    manifest = out_dir / "manifest.json"
    if not manifest.exists():
        return False
    try:
        earlier = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    names = ("relations.parquet", "sentences.parquet", "lexicon.parquet")
    return earlier.get("fingerprint") == print_ and all((out_dir / n).exists() for n in names)


@dataclass
class LanguageRun:
    """A language being mined: its jobs, and its files' results as they arrive."""

    language: Language
    treebanks: list[Treebank]
    valid_types: frozenset[str]
    unimorph: list[Path]
    fingerprint: str
    jobs: list[FileJob]
    results: dict[str, FileResult] = field(default_factory=dict)


def plan(options: Options, warn: Callable[[str], None]) -> tuple[list[LanguageRun], list[str]]:
    """Languages to mine (and those already current), from the UD folder and options."""
    languages = load_languages()
    treebanks = find_treebanks(options.ud_dir, languages)
    if not treebanks:
        raise UsageError(f"{options.ud_dir}: no UD_<Language>-<Treebank> folder with .conllu files")
    groups = select(treebanks, options.langs)
    valid = load_valid_types()
    roots = options.unimorph_dirs or default_unimorph_dirs()
    runs, current = [], []
    for key, group in groups.items():
        language = group[0].language
        if options.all_types:
            types = frozenset(TYPES)
        elif language.code in valid:
            types = valid[language.code]
        else:
            warn(
                f"{key}: not in data/types.tsv; keeping all four types (use the table to restrict)"
            )
            types = frozenset(TYPES)
        unimorph = [
            path for code in language.unimorph_codes for path in unimorph_files(roots, code)
        ]
        if not unimorph:
            where = ", ".join(str(r) for r in roots)
            codes = "/".join(language.unimorph_codes) or language.code
            warn(f"{key}: no UniMorph data for '{codes}' under {where}; lexicon from UD only")
        stamp = fingerprint(language, group, unimorph, options)
        if not options.force and is_current(options.out / key, stamp):
            current.append(key)
            continue
        jobs = [
            FileJob(path, _label(path, options.ud_dir), key, tb.name, types, options.strict)
            for tb in group
            for path in tb.files
        ]
        runs.append(LanguageRun(language, group, types, unimorph, stamp, jobs))
    return runs, current


def release_root(ud_dir: Path) -> Path:
    """The folder that `file` paths are relative to: --ud-dir, or its parent if it is one treebank."""
    return ud_dir.parent if ud_dir.name.startswith("UD_") else ud_dir


def _label(path: Path, ud_dir: Path) -> str:
    try:
        return str(path.relative_to(release_root(ud_dir)))
    except ValueError:
        return str(path)


def finish_language(run: LanguageRun, options: Options, mapping: UniMorphMap) -> dict:
    """Concatenate a language's file results, build its lexicon, write tables and manifest."""
    ordered = [run.results[job.label] for job in run.jobs]
    relations = pa.concat_tables([r.relations for r in ordered])
    sentences = pa.concat_tables([r.sentences for r in ordered])
    counts: Counter = Counter()
    for r in ordered:
        counts.update(r.lexicon_counts)
    lexicon = build_lexicon(run.language.key, counts, run.unimorph, mapping)
    out_dir = options.out / run.language.key
    write_table(relations, out_dir / "relations.parquet", RELATIONS)
    write_table(sentences, out_dir / "sentences.parquet", SENTENCES)
    write_table(lexicon, out_dir / "lexicon.parquet", LEXICON)
    by_type = Counter(relations.column("type").to_pylist())
    drops = Counter()
    agree, disagree = Counter(), Counter()
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
            "sentences": sentences.num_rows,
            "words": sum(r.words for r in ordered),
            "relations": relations.num_rows,
            "relations_by_type": {t: by_type.get(t, 0) for t in TYPES},
            "lexicon": lexicon.num_rows,
            "lexicon_forms": len(set(lexicon.column("form").to_pylist())),
            "drops": {reason: drops.get(reason, 0) for reason in DROP_REASONS},
            "candidates_agree": {t: agree.get(t, 0) for t in TYPES},
            "candidates_disagree": {t: disagree.get(t, 0) for t in TYPES},
            "malformed": len(malformed),
            "duplicate_sent_ids": sum(r.duplicate_sent_ids for r in ordered),
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
    pending = {run.language.key: len(run.jobs) for run in runs}
    by_key = {run.language.key: run for run in runs}
    jobs = sorted((job for run in runs for job in run.jobs), key=lambda j: -j.path.stat().st_size)
    manifests = []
    progress = _progress(len(jobs), options.progress)

    def collect(result: FileResult, job: FileJob) -> None:
        run = by_key[job.lang]
        run.results[job.label] = result
        pending[job.lang] -= 1
        progress(job.label)
        if pending[job.lang] == 0:
            manifests.append(finish_language(run, options, mapping))
            run.results.clear()  # free memory before the next language

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


def summary(manifests: list[dict]) -> str:
    """Per-language table: relations per type, lexicon size, drops; then agree/disagree per type."""
    short = {
        "determiner": "det",
        "attributive": "attr",
        "predicative": "pred",
        "subject-verb": "subj-verb",
    }
    head = ["lang", "sentences", *short.values(), "lexicon", "malformed", *DROP_REASONS]
    rows = []
    for m in manifests:
        c = m["counts"]
        rows.append(
            [
                m["lang"],
                c["sentences"],
                *(c["relations_by_type"][t] for t in TYPES),
                c["lexicon"],
                c["malformed"],
            ]
            + [c["drops"][d] for d in DROP_REASONS]
        )
    lines = [
        _table(head, rows),
        "",
        "Candidate pairs that agree / disagree, per type (checks data/types.tsv):",
    ]
    rows = []
    for m in manifests:
        c = m["counts"]
        valid = m["options"]["valid_types"]
        cells = []
        for t in TYPES:
            mark = "" if t in valid else " (invalid)"
            cells.append(f"{c['candidates_agree'][t]}/{c['candidates_disagree'][t]}{mark}")
        rows.append([m["lang"], *cells])
    lines.append(_table(["lang", *TYPES], rows))
    return "\n".join(lines)


def _table(head: list[str], rows: list[list]) -> str:
    cells = [[str(x) for x in row] for row in [head, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(head))]
    out = []
    for n, row in enumerate(cells):
        out.append(
            "  ".join(
                c.rjust(w) if n and i else c.ljust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr, exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def parse_args(argv: list[str] | None) -> Options:
    """Command line → Options."""
    parser = OneLineParser(
        prog="python -m mine",
        description="Mine agreement relations, sentences and a feature lexicon from a UD release.",
    )
    parser.add_argument(
        "--ud-dir", type=Path, required=True, help="folder of UD_<Language>-<Treebank> folders"
    )
    parser.add_argument(
        "--unimorph-dir",
        type=Path,
        action="append",
        default=[],
        help="UniMorph root(s) holding <iso639-3>/ folders (default $UNIMORPH, else ~/.unimorph); repeatable",
    )
    parser.add_argument(
        "--lang",
        nargs="+",
        help="languages to mine: ISO 639-1 (fr), ISO 639-3 (fra) or UD name (French); default all",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("corpus"), help="output folder (default corpus/)"
    )
    parser.add_argument(
        "--all-types",
        action="store_true",
        help="keep types that data/types.tsv marks invalid for a language",
    )
    parser.add_argument(
        "--strict", action="store_true", help="stop at the first malformed sentence (exit 2)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores)",
    )
    parser.add_argument(
        "--force", action="store_true", help="redo languages whose output is already current"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    args = parser.parse_args(argv)
    return Options(
        ud_dir=args.ud_dir,
        out=args.out,
        langs=args.lang,
        unimorph_dirs=args.unimorph_dir,
        all_types=args.all_types,
        strict=args.strict,
        jobs=max(1, args.jobs),
        force=args.force,
        progress=not args.quiet,
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (2 on usage errors and, under --strict, malformed input)."""
    options = parse_args(argv)

    def warn(message: str) -> None:
        print(f"warning: {message}", file=sys.stderr)

    started = time.perf_counter()
    try:
        manifests = mine_languages(options, warn)
    except (UsageError, MalformedError, UnreadableError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "interrupted: languages already written are complete; rerun to resume", file=sys.stderr
        )
        return 130
    for m in manifests:
        for entry in m["malformed"]:
            warn(f"skipped malformed sentence at {release_root(options.ud_dir) / entry}")
    if manifests and not options.progress:
        return 0
    if manifests:
        print(summary(manifests))
        print(
            f"\nwrote {', '.join(str(options.out / m['lang']) for m in manifests)} in {time.perf_counter() - started:.1f} s"
        )
    return 0
