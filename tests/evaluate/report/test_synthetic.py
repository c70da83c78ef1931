"""Synthetic results in the evaluator's layout (shared by the report tests), and load_results tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ud_agree.evaluate import load_results
from ud_agree.evaluate.output.results import COLUMNS, with_system
from ud_agree.evaluate.output.store import load_manifests

from ud_agree.schemas.results import RESULTS

TYPES = ("determiner", "attributive", "predicative", "subject-verb")
# (model, method, folder suffix, base accuracy): a model, its no-context control, the baseline.
SYSTEMS = (
    ("tiny-bert", "context", "", 0.9),
    ("tiny-bert", "no-context", "__no-context", 0.7),
    ("frequency-baseline", "frequency", "", 0.6),
)


def make_frame(
    lang: str, model: str, method: str, accuracy: float, n_sentences: int = 40, seed: int = 0
) -> pl.DataFrame:
    """A plausible results frame: a few relations per sentence, accuracy falling with distance."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_sentences):
        for r in range(int(rng.integers(1, 5))):
            distance = int(rng.integers(1, 14))
            distractors = int(rng.integers(0, 5))
            attractors = min(distractors, int(rng.integers(0, 3)))
            p_right = max(0.05, accuracy - 0.02 * distance - 0.03 * attractors)
            right = bool(rng.random() < p_right)
            masked = "controller" if r % 3 else "target"
            rows.append(
                {
                    "lang": lang,
                    "treebank": "GSD" if s % 2 else "PUD",
                    "sent_id": f"s{s}",
                    "type": TYPES[(s + r) % len(TYPES)],
                    "target_id": r + 1,
                    "controller_id": r + 1 + distance,
                    "masked": masked,
                    "form": f"form{r}",
                    "lemma": f"lemma{(s + r) % 7}",
                    "upos": "NOUN" if masked == "controller" else "ADJ",
                    "agreeing": ["Gender", "Number"] if r % 2 else ["Number"],
                    "distance": distance,
                    "distance_tokens": distance + 1,
                    "distractors": distractors,
                    "attractors": attractors,
                    "order": "target-first",
                    "in_mwt": False,
                    "n_correct": 12,
                    "n_incorrect": 30,
                    "p_correct": 0.02 if right else 0.001,
                    "p_incorrect": 0.01,
                    "logit_correct": 1.0,
                    "logit_incorrect": 0.5,
                    "right": right,
                    "right_logit": right,
                    "model": model,
                    "match": "agreement",
                    "case": "fold",
                    "method": method,
                    "reading": "class-average",
                    "value": "Number=Sing" if (s + r) % 4 else "Number=Plur",
                }
            )
    return pl.from_arrow(pa.Table.from_pylist(rows, schema=RESULTS))


def write_run(root: Path, frame: pl.DataFrame, folder: str, chunks: int = 2) -> Path:
    """Write `frame` as the evaluator does: results chunks, manifest.json, summary.csv."""
    lang = frame["lang"][0]
    run = root / lang / folder
    run.mkdir(parents=True, exist_ok=True)
    for i, part in enumerate(np.array_split(np.arange(frame.height), chunks)):
        pq.write_table(
            frame[part.tolist()].to_arrow().cast(RESULTS), run / f"results-{i:05d}.parquet"
        )
    # The shape of the evaluator's manifest: options, counts (skips by reason), coverage.
    manifest = {
        "tool": "ud-agree evaluate",
        "model": frame["model"][0],
        "method": frame["method"][0],
        "reading": frame["reading"][0] if "reading" in frame.columns else "class-average",
        "options": {
            "lang": lang,
            "match": "agreement",
            "case": "fold",
            "min_candidates": 10,
            "mask": "controller",
        },
        "random_weights": False,
        "counts": {
            "items_in_results": frame.height,
            "same-surface-word": 2,
            "too-few-candidates": 7,
        },
        "coverage": {
            "lexicon_forms": 100,
            "lexicon_forms_scorable": 80,
            "lexicon_forms_share": 0.8,
        },
    }
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    frame.group_by("type").agg(pl.col("right").mean()).write_csv(run / "summary.csv")
    return run


def build_results(root: Path, langs: tuple[str, ...] = ("fr", "de")) -> Path:
    """A results root holding every system of `SYSTEMS` for each language."""
    for li, lang in enumerate(langs):
        for si, (model, method, suffix, accuracy) in enumerate(SYSTEMS):
            frame = make_frame(lang, model, method, accuracy, seed=10 * li + si)
            write_run(root, frame, model + suffix)
    return root


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_results(tmp_path_factory.mktemp("results"))


def test_load_results_reads_every_chunk_with_documented_columns(results_dir: Path) -> None:
    frame = load_results(results_dir).collect()
    expected = sum(
        make_frame(lang, m, meth, acc, seed=10 * li + si).height
        for li, lang in enumerate(("fr", "de"))
        for si, (m, meth, _, acc) in enumerate(SYSTEMS)
    )
    assert frame.columns == list(COLUMNS)
    assert frame.height == expected
    assert frame.schema["agreeing"] == pl.List(pl.String)
    assert frame.schema["distance"] == pl.Int32
    assert set(frame["method"].unique()) == {"context", "no-context", "frequency"}


def test_load_results_accepts_a_single_run_folder(results_dir: Path) -> None:
    frame = load_results(results_dir / "fr" / "tiny-bert").collect()
    assert frame["model"].unique().to_list() == ["tiny-bert"]
    assert frame["lang"].unique().to_list() == ["fr"]


def test_load_results_missing_or_empty(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_results(tmp_path / "nope")
    with pytest.raises(FileNotFoundError):
        load_results(tmp_path)


def test_load_manifests_only_run_folders(results_dir: Path, tmp_path: Path) -> None:
    manifests = load_manifests(results_dir)
    assert len(manifests) == 6
    assert {m["run_dir"] for m in manifests} >= {"fr/tiny-bert", "de/frequency-baseline"}


def test_with_system_labels_controls_but_not_baseline(results_dir: Path) -> None:
    systems = with_system(load_results(results_dir)).select("system").unique().collect()
    assert sorted(systems["system"]) == [
        "frequency-baseline",
        "tiny-bert",
        "tiny-bert (no-context)",
    ]
