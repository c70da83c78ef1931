"""Validity of minimal pairs judged by people (DESIGN.md §4.1 "Validation, built in")."""

from __future__ import annotations

import pyarrow as pa

from .corpus import described

# What beyond the plain rule a pair needed (`pairs.derived`, §3); `plain` where it needed nothing.
RULES = (
    "plain",
    "implicit-person",
    "transparent-token",
    "unimorph-form",
    "antecedent",
    "dependent-number",
    "lexicon-features",
    "unmarked-cell",
    "backed-off",
    "agreement-unmeasured",
)
# A judge's verdicts on a pair; only `valid` holds the pair's claim, `unsure` is left out of n.
VERDICTS = (
    "valid",
    "grammatical-bad",
    "wrong-feature",
    "broken-surface",
    "not-agreement",
    "unsure",
)
FAILURES = VERDICTS[1:-1]
# The cells validity is given for: per language, by type, by rule, and by type and rule.
CELLS = ("type", "rule", "type-rule")

VALIDITY = pa.schema(
    [
        described("lang", pa.string(), "language key"),
        described("cell", pa.string(), "what the row groups by: type, rule or type-rule"),
        described("type", pa.string(), "agreement type; null where the cell is by rule only"),
        described(
            "rule", pa.string(), "plain or a `derived` value; null where the cell is by type only"
        ),
        described("n", pa.int64(), "pairs judged (unsure left out)"),
        described("valid", pa.int64(), "pairs judged valid"),
        described("share", pa.float64(), "valid / n (null when n is 0)"),
        described("low", pa.float64(), "Wilson 95% interval, lower bound (null when n is 0)"),
        described("high", pa.float64(), "Wilson 95% interval, upper bound (null when n is 0)"),
        *(
            described(name.replace("-", "_"), pa.int64(), f"pairs judged {name}")
            for name in FAILURES
        ),
        described("unsure", pa.int64(), "pairs judged unsure (not in n)"),
        described("judges", pa.string(), "who judged (score --judges), e.g. maintainers"),
    ]
)
