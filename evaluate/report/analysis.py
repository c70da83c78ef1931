"""The tables the report computes from results: summaries, scoring rules, controls (nonce, context,
frequency baseline), readings and models compared; no HTML here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from ud_agree.schemas.corpus import RELATION_KEY, SENTENCE_KEY
from ud_agree.schemas.results import ITEM_KEY

from ..output.results import SHORT_MODEL, with_system
from ..readings.scoring_rules import RULES
from ..summary import stats
from ..summary.tables import balanced_note, rule_accuracy, with_ties
from .figures import BASELINE, system_order


def per_sentence(frame: pl.DataFrame) -> pl.DataFrame:
    """Right and total items per sentence (undecided items, §5.1, left out)."""
    return frame.group_by(SENTENCE_KEY).agg(
        pl.col("right").cast(pl.Int64).sum().alias("right"),
        pl.col("right").is_not_null().sum().cast(pl.Int64).alias("n"),
    )


def paired_difference(
    a: pl.DataFrame, b: pl.DataFrame, n_boot: int = 1000, seed: int = 0
) -> tuple[float, float, float]:
    """Accuracy of `a` minus that of `b`, with a 95% interval resampling the sentences of both."""
    # Full join: a sentence scored by one side only still weighs on that side's accuracy.
    joined = (
        per_sentence(a)
        .join(per_sentence(b), on=list(SENTENCE_KEY), how="full", coalesce=True, suffix="_b")
        .sort(SENTENCE_KEY)
        .fill_null(0)
    )
    right_a, total_a, right_b, total_b = (
        joined[c].to_numpy() for c in ("right", "n", "right_b", "n_b")
    )
    return stats.paired_difference(right_a, total_a, right_b, total_b, n_boot=n_boot, seed=seed)


def order_systems(table: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Sort by `by`, then systems by name with the frequency baseline last in each group."""
    order = {s: i for i, s in enumerate(system_order(table["system"].unique().to_list()))}
    rank = pl.col("system").replace_strict(order, return_dtype=pl.Int64)
    columns = [*by, "system", "n", "accuracy", "ci_low", "ci_high"]
    balanced = ("balanced_accuracy", "ba_ci_low", "ba_ci_high", "ba_left_out", "undecided")
    columns += [c for c in balanced if c in table.columns]
    return table.sort([*by, rank]).select(columns)


def summary_table(frame: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Accuracy with intervals per system (and per `by`), baseline rows last within each group."""
    return order_systems(stats.grouped_accuracy(frame, [*by, "system"]), by)


def summary_tables(
    frame: pl.DataFrame, figure_tables: dict[str, pl.DataFrame]
) -> dict[str, pl.DataFrame]:
    """The report's summary tables: overall, per language, per language and type."""
    # The per-language figure already holds the per-language table: bootstraps are not free.
    by_lang = figure_tables.get("by_lang")
    tables = {
        "overall": summary_table(frame),
        "lang": summary_table(frame, ["lang"])
        if by_lang is None
        else order_systems(by_lang, ["lang"]),
        "lang_type": summary_table(frame, ["lang", "type"]),
    }
    return {name: with_balanced_note(table) for name, table in tables.items()}


def with_balanced_note(table: pl.DataFrame) -> pl.DataFrame:
    """The table with `balanced_note` (§6): the figure with the share of items it covers where
    that is under half, why there is no figure where there is none."""
    notes = [balanced_note(row) for row in table.iter_rows(named=True)]
    return table.with_columns(pl.Series("balanced_note", notes, dtype=pl.String))


def compare(a: pl.DataFrame, b: pl.DataFrame, name_a: str, name_b: str) -> dict[str, Any]:
    """Accuracies of `a` and `b` on what both scored, and their difference with a 95% interval:
    the same items within a reading, the same relations across readings."""
    # Runs skip different items (vocabularies differ), so only shared ones make a fair comparison.
    same_reading = set(a["reading"].unique()) == set(b["reading"].unique())
    key = list(ITEM_KEY if same_reading else RELATION_KEY)
    shared = (
        a.select(key).unique().join(b.select(key).unique(), on=key, how="semi", nulls_equal=True)
    )
    a = a.join(shared, on=key, how="semi", nulls_equal=True)
    b = b.join(shared, on=key, how="semi", nulls_equal=True)
    diff, low, high = paired_difference(a, b)
    mean = lambda f: float(f["right"].mean()) if f.height else float("nan")  # noqa: E731
    return {
        "n_shared": shared.height,
        name_a: mean(a),
        name_b: mean(b),
        "difference": diff,
        "diff_low": low,
        "diff_high": high,
    }


# What tells runs apart in their rows (a run's folder name says the same, and no more).
RUN_KEY = ("lang", "model", "reading", "method", "match", "case")


def runs_and_models(frame: pl.DataFrame) -> tuple[int, int]:
    """How many runs the rows come from, and how many models (the frequency baseline one)."""
    key = [c for c in RUN_KEY if c in frame.columns]
    return frame.select(key).n_unique(), frame.select(SHORT_MODEL).n_unique()


def systems_of(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with its `system` column (added when missing)."""
    return frame if "system" in frame.columns else with_system(frame).collect()


def _comparison_frame(rows: list[dict[str, Any]], names: Sequence[str]) -> pl.DataFrame:
    schema = {"model": pl.String, "lang": pl.String, "n_shared": pl.Int64}
    schema |= {c: pl.Float64 for c in (*names, "difference", "diff_low", "diff_high")}
    return pl.DataFrame(rows, schema=schema).sort("lang", "model").with_columns(SHORT_MODEL)


def readings_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Per model and language: the class-average and the pair reading (each model kind's own
    method), on the relations both scored, and their difference."""
    rows = []
    chosen = frame.filter(pl.col("method").is_in(["context", "causal", "pll-word", "frequency"]))
    models = chosen.group_by("model", "lang").agg(pl.col("reading").n_unique().alias("readings"))
    for model, lang in (
        models.filter(pl.col("readings") > 1)
        .sort("model", "lang")
        .select("model", "lang")
        .iter_rows()
    ):
        own = chosen.filter((pl.col("model") == model) & (pl.col("lang") == lang))
        pair = own.filter(pl.col("reading") == "pair")
        average = own.filter(pl.col("reading") == "class-average")
        rows.append(
            {"model": model, "lang": lang} | compare(pair, average, "pair", "class_average")
        )
    return _comparison_frame(rows, ("pair", "class_average"))


def model_differences_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Every two models of one reading and language (controls and baselines have their own
    tables): accuracy of each on the items both scored, and the difference."""
    frame = systems_of(frame)
    rows = []
    models = frame.filter(~pl.col("method").is_in(["no-context", "frequency"]))
    for (reading, lang), group in models.partition_by(["reading", "lang"], as_dict=True).items():
        systems = sorted(group["system"].unique().to_list())
        for i, first in enumerate(systems):
            for second in systems[i + 1 :]:
                a = group.filter(pl.col("system") == first)
                b = group.filter(pl.col("system") == second)
                row = {"reading": reading, "lang": lang, "a": first, "b": second}
                rows.append(row | compare(a, b, "accuracy_a", "accuracy_b"))
    schema = {
        "reading": pl.String,
        "lang": pl.String,
        "a": pl.String,
        "b": pl.String,
        "n_shared": pl.Int64,
    }
    schema |= {
        c: pl.Float64 for c in ("accuracy_a", "accuracy_b", "difference", "diff_low", "diff_high")
    }
    return pl.DataFrame(rows, schema=schema).sort("reading", "lang", "a", "b")


def context_control_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Per model and language: accuracy in context and without, on shared items, and the difference."""
    rows = []
    pairs = frame.filter(pl.col("method") == "no-context").select("model", "lang").unique()
    for model, lang in pairs.sort("model", "lang").iter_rows():
        same = frame.filter((pl.col("model") == model) & (pl.col("lang") == lang))
        with_ctx = same.filter(pl.col("method") == "context")
        if with_ctx.height:
            without = same.filter(pl.col("method") == "no-context")
            rows.append(
                {"model": model, "lang": lang} | compare(with_ctx, without, "context", "no_context")
            )
    return _comparison_frame(rows, ("context", "no_context"))


def baseline_gap_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Per model (each reading and method) and language: its accuracy minus the frequency
    baseline's of the same reading (the one restricted to its vocabulary where there is one),
    on the items both scored."""
    frame = systems_of(frame)
    rows = []
    baseline = frame.filter(pl.col("method") == "frequency")
    systems = frame.filter(~pl.col("method").is_in(["frequency", "no-context"]))
    keys = systems.select("system", "model", "lang", "reading").unique()
    for system, model, lang, reading in keys.sort("system", "lang").iter_rows():
        base = baseline.filter((pl.col("lang") == lang) & (pl.col("reading") == reading))
        chosen = matching_baseline(base["model"].unique().to_list(), model)
        if chosen is not None:
            own = systems.filter((pl.col("system") == system) & (pl.col("lang") == lang))
            rows.append(
                {"model": system, "lang": lang}
                | compare(
                    own,
                    base.filter(pl.col("model") == chosen),
                    "model_accuracy",
                    "baseline_accuracy",
                )
            )
    return _comparison_frame(rows, ("model_accuracy", "baseline_accuracy"))


# What a nonce variant shares with its original pair (§9): the relation, role, feature and value.
PAIR_KEY = [*RELATION_KEY, "varied", "feature", "bad_value"]


def nonce_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Per system and language of the pair reading: accuracy on original pairs and on their nonce
    variants, over the pairs that have both, and original minus nonce (§9)."""
    frame = systems_of(frame)
    pairs = frame.filter((pl.col("reading") == "pair") & pl.col("variant").is_not_null())
    rows = []
    for (system, lang), group in sorted(
        pairs.partition_by(["system", "lang"], as_dict=True).items()
    ):
        original = group.filter(pl.col("variant") == "original")
        nonce = group.filter(pl.col("variant").str.starts_with("nonce"))
        if not (original.height and nonce.height):
            continue
        both = original.select(PAIR_KEY).join(nonce.select(PAIR_KEY), on=PAIR_KEY, how="semi")
        original = original.join(both, on=PAIR_KEY, how="semi")
        nonce = nonce.join(both, on=PAIR_KEY, how="semi")
        diff, low, high = paired_difference(original, nonce)
        rows.append(
            {
                "model": system,
                "lang": lang,
                "n_original": original.height,
                "n_nonce": nonce.height,
                "original": original["right"].cast(pl.Float64).mean(),
                "nonce": nonce["right"].cast(pl.Float64).mean(),
                "difference": diff,
                "diff_low": low,
                "diff_high": high,
            }
        )
    schema = {"model": pl.String, "lang": pl.String, "n_original": pl.Int64, "n_nonce": pl.Int64}
    schema |= {c: pl.Float64 for c in ("original", "nonce", "difference", "diff_low", "diff_high")}
    return pl.DataFrame(rows, schema=schema)


def incongruent_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Per system and language: accuracy overall and on the items where the frequency heuristic
    is wrong (§10; the frequency baseline scores 0% there by definition)."""
    frame = systems_of(frame)
    overall = stats.grouped_accuracy(frame, ["system", "lang"]).select(
        "system", "lang", "n", "accuracy"
    )
    incongruent = stats.grouped_accuracy(
        frame.filter(pl.col("frequency") == "incongruent"), ["system", "lang"]
    ).select(
        "system",
        "lang",
        pl.col("n").alias("n_incongruent"),
        pl.col("accuracy").alias("incongruent"),
        pl.col("ci_low").alias("incongruent_low"),
        pl.col("ci_high").alias("incongruent_high"),
    )
    table = overall.join(incongruent, on=["system", "lang"], how="left")
    return order_systems_by(table, ["lang"]).rename({"system": "model"})


def order_systems_by(table: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Rows sorted by `by`, then systems by name with the frequency baseline last."""
    order = {s: i for i, s in enumerate(system_order(table["system"].unique().to_list()))}
    return table.sort([*by, pl.col("system").replace_strict(order, return_dtype=pl.Int64)])


def controls_table(frame: pl.DataFrame) -> pl.DataFrame:
    """Each model's controls side by side, per language: its accuracy, its gap over the frequency
    baseline, what context adds, original minus nonce, and its accuracy on incongruent items."""
    return controls_of(
        incongruent_table(frame),
        baseline_gap_table(frame),
        context_control_table(systems_of(frame)),
        nonce_table(frame),
    )


def controls_of(
    incongruent: pl.DataFrame, gap: pl.DataFrame, control: pl.DataFrame, nonce: pl.DataFrame
) -> pl.DataFrame:
    """`controls_table` from the tables it joins, each computed once."""
    table = incongruent.select("model", "lang", "n", "accuracy", "incongruent")
    gap = gap.select("model", "lang", pl.col("difference").alias("vs_frequency"))
    control = control.select(
        pl.col("model").alias("short"), "lang", pl.col("difference").alias("context_adds")
    )
    nonce = nonce.select("model", "lang", pl.col("difference").alias("original_minus_nonce"))
    table = table.join(gap, on=["model", "lang"], how="left").join(
        nonce, on=["model", "lang"], how="left"
    )
    # The context control is per model (its context run against its no-context run).
    return table.join(control, left_on=["model", "lang"], right_on=["short", "lang"], how="left")


def matching_baseline(baselines: Sequence[str], model: str) -> str | None:
    """The baseline to set a model against: the one with its vocabulary, else the plain one."""
    short = model.rstrip("/").split("/")[-1]
    for name in (f"{BASELINE} ({short} vocabulary)", BASELINE):
        if name in baselines:
            return name
    return sorted(baselines)[0] if baselines else None


def rules_table(frame: pl.DataFrame) -> pl.DataFrame:
    """§5.1 per reading and system: each rule's accuracy and balanced accuracy, and `differs`, its
    decisions that differ from the headline `right` (the pair reading's rows only)."""
    pairs = frame.filter(pl.col("reading") == "pair")
    table = rule_accuracy(with_ties(pairs), by=["reading", "system"]) if pairs.height else None
    if table is None or not table.height:
        return pl.DataFrame()
    keep = ["reading", "system", "rule", "n", "accuracy", "ci_low", "ci_high",
            "balanced_accuracy", "differs", "ties", "undecided"]  # fmt: skip
    rank = {rule: i for i, rule in enumerate(RULES)}
    table = table.select([c for c in keep if c in table.columns])
    return table.sort("reading", "system", pl.col("rule").replace_strict(rank))


@dataclass(frozen=True)
class Analysis:
    """Every table the page shows, computed once from the results."""

    summaries: dict[str, pl.DataFrame]  # overall, lang, lang_type
    incongruent: pl.DataFrame
    rules: pl.DataFrame
    controls: pl.DataFrame
    nonce: pl.DataFrame
    baseline_gap: pl.DataFrame
    context_control: pl.DataFrame
    readings: pl.DataFrame
    model_differences: pl.DataFrame


def analyse(frame: pl.DataFrame, figure_tables: dict[str, pl.DataFrame]) -> Analysis:
    """The report's tables over `frame` (the figures' tables spare a bootstrap or two)."""
    incongruent = incongruent_table(frame)
    gap = baseline_gap_table(frame)
    control = context_control_table(frame)
    nonce = nonce_table(frame)
    return Analysis(
        summaries=summary_tables(frame, figure_tables),
        incongruent=incongruent,
        rules=rules_table(frame),
        controls=controls_of(incongruent, gap, control, nonce),
        nonce=nonce,
        baseline_gap=gap,
        context_control=control,
        readings=readings_table(frame),
        model_differences=model_differences_table(frame),
    )
