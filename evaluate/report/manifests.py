"""The report's runs section: per run its model, reading, items, the options that differ from the
evaluator's defaults, coverage and skips; and the runs the results cannot tell apart."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

from .markup import html_rows


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


def changed_options(options: dict[str, Any], defaults: Mapping[str, Any]) -> str:
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


def manifests_section(
    manifests: list[dict[str, Any]], defaults: Mapping[str, Any] | None = None
) -> str:
    """Runs table (model, reading, rule, items, options that differ from `defaults`, the
    evaluator's, or every option that measures something where they are not given, coverage,
    skips) and each full manifest folded away."""
    if not manifests:
        return "<p>No manifest.json found beside the result files.</p>"
    options_column = "options" if defaults is None else "options not at their default"
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
                options_column: changed_options(
                    options if isinstance(options, dict) else {}, defaults or {}
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
