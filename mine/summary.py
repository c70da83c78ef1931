"""The table printed at the end of a mining run, from the languages' manifests."""

from __future__ import annotations

from ud_agree.schemas.corpus import DROP_REASONS, SKIP_REASONS, TYPES


def summary(manifests: list[dict]) -> str:
    """Per-language table: relations per type, lexicon size, drops; then agree/disagree per type."""
    short = {  # column heads (another type's is its name)
        "determiner": "det",
        "attributive": "attr",
        "predicative": "pred",
        "subject-verb": "subj-verb",
    }
    heads = [short.get(t, t) for t in TYPES]
    head = ["lang", "sentences", *heads, "lexicon", "malformed", *DROP_REASONS]
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
        "Minimal pairs per type, and (relation, feature, bad value) skipped per reason "
        "(docs/mining.md#minimal-pairs):",
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
    lines.append(_table(["lang", *heads, *skips], rows))
    return "\n".join(lines)


# The widest a printed table may be: a terminal of 120 columns shows it whole.
WIDTH = 120


def _table(head: list[str], rows: list[list], width: int = WIDTH) -> str:
    """Aligned columns under a ruled head; columns that do not fit in `width` go on in blocks
    below, each repeating the first (the language)."""
    cells = [[str(x) for x in row] for row in [head, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(head))]
    blocks: list[list[int]] = [[]]
    used = widths[0]
    for i in range(1, len(head)):
        if blocks[-1] and used + 2 + widths[i] > width:
            blocks.append([])
            used = widths[0]
        blocks[-1].append(i)
        used += 2 + widths[i]
    out = []
    for number, block in enumerate(blocks):
        if number:
            out.append("")
        columns = [0, *block]
        for n, row in enumerate(cells):
            out.append(
                "  ".join(
                    row[i].rjust(widths[i]) if n and i else row[i].ljust(widths[i]) for i in columns
                )
            )
            if n == 0:
                out.append("  ".join("-" * widths[i] for i in columns))
    return "\n".join(out)
