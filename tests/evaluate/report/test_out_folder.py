"""The report's --out: a new or empty folder, or an earlier report replaced whole; a folder of
other files only with --force; never a folder that holds results, nor a part-written report."""

from __future__ import annotations

from pathlib import Path

import pytest
from ud_agree.evaluate.report.html import main

from tests.evaluate.report.test_synthetic import make_frame, write_run


@pytest.fixture
def results(tmp_path: Path) -> Path:
    write_run(tmp_path / "res", make_frame("fr", "m", "context", 0.8), "m")
    return tmp_path / "res"


def test_a_folder_of_ones_own_files_is_refused_then_replaced_with_force(
    results: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "judged"
    out.mkdir()
    (out / "fr.csv").write_text("item;verdict\n1;valid\n")
    assert main([str(results), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --out {out} holds files that are not an earlier report: give a new or " \
        "empty folder, or --force to replace it whole\n"  # fmt: skip
    assert (out / "fr.csv").read_text() == "item;verdict\n1;valid\n"
    assert main([str(results), "--out", str(out), "--force"]) == 0
    assert (out / "index.html").is_file() and not (out / "fr.csv").exists()


@pytest.mark.parametrize("where", ["results", "run", "above"])
def test_a_folder_holding_results_is_refused_even_with_force(
    results: Path, tmp_path: Path, where: str, capsys
) -> None:
    run = next(results.rglob("manifest.json")).parent
    out = {"results": results, "run": run, "above": tmp_path}[where]
    before = sorted(p for p in tmp_path.rglob("*"))
    assert main([str(results), "--out", str(out), "--force"]) == 2
    assert "holds results (the report's input)" in capsys.readouterr().err
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_a_rerun_replaces_an_earlier_report_whole(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main([str(results), "--out", str(out)]) == 0
    first = sorted(p.relative_to(out) for p in out.rglob("*"))
    (out / "stale-figure.png").write_bytes(b"an older report's figure")
    record = (out / ".ud-agree-report.json").read_text()
    (out / ".ud-agree-report.json").write_text(
        record.replace('"files": [', '"files": [\n  "stale-figure.png",')
    )
    assert main([str(results), "--out", str(out)]) == 0
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == first
    assert not list(tmp_path.glob(".report.*.tmp"))


def test_a_report_that_fails_leaves_the_earlier_one(results: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "report"
    assert main([str(results), "--out", str(out)]) == 0
    page = (out / "index.html").read_text()
    bad = tmp_path / "validity.parquet"
    bad.write_bytes(b"not parquet")
    assert main([str(results), "--out", str(out), "--validity", str(bad)]) == 2
    capsys.readouterr()
    assert (out / "index.html").read_text() == page and not list(tmp_path.glob(".report.*"))
