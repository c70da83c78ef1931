"""`python -m mine.compare`'s printed table: the classes of MultiBLiMP's rows per phenomenon, and
how many of its contrasts ud-agree makes (its coverage)."""

from __future__ import annotations

import polars as pl

# The classes where ud-agree makes MultiBLiMP's contrast (same target, subject, feature and bad
# value).
COVERED = ("same-pair", "other-form")
SAME_FEATURE = (*COVERED, "other-value")  # the same contrast, perhaps towards another value
NOT_CANDIDATE = "not-candidate"  # neither kept nor dropped: no §1.1 candidate
# MultiBLiMP's own errors, where ud-agree makes no pair: a wrong word or a wrong form changing
# another feature, a plural whose unagreement is licit (DESIGN §4.2), and a clitic written as a
# word for the bad form (*the farmers have* → *'ve*: *'ve* is *have*).
MULTIBLIMP_ERRORS = ("multiblimp-wrong-word", "wrong-form-changes-feats", "unagreement")
CLITIC = "clitic"  # the `multiblimp-error` view's name for a bad form written as a clitic


def table(classed: pl.DataFrame) -> str:
    """Classes × phenomena (counts, a total column), then the share of compared rows whose
    contrast ud-agree makes (`same-pair` + `other-form` over the rows not `not-in-corpus`)."""
    phenomena = sorted(classed.get_column("phenomenon").unique().to_list())
    counts = classed.group_by("class", "phenomenon").len()
    width = max([len("class"), *(len(k) for k in classed.get_column("class").unique())])
    lines = [f"{'class':<{width}} " + " ".join(f"{p:>6}" for p in phenomena) + f" {'all':>6}"]
    order = (
        counts.group_by("class")
        .agg(pl.col("len").sum())
        .sort(["len", "class"], descending=[True, False])
    )
    for kind in order.get_column("class").to_list():
        row = {p: n for _, p, n in counts.filter(pl.col("class") == kind).iter_rows()}
        cells = " ".join(f"{row.get(p, 0):>6}" for p in phenomena)
        lines.append(f"{kind:<{width}} {cells} {sum(row.values()):>6}")
    compared, same_value, same_feature = coverage(classed)
    lines.append(
        f"\nrows {classed.height}, compared {compared} (sentence in the corpus); ud-agree varies "
        f"the same target for the same subject and feature (same-pair + other-form + "
        f"other-value) in {same_feature} ({_share(same_feature, compared)}), to the same bad "
        f"value (same-pair + other-form) in {same_value} ({_share(same_value, compared)})"
    )
    errors = multiblimp_errors(classed)
    kinds = errors.drop_nulls().value_counts(sort=True)
    named = ", ".join(f"{kind} {n}" for kind, n in kinds.iter_rows())
    valid = compared - int(errors.is_not_null().sum())
    lines.append(
        f"multiblimp-error {compared - valid} ({named or 'none'}); of the {valid} valid rows, "
        f"ud-agree varies the same target, subject and feature in {same_feature} "
        f"({_share(same_feature, valid)})"
    )
    return "\n".join(lines)


def multiblimp_errors(classed: pl.DataFrame) -> pl.Series:
    """Per row, the kind of MultiBLiMP's own error where ud-agree rightly makes no pair
    (`MULTIBLIMP_ERRORS`, or `clitic`: a bad form written as an apostrophe clitic), else null;
    rows whose contrast ud-agree makes are never errors."""
    kind = pl.col("class")
    clitic = pl.col("swap_head").fill_null("").str.contains(r"^['’]")
    return classed.select(
        pl.when(kind.is_in(SAME_FEATURE) | (kind == "not-in-corpus"))
        .then(pl.lit(None, pl.String))
        .when(kind.is_in(MULTIBLIMP_ERRORS))
        .then(kind)
        .when(clitic)
        .then(pl.lit(CLITIC))
        .alias("multiblimp_error")
    ).to_series()


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def coverage(classed: pl.DataFrame) -> tuple[int, int, int]:
    """Rows compared (sentence in the corpus); of those, rows whose contrast ud-agree makes to
    the same bad value (`same-pair`, `other-form`), and for the same feature (`other-value` too)."""
    kinds = classed.get_column("class")
    compared = int((kinds != "not-in-corpus").sum())
    return compared, int(kinds.is_in(COVERED).sum()), int(kinds.is_in(SAME_FEATURE).sum())
