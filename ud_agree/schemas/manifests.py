"""The evaluator's run manifest (`manifest.json` of a results folder), typed: what a run was and
what it did. Written by `evaluate.run`, read (in today's shape) through `evaluate.output.store` by `--resume`,
the merge and the report."""

from __future__ import annotations

from typing import Any, TypedDict


class ShardEntry(TypedDict):
    """A shard's place in its run; `whole_run_counts`: counts made before the split."""

    index: int
    count: int
    whole_run_counts: list[str]


class Coverage(TypedDict):
    """Class-average reading: how many lexicon forms and masked words the model can score."""

    lexicon_forms: int
    lexicon_forms_scorable: int
    lexicon_forms_share: float | None
    masked_words: int
    masked_words_scorable: int
    masked_words_share: float | None


class RunManifest(TypedDict, total=False):
    """One run's manifest. Written first with `complete` false (so that --resume can check the
    options), then again complete with counts and timings."""

    schema_version: int  # the shape of the run folder (evaluate.output.store.SCHEMA_VERSION)
    tool: str  # "ud-agree evaluate"
    tool_version: str
    options: dict[str, Any]  # evaluate.options.Options as a dict, without `progress`
    method: str  # the results column `method`
    model: str  # the results column `model`
    reading: str  # class-average | pair
    random_weights: bool
    model_family: str | None
    window_tokens: int | None
    device: str | None
    scorer: dict[str, Any]  # the back-end's own facts
    corpus: str  # absolute path of the language folder
    corpus_manifest_sha256: str | None
    model_path: str | None  # a local model folder (or GGUF file), absolute
    shard: ShardEntry  # only in a shard's folder
    complete: bool
    counts: dict[str, int]  # skip counts, items eligible, scored, resumed, windowed…
    space_after_missing: bool
    coverage: Coverage  # class-average reading
    candidates: int  # class-average reading: candidate forms
    seconds: float
    timings: dict[str, float]  # seconds of start-up, encoding, scoring (the summary: the rest)
    items_per_second: float | None
    # Added by readers: the run folder relative to the results root; a merged run's shard count.
    run_dir: str
    shards: int
