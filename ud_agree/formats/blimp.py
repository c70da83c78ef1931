"""BLiMP JSON lines (Warstadt et al. 2020): `sentence_good`, `sentence_bad`, `UID` (the paradigm),
`field`, `linguistics_term`, the method flags, `pairID`; read as a table by its sentence columns,
written with every column of ud-agree's pairs after BLiMP's own."""

from __future__ import annotations

import json

import polars as pl

from .pairs_table import ID_COLUMNS, flat

# The (good, bad, condition) columns that mark and read the layout.
COLUMNS = ("sentence_good", "sentence_bad", "UID")

# BLiMP's `linguistics_term` of agreement paradigms; the types beyond subject-verb and
# determiner-noun are ud-agree's own, named the same way.
BLIMP_TERM = {
    "subject-verb": "subject_verb_agreement",
    "determiner": "determiner_noun_agreement",
    "attributive": "adjective_noun_agreement",
    "predicative": "subject_predicate_agreement",
    "numeral": "numeral_noun_agreement",
    "subject-participle": "subject_participle_agreement",
    "possessive": "possessive_noun_agreement",
    "object-verb": "object_verb_agreement",
    "indirect-object-verb": "indirect_object_verb_agreement",
    "ergative-verb": "ergative_subject_verb_agreement",
    "possessor": "possessor_noun_agreement",
}


def write(pairs: pl.DataFrame) -> str:
    """BLiMP's JSON lines: one paradigm (UID) per language, type and feature; pairID counts within it."""
    lines: list[str] = []
    counters: dict[str, int] = {}
    for row in pairs.iter_rows(named=True):
        term = BLIMP_TERM.get(row["type"], row["type"])
        uid = f"{row['lang']}_{term}_{row['feature'].lower()}"
        if row["variant"] != "original":  # nonce variants (§9) are paradigms of their own
            uid += "_nonce"
        counters[uid] = counters.get(uid, -1) + 1
        record = {
            "sentence_good": row["sentence_good"],
            "sentence_bad": row["sentence_bad"],
            "field": "morphology",
            "linguistics_term": term,
            "UID": uid,
            "simple_LM_method": True,
            # The varied word may come before its controller: a prefix method would not see it.
            "one_prefix_method": False,
            "two_prefix_method": False,
            "lexically_identical": False,
            "pairID": str(counters[uid]),
        }
        record.update({c: flat(row[c]) for c in ID_COLUMNS})
        lines.append(json.dumps(record, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
