"""docs/validity.md run as written: the stand-in judge's verdicts come back as the table says."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl

from tests.docs import DOCS, run_page


def test_validity_page_scores_what_its_stand_in_judge_wrote(tmp_path: Path) -> None:
    run_page(DOCS / "validity.md", tmp_path)
    table = pl.read_parquet(tmp_path / "validity.parquet").filter(pl.col("cell") == "type")
    for lang in ("en", "fr"):
        with (tmp_path / "sheets" / f"{lang}.csv").open(encoding="utf-8", newline="") as handle:
            judged = len(list(csv.DictReader(handle)))
        rows = table.filter(pl.col("lang") == lang)
        # The stand-in judged the first row of each sheet grammatical-bad, every other valid.
        assert rows.get_column("n").sum() == judged
        assert rows.get_column("valid").sum() == judged - 1
        assert rows.get_column("grammatical_bad").sum() == 1
    assert set(table.get_column("judges")) == {"a stand-in"}
