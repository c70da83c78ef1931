"""The miner's closing tables fit a terminal of 120 columns: a table with more columns goes on
in blocks below, each repeating the language, and no count is lost."""

from __future__ import annotations

from ud_agree.mine.summary import summary

from ud_agree.schemas.corpus import DROP_REASONS, SKIP_REASONS, TYPES


def manifest(lang: str, base: int) -> dict:
    """A language's manifest counts, every skip reason given (a whole release has most)."""
    by_type = {t: base + i for i, t in enumerate(TYPES)}
    return {
        "lang": lang,
        "options": {"valid_types": list(TYPES), "pairs": True},
        "counts": {
            "sentences": 123456, "relations_by_type": by_type, "lexicon": 654321,
            "malformed": 7, "drops": {d: 1000 + i for i, d in enumerate(DROP_REASONS)},
            "candidates_agree": by_type, "candidates_disagree": by_type,
            "pairs_by_type": by_type,
            "pair_skips": {r: base * 100 + i for i, r in enumerate(SKIP_REASONS)},
        },
    }  # fmt: skip


def test_every_line_fits_120_columns_and_every_skip_count_is_shown():
    text = summary([manifest("fr", 11), manifest("cs", 22)])
    assert max(len(line) for line in text.splitlines()) <= 120
    # Each reason heads a column once, over its two counts, in some block.
    lines = text.splitlines()
    for i, reason in enumerate(SKIP_REASONS):
        head = next(n for n, line in enumerate(lines) if reason in line.split())
        column = lines[head].split().index(reason)
        assert lines[head + 2].split()[column] == str(1100 + i)  # fr, under the rule
        assert lines[head + 3].split()[column] == str(2200 + i)  # cs
    blocks = [line for line in lines if line.startswith("lang ")]
    assert len(blocks) > 3  # the skip table went on in blocks, each with the language first
