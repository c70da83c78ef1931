"""The report's `--out`: a new or empty folder, or an earlier report, replaced whole; anything
else only with `--force`, and never a folder that holds results."""

from __future__ import annotations

from pathlib import Path

from ud_agree.errors import UserError
from ud_agree.records import read_record, unrecorded, write_record, written_paths

# What a report wrote, beside its files, so that a rerun knows what it may remove.
RECORD = ".ud-agree-report.json"
TITLE = "<title>ud-agree report</title>"  # what marks a report written before it kept a record
RESULT_FILES = ("results*.parquet", "suite-*.parquet", "manifest.json")


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if not p.is_dir())


def _overlaps(out: Path, results: Path) -> bool:
    """One folder is the other or holds it."""
    a, b = out.resolve(), results.resolve()
    return a == b or a in b.parents


def report_files(out: Path) -> list[Path] | None:
    """The files of an earlier report in `out` (its record's, or for an older report its page
    and figures); None where `out` holds anything else."""
    record = read_record(out, RECORD)
    if record is not None:
        return None if unrecorded(out, record, RECORD, files_only=True) else _files(out)
    try:  # a report written before reports kept a record: its page and figures
        with (out / "index.html").open(encoding="utf-8", errors="replace") as page:
            if TITLE not in page.read(4096):
                return None
    except OSError:
        return None
    files = _files(out)
    return files if all(p.suffix in (".png", ".csv", ".html") for p in files) else None


def check_report_out(out: Path, results: Path, force: bool) -> None:
    """Refuse an `--out` the report may not replace whole (one line, exit 2): one that holds
    results, or (without `force`) files that are not an earlier report."""
    if not out.is_dir():
        return  # new, or a file that check_out names
    if _overlaps(out, results) or any(any(out.rglob(g)) for g in RESULT_FILES):
        raise UserError(f"--out {out} holds results (the report's input): give another folder")
    if any(out.iterdir()) and report_files(out) is None and not force:
        raise UserError(
            f"--out {out} holds files that are not an earlier report: give a new or empty "
            "folder, or --force to replace it whole"
        )


def record_report(out: Path) -> None:
    """Record every file the report wrote into `out`."""
    write_record(out, RECORD, {}, written_paths(out, files_only=True))
