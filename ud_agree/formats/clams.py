"""CLAMS / LM_syneval text (Mueller et al. 2020): `True<TAB>good`, then `False<TAB>bad` for each
pair of that good sentence. The layout has no room for ids: pairs keep their order."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from .lines import Record, Undecodable, read_lines
from .pairs_table import ExportError
from .problems import Problems


def read(path: Path, problems: Problems) -> list[Record]:
    """CLAMS / LM_syneval text: each `False<TAB>s` line pairs with the `True<TAB>s` line before it."""
    out: list[Record] = []
    good: tuple[int, str | None] | None = None  # (line, sentence); sentence None: that line was bad
    for number, text in enumerate(read_lines(path, problems), start=1):
        if isinstance(text, Undecodable):
            if not text.startswith("False\t"):  # maybe a True line: its False lines have no partner
                good = (number, None)
            continue
        if not text.strip():
            continue
        fields = text.split("\t")
        label = fields[0].strip()
        sentence = fields[1].strip() if len(fields) == 2 else ""
        if len(fields) != 2 or label not in ("True", "False") or not sentence:
            problems.add(number, "expected True<TAB>sentence or False<TAB>sentence")
            if label != "False":  # a broken True line leaves its False lines without a partner
                good = (number, None)
            continue
        if label == "True":
            good = (number, sentence)
        elif good is None:
            problems.add(number, "a False line with no True line before it")
        elif good[1] is None:
            problems.add(number, f"its True line ({good[0]}) is malformed")
        else:
            out.append(Record(number, good[1], sentence, path.stem, {"true_line": str(good[0])}))
    return out


def write(pairs: pl.DataFrame) -> str:
    """CLAMS text: a True line, then the False line of each consecutive pair with that good sentence."""
    lines, previous = [], None
    for good, bad in pairs.select("sentence_good", "sentence_bad").iter_rows():
        for sentence in (good, bad):
            if "\t" in sentence or "\n" in sentence:
                raise ExportError(f"a sentence holds a TAB or a line break: {sentence[:40]!r}")
        if good != previous:
            lines.append(f"True\t{good}")
            previous = good
        lines.append(f"False\t{bad}")
    return "".join(line + "\n" for line in lines)
