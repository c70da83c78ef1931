"""Hostile inputs for the evaluator (issue 34): a table of cases, each a command line of
`python -m evaluate`, `python -m evaluate.suite` or `python -m evaluate.report` run in-process on a
mutated suite file, corpus, results folder, model folder or option, and what it must get.

Imports only `ud_agree` (no `tests.*`), so that the same table runs against another checkout's
code: `python tests/evaluate/faults.py --root /work/main` prints the case table (case, exit,
traceback, partial output, message) and its counts for the code that `python` imports.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

RESULTS_GLOBS = ("results-*.parquet", "suite-*.parquet")
GOOD = ("Le chat dort .", "Le chat dorment .")
GOOD2 = ("Les chats dorment .", "Les chats dort .")
LONG = " ".join(["mot"] * 400)  # longer than the tiny model's 64-token window


@dataclass
class Place:
    """Where one case runs: `inp` for its inputs, `out` for `--out`, and the shared fixtures."""

    tmp: Path
    corpus: Path  # the mined sample (fr), read-only by convention
    gpt2: Path  # a tiny random GPT-2 (64-token window) on tiny-fr-ud-gpt2's tokenizer
    bert: Path  # a tiny random BERT on tiny-fr-ud-bert's tokenizer

    @property
    def inp(self) -> Path:
        path = self.tmp / "in"
        path.mkdir(parents=True, exist_ok=True)
        return path

    @property
    def out(self) -> Path:
        return self.tmp / "out"

    def file(self, name: str, content: str | bytes) -> str:
        path = self.inp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return str(path)

    def corpus_copy(self) -> Path:
        """A copy of the corpus to tamper with."""
        target = self.inp / "corpus"
        if not target.exists():
            shutil.copytree(self.corpus, target)
        return target

    def model_copy(self, source: Path, name: str = "model") -> Path:
        """A copy of a model folder (files linked, so that a mutation replaces, never edits)."""
        target = self.inp / name
        target.mkdir(parents=True, exist_ok=True)
        for path in source.iterdir():
            (target / path.name).symlink_to(path)
        return target


@dataclass
class Case:
    """One hostile invocation: `setup` returns the command's argv; `code` the exit status it must
    get; `says` words its one error line (or, exit 0, its output) must hold; `check` a test on the
    place afterwards returning a problem (a silent wrong result) or None."""

    name: str
    tool: str  # evaluate | suite | report | subprocess-suite | api
    setup: Callable[[Place], list[str]]
    code: int | None  # None: any exit status, as long as there is no traceback
    says: str = ""
    check: Callable[[Place], str | None] | None = None


@dataclass
class Seen:
    """What a case got."""

    code: int | None
    stdout: str
    stderr: str
    traceback: bool
    outside: list[str] = field(default_factory=list)  # files written outside --out
    partial: bool = False  # results left behind by a run that failed
    wrong: str | None = None  # a silent wrong result

    @property
    def message(self) -> str:
        errors = [line for line in self.stderr.splitlines() if line.startswith("error:")]
        if errors:
            return errors[0]
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("error:")]


# ---------------------------------------------------------------- fixtures built once


def build_models(shared: Path, where: Path) -> tuple[Path, Path]:
    """A tiny random GPT-2 and BERT from config, on the shared tiny models' tokenizers."""
    import torch
    from transformers import (
        AutoTokenizer,
        BertConfig,
        BertForMaskedLM,
        GPT2Config,
        GPT2LMHeadModel,
    )

    torch.manual_seed(0)
    made = []
    for name, source, build in (
        ("gpt2", "tiny-fr-ud-gpt2", lambda v: GPT2LMHeadModel(GPT2Config(
            vocab_size=v, n_positions=64, n_embd=16, n_layer=1, n_head=2))),
        ("bert", "tiny-fr-ud-bert", lambda v: BertForMaskedLM(BertConfig(
            vocab_size=v, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
            intermediate_size=32, max_position_embeddings=64))),
    ):  # fmt: skip
        folder = where / name
        tokenizer = AutoTokenizer.from_pretrained(shared / "models" / source)
        tokenizer.model_max_length = 64
        build(len(tokenizer)).save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        made.append(folder)
    return made[0], made[1]


def mine_sample(root: Path, where: Path) -> Path:
    """The embedded French sample mined (relations, sentences, lexicon, pairs)."""
    from ud_agree.mine.cli import main as mine_main

    sample = root / "data" / "sample"
    args = ["--ud-dir", str(sample / "ud"), "--unimorph-dir", str(sample / "unimorph")]
    code = mine_main([*args, "--lang", "fr", "--out", str(where), "--quiet", "--jobs", "1"])
    assert code == 0, "the sample does not mine"
    return where


# ---------------------------------------------------------------- running a case


def _files(folder: Path) -> set[str]:
    if not folder.exists():
        return set()
    return {str(p) for p in folder.rglob("*") if p.is_file() or p.is_symlink()}


def run_case(case: Case, place: Place) -> Seen:
    """Run one case in-process (stdout and stderr captured); what it got."""
    argv = case.setup(place)
    before = _files(place.tmp)
    finished_before = _finished(place.out)
    fixtures = _files(place.corpus) | _files(place.gpt2)
    out, err = io.StringIO(), io.StringIO()
    code: int | None
    crashed = False
    if case.tool == "subprocess-suite":
        done = subprocess.run(
            [sys.executable, "-m", "ud_agree.evaluate.suite", *argv],
            capture_output=True,
            text=True,
            cwd=place.tmp,
        )
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
        crashed = "Traceback" in stderr
    else:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = TOOLS[case.tool](argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 2
            except BaseException:  # noqa: BLE001 - a traceback: what the case is there to find
                traceback.print_exc(file=err)
                code, crashed = None, True
        stdout, stderr = out.getvalue(), err.getvalue()
    after = _files(place.tmp)
    made = sorted(p for p in after - before if not p.startswith(str(place.out) + os.sep))
    made += sorted(
        p for p in (_files(place.corpus) | _files(place.gpt2)) - fixtures
    )  # written into the shared fixtures
    seen = Seen(code, stdout, stderr, crashed or "Traceback" in stderr, outside=made)
    if code != 0:
        seen.partial = bool(_finished(place.out) - finished_before)
    if case.check is not None and code == 0:
        seen.wrong = case.check(place)
    if code == 0 and case.code not in (0, None):
        seen.wrong = seen.wrong or f"exit 0 where {case.code} was due"
    return seen


def _finished(out: Path) -> set[str]:
    """Manifests under `out` that say their run is complete (what a reader counts)."""
    found = set()
    for manifest in out.rglob("manifest.json") if out.is_dir() else ():
        try:
            if json.loads(manifest.read_text()).get("complete") is True:
                found.add(f"{manifest}:{manifest.stat().st_mtime_ns}")
        except (OSError, ValueError, AttributeError):
            continue
    return found


def problems_of(case: Case, seen: Seen) -> list[str]:
    """Where a case's outcome differs from what it must get (empty: as due)."""
    problems = []
    if seen.traceback:
        problems.append("traceback")
    if case.code is None:
        return problems + (["wrote outside --out"] if seen.outside else [])
    if seen.code != case.code:
        problems.append(f"exit {seen.code}, due {case.code}")
    if case.code != 0 and len(seen.error_lines()) != 1:
        problems.append(f"{len(seen.error_lines())} error lines")
    text = seen.message if case.code != 0 else seen.stdout + seen.stderr
    if case.says and case.says not in text:
        problems.append(f"message lacks {case.says!r}")
    if seen.outside:
        problems.append(f"wrote outside --out: {seen.outside[:2]}")
    if seen.partial:
        problems.append("left finished results behind")
    if seen.wrong:
        problems.append(f"wrong: {seen.wrong}")
    return problems


# ---------------------------------------------------------------- the tools


def _evaluate(argv: list[str]) -> int:
    from ud_agree.evaluate.cli import main

    return main(argv)


def _suite(argv: list[str]) -> int:
    from ud_agree.evaluate.suite import main

    return main(argv)


def _report(argv: list[str]) -> int:
    from ud_agree.evaluate.report.html import main

    return main(argv)


def _api(argv: list[str]) -> int:
    """`load_results` / `load_suite_results` on a folder: as a command would (one line, exit 2)."""
    from ud_agree.errors import run_main

    def body() -> int:
        if argv[0] == "suite":
            from ud_agree.evaluate.output.results import load_suite_results as load
        else:
            from ud_agree.evaluate.output.results import load_results as load
        load(argv[1]).collect()
        return 0

    return run_main(body)


TOOLS: dict[str, Callable[[list[str]], int]] = {
    "evaluate": _evaluate,
    "suite": _suite,
    "report": _report,
    "api": _api,
}


# ---------------------------------------------------------------- the cases


def suite_run(name: str, content: str | bytes, *extra: str) -> Callable[[Place], list[str]]:
    """`python -m evaluate.suite FILE --model <tiny GPT-2>` on a suite file of this content."""

    def setup(place: Place) -> list[str]:
        path = place.file(name, content)
        return [path, "--model", str(place.gpt2), "--out", str(place.out), "--no-progress", *extra]

    return setup


def scored(n: int) -> Callable[[Place], str | None]:
    """The suite's results hold exactly `n` rows (the others skipped, never counted)."""

    def check(place: Place) -> str | None:
        import polars as pl

        chunks = sorted(place.out.rglob("suite-*.parquet"))
        rows = pl.read_parquet(chunks).height if chunks else 0
        return None if rows == n else f"{rows} rows in results, {n} due"

    return check


def jsonl(*rows: object) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


def blimp(good: str, bad: str, **more: object) -> dict:
    return {"sentence_good": good, "sentence_bad": bad, "UID": "sv", **more}


B1, B2 = blimp(*GOOD), blimp(*GOOD2)


def tsv(*rows: str) -> str:
    return "sen\twrong_sen\tphenomenon\n" + "".join(r + "\n" for r in rows)


T1, T2 = f"{GOOD[0]}\t{GOOD[1]}\tSV-#", f"{GOOD2[0]}\t{GOOD2[1]}\tSV-#"


def clams(*pairs: tuple[str, str]) -> str:
    return "".join(f"True\t{g}\nFalse\t{b}\n" for g, b in pairs)


def gevalm_row(masked: str = "Le chat [MASK] .", candidates: object = ("dort", "dorment")) -> dict:
    return {"text_masked": masked, "candidates": candidates, "case": "sg"}


def gym_item(number: int, **conditions: list[str | None]) -> dict:
    """A SyntaxGym item: each condition's region contents, numbered from 1."""
    return {
        "item_number": number,
        "conditions": [
            {
                "condition_name": name,
                "regions": [
                    {"region_number": k, "content": text} for k, text in enumerate(contents, 1)
                ],
            }
            for name, contents in conditions.items()
        ],
    }


def gym(predictions: object, items: object | None = None, **more: object) -> str:
    """A SyntaxGym suite (two items `Le chat | dort/dorment` unless `items` are given)."""
    if items is None:
        items = [
            gym_item(n, match=["Le chat", "dort"], mismatch=["Le chat", "dorment"]) for n in (1, 2)
        ]
    return json.dumps(
        {"meta": {"metric": "sum"}, "predictions": predictions, "items": items, **more}
    )


GOOD_FORMULA = [{"type": "formula", "formula": "(2;%match%) < (2;%mismatch%)"}]


# Suite options that cannot run: (case, arguments, what the error names).
SUITE_OPTIONS = (
    ("no-such-condition", ("--condition", "zzz"), "zzz"),
    ("chunk-size-0", ("--chunk-size", "0"), "--chunk-size"),
    ("chunk-size-negative", ("--chunk-size", "-1"), "--chunk-size"),
    ("batch-size-0", ("--batch-size", "0"), "--batch-size"),
    ("max-tokens-0", ("--max-tokens", "0"), "--max-tokens"),
)


def suite_cases() -> list[Case]:
    """Every suite layout, mutated."""
    S = suite_run
    cases = [
        # BLiMP JSON lines
        Case("blimp/empty", "suite", S("b.jsonl", ""), 2, "nothing to score"),
        Case("blimp/blank-lines", "suite", S("b.jsonl", "\n\n\n"), 2, "nothing to score"),
        Case("blimp/not-json", "suite", S("b.jsonl", "{oops\n"), 2, "nothing to score"),
        Case(
            "blimp/bad-line-among-good",
            "suite",
            S("b.jsonl", jsonl(B1, "{oops", B2)),
            0,
            "b.jsonl:2",
            scored(2),
        ),
        Case(
            "blimp/missing-bad",
            "suite",
            S("b.jsonl", jsonl({"sentence_good": "a"}, B1)),
            0,
            "",
            scored(1),
        ),
        Case(
            "blimp/null-good",
            "suite",
            S("b.jsonl", jsonl(blimp(None, "x"), B1)),
            0,
            "b.jsonl:1",
            scored(1),
        ),  # type: ignore[arg-type]
        Case(
            "blimp/number-good",
            "suite",
            S("b.jsonl", jsonl(blimp(3, "x"), B1)),
            0,
            "b.jsonl:1",
            scored(1),
        ),  # type: ignore[arg-type]
        Case("blimp/list-row", "suite", S("b.jsonl", jsonl([1, 2], B1)), 0, "b.jsonl:1", scored(1)),
        # JSON that json.loads itself refuses with other errors than JSONDecodeError, or that
        # decodes into a string no UTF-8 writer can write
        *(
            Case(f"blimp/{name}", "suite", S("b.jsonl", jsonl(B1, line)), 0, "b.jsonl:2", scored(1))
            for name, line in (
                (
                    "lone-surrogate",
                    '{"sentence_good": "Le chat \\ud800 dort .", '
                    '"sentence_bad": "Le chat dorment .", "UID": "sv"}',
                ),
                (
                    "5000-digit-number",
                    '{"sentence_good": "a b", "sentence_bad": "a c", "pairID": ' + "9" * 5000 + "}",
                ),
                ("100000-deep-nesting", "[" * 100_000 + "]" * 100_000),
            )
        ),
        Case("out/empty", "suite", S("b.jsonl", jsonl(B1), "--out", ""), 2, "--out"),
        Case("blimp/top-level-array", "suite", S("b.jsonl", json.dumps([B1, B2])), 2, ""),
        Case(
            "blimp/identical",
            "suite",
            S("b.jsonl", jsonl(blimp("Le chat dort .", "Le chat dort ."), B1)),
            0,
            "identical",
            scored(1),
        ),
        Case(
            "blimp/all-identical", "suite", S("b.jsonl", jsonl(blimp("a b", "a b"))), 2, "identical"
        ),
        Case(
            "blimp/too-long",
            "suite",
            S("b.jsonl", jsonl(blimp(LONG, LONG + " x"), B1)),
            0,
            "too-long",
            scored(1),
        ),
        Case(
            "blimp/megabyte-line",
            "suite",
            S("b.jsonl", jsonl(blimp("a " * 500_000, "b " * 500_000), B1)),
            0,
            "too-long",
            scored(1),
        ),
        Case(
            "blimp/tab-in-sentence",
            "suite",
            S("b.jsonl", jsonl(blimp("Le chat\tdort .", "x"), B1)),
            0,
            "b.jsonl:1",
            scored(1),
        ),
        Case(
            "blimp/newline-in-sentence",
            "suite",
            S("b.jsonl", jsonl(blimp("Le chat\ndort .", "x"), B1)),
            0,
            "b.jsonl:1",
            scored(1),
        ),
        Case(
            "blimp/not-utf8",
            "suite",
            S(
                "b.jsonl",
                b'{"sentence_good": "\xff\xfe", "sentence_bad": "x"}\n' + jsonl(B1).encode(),
            ),
            0,
            "b.jsonl:1",
            scored(1),
        ),
        Case(
            "blimp/same-tokens",
            "suite",
            _suite_same_tokens,
            0,
            "",
            _suite_same_tokens_skipped,
        ),
        Case("blimp/bom", "suite", S("b.jsonl", "\ufeff" + jsonl(B1, B2)), 0, "", scored(2)),
        Case(
            "blimp/crlf",
            "suite",
            S("b.jsonl", jsonl(B1, B2).replace("\n", "\r\n")),
            0,
            "",
            scored(2),
        ),
        Case(
            "blimp/whitespace-only-sentence",
            "suite",
            S("b.jsonl", jsonl(blimp("   ", "x"), B1)),
            0,
            "b.jsonl:1",
            scored(1),
        ),
        Case(
            "blimp/strict-bad-line",
            "suite",
            S("b.jsonl", jsonl(B1, "{oops"), "--strict"),
            2,
            "b.jsonl:2",
        ),
        Case(
            "blimp/strict-tab",
            "suite",
            S("b.jsonl", jsonl(B1, blimp("a\tb", "c")), "--strict"),
            2,
            "b.jsonl:2",
        ),
        Case(
            "blimp/good-equals-bad-column",
            "suite",
            S("b.jsonl", jsonl(B1, B2), "--good", "sentence_good", "--bad", "sentence_good"),
            2,
            "identical",
        ),
        Case(
            "blimp/good-without-bad",
            "suite",
            S("b.jsonl", jsonl(B1), "--good", "sentence_good"),
            2,
            "--good and --bad",
        ),
        Case(
            "blimp/no-such-column",
            "suite",
            S("b.jsonl", jsonl(B1), "--good", "x", "--bad", "y"),
            2,
            "no column",
        ),
        *(
            Case(f"blimp/{name}", "suite", S("b.jsonl", jsonl(B1), *args), 2, says)
            for name, args, says in SUITE_OPTIONS
        ),
        Case("blimp/pll-word", "suite", S("b.jsonl", jsonl(B1), "--pll", "word"), 2, "--pll word"),
        Case(
            "blimp/model-frequency",
            "suite",
            lambda p: [p.file("b.jsonl", jsonl(B1)), "--model", "frequency", "--out", str(p.out)],
            2,
            "frequency",
        ),
        # CLAMS text
        Case(
            "clams/false-first",
            "suite",
            S("c.txt", "False\tLe chat dorment .\nTrue\tLe chat dort .\n"),
            2,
            "nothing to score",
        ),
        Case(
            "clams/no-tab",
            "suite",
            S("c.txt", "True Le chat dort .\nFalse Le chat dorment .\n"),
            2,
            "",
        ),
        Case(
            "clams/only-true",
            "suite",
            S("c.txt", "True\tLe chat dort .\nTrue\tLes chats dorment .\n"),
            2,
            "nothing to score",
        ),
        Case(
            "clams/bad-label",
            "suite",
            S("c.txt", clams(GOOD) + "Maybe\tx y\n" + clams(GOOD2)),
            0,
            "c.txt:3",
            scored(2),
        ),
        Case(
            "clams/empty-sentence",
            "suite",
            S("c.txt", "True\t\nFalse\tLe chat dorment .\n" + clams(GOOD2)),
            0,
            "c.txt:",
            scored(1),
        ),
        Case(
            "clams/identical",
            "suite",
            S("c.txt", clams(("Le chat dort .", "Le chat dort ."), GOOD2)),
            0,
            "identical",
            scored(1),
        ),
        Case(
            "clams/too-long",
            "suite",
            S("c.txt", clams((LONG, LONG + " x"), GOOD)),
            0,
            "too-long",
            scored(1),
        ),
        Case(
            "clams/crlf",
            "suite",
            S("c.txt", clams(GOOD, GOOD2).replace("\n", "\r\n")),
            0,
            "",
            scored(2),
        ),
        Case(
            "clams/extra-tab",
            "suite",
            S("c.txt", "True\tLe chat\tdort .\nFalse\tLe chat dorment .\n" + clams(GOOD2)),
            0,
            "c.txt:",
            scored(1),
        ),
        Case("clams/binary", "suite", S("c.txt", bytes(range(256)) * 4), 2, ""),
        # MultiBLiMP TSV
        Case("multiblimp/header-only", "suite", S("m.tsv", tsv()), 2, "nothing to score"),
        Case(
            "multiblimp/damaged-gz",
            "suite",
            S("m.tsv.gz", gzip.compress(tsv(T1, T2).encode())[:40]),
            2,
            "nothing to score",
        ),
        Case(
            "multiblimp/carriage-return-in-header",
            "suite",
            S("m.tsv", "sen\rx\twrong_sen\n" + T1 + "\n"),
            2,
            "nothing to score",
        ),
        Case(
            "multiblimp/missing-column", "suite", S("m.tsv", "sen\tphenomenon\nx\ty\n"), 2, "--good"
        ),
        Case(
            "multiblimp/ragged-row",
            "suite",
            S("m.tsv", tsv(T1, "only one field", T2)),
            0,
            "m.tsv:3",
            scored(2),
        ),
        Case(
            "multiblimp/broken-quoting",
            "suite",
            S("m.tsv", tsv(f'{GOOD[0]}\t"{GOOD[1]}\tSV', f'{GOOD2[0]}\t{GOOD2[1]}"\tSV', T1)),
            0,
            "m.tsv:2",
            scored(1),
        ),
        Case(
            "multiblimp/identical",
            "suite",
            S("m.tsv", tsv(f"{GOOD[0]}\t{GOOD[0]}\tSV", T2)),
            0,
            "identical",
            scored(1),
        ),
        Case(
            "multiblimp/too-long",
            "suite",
            S("m.tsv", tsv(f"{LONG}\t{LONG} x\tSV", T1)),
            0,
            "too-long",
            scored(1),
        ),
        Case(
            "multiblimp/extra-columns",
            "suite",
            S("m.tsv", tsv(T1 + "\textra\tmore", T2)),
            0,
            "",
            scored(1),
        ),
        Case(
            "multiblimp/empty-field",
            "suite",
            S("m.tsv", tsv(f"\t{GOOD[1]}\tSV", T2)),
            0,
            "m.tsv:2",
            scored(1),
        ),
        Case(
            "multiblimp/quoted-newline",
            "suite",
            S("m.tsv", tsv(f'"Le chat\ndort ."\t{GOOD[1]}\tSV', T2)),
            0,
            "m.tsv:",
            scored(1),
        ),
        Case(
            "multiblimp/wrong-format-flag", "suite", S("m.tsv", tsv(T1), "--format", "clams"), 2, ""
        ),
        # SyntaxGym JSON
        Case(
            "syntaxgym/formula-syntax-error",
            "suite",
            S("g.json", gym([{"type": "formula", "formula": "(2;%match%) <"}])),
            2,
            "nothing to score",
        ),
        Case("syntaxgym/no-predictions", "suite", S("g.json", gym([])), 2, "nothing to score"),
        Case(
            "syntaxgym/formula-a-number",
            "suite",
            S("g.json", gym([{"type": "formula", "formula": "3"}])),
            2,
            "nothing to score",
        ),
        Case(
            "syntaxgym/nested-3000",
            "suite",
            S(
                "g.json",
                gym([{"type": "formula", "formula": "(" * 3000 + "(2;%match%) < 1" + ")" * 3000}]),
            ),
            2,
            "nested",
        ),
        Case(
            "syntaxgym/minus-3000",
            "suite",
            S("g.json", gym([{"type": "formula", "formula": "-" * 3000 + "(2;%match%) < 1"}])),
            2,
            "nested",
        ),
        Case(
            "syntaxgym/not-3000",
            "suite",
            S("g.json", gym([{"type": "formula", "formula": "~" * 3000 + "((2;%match%) < 1)"}])),
            2,
            "nested",
        ),
        Case(
            "syntaxgym/unknown-condition",
            "suite",
            S("g.json", gym([{"type": "formula", "formula": "(2;%nope%) < (2;%match%)"}])),
            2,
            "nothing to score",
        ),
        Case(
            "syntaxgym/unknown-region",
            "suite",
            S("g.json", gym([{"type": "formula", "formula": "(9;%match%) < (2;%mismatch%)"}])),
            2,
            "nothing to score",
        ),
        Case(
            "syntaxgym/one-bad-formula",
            "suite",
            S("g.json", gym([GOOD_FORMULA[0], {"type": "formula", "formula": "((("}])),
            0,
            "g.json",
            scored(2),
        ),
        Case("syntaxgym/not-json", "suite", S("g.json", "{"), 2, ""),
        Case(
            "syntaxgym/items-not-list",
            "suite",
            S(
                "g.json",
                json.dumps({"items": 3, "predictions": GOOD_FORMULA}),
                "--format",
                "syntaxgym",
            ),
            2,
            "g.json",
        ),
        Case(
            "syntaxgym/empty-items",
            "suite",
            S("g.json", gym(GOOD_FORMULA, [])),
            2,
            "nothing to score",
        ),
        Case(
            "syntaxgym/region-content-null",
            "suite",
            S("g.json", gym(GOOD_FORMULA, [gym_item(1, match=[None])])),
            2,
            "nothing to score",
        ),
        Case(
            "syntaxgym/metric-mean",
            "suite",
            S("g.json", gym(GOOD_FORMULA, meta={"metric": "mean"})),
            2,
            "nothing to score",
        ),
        Case(
            "syntaxgym/too-long",
            "suite",
            S(
                "g.json",
                gym(GOOD_FORMULA, [gym_item(1, match=[LONG, "dort"], mismatch=[LONG, "x"])]),
            ),
            2,
            "too-long",
        ),
        Case(
            "syntaxgym/nested-3000-subprocess",
            "subprocess-suite",
            S(
                "g.json",
                gym([{"type": "formula", "formula": "[" * 3000 + "(2;%match%) < 1" + "]" * 3000}]),
            ),
            2,
            "nested",
        ),
        # gevalm JSON lines
        Case(
            "gevalm/no-mask",
            "suite",
            S("v.jsonl", jsonl(gevalm_row("Le chat dort ."), gevalm_row())),
            0,
            "v.jsonl:1",
            scored(1),
        ),
        Case(
            "gevalm/two-masks",
            "suite",
            S("v.jsonl", jsonl(gevalm_row("[MASK] chat [MASK] ."), gevalm_row())),
            0,
            "v.jsonl:1",
            scored(1),
        ),
        Case(
            "gevalm/one-candidate",
            "suite",
            S("v.jsonl", jsonl(gevalm_row(candidates=["dort"]), gevalm_row())),
            0,
            "v.jsonl:1",
            scored(1),
        ),
        Case(
            "gevalm/candidates-string",
            "suite",
            S("v.jsonl", jsonl(gevalm_row(candidates="dort"), gevalm_row())),
            0,
            "v.jsonl:1",
            scored(1),
        ),
        Case(
            "gevalm/identical-candidates",
            "suite",
            S("v.jsonl", jsonl(gevalm_row(candidates=["dort", "dort"]), gevalm_row())),
            0,
            "identical",
            scored(1),
        ),
        Case(
            "gevalm/tab-in-candidate",
            "suite",
            S("v.jsonl", jsonl(gevalm_row(candidates=["do\trt", "dorment"]), gevalm_row())),
            0,
            "v.jsonl:1",
            scored(1),
        ),
        Case(
            "gevalm/all-bad",
            "suite",
            S("v.jsonl", jsonl(gevalm_row("x"), gevalm_row(candidates=[]))),
            2,
            "nothing to score",
        ),
        # any table with --good/--bad
        Case(
            "table/csv-broken-quoting",
            "suite",
            S(
                "t.csv",
                'g,b\n"Le chat dort .,Le chat dorment .\nLes chats dorment .,Les chats dort .\n',
                "--good",
                "g",
                "--bad",
                "b",
            ),
            2,
            "",
        ),
        Case(
            "table/csv-identical",
            "suite",
            S(
                "t.csv",
                f"g,b\n{GOOD[0]},{GOOD[0]}\n{GOOD2[0]},{GOOD2[1]}\n",
                "--good",
                "g",
                "--bad",
                "b",
            ),
            0,
            "identical",
            scored(1),
        ),
        Case(
            "table/csv-same-column",
            "suite",
            S("t.csv", f"g,b\n{GOOD[0]},{GOOD[1]}\n", "--good", "g", "--bad", "g"),
            2,
            "identical",
        ),
        Case(
            "table/parquet-garbage",
            "suite",
            S("t.parquet", b"PAR1 not really", "--good", "g", "--bad", "b"),
            2,
            "t.parquet",
        ),
        Case(
            "table/csv-newline-field",
            "suite",
            S(
                "t.csv",
                f'g,b\n"Le chat\ndort .",{GOOD[1]}\n{GOOD2[0]},{GOOD2[1]}\n',
                "--good",
                "g",
                "--bad",
                "b",
            ),
            0,
            "t.csv:2",
            scored(1),
        ),
        Case(
            "table/no-such-file",
            "suite",
            lambda p: [str(p.inp / "nope.jsonl"), "--model", str(p.gpt2), "--out", str(p.out)],
            2,
            "nope.jsonl",
        ),
        Case(
            "table/a-folder-as-file",
            "suite",
            lambda p: [str(p.inp), "--model", str(p.gpt2), "--out", str(p.out)],
            2,
            "",
        ),
    ]
    cases.append(Case("table/parquet-ints", "suite", _parquet_ints, 0, "", scored(1)))
    return cases


def _parquet_ints(place: Place) -> list[str]:
    import polars as pl

    path = place.inp / "t.parquet"
    pl.DataFrame({"g": [GOOD[0], None], "b": [GOOD[1], "x"]}).write_parquet(path)
    return [str(path), "--model", str(place.gpt2), "--out", str(place.out), "--good", "g",
            "--bad", "b", "--no-progress"]  # fmt: skip


def evaluate_run(*extra: str, model: str = "frequency", corpus: Callable[[Place], Path] | None = None,
                 lang: str = "fr") -> Callable[[Place], list[str]]:  # fmt: skip
    """`python -m evaluate --lang fr --corpus C --model M --reading pair …`."""

    def setup(place: Place) -> list[str]:
        where = corpus(place) if corpus else place.corpus
        chosen = {"gpt2": str(place.gpt2), "bert": str(place.bert)}.get(model, model)
        if model.startswith("@"):  # a mutated copy made by a helper
            chosen = str(MODEL_MUTATIONS[model[1:]](place))
        return ["--lang", lang, "--corpus", str(where), "--model", chosen, "--out",
                str(place.out), "--reading", "pair", "--no-progress", *extra]  # fmt: skip

    return setup


def tamper(change: Callable[[Path], None]) -> Callable[[Place], Path]:
    """A corpus copy changed by `change(<copy>/fr)`."""

    def make(place: Place) -> Path:
        copy = place.corpus_copy()
        change(copy / "fr")
        return copy

    return make


def _write(name: str, content: bytes | str) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        path = folder / name
        path.unlink(missing_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)

    return change


def _remove(name: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).unlink()


def _table(name: str, edit: Callable, mined: bool = True) -> Callable[[Path], None]:
    """A corpus whose table `name` is `edit`ed: as the miner would have written it (`mined`: its
    manifest records the new table's fingerprint), or by hand (the manifest's fingerprint stays)."""

    def change(folder: Path) -> None:
        import polars as pl

        path = folder / f"{name}.parquet"
        frame = edit(pl.read_parquet(path))
        path.unlink()
        frame.write_parquet(path)
        if mined:
            record_fingerprint(path)

    return change


def record_fingerprint(path: Path) -> None:
    """The table at `path` recorded in its folder's manifest, as the miner records what it wrote."""
    from ud_agree.atomic import fingerprint

    manifest = path.parent / "manifest.json"
    try:
        record = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return  # a case that broke the manifest on purpose
    if isinstance(record, dict) and isinstance(record.get("tables"), dict):
        record["tables"][path.name] = fingerprint(path)
        manifest.write_text(json.dumps(record))


def _null_words(frame):
    import polars as pl

    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("words")).alias("words")
    )


def _as_other_language(folder: Path) -> None:
    """fr/ holding another language's tables (lang=de inside)."""
    import polars as pl

    for name in ("relations", "sentences", "lexicon", "pairs"):
        path = folder / f"{name}.parquet"
        frame = pl.read_parquet(path).with_columns(pl.lit("de").alias("lang"))
        path.unlink()
        frame.write_parquet(path)
    manifest = folder / "manifest.json"
    data = json.loads(manifest.read_text())
    data["languages"] = ["de"] if "languages" in data else data.get("languages")
    data["lang"] = "de"
    manifest.unlink()
    manifest.write_text(json.dumps(data))


def _model_without(*names: str) -> Callable[[Place], Path]:
    def make(place: Place) -> Path:
        folder = place.model_copy(place.gpt2)
        for name in names:
            for path in folder.glob(name):
                path.unlink()
        return folder

    return make


def _model_with(name: str, content: bytes | str, source: str = "gpt2") -> Callable[[Place], Path]:
    def make(place: Place) -> Path:
        folder = place.model_copy(place.gpt2 if source == "gpt2" else place.bert)
        path = folder / name
        data = content if isinstance(content, bytes) else content.encode()
        if content == "TRUNCATE":
            data = path.resolve().read_bytes()[:2000]
        path.unlink(missing_ok=True)
        path.write_bytes(data)
        return folder

    return make


def _empty_vocabulary(place: Place) -> Path:
    """A tokenizer that gives no tokens for ordinary text (an empty BPE vocabulary)."""
    folder = place.model_copy(place.gpt2)
    path = folder / "tokenizer.json"
    data = json.loads(path.resolve().read_text())
    data["model"]["vocab"], data["model"]["merges"] = {}, []
    data["added_tokens"] = []
    path.unlink()
    path.write_text(json.dumps(data))
    return folder


MODEL_MUTATIONS: dict[str, Callable[[Place], Path]] = {
    "no-tokenizer": _model_without("tokenizer*", "vocab*", "merges.txt", "special_tokens_map.json"),
    "no-config": _model_without("config.json"),
    "no-weights": _model_without("*.safetensors"),
    "garbage-config": _model_with("config.json", "{not json"),
    "config-a-list": _model_with("config.json", "[]"),
    "unknown-model-type": _model_with("config.json", json.dumps({"model_type": "nonesuch"})),
    "truncated-weights": _model_with("model.safetensors", "TRUNCATE"),
    "garbage-weights": _model_with("model.safetensors", b"\x00" * 4096),
    "garbage-tokenizer": _model_with("tokenizer.json", "{garbage"),
    "empty-vocabulary": _empty_vocabulary,
}


def _finished_then(change: Callable[[Path], None], *extra: str) -> Callable[[Place], list[str]]:
    """A finished frequency pair run (chunks of 5), changed, then the command run again."""

    def setup(place: Place) -> list[str]:
        argv = evaluate_run("--chunk-size", "5")(place)
        with contextlib.redirect_stdout(io.StringIO()):
            assert _evaluate(argv) == 0
        folder = next(place.out.rglob("manifest.json")).parent
        change(folder)
        return [*argv, *extra]

    return setup


def _drop_chunk(folder: Path) -> None:
    sorted(folder.glob("results-*.parquet"))[1].unlink()


def _garble_chunk(folder: Path) -> None:
    sorted(folder.glob("results-*.parquet"))[1].write_bytes(b"not parquet")


def _copy_chunk(folder: Path) -> None:
    """A chunk copied by hand beside itself, as a file manager names copies."""
    first = sorted(folder.glob("results-*.parquet"))[0]
    shutil.copyfile(first, folder / f"{first.stem} (copy).parquet")


def _results_stray_copy(place: Place) -> list[str]:
    """A finished run with a chunk's copy beside it, read by load_results."""
    _finished_then(_copy_chunk)(place)
    return ["results", str(place.out)]


def _rows_match_corpus(place: Place) -> str | None:
    """After --resume, the run holds every pair a clean run holds, and says so."""
    import polars as pl

    folder = next(place.out.rglob("manifest.json")).parent
    rows = pl.read_parquet(sorted(folder.glob("results-*.parquet"))).height
    manifest = json.loads((folder / "manifest.json").read_text())
    counted = manifest["counts"]["items_in_results"]
    due = manifest["counts"]["items_eligible"]
    if rows != due or counted != due:
        return f"{rows} rows, manifest says {counted}, {due} due"
    return None


def _identical_pair(frame):
    import polars as pl

    first = pl.int_range(pl.len()) == 0
    return frame.with_columns(
        pl.when(first)
        .then(pl.col("sentence_good"))
        .otherwise(pl.col("sentence_bad"))
        .alias("sentence_bad")
    )


def _zero_width_pair(frame):
    """The first pair's bad sentence made its good one with a zero-width space at the end: a
    different text that BERT's tokenizer makes the same tokens."""
    import polars as pl

    first = pl.int_range(pl.len()) == 0
    return frame.with_columns(
        pl.when(first)
        .then(pl.col("sentence_good") + "\u200b")
        .otherwise(pl.col("sentence_bad"))
        .alias("sentence_bad")
    )


def _one_skipped(reason: str) -> Callable[[Place], str | None]:
    """A check that the run skipped one pair for `reason` (counted), and scored the others: a
    pair its tokenizer cannot tell apart, or of identical sentences, is never scored as a tie."""

    def check(place: Place) -> str | None:
        import polars as pl

        folder = next(place.out.rglob("manifest.json")).parent
        counts = json.loads((folder / "manifest.json").read_text())["counts"]
        rows = pl.read_parquet(sorted(folder.glob("results-*.parquet"))).height
        if counts.get(reason) != 1 or rows != counts["items_eligible"] - 1:
            return f"{reason} {counts.get(reason)}, {rows} rows of {counts['items_eligible']}"
        return None

    return check


def _suite_same_tokens(place: Place) -> list[str]:
    """A BLiMP file with a pair apart by a double space, one by a zero-width space, scored by BERT."""
    double = blimp(GOOD[0], GOOD[0].replace(" ", "  ", 1))
    zero_width = blimp(GOOD[0], GOOD[0] + "\u200b")
    path = place.file("b.jsonl", jsonl(B1, double, zero_width))
    return [path, "--model", str(place.bert), "--pll", "sentence", "--out", str(place.out),
            "--no-progress"]  # fmt: skip


def _suite_same_tokens_skipped(place: Place) -> str | None:
    """The suite's pair of a double space and the one of a zero-width space are skipped."""
    import polars as pl

    folder = next(place.out.rglob("manifest.json")).parent
    counts = json.loads((folder / "manifest.json").read_text())["counts"]
    rows = pl.read_parquet(sorted(folder.glob("suite-*.parquet")))
    if counts["skipped"].get("same-tokens") != 2 or rows.height != 1:
        return f"same-tokens {counts['skipped'].get('same-tokens')}, {rows.height} rows"
    return None


def _suite_chunk_garbled(place: Place) -> list[str]:
    path = place.file("b.jsonl", jsonl(B1, B2))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert (
            _suite([path, "--model", str(place.gpt2), "--out", str(place.out), "--no-progress"])
            == 0
        )
    next(place.out.rglob("suite-*.parquet")).write_bytes(b"garbage")
    return ["suite", str(place.out)]


def _finished_then_a_pair_cut(place: Place, mined: bool) -> tuple[list[str], Path]:
    """A finished pair run, then the last pair cut from a copy of its corpus (`mined`: recorded
    in the manifest as the miner would); the run's command and the corpus's language folder."""
    import polars as pl

    corpus = place.corpus_copy()
    argv = evaluate_run("--chunk-size", "5", corpus=lambda _: corpus)(place)
    with contextlib.redirect_stdout(io.StringIO()):
        assert _evaluate(argv) == 0
    pairs = corpus / "fr" / "pairs.parquet"
    pl.read_parquet(pairs).head(-1).write_parquet(pairs)
    if mined:
        record_fingerprint(pairs)
    return argv, corpus / "fr"


def _resume_after_mining_again(place: Place) -> list[str]:
    """A finished run, then its corpus mined again (a pair fewer, another manifest), then the
    same command with --resume: the results of the old corpus must not stand for the new one."""
    argv, folder = _finished_then_a_pair_cut(place, mined=True)
    manifest = folder / "manifest.json"
    record = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**record, "mined": "again"}))
    return [*argv, "--resume"]


def _resume_after_cutting_pairs_by_hand(place: Place) -> list[str]:
    """A finished run, then a pair cut from its corpus by hand (the manifest unchanged), then the
    same command with --resume: the edited table is refused, never read as the mined one."""
    argv, _ = _finished_then_a_pair_cut(place, mined=False)
    return [*argv, "--resume"]


def _results_unfinished(place: Place) -> list[str]:
    """A run killed after its first chunks (its manifest still says `complete: false`)."""

    def killed(folder: Path) -> None:
        manifest = folder / "manifest.json"
        record = json.loads(manifest.read_text())
        manifest.write_text(json.dumps({**record, "complete": False}))
        sorted(folder.glob("results-*.parquet"))[-1].unlink()

    _finished_then(killed)(place)
    return ["results", str(place.out)]


def _results_after(change: Callable[[Path], None]) -> Callable[[Place], list[str]]:
    """A finished run changed by `change(<its folder>)`, then read by load_results."""

    def setup(place: Place) -> list[str]:
        _finished_then(change)(place)
        return ["results", str(place.out)]

    return setup


def _newer_schema(folder: Path) -> None:
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "schema_version": 99}))


def _same_name_elsewhere(*extra: str) -> Callable[[Place], list[str]]:
    """`x.jsonl` of folder a/ scored, then `x.jsonl` of folder b/ into the same --out."""

    def setup(place: Place) -> list[str]:
        first = place.file("a/x.jsonl", jsonl(B1, B2))
        argv = ["--model", str(place.gpt2), "--out", str(place.out), "--no-progress"]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert _suite([first, *argv]) == 0
        return [place.file("b/x.jsonl", jsonl(B2)), *argv, *extra]

    return setup


def _results_chunk_garbled(place: Place) -> list[str]:
    _finished_then(_garble_chunk)(place)
    return ["results", str(place.out)]


def _held(place: Place) -> list[str]:
    """The run folder held by a live process (this one) on this host."""
    import socket

    folder = place.out / "fr" / "gpt2__pair"
    folder.mkdir(parents=True)
    (folder / ".ud-agree.hold").write_text(
        json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "token": "x"})
    )
    return evaluate_run(model="gpt2")(place)


def _suite_held(place: Place) -> list[str]:
    """A suite's run folder held by a live process (this one) on this host."""
    import socket

    folder = place.out / "b" / "gpt2"
    folder.mkdir(parents=True)
    (folder / ".ud-agree.hold").write_text(
        json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "token": "x"})
    )
    return suite_run("b.jsonl", jsonl(B1))(place)


def _suite_resume_garbled(place: Place) -> list[str]:
    argv = _suite_chunk_garbled(place)
    return [str(place.inp / "b.jsonl"), "--model", str(place.gpt2), "--out", argv[1], "--resume"]


def _out_is_a_file(place: Place) -> list[str]:
    argv = evaluate_run(model="gpt2")(place)
    place.out.parent.mkdir(parents=True, exist_ok=True)
    place.out.write_text("")
    return argv


def _lang_escape(place: Place) -> list[str]:
    copy = place.corpus_copy()
    return evaluate_run(corpus=lambda p: copy, lang="../corpus/fr")(place)


def _report_broken_manifest(place: Place) -> list[str]:
    argv = evaluate_run()(place)
    with contextlib.redirect_stdout(io.StringIO()):
        assert _evaluate(argv) == 0
    next(place.out.rglob("manifest.json")).write_text("{broken")
    return [str(place.out), "--out", str(place.out / "report")]


def _report_no_chunks(place: Place) -> list[str]:
    argv = evaluate_run()(place)
    with contextlib.redirect_stdout(io.StringIO()):
        assert _evaluate(argv) == 0
    for chunk in place.out.rglob("results-*.parquet"):
        chunk.unlink()
    return [str(place.out), "--out", str(place.out / "report")]


def corpus_cases() -> list[Case]:
    """Tampered corpora, options, model folders, results folders."""
    E, T = evaluate_run, tamper
    cases = [
        Case("lang/parent-path", "evaluate", _lang_escape, 2, "--lang"),
        Case("lang/slash", "evaluate", E(lang="fr/"), 2, "--lang"),
        Case("lang/dot-dot", "evaluate", E(lang=".."), 2, "--lang"),
        Case("lang/absolute", "evaluate", E(lang="/tmp"), 2, "--lang"),
        Case("lang/empty", "evaluate", E(lang=""), 2, "--lang"),
        Case("lang/unknown", "evaluate", E(lang="xx"), 2, "xx"),
        Case("lang/other-language-inside", "evaluate", E(corpus=T(_as_other_language)), 2, "de"),
        Case(
            "corpus/missing-folder",
            "evaluate",
            lambda p: E(corpus=lambda q: q.inp / "nope")(p),
            2,
            "nope",
        ),
        Case(
            "corpus/manifest-absent",
            "evaluate",
            E(corpus=T(_remove("manifest.json"))),
            2,
            "manifest.json",
        ),
        Case(
            "corpus/manifest-empty",
            "evaluate",
            E(corpus=T(_write("manifest.json", ""))),
            2,
            "manifest.json",
        ),
        Case(
            "corpus/manifest-invalid",
            "evaluate",
            E(corpus=T(_write("manifest.json", "{oops"))),
            2,
            "manifest.json",
        ),
        Case(
            "corpus/manifest-a-list",
            "evaluate",
            E(corpus=T(_write("manifest.json", "[]"))),
            2,
            "manifest.json",
        ),
        Case(
            "corpus/relations-garbage",
            "evaluate",
            E(corpus=T(_write("relations.parquet", b"garbage"))),
            2,
            "relations.parquet",
        ),
        Case(
            "corpus/sentences-missing",
            "evaluate",
            E(corpus=T(_remove("sentences.parquet"))),
            2,
            "sentences.parquet",
        ),
        Case(
            "corpus/pairs-missing",
            "evaluate",
            E(corpus=T(_remove("pairs.parquet"))),
            2,
            "pairs.parquet",
        ),
        Case(
            "corpus/pairs-empty-file",
            "evaluate",
            E(corpus=T(_write("pairs.parquet", b""))),
            2,
            "pairs.parquet",
        ),
        Case(
            "corpus/lexicon-truncated",
            "evaluate",
            E(corpus=T(_write("lexicon.parquet", b"PAR1\x00\x00PAR1"))),
            2,
            "lexicon.parquet",
        ),
        Case(
            "corpus/sentences-no-words",
            "evaluate",
            E(corpus=T(_table("sentences", lambda f: f.drop("words")))),
            2,
            "words",
        ),
        Case(
            "corpus/sentences-null-words",
            "evaluate",
            E(model="gpt2", corpus=T(_table("sentences", _null_words))),
            2,
            "sentences.parquet",
        ),
        Case(
            "corpus/sentences-null-words-frequency",
            "evaluate",
            E(corpus=T(_table("sentences", _null_words))),
            2,
            "sentences.parquet",
        ),
        Case(
            "corpus/relations-empty",
            "evaluate",
            E("--reading", "class-average", corpus=T(_table("relations", lambda f: f.head(0)))),
            2,
            "nothing",
        ),
        Case(
            "corpus/pairs-empty",
            "evaluate",
            E(corpus=T(_table("pairs", lambda f: f.head(0)))),
            2,
            "nothing",
        ),
        Case(
            "corpus/pairs-cut-by-hand",
            "evaluate",
            E(corpus=T(_table("pairs", lambda f: f.head(-1), mined=False))),
            2,
            "pairs.parquet changed since it was mined",
        ),
        Case(
            "corpus/pairs-identical",
            "evaluate",
            E(model="gpt2", corpus=T(_table("pairs", _identical_pair))),
            0,
            "identical 1",
            _one_skipped("identical"),
        ),
        Case(
            "corpus/pairs-same-tokens",
            "evaluate",
            E(model="bert", corpus=T(_table("pairs", _zero_width_pair))),
            0,
            "same-tokens 1",
            _one_skipped("same-tokens"),
        ),
        # options
        Case("option/chunk-size-0", "evaluate", E("--chunk-size", "0"), 2, "--chunk-size"),
        Case("option/chunk-size-negative", "evaluate", E("--chunk-size", "-1"), 2, "--chunk-size"),
        Case("option/batch-size-0", "evaluate", E("--batch-size", "0"), 2, "--batch-size"),
        Case("option/limit-negative", "evaluate", E("--limit", "-1"), 2, "--limit"),
        Case("option/limit-0", "evaluate", E("--limit", "0"), 2, "nothing"),
        Case("option/max-tokens-0", "evaluate", E("--max-tokens", "0"), 2, "--max-tokens"),
        Case(
            "option/rule-slor-class-average",
            "evaluate",
            lambda p: [*E()(p), "--reading", "class-average", "--rule", "slor"],
            2,
            "--rule",
        ),
        Case("option/rule-unknown", "evaluate", E("--rule", "nope"), 2, "--rule"),
        Case(
            "option/vocab-of-missing",
            "evaluate",
            lambda p: [*E()(p), "--reading", "class-average", "--vocab-of", str(p.inp / "nope")],
            2,
            "nope",
        ),
        Case(
            "option/vocab-of-no-tokenizer",
            "evaluate",
            lambda p: [
                *E()(p),
                *("--reading", "class-average", "--vocab-of"),
                str(MODEL_MUTATIONS["no-tokenizer"](p)),
            ],
            2,
            "tokenizer",
        ),
        Case(
            "option/vocab-of-pair-reading",
            "evaluate",
            lambda p: [*E()(p), "--vocab-of", str(p.gpt2)],
            2,
            "--vocab-of",
        ),
        Case(
            "option/vocab-of-with-model",
            "evaluate",
            lambda p: [*E(model="gpt2")(p), "--vocab-of", str(p.gpt2)],
            2,
            "--vocab-of",
        ),
        Case("option/shard-out-of-range", "evaluate", E("--shard", "3/2"), 2, "--shard"),
        Case("option/shard-garbage", "evaluate", E("--shard", "x"), 2, "--shard"),
        Case(
            "option/min-candidates-0", "evaluate", E("--min-candidates", "0"), 2, "--min-candidates"
        ),
        Case("option/control-pair", "evaluate", E("--control", "no-context"), 2, "--control"),
        Case(
            "option/model-missing", "evaluate", lambda p: E(model=str(p.inp / "nope"))(p), 2, "nope"
        ),
        # output folders
        Case("out/held", "evaluate", _held, 2, "in use by pid"),
        Case("out/suite-held", "suite", _suite_held, 2, "in use by pid"),
        Case(
            "resume/suite-chunk-garbled", "suite", _suite_resume_garbled, 2, "suite-00000.parquet"
        ),
        Case("out/a-file", "evaluate", _out_is_a_file, 1, "out"),
        # model folders
        *(
            Case(f"model/{name}", "evaluate", E(model=f"@{name}"), 2, word)
            for name, word in (
                ("no-tokenizer", "tokenizer"),
                ("no-config", "config.json"),
                ("no-weights", "weights"),
                ("garbage-config", "config.json"),
                ("config-a-list", "config.json"),
                ("unknown-model-type", "config.json"),
                ("truncated-weights", "model.safetensors"),
                ("garbage-weights", "model.safetensors"),
                ("garbage-tokenizer", "tokenizer"),
                ("empty-vocabulary", "no tokens"),
            )
        ),
        *(
            Case(
                f"suite-model/{name}",
                "suite",
                lambda p, n=name: [
                    p.file("b.jsonl", jsonl(B1)),
                    "--model",
                    str(MODEL_MUTATIONS[n](p)),
                    "--out",
                    str(p.out),
                ],
                2,
                word,
            )
            for name, word in (
                ("no-tokenizer", "tokenizer"),
                ("truncated-weights", "model.safetensors"),
                ("empty-vocabulary", "no tokens"),
            )
        ),
        # results folders
        Case(
            "resume/finished-chunk-deleted",
            "evaluate",
            _finished_then(_drop_chunk, "--resume"),
            0,
            "",
            _rows_match_corpus,
        ),
        Case(
            "resume/finished-chunk-garbled",
            "evaluate",
            _finished_then(_garble_chunk, "--resume"),
            2,
            "results-00001.parquet",
        ),
        Case(
            "resume/manifest-garbled",
            "evaluate",
            _finished_then(_write("manifest.json", "{x"), "--resume"),
            2,
            "manifest.json",
        ),
        Case(
            "results/load-suite-results-garbled",
            "api",
            _suite_chunk_garbled,
            2,
            "suite-00000.parquet",
        ),
        Case(
            "results/load-results-garbled",
            "api",
            _results_chunk_garbled,
            2,
            "results-00001.parquet",
        ),
        Case("resume/corpus-mined-again", "evaluate", _resume_after_mining_again, 2, "mined again"),
        Case(
            "resume/pairs-cut-by-hand",
            "evaluate",
            _resume_after_cutting_pairs_by_hand,
            2,
            "pairs.parquet changed since it was mined",
        ),
        Case(
            "resume/stray-chunk-copy",
            "evaluate",
            _finished_then(_copy_chunk, "--resume"),
            2,
            "not a chunk of this run",
        ),
        Case("results/load-results-stray-chunk-copy", "api", _results_stray_copy, 2, "(copy)"),
        Case("results/load-results-unfinished", "api", _results_unfinished, 2, "never finished"),
        Case(
            "results/load-results-newer-schema",
            "api",
            _results_after(_newer_schema),
            2,
            "written by a newer ud-agree",
        ),
        Case(
            "results/load-results-manifest-deleted",
            "api",
            _results_after(_remove("manifest.json")),
            2,
            "no manifest.json beside its results",
        ),
        Case(
            "suite/same-name-elsewhere", "suite", _same_name_elsewhere(), 2, "holds the results of"
        ),
        Case(
            "suite/same-name-elsewhere-force",
            "suite",
            _same_name_elsewhere("--force"),
            0,
            "",
            scored(1),
        ),
        # what the report says of these is the report's (issue 34, point 3): here no traceback
        Case("report/broken-manifest", "report", _report_broken_manifest, None),
        Case("report/no-chunks", "report", _report_no_chunks, None),
        Case("report/empty-folder", "report", lambda p: [str(p.inp), "--out", str(p.out)], 2),
    ]
    return cases


def all_cases() -> list[Case]:
    return [*suite_cases(), *corpus_cases()]


# ---------------------------------------------------------------- the table


def main(argv: list[str] | None = None) -> int:
    """Print the case table for the code `python` imports (`--root`: the checkout whose sample
    is mined; `--shared`: the shared data)."""
    import tempfile

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--root", type=Path, default=Path.cwd())
    p.add_argument("--shared", type=Path, default=None)
    p.add_argument("--only", default="", help="cases whose name holds this")
    args = p.parse_args(argv)
    shared = args.shared or args.root.parent / "shared"
    with tempfile.TemporaryDirectory(prefix="faults-") as work:
        base = Path(work)
        corpus = mine_sample(args.root, base / "corpus")
        gpt2, bert = build_models(shared, base / "models")
        counts = {"cases": 0, "as due": 0, "tracebacks": 0, "silent wrong": 0, "outside --out": 0,
                  "partial": 0}  # fmt: skip
        print("| case | exit | traceback | partial | outside | message / problem |")
        print("|---|---|---|---|---|---|")
        for number, case in enumerate(all_cases()):
            if args.only not in case.name:
                continue
            place = Place(base / f"case-{number}", corpus, gpt2, bert)
            seen = run_case(case, place)
            problems = problems_of(case, seen)
            counts["cases"] += 1
            counts["as due"] += not problems
            counts["tracebacks"] += seen.traceback
            counts["silent wrong"] += seen.wrong is not None
            counts["outside --out"] += bool(seen.outside)
            counts["partial"] += seen.partial
            said = [line for line in seen.stdout.splitlines() if "skipped:" in line]
            message = said[0].split("; ", 1)[-1] if said and seen.code == 0 else seen.message
            message = message.replace("|", "/")[:110]
            if seen.traceback:
                message = [line for line in seen.stderr.splitlines() if line.strip()][-1][:110]
            note = f" **{'; '.join(problems)[:80]}**" if problems else ""
            print(f"| {case.name} | {seen.code} | {'yes' if seen.traceback else ''} | "
                  f"{'yes' if seen.partial else ''} | {'yes' if seen.outside else ''} | "
                  f"{message}{note} |", flush=True)  # fmt: skip
        print()
        print(", ".join(f"{k}: {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
