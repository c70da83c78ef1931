"""Planning a mining run: which languages, files, types and UniMorph data, and what is current."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ud_agree import __version__
from ud_agree.atomic import changed_tables
from ud_agree.names import path_name
from ud_agree.schemas.corpus import TYPES

from .extract import FileJob, FileResult
from .languages import (
    Language,
    Treebank,
    UsageError,
    VerbContext,
    find_treebanks,
    load_definite_types,
    load_ergative_markers,
    load_have_lemmas,
    load_languages,
    load_object_participle_lemmas,
    load_participle_languages,
    load_pro_drop_languages,
    load_unagreement_languages,
    load_valid_types,
    load_value_sets,
    load_verb_contexts,
    select,
)
from .lexicon import unimorph_files
from .options import Options


def check_unimorph_dirs(roots: list[Path]) -> None:
    """`--unimorph-dir` values that are not folders are a UsageError: a typo would quietly mine a
    UD-only lexicon, and other pairs (the Python API takes a missing root as one without data)."""
    missing = [str(root) for root in roots if not root.is_dir()]
    if missing:
        raise UsageError(
            f"--unimorph-dir {missing[0]}: no such folder (a UniMorph root holds <iso639-3>/ "
            "folders, e.g. data/sample/unimorph)"
        )


def default_unimorph_dirs() -> list[Path]:
    """The `unimorph` package's cache: $UNIMORPH, else ~/.unimorph."""
    return [Path(os.environ.get("UNIMORPH") or Path.home() / ".unimorph")]


def fingerprint(
    language: Language, treebanks: list[Treebank], unimorph: list[Path], options: Options
) -> str:
    """What makes a language's output current: inputs (path, size, mtime), options and tool version."""
    digest = hashlib.sha256()
    parts = [__version__, str(options.all_types), options.vary, str(options.pairs), language.key]
    parts += [f"nonce={options.nonce}", f"seed={options.seed}"]
    for path in [f for tb in treebanks for f in tb.files] + unimorph:
        stat = path.stat()
        parts.append(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}")
    digest.update("\n".join(parts).encode())
    return digest.hexdigest()


def is_current(
    out_dir: Path, print_: str, warn: Callable[[str], None] = lambda message: None
) -> bool:
    """Whether a complete earlier output with the same fingerprint is there (resumable runs),
    each table as it was written."""
    manifest = out_dir / "manifest.json"
    if not manifest.exists():
        return False
    try:
        earlier = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    tables = ["relations", "sentences", "lexicon", "agreement"]
    if earlier.get("options", {}).get("pairs", True):
        tables += ["pairs", "pair_skips"]
    names = [f"{table}.parquet" for table in tables]
    recorded = earlier.get("tables")
    if earlier.get("fingerprint") != print_ or not isinstance(recorded, dict):
        return False  # other inputs or options, or a manifest from before tables had prints
    counts = earlier.get("counts") or {}
    if counts.get("duplicate_sent_ids") and "duplicate_sent_ids_by_treebank" not in counts:
        return False  # mined when a repeated sent_id lost every sentence of it, not the rest
    # A table edited, truncated or replaced since it was written is no current output.
    changed = changed_tables(out_dir, {n: recorded.get(n, "") for n in names} | recorded)
    if changed:
        edited = ", ".join(changed)
        warn(f"{out_dir.name}: {edited} in {out_dir} changed since it was written; mining it again")
    return not changed


# A language folder the miner has begun to write (its tables may be there before its manifest).
MINERS_MARK = ".ud-agree-mine"


def mark_miners(out_dir: Path) -> None:
    """Mark `out_dir` as the miner's before it writes a table there."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MINERS_MARK).touch()


def foreign_tables(out_dir: Path) -> str | None:
    """What in a language's output folder the miner would write over without having written it
    (tables or a manifest, where neither the miner's manifest nor its mark is there); None where
    nothing."""
    if not out_dir.is_dir() or (out_dir / MINERS_MARK).exists():
        return None
    try:
        tool = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8")).get("tool")
    except (OSError, ValueError, AttributeError):
        tool = None
    if tool == "ud-agree mine":
        return None
    found = sorted(p.name for p in out_dir.iterdir() if p.suffix == ".parquet")
    found += ["manifest.json"] if (out_dir / "manifest.json").exists() else []
    return found[0] if found else None


@dataclass
class LanguageRun:
    """A language being mined: its jobs, and its files' results as they arrive."""

    language: Language
    treebanks: list[Treebank]
    valid_types: frozenset[str]
    unimorph: list[Path]
    fingerprint: str
    jobs: list[FileJob]
    results: dict[str, FileResult] = field(default_factory=dict)  # counts; tables are spilled

    def release(self) -> None:
        """Drop what a finished language's tables were built from."""
        self.results.clear()


def plan(options: Options, warn: Callable[[str], None]) -> tuple[list[LanguageRun], list[str]]:
    """Languages to mine (and those already current), from the UD folder and options."""
    languages = load_languages()
    treebanks = find_treebanks(options.ud_dir, languages)
    if not treebanks:
        raise UsageError(f"{options.ud_dir}: no UD_<Language>-<Treebank> folder with .conllu files")
    groups = select(treebanks, options.langs)
    valid = load_valid_types()
    participles, value_sets = load_participle_languages(), load_value_sets()
    definite = load_definite_types()
    have = load_have_lemmas()
    ergative_markers = load_ergative_markers()
    object_have = load_object_participle_lemmas()
    unagreeing = load_unagreement_languages()
    dropping = load_pro_drop_languages()
    contexts = load_verb_contexts()
    roots = options.unimorph_dirs or default_unimorph_dirs()
    runs, current = [], []
    for key, group in groups.items():
        language = group[0].language
        path_name(key, f"{group[0].files[0]}: language key")
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
            warn(
                f"{key}: no UniMorph data for '{codes}' under {where}; lexicon from UD only: "
                "class-average results there lean on attested bundles (a rare form looks "
                "incorrect for bundles it was never seen with; see docs/evaluating/frequency-flags.md)"
            )
        stamp = fingerprint(language, group, unimorph, options)
        foreign = None if options.force else foreign_tables(options.out / key)
        if foreign is not None:
            raise UsageError(
                f"{options.out / key} holds {foreign}, which the miner did not write (no manifest "
                "of its own beside it): give another --out, or --force to write over it"
            )
        if not options.force and is_current(options.out / key, stamp, warn):
            current.append(key)
            continue
        jobs = [
            FileJob(
                path,
                _label(path, options.ud_dir),
                key,
                tb.name,
                types,
                options.strict,
                participle_agreement=language.code in participles,
                unagreement=language.code in unagreeing,
                pro_drop=language.code in dropping,
                value_sets=value_sets.get(language.code, {}),
                definite_types=definite.get(language.code, frozenset()),
                have_lemmas=have.get(language.code, frozenset()),
                verb_context=contexts.get(language.code, VerbContext()),
                ergative_lemmas=ergative_markers.get(language.code, frozenset()),
                object_have_lemmas=object_have.get(language.code, frozenset()),
            )
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
