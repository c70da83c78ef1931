"""An lm-evaluation-harness task folder of ud-agree's pairs: one task per language × type
(× original/nonce), a group per language, JSON lines beside the YAML, `multiple_choice` with the
good sentence first (lm-eval scores each by its log-likelihood, as BLiMP's tasks), reporting
`acc`, `acc_norm` and `acc_bytes` (ud-agree's `sum`, `chars` and `bytes` rules, DESIGN §5.1). Written only:
lm-eval reads it. lm-eval is not imported here: the folder is plain files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl

from ud_agree.atomic import write_text
from ud_agree.schemas.corpus import TYPES

# lm-eval's loader for a task's JSON lines, beside its YAML (`!function` imports it from there),
# so that the folder can be moved anywhere.
LOADER = '''"""Loads a ud-agree task's JSON lines from this folder (written by python -m mine.export)."""

import os

import datasets

HERE = os.path.dirname(os.path.abspath(__file__))


def load(data_file, **kwargs):
    """The task's pairs as a dataset with one split, `test`."""
    return datasets.load_dataset("json", data_files={"test": os.path.join(HERE, data_file)})
'''

TASK = """task: {task}
custom_dataset: !function ud_agree_data.load
dataset_kwargs:
  data_file: {data}
output_type: multiple_choice
test_split: test
doc_to_text: ""
doc_to_target: 0
doc_to_choice: "{{{{[sentence_good, sentence_bad]}}}}"
target_delimiter: ""
num_fewshot: 0
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
  - metric: acc_bytes
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""

GROUP = """group: {group}
task:
{tasks}
aggregate_metric_list:
  - metric: acc
    aggregation: mean
    weight_by_size: true
  - metric: acc_norm
    aggregation: mean
    weight_by_size: true
  - metric: acc_bytes
    aggregation: mean
    weight_by_size: true
metadata:
  version: 1.0
"""


def task_name(*parts: str) -> str:
    """An lm-eval task name: `ud_agree_fr_subject_verb`."""
    return "_".join(
        re.sub(r"[^0-9A-Za-z]+", "_", p).strip("_").lower() for p in ("ud_agree", *parts)
    )


def write(pairs: dict[str, pl.DataFrame], out: Path) -> int:
    """An lm-eval task folder; the number of pairs written. Original pairs form the group
    `ud_agree_<lang>`, nonce variants (§9, all K together) `ud_agree_<lang>_nonce`."""
    write_text(LOADER, out / "ud_agree_data.py")
    written = 0
    for lang, frame in pairs.items():
        groups: dict[str, list[str]] = {}
        kinds = frame.with_columns(
            pl.when(pl.col("variant") == "original")
            .then(pl.lit("original"))
            .otherwise(pl.lit("nonce"))
            .alias("kind")
        )
        for kind in ("original", "nonce"):
            for kind_type in TYPES:
                rows = kinds.filter((pl.col("kind") == kind) & (pl.col("type") == kind_type))
                if not rows.height:
                    continue
                suffix = () if kind == "original" else ("nonce",)
                task = task_name(lang, kind_type, *suffix)
                data = f"{task}.jsonl"
                lines = (
                    json.dumps(r, ensure_ascii=False)
                    for r in rows.drop("kind").iter_rows(named=True)
                )
                write_text("".join(line + "\n" for line in lines), out / data)
                write_text(TASK.format(task=task, data=data), out / f"{task}.yaml")
                groups.setdefault(task_name(lang, *suffix), []).append(task)
                written += rows.height
        for group, tasks in groups.items():
            listed = "".join(f"  - {t}\n" for t in tasks).rstrip("\n")
            write_text(GROUP.format(group=group, tasks=listed), out / f"_{group}.yaml")
    return written
