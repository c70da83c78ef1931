"""The report checks each run's chunks against its manifest (issue 34): a run with a chunk missing
or unreadable, or a manifest unreadable, absent or unfinished, is named and counted nowhere."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.output.store import check_runs
from ud_agree.evaluate.report.html import main

from tests.evaluate.report.test_synthetic import make_frame, write_run

RUN = "fr/broken"


def tamper_chunk(run: Path) -> None:
    (run / "results-00001.parquet").write_bytes(b"PAR1 not a parquet file")


def set_manifest(**changes: object) -> Callable[[Path], None]:
    def change(run: Path) -> None:
        manifest = json.loads((run / "manifest.json").read_text())
        (run / "manifest.json").write_text(json.dumps(manifest | changes))

    return change


FAULTS: dict[str, tuple[Callable[[Path], None], str]] = {
    "chunk deleted": (
        lambda run: (run / "results-00001.parquet").unlink(),
        r"its chunks hold \d+ rows, its manifest counts \d+ \(a chunk missing\)",
    ),
    "every chunk deleted": (
        lambda run: [p.unlink() for p in run.glob("results-*.parquet")],
        r"its chunks hold 0 rows, its manifest counts \d+",
    ),
    "chunk unreadable": (tamper_chunk, r"results chunk \S*results-00001.parquet is unreadable"),
    "manifest garbage": (
        lambda run: (run / "manifest.json").write_text("{not json"),
        r"its manifest.json is unreadable \(JSONDecodeError\)",
    ),
    "manifest absent": (
        lambda run: (run / "manifest.json").unlink(),
        r"no manifest.json beside its results",
    ),
    "manifest unfinished": (set_manifest(complete=False), r"it never finished"),
    "manifest of a newer schema": (
        set_manifest(schema_version=99),
        r"its manifest.json is of schema 99, written by a newer ud-agree",
    ),
    "manifest without a count": (set_manifest(counts={}), r"its manifest counts no rows"),
}


@pytest.fixture
def results(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    write_run(root, make_frame("fr", "sound", "context", 0.9, seed=1), "sound", chunks=2)
    write_run(root, make_frame("fr", "broken", "context", 0.1, seed=2), "broken", chunks=3)
    return root


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_faulty_run_is_named_and_shown_in_no_table(
    results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    damage, reason = FAULTS[fault]
    damage(results / RUN)
    checked = check_runs(results)
    assert [r.run for r in checked.left_out] == [RUN]
    assert re.search(reason, checked.left_out[0].reason)
    assert {f.parent.name for f in checked.files} == {"sound"}

    assert main([str(results), "--out", str(tmp_path / "report")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"warning: run {RUN} left out of the report: ")
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "Left out of every table and figure" in page
    assert re.search(f"<li><code>{RUN}</code>: {reason}", page)
    # The broken model appears in no table or figure: only the sound one is counted.
    summary = pl.read_csv(tmp_path / "report" / "summary.csv")
    assert set(summary["system"]) == {"sound"}
    assert ">broken<" not in page


def test_sound_runs_are_not_named(results: Path, tmp_path: Path) -> None:
    assert check_runs(results).left_out == []
    assert main([str(results), "--out", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "Left out of every table" not in page


def test_a_report_on_nothing_valid_exits_2_in_one_line(
    results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (results / RUN / "results-00000.parquet").unlink()
    (results / "fr" / "sound" / "manifest.json").write_text("")
    assert main([str(results), "--out", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert err[0].startswith(f"error: nothing valid to report under {results}: ")
    assert "fr/broken: its chunks hold" in err[0] and "fr/sound: its manifest.json" in err[0]
    assert not (tmp_path / "report" / "index.html").exists()


def test_a_set_of_shards_with_one_chunk_missing_is_left_out_whole(tmp_path: Path) -> None:
    root = tmp_path / "results"
    frame = make_frame("fr", "m", "context", 0.9, seed=3)
    for k, part in enumerate(frame.iter_slices(frame.height // 2 + 1)):
        shard = write_run(root, part, f"m/shard-{k:02d}-of-02")
        manifest = json.loads((shard / "manifest.json").read_text())
        manifest |= {"complete": True, "corpus_manifest_sha256": "abc"}
        manifest["shard"] = {"index": k, "count": 2, "whole_run_counts": []}
        (shard / "manifest.json").write_text(json.dumps(manifest))
    write_run(root, make_frame("fr", "other", "context", 0.5, seed=4), "other")
    assert check_runs(root).left_out == []
    (root / "fr" / "m" / "shard-01-of-02" / "results-00000.parquet").unlink()
    checked = check_runs(root)
    assert [r.run for r in checked.left_out] == ["fr/m"]
    assert checked.left_out[0].reason.startswith("shard-01-of-02: its chunks hold")
    assert {f.parent.name for f in checked.files} == {"other"}


def test_every_manifest_names_its_schema_and_an_old_one_is_upgraded_in_one_step(tmp_path):
    from ud_agree.evaluate.output.results import suite_rule
    from ud_agree.evaluate.output.store import (
        SCHEMA_VERSION,
        manifest_file,
        upgrade_manifest,
        version_of,
    )

    # A suite run made before --rule existed (no schema_version, no settings.rule): `sum` decided.
    old = {"tool": "ud-agree evaluate.suite", "settings": {"model": "m"}, "complete": True}
    assert version_of(old) == 1
    now = upgrade_manifest(old)
    assert now["settings"] == {"rule": "sum", "model": "m"}
    assert version_of(now) == SCHEMA_VERSION and upgrade_manifest(now) is now
    assert "rule" not in old["settings"]  # the file's own dict is left as read
    # A run of today names its rule, which the upgrade never overwrites.
    chars = {**old, "schema_version": SCHEMA_VERSION, "settings": {"rule": "chars"}}
    assert upgrade_manifest(chars)["settings"]["rule"] == "chars"
    (tmp_path / "manifest.json").write_text(json.dumps(old))
    assert manifest_file(tmp_path)["schema_version"] == SCHEMA_VERSION
    assert suite_rule(tmp_path) == "sum"


def test_the_one_loop_writes_the_schema_version_and_timings_of_a_suite_run_too(tmp_path):
    from ud_agree.evaluate.options import suite_run
    from ud_agree.evaluate.output.store import SCHEMA_VERSION
    from ud_agree.evaluate.run import run_suites

    from tests.suite_stubs import HashScorer, factory

    suite = tmp_path / "s.txt"
    suite.write_text("True\tthe cat sleeps\nFalse\tthe cat sleep\n")
    (outcome,) = run_suites(suite_run([suite], "stub", out=tmp_path / "out", progress=False),
                            factory(HashScorer()))  # fmt: skip
    written = json.loads((outcome.folder / "manifest.json").read_text())
    assert written["schema_version"] == SCHEMA_VERSION
    # The corpus runs' loop is the suites' loop: the same stage timings, the same counts' place.
    assert set(written["timings"]) == {"start-up", "scoring"}
    assert written["complete"] is True and written["counts"]["in_results"] == 1


def test_load_results_refuses_a_run_whose_manifest_was_deleted_but_reads_a_table_saved_by_hand(
    results: Path, tmp_path: Path
) -> None:
    from ud_agree.evaluate import load_results

    from ud_agree.errors import UserError

    (results / RUN / "manifest.json").unlink()
    with pytest.raises(UserError, match=r"no manifest\.json beside its results"):
        load_results(results)
    hand = tmp_path / "hand"
    hand.mkdir()
    for chunk in sorted((results / "fr" / "sound").glob("results-*.parquet")):
        pl.read_parquet(chunk).write_parquet(hand / f"results_{chunk.stem[-1]}.parquet")
    assert (
        load_results(hand).collect().height
        == load_results(results / "fr" / "sound").collect().height
    )


def test_a_suite_run_whose_manifest_names_an_unknown_rule_is_left_out(tmp_path: Path) -> None:
    from ud_agree.evaluate.run import run_suites

    from tests.evaluate.suites.test_run import options
    from tests.suite_stubs import SUITES, HashScorer, factory, write

    name, text, _, extra = SUITES["clams"]
    (outcome,) = run_suites(options(tmp_path, [write(tmp_path, name, text)], **extra),
                            factory(HashScorer()))  # fmt: skip
    assert check_runs(tmp_path / "out").left_out == []
    manifest = json.loads((outcome.folder / "manifest.json").read_text())
    manifest["settings"]["rule"] = "loudest"
    (outcome.folder / "manifest.json").write_text(json.dumps(manifest))
    (left,) = check_runs(tmp_path / "out").left_out
    assert "names no rule ud-agree knows ('loudest')" in left.reason
