"""One HTML page over a results folder: figures, summary tables, baseline, context control, manifests.

Usage: ``python -m evaluate.report RESULTS [--out report/] [--validity validity.parquet]`` writes
``report/index.html`` with the figures (PNG + CSV) beside it.
"""

from __future__ import annotations

import html
import json
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

from ud_agree.atomic import write_csv, write_text
from ud_agree.errors import MachineError, OneLineParser, UserError, run_main, tool_command
from ud_agree.schemas.corpus import RELATION_KEY, SENTENCE_KEY
from ud_agree.schemas.results import ITEM_KEY

from ..output.results import SHORT_MODEL, read_results, with_system
from ..output.store import LeftOut, check_runs, load_manifests
from ..readings.scoring_rules import RULES
from ..summary import stats
from ..summary.tables import (
    COVERS_LITTLE,
    balanced_note,
    balanced_share,
    coverage_sentence,
    rule_accuracy,
    with_ties,
)
from .cells import display_columns
from .figures import BASELINE, SPECS, all_figures, prepare, system_order
from .heatmaps import CONGRUENT_SHARE, MIN_INCONGRUENT, write_heat_maps
from .suites import suite_note, suite_rows
from .validity import read_validity, with_validity

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.baseline { background: #f0f0f0; font-style: italic; }
.warning { background: #fff3cd; border: 1px solid #e0c060; padding: 0.5em 1em; }
figure { margin: 1em 0 2em; }
/* Figures at their natural size (labels stay readable); a wide one scrolls sideways. */
.scroll { overflow-x: auto; max-width: 100%; }
.scroll img { max-width: none; display: block; }
.headline { font-size: 1.1em; }
details { margin: 0.5em 0 1em; } summary { cursor: pointer; color: #335; }
pre { background: #f7f7f7; padding: 0.5em; font-size: 0.8em; overflow-x: auto; }
"""


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


def _small_coverage(summaries: dict[str, pl.DataFrame]) -> list[str]:
    """Every summary row whose balanced accuracy covers less than half of its items (§6)."""
    items = []
    for name in ("overall", "lang", "lang_type"):
        table = summaries[name]
        if "ba_left_out" not in table.columns:
            continue
        shown = table.filter(COVERS_LITTLE & pl.col("balanced_accuracy").is_not_nan())
        for row in shown.iter_rows(named=True):
            where = ", ".join(str(row[c]) for c in ("system", "lang", "type") if c in row)
            share = balanced_share(row["n"], row["ba_left_out"])
            assert share is not None  # COVERS_LITTLE holds: n > 0
            items.append(
                f"<li><b>{html.escape(where)}</b> ({html.escape(balanced_note(row))}; "
                f"{row['ba_left_out']:,} of {row['n']:,} items left out): "
                f"{html.escape(coverage_sentence(share))}.</li>"
            )
    if not items:
        return []
    return [
        "<h3>Balanced accuracy over a small part of a row</h3>",
        "<p>In these rows more than half of the items could not be balanced (see balanced accuracy in the definitions above): the "
        "balanced figure speaks for the rest only; the heat maps mark these cells with *.</p>",
        "<ul>",
        *items,
        "</ul>",
    ]


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
    table = incongruent_table(frame).select("model", "lang", "n", "accuracy", "incongruent")
    gap = baseline_gap_table(frame).select(
        "model", "lang", pl.col("difference").alias("vs_frequency")
    )
    control = context_control_table(systems_of(frame)).select(
        pl.col("model").alias("short"), "lang", pl.col("difference").alias("context_adds")
    )
    nonce = nonce_table(frame).select(
        "model", "lang", pl.col("difference").alias("original_minus_nonce")
    )
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


# ---- HTML rendering ---------------------------------------------------------------------------


def html_table(table: pl.DataFrame) -> str:
    """A DataFrame as an HTML table; rows of the frequency baseline get class `baseline`."""
    return html_rows(table.columns, list(table.iter_rows(named=True)))


def html_rows(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """Rows (dicts) as an HTML table: shares in percent with their intervals, headers in words
    (the results' column names in each header's tooltip); baseline rows get class `baseline`."""
    shown = display_columns(columns, rows)
    head = "".join(f'<th title="{html.escape(c.title)}">{html.escape(c.label)}</th>' for c in shown)
    body = []
    for row in rows:
        labels = (str(row.get("system") or ""), str(row.get("model") or ""))
        css = ' class="baseline"' if any(label.startswith(BASELINE) for label in labels) else ""
        cells = "".join(
            ("<td class='num'>" if c.numeric else "<td>") + html.escape(c.text(row)) + "</td>"
            for c in shown
        )
        body.append(f"<tr{css}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _get(manifest: dict[str, Any], *keys: str) -> Any:
    """First of `keys` found at the top of the manifest or inside its `options`."""
    options = manifest.get("options")
    if not isinstance(options, dict):
        options = {}
    for key in keys:
        if key in manifest:
            return manifest[key]
        if key in options:
            return options[key]
    return ""


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as one dict with dotted keys (``skipped.too-few-correct``)."""
    if not isinstance(value, dict):
        return {prefix: value}
    flat: dict[str, Any] = {}
    for key, inner in value.items():
        flat.update(flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
    return flat


def _find(manifest: dict[str, Any], word: str) -> str:
    """Entries of the manifest whose dotted key mentions `word` (skip counts, coverage) as one line."""
    found = {k: v for k, v in flatten(manifest).items() if word in k.lower()}
    # Drop the part of the key that only repeats what the column already says.
    short = {
        k.split(".", 1)[1] if "." in k and word in k.split(".", 1)[0].lower() else k: v
        for k, v in found.items()
    }
    return ", ".join(f"{k}={v}" for k, v in short.items())


# Options shown in their own column, or that say where and how fast a run went, not what it measured.
NOT_MEASURED = frozenset(
    {"model", "lang", "reading", "rule", "control", "corpus", "out", "device", "batch_size",
     "chunk_size", "resume", "progress", "kind", "shard", "no_progress"}
)  # fmt: skip


def option_defaults() -> dict[str, Any]:
    """The evaluator's default for each option (its Options dataclass)."""
    from dataclasses import MISSING, fields

    from ..options import Options

    defaults: dict[str, Any] = {}
    for field in fields(Options):
        if field.default is not MISSING:
            defaults[field.name] = field.default
        elif field.default_factory is not MISSING:
            defaults[field.name] = field.default_factory()
    return defaults


def changed_options(options: dict[str, Any], defaults: dict[str, Any]) -> str:
    """`name=value` for each option that measures something and differs from its default."""

    def same(value: Any, default: Any) -> bool:
        if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
            return list(value) == list(default)
        return bool(value == default)

    return ", ".join(
        f"{key}={value}"
        for key, value in flatten(options).items()
        if key not in NOT_MEASURED and not (key in defaults and same(value, defaults[key]))
    )


def _coverage(manifest: dict[str, Any]) -> str:
    """The run's coverage as a reader says it: `lexicon forms 80 of 107 (75%)`."""
    coverage = manifest.get("coverage")
    if not isinstance(coverage, dict):
        return _find(manifest, "coverage")
    parts = []
    for key, total in coverage.items():
        scorable = coverage.get(f"{key}_scorable")
        if isinstance(total, int) and isinstance(scorable, int) and total:
            what = key.replace("_", " ")
            parts.append(f"{what} {scorable:,} of {total:,} ({100 * scorable / total:.0f}%)")
    return ", ".join(parts) or _find(manifest, "coverage")


def _skips(manifest: dict[str, Any]) -> str:
    """The run's skip counts that are not zero (`too-few-candidates=4`)."""
    counts = manifest.get("counts")
    if not isinstance(counts, dict):
        return _find(manifest, "skip")
    return ", ".join(
        f"{key}={value}"
        for key, value in counts.items()
        if "-" in key and isinstance(value, int) and value
    )


def manifests_section(manifests: list[dict[str, Any]]) -> str:
    """Runs table (model, reading, rule, items, options that differ from the default, coverage,
    skips) and each full manifest folded away."""
    if not manifests:
        return "<p>No manifest.json found beside the result files.</p>"
    defaults = option_defaults()
    rows = []
    for m in manifests:
        reading = str(_get(m, "reading") or "class-average")
        options = _get(m, "options") or {}
        counts = m.get("counts")
        counts = counts if isinstance(counts, dict) else {}
        rows.append(
            {
                "run": m["run_dir"],
                "model": _get(m, "model", "model_name"),
                "method": _get(m, "method", "control"),
                "lang": _get(m, "lang"),
                "reading": reading,
                "rule": _get(m, "rule") if reading == "pair" else "–",
                "items": counts.get("items_in_results", "–"),
                "options not at their default": changed_options(
                    options if isinstance(options, dict) else {}, defaults
                ),
                "random weights": "yes" if m.get("random_weights") is True else "no",
                "coverage (scorable)": _coverage(m),
                "skipped": _skips(m),
            }
        )
    parts = [html_rows(list(rows[0]), rows)]
    parts.append("<details><summary>Full manifests</summary>")
    for m in manifests:
        body = html.escape(json.dumps(m, indent=2, ensure_ascii=False, default=str))
        parts.append(f"<h4>{html.escape(m['run_dir'])}</h4><pre>{body}</pre>")
    parts.append("</details>")
    return "\n".join(parts)


def pooled_runs(manifests: list[dict[str, Any]]) -> list[list[str]]:
    """Groups of runs that load_results cannot tell apart (same lang, model, reading and method),
    e.g. two baselines of one reading."""
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for m in manifests:
        reading = str(m.get("reading") or "class-average")
        key = (str(_get(m, "lang")), str(_get(m, "model")), reading, str(_get(m, "method")))
        groups.setdefault(key, []).append(m["run_dir"])
    return [runs for runs in groups.values() if len(runs) > 1]


# The docs pages the report points to, by what they explain.
DOCS_PAGES = {
    "balanced": ("Balanced accuracy", "evaluating/balanced-accuracy.md"),
    "frequency": ("Where frequency alone decides", "evaluating/frequency-flags.md"),
    "rules": ("Scoring rules", "evaluating/scoring-rules.md"),
    "controls": ("Controls", "evaluating/controls.md"),
    "reports": ("Reports and polars recipes", "evaluating/reports.md"),
}
DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"


def docs_link(page: str) -> str:
    """A link to a docs page: to the checkout's docs/ file where it lies beside the code, else the
    page's name and path only."""
    title, path = DOCS_PAGES[page]
    name = f"{html.escape(title)} (<code>docs/{path}</code>)"
    target = DOCS_DIR / path
    return f"<a href='{target.as_uri()}'>{name}</a>" if target.exists() else name


def _opening(frame: pl.DataFrame, source: str) -> list[str]:
    """The title, a short headline, and the definitions folded away."""
    langs = sorted(frame["lang"].unique().to_list())
    readings = sorted(frame["reading"].unique().to_list())
    systems = systems_of(frame)["system"].n_unique()
    return [
        "<!doctype html><html><head><meta charset='utf-8'><title>ud-agree report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>ud-agree report</h1>",
        f"<p class='headline'>{frame.height:,} items scored by {systems} "
        f"model{'s' if systems != 1 else ''} in {len(langs)} language"
        f"{'s' if len(langs) != 1 else ''} ({html.escape(', '.join(langs))}), "
        f"{html.escape(' and '.join(readings))} reading{'s' if len(readings) != 1 else ''}. "
        "Accuracy is the share of items a model gets right, with its 95% interval "
        "(<code>93.8% [87.5, 100]</code>); the frequency baseline (grey rows) is what frequency "
        "alone gets right. Hover a column's header for its name in the results files.</p>",
        "<details><summary>Definitions: accuracy, balanced accuracy, intervals</summary>",
        f"<p>Results from <code>{html.escape(source)}</code>, generated "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.</p>",
        "<p><b>Accuracy</b>: in the class-average reading, items whose correct forms are more "
        "probable on average than the incorrect ones; in the pair reading, minimal pairs whose "
        "grammatical sentence scores higher.</p>",
        "<p><b>Balanced accuracy</b> balances feature by feature: a pair varies one feature, and "
        "its group's figure is the unweighted mean of accuracy over that feature's values with "
        "at least 20 items; a class-average item tests all its agreeing features at once, so for "
        "each of them the mean over its values (20 items or more) is taken and the group scores "
        "its weakest feature. A group needs two such values of every feature; groups are "
        "weighted by their items. A system right exactly when one feature has one value (always "
        "singular) scores at most 1/k on a feature of k values: 50%, not the majority's share. "
        "Where more than half of a row's items could not be balanced, the note gives the figure "
        'with the share it covers ("100.0% on 17% of items"); where balanced accuracy is "–", no '
        "group had two values with 20 items or more. See "
        f"{docs_link('balanced')}.</p>",
        "<p><b>Intervals</b> are 95% bootstrap intervals resampling sentences; differences are "
        "in percentage points. Where frequency alone decides a cell, and the controls: "
        f"{docs_link('frequency')}, {docs_link('controls')}; the scoring rules: "
        f"{docs_link('rules')}; the results' columns: {docs_link('reports')}.</p>",
        "</details>",
    ]


def _left_out(runs: Sequence[LeftOut]) -> list[str]:
    """The runs shown in no table or figure, each with its reason (issue 34)."""
    if not runs:
        return []
    return [
        "<div class='warning'><p><b>Left out of every table and figure</b>: these runs' results "
        "do not hold what their manifests say, so no figure here counts them.</p><ul>",
        *(
            f"<li><code>{html.escape(run.run)}</code>: {html.escape(run.reason)}</li>"
            for run in runs
        ),
        "</ul></div>",
    ]


def _warnings(frame: pl.DataFrame, manifests: list[dict[str, Any]]) -> list[str]:
    """Random weights, pooled runs, no frequency baseline."""
    out: list[str] = []
    if any(m.get("random_weights") is True for m in manifests):
        out.append(
            "<p class='warning'>Some runs used a model with random weights: their accuracy says nothing about a trained model.</p>"
        )
    for runs in pooled_runs(manifests):
        out.append(
            "<p class='warning'>Runs "
            + ", ".join(f"<code>{html.escape(r)}</code>" for r in runs)
            + " share language, model, reading and method: their rows are pooled in every table and "
            "figure. "
            "Give each its own results folder to compare them.</p>"
        )
    if frame.filter(pl.col("method") == "frequency").height == 0:
        out.append(
            "<p class='warning'>No frequency baseline in these results: run "
            "<code>python -m evaluate --model frequency</code> to see whether a model beats a frequency heuristic.</p>"
        )
    return out


def _summary(frame: pl.DataFrame, overall: pl.DataFrame, by_lang: pl.DataFrame) -> list[str]:
    """Accuracy overall, where frequency points the wrong way, per language."""
    out: list[str] = []
    headline = incongruent_table(frame)
    out += [
        "<h2>Summary</h2>",
        html_table(overall),
        "<h3>Where frequency points the wrong way</h3>",
        "<p>Each model's accuracy overall and on the items where the frequency heuristic is wrong "
        "(<code>frequency = incongruent</code>): a model that only tracks frequency "
        "scores 0% there, as the frequency baseline does by definition.</p>",
        html_table(headline),
        "<h3>Per language</h3>",
        html_table(by_lang),
    ]
    return out


def frequency_sentence(share: float | None, incongruent: int | None = None) -> str:
    """§10's sentence for a cell where frequency alone decides, giving the reason it was flagged:
    the heuristic's share of the items (≥ 0.90), too few incongruent items (< 30), or both."""
    few = incongruent is not None and incongruent < MIN_INCONGRUENT
    reasons = []
    if share is not None and share >= CONGRUENT_SHARE:
        reasons.append(
            f"the frequency heuristic alone is right on {100 * share:.1f}% of these items"
        )
    if few:
        how_many = {0: "none of them is", 1: "only 1 of them is"}.get(
            incongruent or 0, f"only {incongruent} of them are"
        )
        reasons.append(
            f"{how_many} incongruent (fewer than {MIN_INCONGRUENT} "
            "incongruent items, too few to read the model where frequency points the wrong way)"
        )
    if not reasons:  # not flagged by either threshold: say what is known
        shown = "–" if share is None else f"{100 * share:.1f}%"
        reasons.append(f"the frequency heuristic alone is right on {shown} of these items")
    advice = "the pair reading" if few else "the incongruent items or the pair reading"
    return (
        f"{' and '.join(reasons)}: accuracy here cannot separate agreement from frequency; "
        f"read {advice}"
    )


def _frequency_flags(flags: pl.DataFrame | None) -> list[str]:
    """Every (language, reading, type) cell where frequency alone decides (§10), with its sentence."""
    if flags is None or not flags.height:
        return []
    out = [
        "<h3>Where frequency alone decides</h3>",
        f"<p>In these cells the frequency heuristic is right on at least "
        f"{100 * CONGRUENT_SHARE:.0f}% of the items, or wrong on fewer than {MIN_INCONGRUENT}; "
        "each says which; they are hatched in the heat maps.</p>",
        "<ul>",
    ]
    for row in flags.iter_rows(named=True):
        sentence = frequency_sentence(row["frequency_congruent"], row["incongruent_n"])
        out.append(
            f"<li><b>{html.escape(row['lang'])}, {html.escape(row['reading'])}, "
            f"{html.escape(row['type'])}</b> ({html.escape(row['systems'])}; "
            f"{row['incongruent_n']} incongruent items): {html.escape(sentence)}.</li>"
        )
    return [*out, "</ul>"]


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


def _rules(frame: pl.DataFrame) -> list[str]:
    """One table of scoring rules per reading and system (§5.1)."""
    table = rules_table(frame)
    if not table.height:
        return []
    return [
        "<h3>Scoring rules side by side</h3>",
        "<p>The pair reading decides a pair by a rule; the field uses several. From one forward: "
        "<code>sum</code> (lm-eval <code>acc</code>), <code>minicons</code> (minicons, MultiBLiMP), "
        "<code>mean</code> (per token), <code>chars</code> (lm-eval <code>acc_norm</code>), "
        "<code>bytes</code> (lm-eval <code>acc_bytes</code>), <code>word</code> (the varied word "
        "only), <code>slor</code> (frequency-corrected). <code>differs</code>: decisions that "
        "differ from the run's headline rule; <code>ties</code>: pairs whose two values are "
        "exactly equal (counted wrong here; lm-eval counts them right); <code>undecided</code>: "
        "pairs the rule cannot decide (a missing ingredient), left out of n and accuracy.</p>",
        *(
            html_table(table.filter(pl.col("system") == system))
            for system in table["system"].unique(maintain_order=True).to_list()
        ),
    ]


def _controls(frame: pl.DataFrame) -> list[str]:
    """The controls per model; nonce vs original; baseline, context, readings, models compared."""
    out: list[str] = []
    control = context_control_table(frame)
    gap = baseline_gap_table(frame)
    nonce = nonce_table(frame)
    out += [
        "<h2>Controls</h2>",
        "<p>Is the model using the structure, or meaning and frequency? Side by side per model: "
        "<code>vs_frequency</code>, its accuracy minus the frequency baseline's on shared items; "
        "<code>incongruent</code>, its accuracy where frequency points the wrong way; "
        "<code>context_adds</code>, its accuracy in context minus without (<code>--control "
        "no-context</code>); <code>original_minus_nonce</code>, its accuracy on original pairs "
        "minus their nonce variants (<code>python -m mine --nonce K</code>), whose content words "
        "were replaced so that meaning and collocation no longer help. Empty cells: that control "
        "was not run.</p>",
        html_table(controls_table(frame)),
        "<h3>Nonce vs original</h3>",
        "<p>Pair-reading accuracy on original pairs and on their nonce variants, over the pairs "
        "that have both; the difference with a 95% interval resampling sentences.</p>",
        html_table(nonce)
        if nonce.height
        else "<p>No nonce variants in these results: mine with <code>--nonce 3</code> and score "
        "the pair reading.</p>",
    ]
    out += [
        "<h3>Against the frequency baseline</h3>",
        "<p>Each model in context against the frequency baseline, on the items both scored "
        "(<code>n_shared</code>): a positive difference means the model beats the heuristic.</p>",
    ]
    out.append(
        html_table(gap)
        if gap.height
        else "<p>No context-model results share a language with the frequency baseline.</p>"
    )
    out += [
        "<h3>Context control (model with vs without sentence context)</h3>",
        "<p>The same model with every other word masked (<code>--control no-context</code>), on the "
        "items both runs scored: the difference is what the sentence context contributes.</p>",
    ]
    out.append(
        html_table(control)
        if control.height
        else "<p>No <code>no-context</code> results: run the evaluator with <code>--control no-context</code>.</p>"
    )
    readings = readings_table(frame)
    out += [
        "<h3>Readings side by side</h3>",
        "<p>Each model's pair reading (its log-probability or PLL of the grammatical vs the "
        "ungrammatical sentence) against its class-average reading, on the relations both "
        "scored.</p>",
        html_table(readings)
        if readings.height
        else "<p>No model was run in both readings (<code>--reading pair</code> and the default).</p>",
    ]
    differences = model_differences_table(frame)
    if differences.height:
        out += [
            "<h3>Models compared</h3>",
            "<p>Every two models of one reading and language, on the items both scored: "
            "the difference is <code>a</code> minus <code>b</code>.</p>",
            html_table(differences),
        ]
    return out


def _heat_maps(heat_maps: Sequence[str]) -> list[str]:
    """Languages × types per system, one figure per reading."""
    out: list[str] = []
    if heat_maps:
        out += [
            "<h3>Languages × types, per system</h3>",
            "<p>One heat map per reading: a panel per system, a row per language, a column per "
            "agreement type; balanced accuracy in the cell (accuracy where it cannot be balanced), "
            "n beneath. The same per system and language: "
            "<a href='systems_by_language.csv'>systems_by_language.csv</a>.</p>",
        ]
        out += [
            f"<figure><div class='scroll'><img src='{name}.png' alt='{name}'></div>"
            f"<figcaption>{name}: * balanced over less than half of the cell's items; hatched: "
            f"frequency alone decides — data: <a href='{name}.csv'>{name}.csv</a>"
            "</figcaption></figure>"
            for name in heat_maps
        ]
    return out


def _figures(tables: dict[str, pl.DataFrame]) -> list[str]:
    """The breakdown figures with their data."""
    out: list[str] = []
    out += ["<h2>Figures</h2>"]
    for spec in SPECS:
        if spec.name in tables:
            out.append(
                f"<figure><div class='scroll'><img src='{spec.name}.png' "
                f"alt='{html.escape(spec.title)}'></div>"
                f"<figcaption>{html.escape(spec.title)} — data: <a href='{spec.name}.csv'>{spec.name}.csv</a>"
                "</figcaption></figure>"
            )
    return out


def _validity_note(table: pl.DataFrame) -> list[str]:
    if "validity" not in table.columns:
        return []
    return [
        "<p><code>validity</code>: the share of the cell's pairs that people judged valid, with "
        "its Wilson 95% interval and the number judged (<code>python -m mine.validate score</code>,"
        " docs/validity.md); – where none was judged.</p>"
    ]


def render(
    frame: pl.DataFrame,
    manifests: list[dict[str, Any]],
    tables: dict[str, pl.DataFrame],
    summaries: dict[str, pl.DataFrame],
    source: str,
    heat_maps: Sequence[str] = (),
    flags: pl.DataFrame | None = None,
    left_out: Sequence[LeftOut] = (),
    suites: Sequence[dict[str, Any]] = (),
) -> str:
    """The whole report page as an HTML string (figures referenced as `<name>.png`)."""
    if frame.is_empty():
        return "\n".join(
            [*_suites_opening(suites, source), *_left_out(left_out), *_suites(suites), END]
        )
    out = [
        *_opening(frame, source),
        *_left_out(left_out),
        *_warnings(frame, manifests),
        *_summary(frame, summaries["overall"], summaries["lang"]),
        *_small_coverage(summaries),
        *_frequency_flags(flags),
        *_rules(frame),
        *_controls(frame),
        "<h3>Per language and agreement type</h3>",
        *_validity_note(summaries["lang_type"]),
        html_table(summaries["lang_type"]),
        *_heat_maps(heat_maps),
        *_figures(tables),
        *_suites(suites),
        "<h2>Runs: options, model, coverage and skips</h2>",
        manifests_section(manifests),
        END,
    ]
    return "\n".join(out)


END = "</body></html>"


def _suites(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The suite runs' table (none: nothing)."""
    if not rows:
        return []
    return ["<h2>Peers' suites</h2>", suite_note(rows), html_rows(list(rows[0]), rows)]


def _suites_opening(rows: Sequence[dict[str, Any]], source: str) -> list[str]:
    """The page's top where the results hold suite runs only."""
    return [
        "<!doctype html><html><head><meta charset='utf-8'><title>ud-agree report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>ud-agree report</h1>",
        f"<p class='headline'>{len(rows)} suite run{'s' if len(rows) != 1 else ''} from "
        f"<code>{html.escape(source)}</code>, no run over a mined corpus (python -m evaluate). "
        f"Generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.</p>",
    ]


def build_report(
    results: str | Path,
    out_dir: str | Path = "report",
    warn: Callable[[str], None] | None = None,
    validity: str | Path | Sequence[str | Path] | None = None,
) -> Path:
    """Write index.html, figures (PNG + CSV) and summary.csv for `results` into `out_dir`; runs
    whose chunks do not hold what their manifests say are left out, named on the page and to
    `warn`. With `validity` (scored validity.parquet files) each language × type row shows it."""
    judged = None if validity is None else read_validity(validity)
    checked = check_runs(results)
    if not checked.files:
        if checked.left_out:
            raise UserError(f"nothing valid to report under {results}: {checked.note()}")
        raise FileNotFoundError(f"no results*.parquet under {results}")
    for run in checked.left_out:
        if warn is not None:
            warn(f"run {run.run} left out of the report: {run.reason}")
    root = Path(results) if Path(results).is_dir() else Path(results).parent
    suites = suite_rows(checked.files, root)
    # Suite rows have their own table: the corpus's figures group by language and type.
    frame = (
        prepare(read_results(checked.files)).filter(pl.col("reading").ne_missing("suite")).collect()
    )
    if frame.height == 0 and not suites:
        raise FileNotFoundError(f"no result rows under {results}: nothing to report")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if frame.height == 0:
        if judged is not None and warn is not None:
            warn("validity not shown: it is of mined pairs, and the results hold suite runs only")
        page = render(frame, [], {}, {}, str(results), left_out=checked.left_out, suites=suites)
        return write_text(page, out / "index.html")
    tables = all_figures(frame, out)
    heat_maps, flags = write_heat_maps(frame, out)
    summaries = summary_tables(frame, tables)
    if judged is not None:
        summaries["lang_type"] = with_validity(summaries["lang_type"], judged, warn)
    write_csv(summaries["lang_type"], out / "summary.csv")
    manifests = load_manifests(results, {f.parent for f in checked.files})
    page = render(
        frame,
        manifests,
        tables,
        summaries,
        str(results),
        heat_maps,
        flags,
        checked.left_out,
        suites,
    )
    return write_text(page, out / "index.html")


def main(argv: Sequence[str] | None = None, prog: str = "python -m evaluate.report") -> int:
    """Command line: exit 0 with the report's path printed, 2 with a one-line error."""
    parser = OneLineParser(prog=prog, description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "results", help=f"results folder written by {tool_command(prog, 'evaluate')} (any level)"
    )
    parser.add_argument("--out", default="report", help="output folder (default: report/)")
    parser.add_argument(
        "--validity",
        action="append",
        help=f"a validity.parquet from {tool_command(prog, 'validate')} score: the judged "
        "validity of the pairs beside each language × type row (repeatable: one file per cell)",
    )
    args = parser.parse_args(argv)

    def body() -> int:
        try:
            index = build_report(
                args.results,
                args.out,
                lambda line: print(f"warning: {line}", file=sys.stderr),
                args.validity,
            )
        except FileNotFoundError as error:
            raise UserError(str(error)) from None
        except OSError as error:  # the machine's fault (a full or read-only disk): exit 1
            raise MachineError.of(error, error.filename or args.out) from None
        except (pl.exceptions.PolarsError, ValueError) as error:
            reason = str(error).splitlines()[0]
            raise UserError(f"cannot build a report from {args.results}: {reason}") from None
        print(index)
        return 0

    return run_main(body)


if __name__ == "__main__":
    sys.exit(main())
