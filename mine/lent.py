"""§4.2's values from an antecedent, measured as §4.1 measures agreement: a relative pronoun
without a feature lends its antecedent's value to its verb only where the language's treebanks
show that verb agreeing with the antecedent. Czech *kdo* takes a default singular or, by sense,
its antecedent's plural (*ti, kdo chce / chtějí*): a pair varying that plural claims no violation.

Per (the pronoun's lemma, feature), from the counts of `columnar._lent_counts` (a worker's, per file): a
lemma the language's data lists as agreeing optionally lends nothing; else a lemma with at least
MIN_CANDIDATES relations decides by its own rate; else the language's rate over all its relative
pronouns decides; else the value is lent, flagged `agreement-unmeasured`. Where a listed lemma
lends nothing, a value equal to its default is lent all the same: the verb's form then agrees
both by default and by sense, and the bad form does neither (*každý, kdo chce → chtějí*)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import polars as pl

from .rules.certainty import holds, measured
from .rules.subjects import DERIVABLE

# What decided a (lemma, feature): its own rate, the data's list, the language's rate, nothing.
DECIDERS = ("lemma", "listed", "language", "unmeasured")
REFUSED = "optional-antecedent-agreement"  # the skip reason of an attempt that is not lent
LENT_COUNTS = {"lemma": pl.String, "feature": pl.String, "n": pl.Int64, "agree": pl.Int64}


@dataclass
class LentAgreement:
    """A language's counts of relative pronoun relations (`columnar._lent_counts`, summed
    over its files) and the lemmas its data lists as agreeing optionally, with their
    default values (feature → value; `languages.load_optional_antecedent_agreement`)."""

    n: Counter = field(default_factory=Counter)  # (lemma, feature) → relations
    agree: Counter = field(default_factory=Counter)  # (lemma, feature) → those agreeing
    listed: dict[str, dict[str, str]] = field(default_factory=dict)

    def counts(self) -> pl.DataFrame:
        """LENT_COUNTS rows, one per (lemma, feature) counted."""
        rows = [(*key, n, self.agree.get(key, 0)) for key, n in self.n.items()]
        return pl.DataFrame(rows, schema=LENT_COUNTS, orient="row")

    def _defaults(self) -> pl.DataFrame:
        """(lemma, feature, default) of every listed lemma and feature of §4.2."""
        rows = [
            (lemma, feature, defaults.get(feature))
            for lemma, defaults in sorted(self.listed.items())
            for feature, _ in DERIVABLE
        ]
        schema = {"lemma": pl.String, "feature": pl.String, "default": pl.String}
        return pl.DataFrame(rows, schema=schema, orient="row")

    def decisions(self, asked: pl.DataFrame) -> pl.DataFrame:
        """Per distinct (lemma, feature) of `asked`: the counts of the lemma and of the language,
        `decided_by` (DECIDERS), `lends` (false: no value is lent but the default) and the
        lemma's listed `default` (null: none)."""
        counts = self.counts()
        language = counts.group_by("feature").agg(
            pl.col("n").sum().alias("language_n"), pl.col("agree").sum().alias("language_agree")
        )
        table = (
            asked.select("lemma", "feature")
            .unique()
            .join(counts, on=["lemma", "feature"], how="left", nulls_equal=True)
            .join(language, on="feature", how="left")
            .join(self._defaults(), on=["lemma", "feature"], how="left", nulls_equal=True)
            .with_columns(
                pl.col("n", "agree", "language_n", "language_agree").fill_null(0),
                pl.col("lemma").is_in(sorted(self.listed)).alias("listed"),
            )
        )
        own, whole = measured(pl.col("n")), measured(pl.col("language_n"))
        # A listed lemma first: its verb agrees with most antecedents by default (singular), so
        # a rate over all of them would hide that it agrees with a plural one only by sense.
        return table.with_columns(
            pl.when("listed")
            .then(pl.lit("listed"))
            .when(own)
            .then(pl.lit("lemma"))
            .when(whole)
            .then(pl.lit("language"))
            .otherwise(pl.lit("unmeasured"))
            .alias("decided_by"),
            pl.when("listed")
            .then(pl.lit(False))
            .when(own)
            .then(holds(pl.col("n"), pl.col("agree")))
            .when(whole)
            .then(holds(pl.col("language_n"), pl.col("language_agree")))
            .otherwise(pl.lit(True))
            .alias("lends"),
        ).sort("feature", "lemma")

    def summary(self) -> list[dict]:
        """The manifest's account: each (lemma, feature) counted or listed, with its decision."""
        asked = pl.concat(
            [self.counts().select("lemma", "feature"), self._defaults().select("lemma", "feature")]
        )
        table = self.decisions(asked)
        return (
            table.filter((pl.col("n") > 0) | pl.col("listed"))
            .select(
                "lemma",
                "feature",
                "n",
                "agree",
                _rate("n", "agree").alias("rate"),
                "language_n",
                "language_agree",
                _rate("language_n", "language_agree").alias("language_rate"),
                "decided_by",
                "lends",
                "default",
            )
            .to_dicts()
        )

    def decide(self, attempts: pl.DataFrame) -> pl.DataFrame:
        """Attempts (with `o_lemma`, `feature`, the varied word's `values` and `lent`: the
        feature's value came from the antecedent) with `lends` (false: skip as REFUSED) and
        `lent_unmeasured`."""
        lent = attempts.filter(pl.col("lent"))
        plain = attempts.filter(~pl.col("lent")).with_columns(
            pl.lit(True).alias("lends"), pl.lit(False).alias("lent_unmeasured")
        )
        if lent.height == 0:
            return plain
        decided = self.decisions(lent.select(pl.col("o_lemma").alias("lemma"), "feature"))
        lent = lent.join(
            decided.select(
                pl.col("lemma").alias("o_lemma"),
                "feature",
                pl.col("lends").alias("_all"),
                "default",
                (pl.col("decided_by") == "unmeasured").alias("lent_unmeasured"),
            ),
            on=["o_lemma", "feature"],
            how="left",
            nulls_equal=True,
        ).with_columns(
            (pl.col("_all") | (pl.col("values").list.first() == pl.col("default")).fill_null(False))
            .fill_null(True)
            .alias("lends")
        )
        return pl.concat([plain, lent.select(plain.columns)])


def _rate(n: str, agree: str) -> pl.Expr:
    """agree / n, rounded for the manifest (null where nothing was counted)."""
    return pl.when(pl.col(n) > 0).then((pl.col(agree) / pl.col(n)).round(4))
