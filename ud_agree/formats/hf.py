"""A Hugging Face datasets folder of ud-agree's pairs: a config per language (Parquet, split
`test`) and a dataset card (YAML `configs:`, features, the source treebanks' licenses, counts,
citation). Written only: `datasets.load_dataset(folder, lang)` reads it; datasets is not imported."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import polars as pl

from ud_agree.atomic import write_parquet, write_text
from ud_agree.schemas.corpus import PAIRS, TYPES


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
ud-agree (`python -m mine`, then
`python -m mine.export --format hf`): each row is a sentence as written (`sentence_good`) and the
same sentence with one member of an agreement relation re-inflected to disagree
(`sentence_bad`), for the relation types counted below ({types}).
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


def write(pairs: dict[str, pl.DataFrame], out: Path, corpus: Path | None = None) -> int:
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
        types=", ".join(TYPES),
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
