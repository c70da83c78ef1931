"""Helpers of the sharding tests: the embedded sample mined once, runs split into shards and
merged, and rows in item order."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl
from ud_agree.evaluate.options import Options, out_dir

from tests.paths import SAMPLE
from ud_agree.schemas.results import ITEM_KEY


def mine_sample(work: Path) -> Path:
    """The embedded sample (three languages, UniMorph included) mined with `--all-types`."""
    from ud_agree.mine.plan import Options as MineOptions
    from ud_agree.mine.run import mine_languages

    options = MineOptions(
        ud_dir=SAMPLE / "ud",
        out=work / "corpus",
        unimorph_dirs=[SAMPLE / "unimorph"],
        all_types=True,
        progress=False,
    )
    mine_languages(options)
    return work / "corpus"


def sample_options(corpus: Path, out: Path, **kw) -> Options:
    """A fast French run; batches of one row, so that float scores cannot depend on batch-mates."""
    base = dict(
        lang="fr",
        corpus=str(corpus),
        model="frequency",
        mask="both",
        min_candidates=2,
        batch_size=1,
        out=str(out),
        progress=False,
    )
    return Options(**{**base, **kw})


def run_folder(options: Options) -> Path:
    """The run folder of these options, the shard's parent for a shard."""
    return out_dir(replace(options, shard=None))


def run_in_shards(options: Options, count: int) -> Path:
    """Every shard of the run, then the merge: the run folder."""
    from ud_agree.evaluate.merge import merge_run
    from ud_agree.evaluate.run import evaluate

    for index in range(count):
        evaluate(replace(options, shard=f"{index}/{count}"))
    merge_run(run_folder(options))
    return run_folder(options)


def item_rows(path: Path) -> pl.DataFrame:
    """Every result row under `path`, in item order."""
    from ud_agree.evaluate.output.results import load_results

    return load_results(path).collect().sort(list(ITEM_KEY), nulls_last=True)
