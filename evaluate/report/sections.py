"""The sections of the report's page, each a list of HTML lines from the tables already computed
(`analysis.py`), and the page they make (`render`)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import polars as pl

from ..output.store import LeftOut
from ..summary.tables import COVERS_LITTLE, balanced_note, balanced_share, coverage_sentence
from .analysis import Analysis, runs_and_models
from .figures import SPECS
from .heatmaps import CONGRUENT_SHARE, MIN_INCONGRUENT
from .judged import Judged
from .manifests import manifests_section, pooled_runs
from .markup import CSS, HEAD, docs_link, html_rows, html_table
from .suites import suite_note


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


def _opening(frame: pl.DataFrame, source: str, docs: str | None) -> list[str]:
    """The title, a short headline, and the definitions folded away."""
    langs = sorted(frame["lang"].unique().to_list())
    readings = sorted(frame["reading"].unique().to_list())
    runs, models = runs_and_models(frame)
    return [
        HEAD,
        f"<style>{CSS}</style></head><body>",
        "<h1>ud-agree report</h1>",
        f"<p class='headline'>{frame.height:,} items scored in {runs} run{'s' if runs != 1 else ''} "
        f"of {models} model{'s' if models != 1 else ''} (an item counts once per run that scored "
        f"it) in {len(langs)} language"
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
        f"{docs_link('balanced', docs)}.</p>",
        "<p><b>Intervals</b> are 95% bootstrap intervals resampling sentences; differences are "
        "in percentage points. An interval marked <i>(degenerate)</i> has no width: every "
        "resample gave the same value (the items come from one sentence, or are all right or "
        "all wrong), so it shows no spread, not certainty. Where frequency alone decides a cell, and the controls: "
        f"{docs_link('frequency', docs)}, {docs_link('controls', docs)}; the scoring rules: "
        f"{docs_link('rules', docs)}; the results' columns: {docs_link('reports', docs)}.</p>",
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


def _summary(analysis: Analysis) -> list[str]:
    """Accuracy overall, where frequency points the wrong way, per language."""
    out: list[str] = []
    headline = analysis.incongruent
    by_lang = analysis.summaries["lang"]
    out += [
        "<h2>Summary</h2>",
        html_table(analysis.summaries["overall"]),
        "<h3>Where frequency points the wrong way</h3>",
        "<p>Each model's accuracy overall and on the items where the frequency heuristic is wrong "
        "(<code>frequency = incongruent</code>): a model that only tracks frequency "
        "scores 0% there, as the frequency baseline does by definition. In the class-average "
        "reading the heuristic is judged over the candidates each model chooses among (its "
        "whole-word forms), so two models may label one item apart; the baseline given a "
        "model's vocabulary (<code>--vocab-of</code>) labels it as that model's run does.</p>",
        html_table(headline),
        "<h3>Per language</h3>",
        html_table(by_lang),
    ]
    return out


def frequency_sentence(
    share: float | None, incongruent: int | None = None, reading: str = "class-average"
) -> str:
    """§10's sentence for a cell where frequency alone decides, giving the reason it was flagged:
    the heuristic's share of the items (≥ 0.90), too few incongruent items (< 30), or both; and
    what to read instead (in the pair reading, not the pair reading)."""
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
    if reading == "pair":
        advice = "it needs more items" if few else "read the incongruent items"
    else:
        advice = (
            "read the pair reading" if few else "read the incongruent items or the pair reading"
        )
    return (
        f"{' and '.join(reasons)}: accuracy here cannot separate agreement from frequency; {advice}"
    )


def _frequency_flags(flags: pl.DataFrame | None) -> list[str]:
    """Every (language, reading, type) cell where frequency alone decides (§10): a bullet per set
    of systems with the same figures, each with its items, incongruent items and sentence."""
    if flags is None or not flags.height:
        return []
    out = [
        "<h3>Where frequency alone decides</h3>",
        f"<p>In these cells the frequency heuristic is right on at least "
        f"{100 * CONGRUENT_SHARE:.0f}% of the items, or wrong on fewer than {MIN_INCONGRUENT}; "
        "each says which, for the systems it names (runs score different items, so each "
        "system's cell has its own figures); they are hatched in the heat maps.</p>",
        "<ul>",
    ]
    for row in flags.iter_rows(named=True):
        sentence = frequency_sentence(
            row["frequency_congruent"], row["incongruent_n"], row["reading"]
        )
        items = f"{row['n']:,} item{'s' if row['n'] != 1 else ''}"
        out.append(
            f"<li><b>{html.escape(row['lang'])}, {html.escape(row['reading'])}, "
            f"{html.escape(row['type'])}</b>: {html.escape(row['systems'])} ({items}, "
            f"{row['incongruent_n']:,} incongruent): {html.escape(sentence)}.</li>"
        )
    return [*out, "</ul>"]


def _rules(table: pl.DataFrame) -> list[str]:
    """One table of scoring rules per reading and system (§5.1)."""
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


def _controls(analysis: Analysis) -> list[str]:
    """The controls per model; nonce vs original; baseline, context, readings, models compared."""
    out: list[str] = []
    control = analysis.context_control
    gap = analysis.baseline_gap
    nonce = analysis.nonce
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
        html_table(analysis.controls),
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
    readings = analysis.readings
    out += [
        "<h3>Readings side by side</h3>",
        "<p>Each model's pair reading (its log-probability or PLL of the grammatical vs the "
        "ungrammatical sentence) against its class-average reading, on the relations both "
        "scored.</p>",
        html_table(readings)
        if readings.height
        else "<p>No model was run in both readings (<code>--reading pair</code> and the default).</p>",
    ]
    differences = analysis.model_differences
    if differences.height:
        out += [
            "<h3>Models compared</h3>",
            "<p>Every two models of one reading and language, on the items both scored: "
            "the difference is <code>a</code> minus <code>b</code>.</p>",
            html_table(differences),
        ]
    return out


def _heat_maps(heat_maps: Sequence[tuple[str, str]]) -> list[str]:
    """Languages × types per system, one figure per reading, each with its title."""
    out: list[str] = []
    if heat_maps:
        out += [
            "<h3>Languages × types, per system</h3>",
            "<p>One heat map per reading: a panel per system, a row per language, a column per "
            "agreement type; n beneath each cell. Each map's title says what its cells show: "
            "balanced accuracy, or accuracy where a cell cannot be balanced (marked ° where a map "
            "shows both); the colour bar beside it gives the scale. The same per system and "
            "language: <a href='systems_by_language.csv'>systems_by_language.csv</a>.</p>",
        ]
        out += [
            f"<figure><div class='scroll'><img src='{name}.png' alt='{html.escape(title)}'></div>"
            f"<figcaption>{html.escape(title)}: * balanced over less than half of the cell's "
            "items; hatched: frequency alone decides — data: "
            f"<a href='{name}.csv'>{name}.csv</a></figcaption></figure>"
            for name, title in heat_maps
        ]
    return out


def _figures(tables: dict[str, pl.DataFrame]) -> list[str]:
    """The breakdown figures with their data."""
    out: list[str] = []
    out += [
        "<h2>Figures</h2>",
        "<p>Where runs scored different items in a group, each bar (each point, at the foot of "
        "its bin) gives its own n; where they scored the same, the axis gives it once.</p>",
    ]
    for spec in SPECS:
        if spec.name in tables:
            out.append(
                f"<figure><div class='scroll'><img src='{spec.name}.png' "
                f"alt='{html.escape(spec.title)}'></div>"
                f"<figcaption>{html.escape(spec.title)} — data: <a href='{spec.name}.csv'>{spec.name}.csv</a>"
                "</figcaption></figure>"
            )
    return out


def _validity_note(judged: Judged | None) -> list[str]:
    """What the validity columns hold, on which rows and corpus, and what did not match."""
    if judged is None:
        return []
    corpora = ", ".join(f"<code>{html.escape(c)}</code>" for c in judged.corpora) or "none"
    out = [
        "<p><code>validity</code>: the share of the cell's pairs that people judged valid, with "
        "its Wilson 95% interval and the number judged (<code>python -m mine.validate score</code>,"
        " docs/validity.md); – where none was judged. People judged minimal pairs, so it is shown "
        "on the pair reading's rows only. The validity table does not record the corpus its pairs "
        f"were drawn from; the pair runs here scored {corpora}: read it only if that is the "
        "corpus that was sampled.</p>"
    ]
    if judged.mismatches:
        out += [
            "<div class='warning'><p><b>Validity that does not match these runs</b>:</p><ul>",
            *(f"<li>{html.escape(line)}</li>" for line in judged.mismatches),
            "</ul></div>",
        ]
    return out


@dataclass(frozen=True)
class Page:
    """What the page shows, all computed before it is written."""

    source: str  # the results folder as given
    frame: pl.DataFrame  # the corpus runs' rows (empty where there are suite runs only)
    analysis: Analysis | None = None  # None where `frame` is empty
    manifests: list[dict[str, Any]] = field(default_factory=list)
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)  # the figures drawn
    heat_maps: Sequence[tuple[str, str]] = ()  # (name, title)
    flags: pl.DataFrame | None = None
    left_out: Sequence[LeftOut] = ()
    suites: Sequence[dict[str, Any]] = ()
    defaults: Mapping[str, Any] | None = None  # the evaluator's option defaults
    judged: Judged | None = None  # validity beside the language × type rows, with its checks
    docs: str | None = None  # the docs folder relative to the page (None: pages named, not linked)


def render(page: Page) -> str:
    """The whole report page as an HTML string (figures referenced as `<name>.png`)."""
    suites, analysis = page.suites, page.analysis
    if analysis is None or page.frame.is_empty():
        return "\n".join(
            [
                *_suites_opening(suites, page.source),
                *_left_out(page.left_out),
                *_suites(suites),
                END,
            ]
        )
    summaries = analysis.summaries
    out = [
        *_opening(page.frame, page.source, page.docs),
        *_left_out(page.left_out),
        *_warnings(page.frame, page.manifests),
        *_summary(analysis),
        *_small_coverage(summaries),
        *_frequency_flags(page.flags),
        *_rules(analysis.rules),
        *_controls(analysis),
        "<h3>Per language and agreement type</h3>",
        *_validity_note(page.judged),
        html_table(summaries["lang_type"]),
        *_heat_maps(page.heat_maps),
        *_figures(page.tables),
        *_suites(suites),
        "<h2>Runs: options, model, coverage and skips</h2>",
        manifests_section(page.manifests, page.defaults),
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
        HEAD,
        f"<style>{CSS}</style></head><body>",
        "<h1>ud-agree report</h1>",
        f"<p class='headline'>{len(rows)} suite run{'s' if len(rows) != 1 else ''} from "
        f"<code>{html.escape(source)}</code>, no run over a mined corpus (python -m evaluate). "
        f"Generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.</p>",
    ]
