"""gevalm JSON lines (Zaczynska et al. 2020, DESIGN.md §7): `text_masked` with one `[MASK]`,
`candidates` the correct word then the incorrect one, `case` the condition. Read only: ud-agree
writes its own pairs in the layouts of the other modules here."""

from __future__ import annotations

from pathlib import Path

from .lines import Record, as_text, jsonl_rows, read_lines
from .problems import Problems

MASK = "[MASK]"  # the blank
# Keys that mark a file as gevalm's.
KEYS = frozenset({"text_masked", "candidates"})


def read(path: Path, problems: Problems) -> list[Record]:
    """gevalm JSON lines (Zaczynska et al. 2020): `text_masked` with one `[MASK]`, `candidates`
    the correct word then the incorrect one, `case` the condition; each put in the blank."""
    found = []
    for number, row in jsonl_rows(read_lines(path, problems), problems):
        masked, candidates = row.get("text_masked"), row.get("candidates")
        if not isinstance(masked, str) or masked.count(MASK) != 1:
            problems.add(number, f"`text_masked` must hold one {MASK}")
            continue
        if not (isinstance(candidates, list) and len(candidates) == 2
                and all(isinstance(c, str) and c for c in candidates)):  # fmt: skip
            problems.add(number, "`candidates` must be [correct, incorrect]")
            continue
        start = masked.index(MASK)
        good, bad = (masked[:start] + c + masked[start + len(MASK) :] for c in candidates)
        meta = {
            k: as_text(v) for k, v in row.items() if k not in ("text_masked", "candidates", "case")
        }
        meta |= {"correct": candidates[0], "incorrect": candidates[1]}
        span = (start, start + len(candidates[0]), start + len(candidates[1]))
        found.append(Record(number, good, bad, as_text(row.get("case")), meta, span))
    return found
