"""The Ray driver: its tasks and their resources, the one-line error without ray, and a local
Ray cluster scoring shards that merge into the unsharded run's rows."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.cluster import main, parser, plan, task_options
from ud_agree.evaluate.sharding.spec import Shard

from tests.paths import ROOT
from tests.sharding import item_rows, mine_sample, sample_options

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray not installed")


def test_plan_has_one_task_per_language_model_reading_and_shard(tmp_path):
    argv = ["--lang", "fr", "de", "fr", "--model", "frequency", "tiny-random", "--shards", "3"]
    argv += ["--reading", "class-average", "pair", "--corpus", "c", "--out", "r", "--mask", "both"]
    args, extra = parser().parse_known_args(argv)
    tasks = plan(args, extra)
    assert len(tasks) == 2 * 2 * 2 * 3
    assert {str(t.options.shard) for t in tasks} == {"0/3", "1/3", "2/3"}
    first = tasks[0].options  # Options objects travel to the workers, not argv to re-parse
    assert (first.shard, first.resume, first.progress) == (Shard(0, 3), True, False)
    assert first.mask == "both" and Path(first.corpus).is_absolute()
    assert [(t.options.lang, t.options.model, t.options.reading) for t in tasks[:: 3 * 2]] == [
        ("fr", "frequency", "class-average"),
        ("fr", "tiny-random", "class-average"),
        ("de", "frequency", "class-average"),
        ("de", "tiny-random", "class-average"),
    ]


def test_the_driver_checks_evaluator_options_before_any_task(capsys):
    argv = ["--lang", "fr", "--model", "tiny-random", "--vocab-of", "x"]
    assert main(argv) == 2
    assert "--vocab-of goes with --model frequency only" in capsys.readouterr().err


def test_the_driver_sets_shard_and_resume_itself(capsys):
    assert main(["--lang", "fr", "--model", "frequency", "--shard", "1/2"]) == 2
    assert "--shard is set by the cluster driver" in capsys.readouterr().err


def test_tasks_ask_for_a_gpu_only_when_the_cluster_has_one():
    assert task_options({"CPU": 16.0}, 3) == {"max_retries": 3, "retry_exceptions": True}
    assert task_options({"CPU": 16.0, "GPU": 0.0}, 1).get("num_gpus") is None
    assert task_options({"CPU": 16.0, "GPU": 8.0}, 3)["num_gpus"] == 1


def test_without_ray_the_driver_says_how_to_install_it_in_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    assert main(["--lang", "fr", "--model", "frequency"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'ud-agree[cluster]'" in err


@needs_ray
def test_a_local_ray_cluster_scores_shards_that_merge_into_the_unsharded_rows(tmp_path, capsys):
    import ray
    from ud_agree.evaluate.run import evaluate

    corpus = mine_sample(tmp_path)
    # Workers import this checkout, whatever else is installed.
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )
    try:
        # The frequency baseline: workers need not import torch, which would take most of the time.
        argv = ["--lang", "fr", "--model", "frequency", "--reading", "class-average", "pair"]
        argv += ["--shards", "4", "--corpus", str(corpus), "--out", str(tmp_path / "res")]
        argv += ["--mask", "both", "--min-candidates", "2"]
        assert main(argv) == 0
        first = capsys.readouterr().out
        # Run again: every shard is found finished and skipped.
        assert main(argv) == 0
        second = capsys.readouterr().out
    finally:
        ray.shutdown()
    assert first.count("done: ") == 8 and first.count("merged: ") == 2
    assert second.count(" 0 items scored") == 8
    for reading in ("class-average", "pair"):
        whole = evaluate(sample_options(corpus, tmp_path / "whole", reading=reading))
        run = tmp_path / "res" / "fr" / whole.out_dir.name
        assert len(list(run.glob("shard-*-of-04"))) == 4
        assert item_rows(run).equals(item_rows(whole.out_dir))
        assert pl.read_csv(run / "summary.csv").equals(pl.read_csv(whole.out_dir / "summary.csv"))
