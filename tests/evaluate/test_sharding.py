"""Sharded runs: the split by sentence, shards merged into the unsharded run's rows, summary and
counts, refusal of sets that are not whole, the Slurm array script, and resume after a kill."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from ud_agree.evaluate.merge import merge_run
from ud_agree.evaluate.output.store import check_run
from ud_agree.evaluate.sharding.spec import (
    Shard,
    ShardError,
    parse_shard,
    select_shard,
    sentence_shard,
)

from tests.paths import ROOT
from tests.sharding import item_rows, mine_sample, run_folder, run_in_shards, sample_options
from ud_agree.schemas.results import RESULTS

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def sample_corpus(tmp_path_factory) -> Path:
    """The embedded sample, mined once for this module."""
    return mine_sample(tmp_path_factory.mktemp("sample"))


def summary(run: Path) -> pl.DataFrame:
    return pl.read_csv(run / "summary.csv")


def counts(run: Path) -> dict:
    return json.loads((run / "manifest.json").read_text())["counts"]


# ---------------------------------------------------------------- the spec, the hash, the split


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3/16", Shard(3, 16)), (" 03 / 16 ", Shard(3, 16)), ("0/1", Shard(0, 1))],
)
def test_shard_spec_is_k_of_n_counted_from_zero(text, expected):
    assert parse_shard(text) == expected
    assert str(parse_shard(text)) == f"{expected.index}/{expected.count}"


@pytest.mark.parametrize("text", ["16/16", "17/16", "0/0", "-1/4", "3", "a/b", "1/2/3", ""])
def test_shard_spec_outside_0_to_n_is_a_usage_error(text):
    with pytest.raises(ShardError, match="0 ≤ K < N"):
        parse_shard(text)


def test_evaluator_refuses_a_shard_out_of_range_in_one_line(capsys):
    from ud_agree.evaluate.cli import main

    assert main(["--lang", "fr", "--shard", "4/4", "--model", "frequency"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--shard '4/4'" in err


def test_sentence_hash_is_blake2b_of_treebank_and_sent_id_and_never_changes():
    # Known answers: a change of hash would move sentences between shards of a running job.
    assert [sentence_shard("GSD", f"s{i}", 4) for i in range(10)] == [3, 0, 3, 1, 3, 0, 2, 3, 3, 1]
    assert sentence_shard("PUD", "n01001011", 16) == 14
    digest = hashlib.blake2b("Sample\x1fété-1".encode(), digest_size=8).digest()
    assert sentence_shard("Sample", "été-1", 7) == int.from_bytes(digest, "big") % 7 == 1


def test_shards_partition_the_items_and_keep_each_sentence_whole():
    items = pl.DataFrame(
        {
            "treebank": ["A"] * 30 + ["B"] * 30,
            "sent_id": [f"s{i // 3}" for i in range(30)] * 2,  # three items a sentence
            "item": range(60),
        }
    )
    parts = [select_shard(items, Shard(k, 4)) for k in range(4)]
    assert sorted(pl.concat(parts)["item"]) == list(range(60))
    for part in parts:
        # Order kept, and a sentence's three items all in the same shard.
        assert part["item"].is_sorted()
        assert (part.group_by("treebank", "sent_id").len()["len"] == 3).all()
    # Sentence s1 of A and s1 of B are other sentences: the treebank is part of the key.
    assert select_shard(items, None).equals(items)


def test_shard_folders_are_zero_padded_so_they_sort_in_shard_order():
    assert Shard(3, 16).folder == "shard-03-of-16"
    assert Shard(7, 128).folder == "shard-007-of-128"
    names = [Shard(k, 12).folder for k in range(12)]
    assert sorted(names) == names


# ---------------------------------------------------------------- merged = unsharded


@pytest.mark.parametrize(
    ("model", "reading"),
    [("frequency", "class-average"), ("frequency", "pair"), ("tiny-random", "class-average")],
)
def test_results_and_summaries_do_not_depend_on_the_number_of_shards(
    sample_corpus, tmp_path, model, reading
):
    from ud_agree.evaluate.run import evaluate

    whole = evaluate(
        sample_options(sample_corpus, tmp_path / "whole", model=model, reading=reading)
    )
    expected = item_rows(whole.out_dir)
    assert expected.height > 20
    for count in (1, 3, 4):
        options = sample_options(
            sample_corpus, tmp_path / f"n{count}", model=model, reading=reading
        )
        run = run_in_shards(options, count)
        assert len(list(run.glob("shard-*"))) == count
        assert item_rows(run).equals(expected), f"{count} shards"
        assert summary(run).equals(summary(whole.out_dir)), f"{count} shards"
        # Whole-run counts taken once, the shards' own counts summed: the unsharded run's counts.
        assert counts(run) == whole.counts, f"{count} shards"
    if reading == "class-average":
        # §6 ran on every breakdown but `value` (the sample leaves most items unbalanced): its
        # figures and left-out counts, compared above, are the same however sharded.
        whole_summary = summary(whole.out_dir).filter(pl.col("breakdown") != "value")
        assert whole_summary["ba_left_out"].is_not_null().all()
        assert (whole_summary["ba_left_out"] <= whole_summary["n"]).all()


def test_a_shard_manifest_says_which_shard_and_the_merged_one_how_many(sample_corpus, tmp_path):
    run = run_in_shards(sample_options(sample_corpus, tmp_path), 3)
    shard = json.loads((run / "shard-02-of-03" / "manifest.json").read_text())
    assert shard["shard"]["index"] == 2 and shard["shard"]["count"] == 3
    assert shard["options"]["shard"] == "2/3" and shard["complete"] is True
    merged = json.loads((run / "manifest.json").read_text())
    assert merged["shards"] == 3 and "shard" not in merged and merged["options"]["shard"] is None
    from ud_agree.evaluate.output.store import load_manifests

    # The report's runs table sees one run, not three.
    assert [m["run_dir"] for m in load_manifests(tmp_path)] == ["fr/frequency-baseline__mask-both"]


# ---------------------------------------------------------------- sets that are not whole


def fake_shard(run: Path, index: int, count: int, **changes) -> Path:
    """A finished shard folder with an empty results chunk; `changes` edit its manifest."""
    folder = run / Shard(index, count).folder
    folder.mkdir(parents=True)
    pq.write_table(RESULTS.empty_table(), folder / "results-00000.parquet")
    options = {"lang": "fr", "model": "m", "min_candidates": 10, "batch_size": 32}
    options |= changes.pop("options", {})
    manifest = {
        "options": {**options, "shard": f"{index}/{count}"},
        "corpus_manifest_sha256": "abc",
        "complete": True,
        "shard": {"index": index, "count": count, "whole_run_counts": ["items_built"]},
        "counts": {"items_built": 100, "items_scored_now": 10, "items_in_results": 0},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest | changes))
    return folder


def whole_set(run: Path, count: int = 4, **changes_of) -> None:
    for k in range(count):
        fake_shard(run, k, count, **changes_of.get(f"s{k}", {}))


REFUSED = {
    "lacks shards 1, 2 of 4": lambda run: [fake_shard(run, k, 4) for k in (0, 3)],
    r"shards 1 of 4 in .* are incomplete": lambda run: whole_set(run, s1={"complete": False}),
    r"different shard counts \(3, 4\)": lambda run: (whole_set(run), fake_shard(run, 0, 3)),
    r"other options \(min_candidates\)": lambda run: whole_set(
        run, s2={"options": {"min_candidates": 5}}
    ),
    "different corpora": lambda run: whole_set(run, s3={"corpus_manifest_sha256": "def"}),
    "both an unsharded run's results and shard folders": lambda run: (
        whole_set(run),
        pq.write_table(RESULTS.empty_table(), run / "results-00000.parquet"),
    ),
}


@pytest.mark.parametrize("problem", list(REFUSED))
def test_a_set_of_shards_that_is_not_whole_and_alike_is_refused(tmp_path, problem):
    from ud_agree.evaluate.output.results import load_results

    run = tmp_path / "res" / "fr" / "m"
    REFUSED[problem](run)
    with pytest.raises(ShardError, match=problem):
        load_results(tmp_path / "res")
    with pytest.raises(ShardError, match=problem):
        check_run(run)


def test_merge_and_report_refuse_an_unfinished_set_in_one_line(tmp_path, capsys):
    from ud_agree.evaluate.merge import main as merge_main
    from ud_agree.evaluate.report.html import main as report_main

    whole_set(tmp_path / "res" / "fr" / "m", s1={"complete": False})
    assert merge_main([str(tmp_path / "res")]) == 2
    assert report_main([str(tmp_path / "res"), "--out", str(tmp_path / "report")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all("shards 1 of 4" in line for line in lines)
    assert not (tmp_path / "res" / "fr" / "m" / "manifest.json").exists()


def test_shards_that_differ_only_in_how_they_ran_merge_and_one_shard_reads_alone(tmp_path):
    from ud_agree.evaluate.output.results import load_results

    run = tmp_path / "fr" / "m"
    # A rerun with --resume, a smaller batch elsewhere: the same items, the same scores.
    whole_set(run, s1={"options": {"resume": True, "batch_size": 4, "device": "cpu"}})
    assert len(check_run(run)) == 4
    (run / "shard-02-of-04" / "manifest.json").unlink()
    with pytest.raises(ShardError, match="shards 2 of 4"):
        load_results(run)
    assert load_results(run / "shard-01-of-04").collect().height == 0


# ---------------------------------------------------------------- Slurm


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_slurm_array_script_scores_each_shard_and_merge_gives_the_unsharded_rows(
    sample_corpus, tmp_path
):
    from ud_agree.evaluate.run import evaluate

    script = ROOT / "scripts" / "slurm" / "evaluate.sbatch"
    directives = [line for line in script.read_text().splitlines() if line.startswith("#SBATCH")]
    assert directives and not any("--array" in line for line in directives)
    env = {**os.environ, "PYTHON": sys.executable}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    extra = ["--corpus", str(sample_corpus), "--out", str(tmp_path / "res"), "--mask", "both"]
    extra += ["--min-candidates", "2"]
    arrays = [
        {"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2"},  # sbatch --array=0-1
        {"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "1", "SHARDS": "2"},  # --array=1
    ]
    tasks = [
        subprocess.Popen(
            ["bash", str(script), "fr", "frequency", *extra],
            env={**env, **array},
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for array in arrays
    ]
    for task in tasks:
        output = task.communicate(timeout=120)[0]
        assert task.returncode == 0, output
    merge = ROOT / "scripts" / "slurm" / "merge.sbatch"
    done = subprocess.run(
        ["bash", str(merge), str(tmp_path / "res")], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    whole = evaluate(sample_options(sample_corpus, tmp_path / "whole", batch_size=32))
    run = tmp_path / "res" / "fr" / "frequency-baseline__mask-both"
    assert sorted(p.name for p in run.glob("shard-*")) == ["shard-00-of-02", "shard-01-of-02"]
    assert item_rows(run).equals(item_rows(whole.out_dir))
    assert summary(run).equals(summary(whole.out_dir))


# ---------------------------------------------------------------- killed and resumed


class Killed(Exception):
    """The node went away."""


@pytest.mark.parametrize(
    ("model", "reading"), [("tiny-random", "class-average"), ("frequency", "pair")]
)
def test_a_shard_killed_mid_run_resumes_without_losing_or_duplicating_rows(
    sample_corpus, tmp_path, monkeypatch, model, reading
):
    import ud_agree.evaluate.run as run_module
    from ud_agree.evaluate.output.results import load_results
    from ud_agree.evaluate.output.writer import ChunkWriter
    from ud_agree.evaluate.run import evaluate

    from ud_agree.errors import UserError
    from ud_agree.schemas.results import ITEM_KEY

    class DiesAfterTwoChunks(ChunkWriter):
        def flush(self, items):
            super().flush(items)
            if self.number >= 2:
                raise Killed("node lost after two chunks")

    whole = evaluate(
        sample_options(sample_corpus, tmp_path / "whole", model=model, reading=reading)
    )
    options = sample_options(
        sample_corpus, tmp_path / "res", model=model, reading=reading, chunk_size=2
    )
    for k in (0, 2):
        evaluate(replace(options, shard=f"{k}/3"))
    monkeypatch.setattr(run_module, "ChunkWriter", DiesAfterTwoChunks)
    with pytest.raises(Killed):
        evaluate(replace(options, shard="1/3"))
    killed = run_folder(options) / "shard-01-of-03"
    assert len(list(killed.glob("results-*.parquet"))) == 2
    with pytest.raises(ShardError, match=r"shards 1 of 3 .* incomplete"):
        check_run(run_folder(options))

    # load_results refuses the killed shard (issue 42); its chunks, read one by one, hold what landed.
    with pytest.raises(UserError, match="never finished"):
        load_results(killed)
    landed = pl.read_parquet(sorted(killed.glob("results-*.parquet"))).height
    monkeypatch.setattr(run_module, "ChunkWriter", ChunkWriter)
    again = evaluate(replace(options, shard="1/3", resume=True))
    rows = item_rows(killed)
    assert again.counts["resumed_already_done"] == landed
    assert again.counts["items_scored_now"] == rows.height - landed > 0
    assert rows.select(ITEM_KEY).is_duplicated().sum() == 0
    expected = item_rows(whole.out_dir)
    keys = expected.select("treebank", "sent_id").iter_rows()
    assert rows.equals(expected.filter(pl.Series([sentence_shard(t, s, 3) == 1 for t, s in keys])))
    merge_run(run_folder(options))
    assert item_rows(run_folder(options)).equals(expected)
