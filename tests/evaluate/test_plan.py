"""Options checked when built (as the CLI checks them), and the plan of runs: many languages ×
models × readings in one command, resumable, one line per run and one table at the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ud_agree.evaluate.cli import main
from ud_agree.evaluate.options import CHOICES, Options
from ud_agree.evaluate.plan import corpus_languages, finished, plan_runs
from ud_agree.evaluate.sharding.spec import Shard

from tests.sharding import mine_sample
from ud_agree.errors import UserError


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return mine_sample(tmp_path_factory.mktemp("plan"))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mask": "subject"}, "--mask 'subject': expected one of controller, target, both"),
        ({"reading": "pairs"}, "--reading 'pairs'"),
        ({"dtype": "int8"}, "--dtype 'int8'"),
        ({"batch_size": 0}, "--batch-size and --min-candidates must be ≥ 1"),
        ({"max_tokens": 0}, "--max-tokens must be ≥ 1"),
        ({"chunk_size": 0}, "--chunk-size must be ≥ 1"),
        ({"vocab_of": "gpt2"}, "--vocab-of goes with --model frequency only"),
        ({"reading": "pair", "control": "no-context"}, "--control no-context belongs to"),
        ({"model": "frequency", "control": "no-context"}, "needs a masked LM"),
        ({"shard": "4/4"}, "--shard '4/4'"),
    ],
)
def test_options_built_in_python_are_checked_like_the_cli(changes, message):
    with pytest.raises(UserError, match=message):  # UsageError, or ShardError for --shard
        Options(**{"lang": "fr", "model": "tiny-random", **changes})


def test_good_options_pass_and_a_shard_is_parsed_once_into_a_value():
    options = Options(lang="fr", shard=" 1 / 4 ")
    assert options.shard == Shard(1, 4) and str(options.shard) == "1/4"
    assert options.as_record()["shard"] == "1/4"  # the manifest's spelling
    assert Options(lang="fr", shard=Shard(1, 4)) == options
    assert set(CHOICES["reading"]) == {"class-average", "pair"}


def test_the_plan_has_every_combination_once_in_order(corpus):
    base = Options(lang="fr", corpus=str(corpus), model="frequency")
    runs = plan_runs(base, ["de", "fr", "de"], ["frequency", "tiny-random"], ["pair", "pair"])
    assert [(o.lang, o.model, o.reading) for o in runs] == [
        ("de", "frequency", "pair"),
        ("de", "tiny-random", "pair"),
        ("fr", "frequency", "pair"),
        ("fr", "tiny-random", "pair"),
    ]
    assert corpus_languages(str(corpus)) == ["de", "en", "fr"]
    assert [o.lang for o in plan_runs(base, ["all"], ["frequency"], ["pair"])] == ["de", "en", "fr"]


def test_the_plan_checks_every_run_before_scoring_one(corpus, tmp_path, capsys):
    argv = ["--lang", "fr", "de", "--model", "frequency", "tiny-random", "--vocab-of", "gpt2"]
    assert main([*argv, "--corpus", str(corpus), "--out", str(tmp_path / "r")]) == 2
    assert "--vocab-of goes with --model frequency only" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_many_runs_in_one_command_resume_and_end_in_one_table(corpus, tmp_path, capsys):
    argv = ["--lang", "all", "--model", "frequency", "--reading", "class-average", "pair"]
    argv += ["--corpus", str(corpus), "--out", str(tmp_path / "r"), "--min-candidates", "2"]
    argv += ["--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    lines = [line for line in out if line.startswith("[")]
    assert len(lines) == 6 and lines[0].startswith("[1/6] de frequency class-average: ")
    start = out.index(next(x for x in out if x.startswith("lang ")))
    table = out[start : start + 1 + 6]  # the head and a row per run; notes follow
    # Each table row holds its run's own overall accuracy (summary.csv of its folder).
    folders = [out[out.index(line) + 1] for line in lines]
    assert all(folder.startswith("    → ") for folder in folders)
    for row, line in zip(table[1:], folders, strict=True):
        folder = Path(line.rsplit("→ ", 1)[1])
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["complete"] is True and row.split()[0] == manifest["options"]["lang"]
        all_row = next(
            r for r in (folder / "summary.csv").read_text().splitlines() if r.startswith("all,all,")
        )
        assert row.split()[4] == all_row.split(",")[2]  # n
    # --resume: every run is found finished and skipped; the table is the same.
    assert main([*argv, "--resume"]) == 0
    again = capsys.readouterr().out.splitlines()
    assert sum("finished earlier, skipped" in line for line in again) == 6
    assert again[again.index(table[0]) :][:7] == table
    # A model with random weights says so on its line.
    assert main([*argv[:4], "tiny-random", *argv[4:], "--resume"]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("[")]
    assert len(lines) == 12 and sum("skipped" in x for x in lines) == 6
    assert all(("RANDOM weights" in x) == (" tiny-random " in x) for x in lines)
    # Without --resume every run is scored again.
    assert main(argv) == 0
    assert "skipped" not in capsys.readouterr().out


def test_resume_runs_what_is_not_finished(corpus, tmp_path, capsys):
    base = ["--corpus", str(corpus), "--out", str(tmp_path / "r"), "--min-candidates", "2"]
    base += ["--no-progress", "--model", "frequency"]
    assert main(["--lang", "fr", *base]) == 0
    fr = Options(
        lang="fr", corpus=str(corpus), model="frequency", min_candidates=2, out=str(tmp_path / "r")
    )
    assert finished(fr) and not finished(Options(**{**fr.__dict__, "lang": "de"}))
    # Another --limit makes other results: not the finished run.
    assert not finished(Options(**{**fr.__dict__, "limit": 3}))
    capsys.readouterr()
    assert main(["--lang", "fr", "de", *base, "--resume"]) == 0
    out = capsys.readouterr().out
    assert "[1/2] fr frequency class-average: finished earlier, skipped" in out
    assert (
        "[2/2] de frequency class-average: " in out
        and "[2/2] de frequency class-average: fin" not in out
    )
