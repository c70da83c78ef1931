"""MultiBLiMP TSV (Jumelet et al. 2025): `sen`, `wrong_sen`, `prefix`, `phenomenon`,
`grammatical_feature`, `ungrammatical_feature` (UniMorph tags), `feature_vals` (`SG -> PL`); read as
a table by its sentence columns, written with every column of ud-agree's pairs after its own."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

import polars as pl

from .pairs_table import ID_COLUMNS, flat

# The (good, bad, condition) columns that mark and read the layout.
COLUMNS = ("sen", "wrong_sen", "phenomenon")

# MultiBLiMP names phenomena <construction>-<feature>: SV-# is subject-verb number agreement,
# SP-G subject-participle gender; LionLab's miner adds OV (object-verb), IOV (indirect object-verb)
# and, for noun phrases, role pairs HEAD-NUM, HEAD-PRON, HEAD-ADP (its ergative subjects are
# subjects: SV). DN (determiner-noun), AN (adjective-noun) and PA (predicative adjective, which
# MultiBLiMP's SP does not name) are ud-agree's own.
CONSTRUCTION = {
    "subject-verb": "SV",
    "predicative": "PA",
    "determiner": "DN",
    "attributive": "AN",
    "numeral": "HEAD-NUM",
    "subject-participle": "SP",
    "object-verb": "OV",
    "indirect-object-verb": "IOV",
    "ergative-verb": "SV",
    "possessor": "HEAD-PRON",
}
# Types whose construction is the noun phrase's role pair by the varied word's UPOS (LionLab's
# HEAD-PRON for *merī kitāb*, HEAD-ADP for *rām kī kitāb*).
ROLE_PAIR = {"possessive": "HEAD"}
FEATURE_MARK = {"Number": "#", "Person": "P", "Gender": "G", "Case": "C", "Definite": "Def"}


def phenomenon(kind: str, feature: str, upos: str) -> str:
    """MultiBLiMP's `phenomenon` of a pair: its type's construction, then its feature's mark."""
    construction = CONSTRUCTION.get(kind, kind)
    if kind in ROLE_PAIR:
        construction = f"{ROLE_PAIR[kind]}-{upos}"
    return f"{construction}-{FEATURE_MARK.get(feature, feature)}"


# MultiBLiMP 1.0's own columns, in its order, that ud-agree fills (its sampling weights, attractor
# congruence and agreement certainty are its own: left out). `lang` is the ISO 639-3 code there.
OWN = (
    *("sen", "verb", "verb_idx", "cop", "cop_idx", "child", "child_idx", "child_features"),
    *("child_upos", "head", "head_idx", "head_features", "head_upos", "distance", "attractors"),
    *("metadata", "swap_head", "feature_vals", "prefix", "wrong_sen", "num_attractors"),
    *("phenomenon", "lang", "grammatical_feature", "ungrammatical_feature", "wo", "inflect_item"),
)
# Beside the pairs, per relation (RELATION_KEY): what the corpus says (mine/multiblimp.py).
FROM_CORPUS = tuple(c for c in OWN if c not in ("sen", "wrong_sen", "swap_head", "prefix"))
FROM_CORPUS = tuple(
    c for c in FROM_CORPUS if c not in ("feature_vals", "phenomenon", "lang")
    and not c.endswith("_feature")
)  # fmt: skip
# ud-agree's own columns after MultiBLiMP's (its `lang` is MultiBLiMP's, in ISO 639-3).
AFTER = tuple(c for c in ID_COLUMNS if c != "lang")


def write(
    pairs: pl.DataFrame,
    tag: Callable[[str, str], str] = lambda feature, value: value,
    facts: pl.DataFrame | None = None,
) -> str:
    """MultiBLiMP's TSV: its own columns, then ud-agree's (quoted as pandas would quote); `tag`
    writes a UD feature value as MultiBLiMP does (UniMorph: Sing → SG); `facts` holds, per
    relation, the columns the pairs table lacks (empty without it). `swap_head` is the head (the
    target) as `wrong_sen` has it: the bad form where the target is varied, else its own form."""
    key = ["lang", "treebank", "sent_id", "target_id", "controller_id"]
    if facts is not None:
        pairs = pairs.join(facts, on=key, how="left", suffix="_facts")
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow([*OWN, *AFTER])
    for row in pairs.iter_rows(named=True):
        good = tag(row["feature"], row["good_value"])
        bad = tag(row["feature"], row["bad_value"])
        own = {c: row.get(c) for c in FROM_CORPUS}
        own |= {
            "sen": row["sentence_good"],
            "wrong_sen": row["sentence_bad"],
            "swap_head": row["bad_form"] if row["varied"] == "target" else row.get("head"),
            "prefix": row["sentence_good"][: row["start"]].rstrip(),
            "feature_vals": f"{good} -> {bad}",
            "phenomenon": phenomenon(row["type"], row["feature"], row["upos"]),
            "lang": row.get("iso3") or row["lang"],
            "grammatical_feature": good,
            "ungrammatical_feature": bad,
        }
        cells = [*(own[c] for c in OWN), *(flat(row[c]) for c in AFTER)]
        writer.writerow(["" if cell is None else cell for cell in cells])
    return buffer.getvalue()
