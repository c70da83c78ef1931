"""The table printed at the end of a mining run, from the languages' manifests."""

from __future__ import annotations

from ud_agree.schemas.corpus import DROP_REASONS, SKIP_REASONS, TYPES


def summary(manifests: list[dict]) -> str:
    """Per-language table: relations per type, lexicon size, drops; then agree/disagree per type."""
    short = {  # column heads
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
    with_pairs = [m for m in manifests if m["options"].get("pairs", True)]
    if not with_pairs:
        return "\n".join([*lines, "", "Minimal pairs: not built (--no-pairs)."])
    lines += [
        "",
        "Minimal pairs per type, and (relation, feature, bad value) skipped per reason (§4):",
    ]
    skips = [r for r in SKIP_REASONS if any(m["counts"]["pair_skips"].get(r) for m in with_pairs)]
    rows = [
        [
            m["lang"],
            *(m["counts"]["pairs_by_type"][t] for t in TYPES),
            *(m["counts"]["pair_skips"].get(r, 0) for r in skips),
        ]
        for m in with_pairs
    ]
    lines.append(_table(["lang", *short.values(), *skips], rows))
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
