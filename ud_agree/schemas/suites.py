"""Arrow schema of imported suites' results (DESIGN.md §3, §7), declared once.

Each result file holds these columns first, then the suite's own metadata columns as strings
(`UID`, `phenomenon`, `pairID`, …; a name that clashes with one below gets a `meta_` prefix).
"""

from __future__ import annotations

import pyarrow as pa

from .results import INGREDIENT_FIELDS, RULE_NAMES

SUITE_RESULTS = pa.schema(
    [
        ("suite", pa.string()),  # the suite file's stem
        ("format", pa.string()),  # blimp | clams | multiblimp | syntaxgym | table
        ("pair_id", pa.string()),  # the pair's line (row for Parquet); SyntaxGym: the item number
        ("line", pa.int64()),  # where the pair (the False line; the item) lies in its file
        ("condition", pa.string()),  # CLAMS: file stem; BLiMP: UID; MultiBLiMP: phenomenon
        ("prediction", pa.int32()),  # SyntaxGym: the prediction's index; pairs: null
        ("formula", pa.string()),  # SyntaxGym: the prediction's formula; pairs: null
        ("sentence_good", pa.string()),
        ("sentence_bad", pa.string()),
        ("score_good", pa.float64()),  # natural-log probability of the sentence
        ("score_bad", pa.float64()),
        ("right", pa.bool_()),  # score_good > score_bad; SyntaxGym: the prediction holds
        ("surprisals", pa.string()),  # SyntaxGym: JSON {condition: {region: bits}}; pairs: null
        # §5.1, pairs only: every rule's ingredients for both sentences, and its decision.
        *(
            (f"{name}_{side}", kind)
            for name, kind, _ in INGREDIENT_FIELDS
            for side in ("good", "bad")
        ),
        *((f"right_{rule}", pa.bool_()) for rule in RULE_NAMES),
        ("model", pa.string()),
        ("method", pa.string()),  # causal | pll-word | pll-sentence
    ]
)

COLUMNS: tuple[str, ...] = tuple(SUITE_RESULTS.names)
