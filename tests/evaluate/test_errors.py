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


def test_a_run_that_scores_nothing_leaves_no_folder_and_names_the_option(corpus, tmp_path, capsys):
    out = tmp_path / "r4"
    args = ["--lang", "fr", "--corpus", str(corpus), "--model", "frequency", "--out", str(out)]
    assert evaluate_main([*args, "--min-candidates", "1000", "--no-progress"]) == 2
    message = one_line_error(capsys)
    assert "too-few-candidates" in message and "--min-candidates 1000" in message
    assert "lower --min-candidates" in message
    assert not out.exists()


def test_a_misspelt_model_is_refused_at_once_with_the_name_meant(corpus, tmp_path, capsys):
    args = ["--lang", "fr", "--corpus", str(corpus), "--out", str(tmp_path / "out")]
    assert evaluate_main([*args, "--model", "frequncy"]) == 2
    assert "--model frequncy: no such model; did you mean frequency?" in one_line_error(capsys)
    assert evaluate_main([*args, "--model", "tiny-randmo"]) == 2
    assert "did you mean tiny-random?" in one_line_error(capsys)
    models = tmp_path / "models"
    (models / "tiny-fr-ud-gpt2").mkdir(parents=True)
    assert evaluate_main([*args, "--model", str(models / "tiny-fr-ud-gtp2")]) == 2
    assert f"did you mean {models / 'tiny-fr-ud-gpt2'}?" in one_line_error(capsys)
    assert evaluate_main([*args, "--model", str(models / "other")]) == 2
    assert "no such folder" in one_line_error(capsys)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["French", "fra", "FR"])
def test_lang_takes_the_names_the_miner_takes(corpus, tmp_path, name):
    args = ["--lang", name, "--corpus", str(corpus), "--model", "frequency"]
    assert (
        evaluate_main([*args, "--out", str(tmp_path), "--min-candidates", "2", "--no-progress"])
        == 0
    )
    assert (tmp_path / "fr" / "frequency-baseline" / "manifest.json").is_file()


def test_a_misspelt_lang_names_the_corpus_languages(corpus, tmp_path, capsys):
    args = ["--lang", "Frnch", "--corpus", str(corpus), "--model", "frequency"]
    assert evaluate_main([*args, "--out", str(tmp_path / "out")]) == 2
    message = one_line_error(capsys)
    assert "--lang Frnch" in message and "did you mean fr?" in message


def test_a_missing_corpus_suggests_a_mine_command_that_works(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(SAMPLE.parent.parent)  # the repository root, where data/sample lies
    missing = tmp_path / "corpus"
    args = ["--lang", "fr", "--corpus", str(missing), "--model", "frequency"]
    assert evaluate_main([*args, "--out", str(tmp_path / "out")]) == 2
    command = one_line_error(capsys).split("`")[1].split()
    assert command[:3] == ["python", "-m", "mine"] and "--ud-dir" in command
    assert mine_main([*command[3:], "--quiet", "--jobs", "1"]) == 0
    assert (missing / "fr" / "relations.parquet").is_file()
