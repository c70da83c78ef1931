"""ud-agree's minimal pairs as folders the field's tools read: an lm-evaluation-harness task
folder (one task per language × type, × original/nonce, a group per language) and a Hugging Face
dataset folder (a config per language, split `test`, with its card).

Neither tool is imported here: the folders are plain files (YAML, JSON lines, Parquet, Markdown).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import polars as pl

from ud_agree.atomic import write_parquet, write_text
from ud_agree.schemas.corpus import PAIRS, TYPES

from .pairs_file import ExportError, read_pairs

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
metadata:
  version: 1.0
"""


def pairs_by_language(path: str | Path) -> dict[str, pl.DataFrame]:
    """The pairs of a corpus folder (`<lang>/pairs.parquet` each) or of one pairs table."""
    path = Path(path)
    if path.is_dir():
        tables = sorted(path.glob("*/pairs.parquet"))
        if not tables:
            raise ExportError(f"{path} holds no <lang>/pairs.parquet: mine it with pairs")
        frames = [read_pairs(table) for table in tables]
    else:
        frames = [read_pairs(path)]
    found: dict[str, pl.DataFrame] = {}
    for frame in frames:
        for (lang,), part in frame.partition_by("lang", as_dict=True, maintain_order=True).items():
            found[str(lang)] = part
    return found


def task_name(*parts: str) -> str:
    """An lm-eval task name: `ud_agree_fr_subject_verb`."""
    return "_".join(
        re.sub(r"[^0-9A-Za-z]+", "_", p).strip("_").lower() for p in ("ud_agree", *parts)
    )


def write_lm_eval(pairs: dict[str, pl.DataFrame], out: Path) -> int:
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


def treebank_licenses(manifest: dict) -> dict[str, str]:
    """Each source treebank's license, read from its UD folder's README (`License:` line)."""
    ud_dir = Path((manifest.get("options") or {}).get("ud_dir", ""))
    licenses: dict[str, str] = {}
    for entry in manifest.get("inputs", []):
        treebank = entry.get("treebank", "?")
        folder = (ud_dir / entry.get("file", "")).parent
        found = "unknown"
        for name in ("README.md", "README.txt", "LICENSE.txt"):
            try:
                text = (folder / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            match = re.search(r"^License:\s*(.+)$", text, flags=re.M)
            if match:
                found = match.group(1).strip()
                break
        licenses.setdefault(treebank, found)
    return licenses


CARD = """---
pretty_name: ud-agree minimal pairs
language:
{languages}
license: other
task_categories:
  - text-classification
configs:
{configs}
---

# ud-agree minimal pairs

Minimal pairs of agreement built from Universal Dependencies treebanks by
[ud-agree](https://pypi.org/project/ud-agree/) (`python -m mine`, then
`python -m mine.export --format hf`): each row is a sentence as written (`sentence_good`) and the
same sentence with one member of an agreement relation re-inflected to disagree
(`sentence_bad`), for four relation types (determiner, attributive, predicative, subject-verb).
Rows with `variant` = `nonce-K` are nonce variants (content words replaced by other lemmas' forms
of the same part of speech and features), for a control of meaning and collocation.

Load a language: `datasets.load_dataset("<this folder or repo>", "fr", split="test")`.

## Counts

| config | type | original | nonce |
|---|---|---:|---:|
{counts}

## Columns

| column | meaning |
|---|---|
{columns}

## Licenses of the source treebanks

The pairs are derived from these treebanks and carry their licenses:

| config | treebank | license |
|---|---|---|
{licenses}

## Citation

Cite the UD release and treebanks you mined, and:

```
@inproceedings{{bacon-regier-2019-bert,
  title = {{Does {{BERT}} agree? Evaluating knowledge of structure dependence through agreement relations}},
  author = {{Bacon, Geoff and Regier, Terry}},
  year = {{2019}}, eprint = {{1908.09892}}, archivePrefix = {{arXiv}}
}}
```
"""


def write_hf(pairs: dict[str, pl.DataFrame], out: Path, corpus: Path | None = None) -> int:
    """A Hugging Face dataset folder: `<lang>/test.parquet` per config and a card `README.md`
    whose YAML names the configs; the number of pairs written."""
    configs, counts, licenses = [], [], []
    for lang, frame in pairs.items():
        write_parquet(frame.select(PAIRS.names).to_arrow(), out / lang / "test.parquet", PAIRS)
        configs.append(
            f"  - config_name: {lang}\n    data_files:\n      - split: test\n"
            f"        path: {lang}/test.parquet"
        )
        nonce = frame["variant"] != "original"
        by_type = Counter(frame.filter(~nonce)["type"].to_list())
        nonce_by_type = Counter(frame.filter(nonce)["type"].to_list())
        counts += [
            f"| {lang} | {t} | {by_type.get(t, 0)} | {nonce_by_type.get(t, 0)} |" for t in TYPES
        ]
        manifest = _manifest(corpus, lang)
        for treebank, license_ in sorted(treebank_licenses(manifest).items()):
            licenses.append(f"| {lang} | {treebank} | {license_} |")
    columns = [
        f"| `{f.name}` | {(f.metadata or {}).get(b'description', b'').decode()} |" for f in PAIRS
    ]
    card = CARD.format(
        languages="\n".join(f"  - {lang}" for lang in pairs),
        configs="\n".join(configs),
        counts="\n".join(counts),
        columns="\n".join(columns),
        licenses="\n".join(licenses)
        or "| – | – | unknown (export from a corpus folder to list them) |",
    )
    write_text(card, out / "README.md")
    return sum(frame.height for frame in pairs.values())


def _manifest(corpus: Path | None, lang: str) -> dict:
    if corpus is None:
        return {}
    try:
        return json.loads((corpus / lang / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
