"""Bad input to the evaluator and the report: one line on stderr, exit 2, nothing earlier lost."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ud_agree.evaluate.cli import main as evaluate_main
from ud_agree.evaluate.report.html import main as report_main
from ud_agree.mine.cli import main as mine_main

from tests.paths import SAMPLE


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    args = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    assert mine_main([*args, "--lang", "fr", "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    return out


def frequency(corpus: Path, out: Path, *extra: str) -> int:
    args = ["--lang", "fr", "--corpus", str(corpus), "--model", "frequency", "--out", str(out)]
    return evaluate_main([*args, "--min-candidates", "2", "--no-progress", *extra])


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err and "Traceback" not in err
    return err


def test_corrupt_corpus_table_is_a_one_line_error(corpus, tmp_path, capsys):
    bad = tmp_path / "bad"
    shutil.copytree(corpus, bad)
    (bad / "fr" / "relations.parquet").write_text("garbage")
    assert frequency(bad, tmp_path / "out") == 2
    assert "relations.parquet" in one_line_error(capsys)


def test_results_folder_on_a_file_is_a_one_line_machine_error(corpus, tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    assert frequency(corpus, tmp_path / "afile") == 1  # a fault of the file system, not of input
    message = one_line_error(capsys)
    assert "not a directory" in message and str(tmp_path / "afile") in message


def test_other_masked_role_gets_its_own_folder(corpus, tmp_path):
    assert frequency(corpus, tmp_path) == 0
    assert frequency(corpus, tmp_path, "--mask", "target") == 0
    runs = sorted(p.name for p in (tmp_path / "fr").iterdir())
    assert runs == ["frequency-baseline", "frequency-baseline__mask-target"]
    assert list((tmp_path / "fr" / "frequency-baseline").glob("results-*.parquet"))


def test_damaged_resume_manifest_is_a_one_line_error(corpus, tmp_path, capsys):
    assert frequency(corpus, tmp_path) == 0
    (tmp_path / "fr" / "frequency-baseline" / "manifest.json").write_text("{bad")
    capsys.readouterr()
    assert frequency(corpus, tmp_path, "--resume") == 2
    assert "manifest.json" in one_line_error(capsys)


def test_run_that_scores_nothing_is_an_error_and_leaves_the_earlier_run_whole(
    corpus, tmp_path, capsys
):
    assert frequency(corpus, tmp_path) == 0
    folder = tmp_path / "fr" / "frequency-baseline"
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    capsys.readouterr()
    assert frequency(corpus, tmp_path, "--limit", "0") == 2
    assert "nothing to score for fr: 0 eligible items" in one_line_error(capsys)
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before


def test_report_on_a_corrupt_results_file_is_a_one_line_error(corpus, tmp_path, capsys):
    assert frequency(corpus, tmp_path / "res") == 0
    next((tmp_path / "res").rglob("results-*.parquet")).write_text("junk")
    capsys.readouterr()
    assert report_main([str(tmp_path / "res"), "--out", str(tmp_path / "report")]) == 2
    one_line_error(capsys)
