"""MultiBLiMP TSV (Jumelet et al. 2025): `sen`, `wrong_sen`, `prefix`, `phenomenon`,
`grammatical_feature`, `ungrammatical_feature` (UniMorph tags), `feature_vals` (`SG -> PL`); read as
a table by its sentence columns, written with every column of ud-agree's pairs after its own."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

import polars as pl

from .pairs_table import ID_COLUMNS

# The (good, bad, condition) columns that mark and read the layout.
COLUMNS = ("sen", "wrong_sen", "phenomenon")

# MultiBLiMP names phenomena <construction>-<feature>: SV-# is subject-verb number agreement,
# SP-G subject-predicate gender. DN (determiner-noun) and AN (adjective-noun) are ud-agree's own.
CONSTRUCTION = {"subject-verb": "SV", "predicative": "SP", "determiner": "DN", "attributive": "AN"}
FEATURE_MARK = {"Number": "#", "Person": "P", "Gender": "G", "Case": "C"}


def write(
    pairs: pl.DataFrame, tag: Callable[[str, str], str] = lambda feature, value: value
) -> str:
    """MultiBLiMP's TSV: its columns first, then ud-agree's (quoted as pandas would quote); `tag`
    writes a UD feature value as MultiBLiMP does (UniMorph: Sing → SG)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    head = ["sen", "wrong_sen", "prefix", "phenomenon", "grammatical_feature"]
    head += ["ungrammatical_feature", "feature_vals"]
    writer.writerow([*head, *ID_COLUMNS])
    for row in pairs.iter_rows(named=True):
        good = tag(row["feature"], row["good_value"])
        bad = tag(row["feature"], row["bad_value"])
        phenomenon = (
            f"{CONSTRUCTION.get(row['type'], row['type'])}-"
            f"{FEATURE_MARK.get(row['feature'], row['feature'])}"
        )
        own = [
            row["sentence_good"],
            row["sentence_bad"],
            row["sentence_good"][: row["start"]].rstrip(),
            phenomenon,
            good,
            bad,
            f"{good} -> {bad}",
        ]
        writer.writerow([*own, *("" if row[c] is None else row[c] for c in ID_COLUMNS)])
    return buffer.getvalue()
