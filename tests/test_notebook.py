"""notebooks/analysis.ipynb runs top to bottom (nbclient) on a corpus and results built here."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import polars as pl
import pyarrow as pa
import pytest
from nbclient import NotebookClient

from mine.schema import RELATIONS, SENTENCES
from tests.test_report_synthetic import build_results

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "analysis.ipynb"


def synthetic_corpus(root: Path, results: Path, lang: str = "fr") -> Path:
    """Relations and sentences matching the synthetic results' keys."""
    frame = pl.read_parquet(next((results / lang).rglob("results-00000.parquet")))
    frame = frame.unique(["treebank", "sent_id", "target_id", "controller_id"], maintain_order=True)
    relations = [
        {
            **{
                c: row[c]
                for c in ("lang", "treebank", "sent_id", "type", "target_id", "controller_id")
            },
            "target_surface": row["target_id"] - 1,
            "controller_surface": row["controller_id"] - 1,
            "target_form": "t",
            "controller_form": row["form"],
            "target_lemma": "t",
            "controller_lemma": row["lemma"],
            "target_upos": "ADJ",
            "controller_upos": "NOUN",
            "agreeing": row["agreeing"],
            "distance": row["distance"],
            "order": row["order"],
            "intervening_nouns": row["attractors"],
            "distractors": row["distractors"],
            "attractors": row["attractors"],
            "in_mwt_target": False,
            "in_mwt_controller": False,
        }
        for row in frame.iter_rows(named=True)
    ]
    sentences = [
        {
            "lang": lang,
            "treebank": tb,
            "sent_id": sid,
            "text": f"phrase {sid}",
            "words": ["phrase", sid],
            "file": "x.conllu",
            "line": 1,
        }
        for tb, sid in frame.select("treebank", "sent_id").unique().iter_rows()
    ]
    out = root / lang
    out.mkdir(parents=True)
    pl.from_arrow(pa.Table.from_pylist(relations, schema=RELATIONS)).write_parquet(
        out / "relations.parquet"
    )
    pl.from_arrow(pa.Table.from_pylist(sentences, schema=SENTENCES)).write_parquet(
        out / "sentences.parquet"
    )
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("nb")
    results = build_results(base / "results")
    return synthetic_corpus(base / "corpus", results), results


def test_notebook_runs_on_fresh_corpus_and_results(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, results = built
    nb = nbformat.read(NOTEBOOK, as_version=4)
    env = {
        "UD_AGREE_CORPUS": str(corpus),
        "UD_AGREE_RESULTS": str(results),
        "UD_AGREE_LANG": "fr",
        "UD_AGREE_FIGURES": str(tmp_path / "figures"),
    }
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute(env={**os.environ, **env})  # the kernel reads its paths from these variables
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 3
    assert (tmp_path / "figures" / "by_distance.csv").exists()
    text = "".join(
        o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    assert "frequency-baseline" in text
