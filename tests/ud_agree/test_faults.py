"""Faults of the machine, not of the input: a write that fails (no space) is one line naming the
path, exit 1, no partial file, and a resumed run equals a clean one; one process per run folder;
the miner's workers never outlive it."""

from __future__ import annotations

import errno
import json
import lzma
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.cli import main as evaluate_main
from ud_agree.evaluate.output.results import load_results
from ud_agree.mine.cli import main as mine_main
from ud_agree.mine.export import main as export_main

import ud_agree.atomic
import ud_agree.errors
from tests.paths import PUD, SAMPLE, UD
from ud_agree.errors import UserError
from ud_agree.hold import NAME, HeldError, acquire, hold, is_stale
from ud_agree.schemas.results import ITEM_KEY


@pytest.fixture
def no_space_at(monkeypatch):
    """Make the k-th atomic write from now on fail as a full disk would (the one write module)."""

    def arm(k: int) -> None:
        calls = {"n": 0}
        real = os.replace

        def replace(src, dst):
            calls["n"] += 1
            if calls["n"] == k:
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(src, dst)

        monkeypatch.setattr(ud_agree.atomic.os, "replace", replace)

    return arm


def temporaries(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp") or p.name == ".parts"]


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    errors = [line for line in err if line.startswith("error:")]
    assert len(errors) == 1 and not any("Traceback" in line for line in err), err
    return errors[0]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    args = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    assert mine_main([*args, "--lang", "fr", "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    return out


def evaluate(corpus: Path, out: Path, *extra: str) -> int:
    args = ["--lang", "fr", "--corpus", str(corpus), "--model", "frequency", "--out", str(out)]
    args += ["--reading", "pair", "--chunk-size", "5", "--no-progress", *extra]
    return evaluate_main(args)


def rows(out: Path) -> pl.DataFrame:
    return load_results(out).collect().sort(list(ITEM_KEY), nulls_last=True)


def test_evaluator_out_of_space_is_one_line_and_a_resume_equals_a_clean_run(
    corpus, tmp_path, capsys, no_space_at
):
    assert evaluate(corpus, tmp_path / "clean") == 0
    capsys.readouterr()
    no_space_at(3)  # the manifest, a chunk, then the disk is full
    assert evaluate(corpus, tmp_path / "full") == 1
    message = one_line(capsys)
    assert "no space left on device on" in message and "/results-00001.parquet" in message
    # The chunks written whole before the fault; load_results refuses the unfinished run.
    with pytest.raises(UserError, match="never finished"):
        rows(tmp_path / "full")
    saved = pl.read_parquet(sorted((tmp_path / "full").rglob("results-*.parquet"))).height
    assert saved > 0 and f"{saved} items are saved" in message and "--resume" in message
    assert temporaries(tmp_path / "full") == []
    no_space_at(0)  # the disk has room again
    assert evaluate(corpus, tmp_path / "full", "--resume") == 0
    clean, resumed = rows(tmp_path / "clean"), rows(tmp_path / "full")
    assert resumed.drop("model").equals(clean.drop("model"))


def test_miner_out_of_space_leaves_no_parts_and_a_rerun_equals_a_clean_run(
    tmp_path, capsys, no_space_at
):
    args = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    args += ["--lang", "fr", "--quiet", "--jobs", "1"]
    assert mine_main([*args, "--out", str(tmp_path / "clean")]) == 0
    no_space_at(2)
    assert mine_main([*args, "--out", str(tmp_path / "full")]) == 1
    assert "no space left on device on " + str(tmp_path / "full" / "fr") in one_line(capsys)
    assert temporaries(tmp_path / "full") == []
    no_space_at(0)
    assert mine_main([*args, "--out", str(tmp_path / "full")]) == 0
    for table in ("relations", "sentences", "lexicon", "pairs"):
        clean = pl.read_parquet(tmp_path / "clean" / "fr" / f"{table}.parquet")
        assert pl.read_parquet(tmp_path / "full" / "fr" / f"{table}.parquet").equals(clean)


def test_export_out_of_space_keeps_the_old_file(corpus, tmp_path, capsys, no_space_at):
    pairs = corpus / "fr" / "pairs.parquet"
    out = tmp_path / "pairs.jsonl"
    out.write_text("old")
    no_space_at(1)
    assert export_main([str(pairs), "--format", "blimp", "--out", str(out), "--force"]) == 1
    assert str(out) in one_line(capsys)
    assert out.read_text() == "old" and temporaries(tmp_path) == []


def test_permission_denied_is_one_line_exit_1(corpus, tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert evaluate(corpus, locked / "out") == 1
    assert "permission denied" in one_line(capsys)


def test_a_second_run_on_a_held_folder_stops_at_once_naming_the_holder(corpus, tmp_path, capsys):
    run = tmp_path / "r" / "fr" / "frequency-baseline__pair"
    with hold(run):
        started = time.time()
        assert evaluate(corpus, tmp_path / "r") == 2
        message = one_line(capsys)
        assert f"pid {os.getpid()}" in message and socket.gethostname() in message
        assert time.time() - started < 10
    assert not (run / NAME).exists()  # given back
    assert evaluate(corpus, tmp_path / "r") == 0


def test_a_hold_of_a_dead_process_is_taken_over(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    path = tmp_path / NAME
    record = {"host": socket.gethostname(), "pid": int(dead.stdout), "token": "x"}
    path.write_text(json.dumps(record))
    assert is_stale(path)
    with hold(tmp_path):
        assert json.loads(path.read_text())["pid"] == os.getpid()


def test_a_hold_of_another_host_is_stale_only_when_it_stops_beating(tmp_path):
    path = tmp_path / NAME
    path.write_text(json.dumps({"host": "elsewhere", "pid": 1, "token": "x"}))
    with pytest.raises(HeldError, match="pid 1 on host elsewhere"):
        acquire(tmp_path)
    old = time.time() - 3600
    os.utime(path, (old, old))  # the node was lost an hour ago
    taken, _ = acquire(tmp_path)
    assert json.loads(taken.read_text())["host"] == socket.gethostname()


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of `pids` that still run (zombies count as gone)."""
    running = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.add(pid)
    return running


@pytest.mark.skipif(not Path("/proc").is_dir() or not PUD.is_dir(), reason="Linux /proc, shared UD")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_the_miners_workers_never_outlive_it(tmp_path, sig):
    # With SIGKILL, the default command (a progress bar, made only once the workers are forked).
    quiet = ["--quiet"] if sig == signal.SIGTERM else []
    command = [sys.executable, "-m", "ud_agree.mine", "--ud-dir", str(UD), "--lang", "fr", "en",
               "pt", "de", "--jobs", "2", "--out", str(tmp_path / "c"), *quiet]  # fmt: skip
    miner = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    workers: set[int] = set()
    deadline = time.time() + 60
    while len(workers) < 2 and time.time() < deadline and miner.poll() is None:
        time.sleep(0.2)  # its two workers, forked from the command itself (no fork server)
        workers = {p for p in descendants(miner.pid) if _cmdline(p) == _cmdline(miner.pid)}
    assert len(workers) >= 2, "the pool never started"
    assert not [p for p in descendants(miner.pid) if "forkserver" in _cmdline(p)]
    miner.send_signal(sig)
    _, err = miner.communicate(timeout=60)
    if sig == signal.SIGTERM:
        assert miner.returncode == 143 and err.strip().splitlines()[-1].startswith("terminated")
        assert temporaries(tmp_path / "c") == []
    deadline = time.time() + 10
    while alive(workers) and time.time() < deadline:
        time.sleep(0.2)
    assert alive(workers) == set()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture
def small_disk(tmp_path):
    """A real 300 KB tmpfs (root on Linux only), grown to 50 MB by calling the fixture's value."""
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        pytest.skip("mounting a tmpfs needs root on Linux")
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(mount)],
                          capture_output=True)  # fmt: skip
    if made.returncode != 0:
        pytest.skip("tmpfs cannot be mounted here")

    def grow() -> None:
        subprocess.run(["mount", "-o", "remount,size=50m", str(mount)], check=True)

    try:
        yield mount, grow
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_real_full_disk_then_a_resume(corpus, tmp_path, capsys, small_disk):
    pud = tmp_path / "ud"
    pud.mkdir()
    if not PUD.is_dir():
        pytest.skip("shared French-PUD not present")
    (pud / PUD.name).symlink_to(PUD)
    mount, grow = small_disk
    assert mine_main(["--ud-dir", str(pud), "--out", str(mount / "c"), "--quiet"]) == 1
    assert "no space left on device on " + str(mount / "c" / "fr") in one_line(capsys)
    assert temporaries(mount) == []
    grow()
    assert mine_main(["--ud-dir", str(pud), "--out", str(mount / "c"), "--quiet"]) == 0
    assert mine_main(["--ud-dir", str(pud), "--out", str(tmp_path / "clean"), "--quiet"]) == 0
    for table in ("relations", "pairs", "lexicon"):
        clean = pl.read_parquet(tmp_path / "clean" / "fr" / f"{table}.parquet")
        assert pl.read_parquet(mount / "c" / "fr" / f"{table}.parquet").equals(clean)


def test_an_unreadable_chunk_is_named_when_resuming_and_when_reading(corpus, tmp_path, capsys):
    from ud_agree.errors import UserError

    assert evaluate(corpus, tmp_path / "r") == 0
    chunk = sorted((tmp_path / "r").rglob("results-*.parquet"))[1]
    chunk.write_bytes(b"not parquet")
    manifest = chunk.parent / "manifest.json"  # as a killed run leaves it: --resume goes on
    manifest.write_text(manifest.read_text().replace('"complete": true', '"complete": false'))
    capsys.readouterr()
    assert evaluate(corpus, tmp_path / "r", "--resume") == 2
    assert f"results chunk {chunk} is unreadable" in one_line(capsys)
    with pytest.raises(UserError, match=f"results chunk {chunk} is unreadable"):
        load_results(tmp_path / "r")


def test_a_temporary_that_cannot_be_created_is_named_by_its_target(tmp_path, monkeypatch):
    real = os.open

    def refuse(path, flags, mode=0o777, **kwargs):
        if str(path).endswith(".tmp"):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real(path, flags, mode, **kwargs)

    monkeypatch.setattr(ud_agree.atomic.os, "open", refuse)
    target = tmp_path / "p.jsonl"
    with pytest.raises(ud_agree.errors.MachineError) as caught:
        ud_agree.atomic.write_bytes(b"x", target)
    assert str(caught.value) == f"read-only file system on {target}"


def test_a_report_that_cannot_be_written_is_the_machines_fault(corpus, tmp_path, capsys):
    from ud_agree.evaluate.report.html import main as report_main

    assert evaluate(corpus, tmp_path / "results") == 0
    capsys.readouterr()
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("")
    assert report_main([str(tmp_path / "results"), "--out", str(in_the_way / "report")]) == 1
    line = one_line(capsys)
    assert "not a directory" in line and str(in_the_way) in line


# ---------------------------------------------------------------- hostile input to the miner's tools


def _unimorph_with(tmp_path: Path, name: str, content: bytes) -> list[str]:
    """`python -m mine` arguments over the sample, its French UniMorph folder holding `content`."""
    root = tmp_path / "unimorph"
    (root / "fra").mkdir(parents=True)
    (root / "fra" / name).write_bytes(content)
    return ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(root), "--lang", "fr"]


def _latin1_line(tmp_path: Path) -> list[str]:
    paradigms = (SAMPLE / "unimorph" / "fra" / "fra").read_bytes().split(b"\n")
    paradigms[2] = paradigms[2].replace("é".encode(), b"\xe9", 1)  # one Latin-1 byte, line 3
    return _unimorph_with(tmp_path, "fra", b"\n".join(paradigms))


def _damaged_xz(tmp_path: Path) -> list[str]:
    data = lzma.compress((SAMPLE / "unimorph" / "fra" / "fra").read_bytes())
    return _unimorph_with(tmp_path, "fra.xz", data[: len(data) // 2])


def _multiblimp_without_sen(tmp_path: Path) -> list[str]:
    header = ["wrong_sen", "head", "head_idx", "child", "child_idx", "swap_head", "metadata",
              "phenomenon", "grammatical_feature", "ungrammatical_feature", "lang"]  # fmt: skip
    row = ["Le chat dorment .", "dort", "3", "chat", "2", "", "{}", "SV-#", "SG", "PL", "fra"]
    path = tmp_path / "data.tsv"
    path.write_text("\t".join(header) + "\n" + "\t".join(row) + "\n", encoding="utf-8")
    return [str(path)]


def _sample_mined_here(tmp_path: Path) -> tuple[Path, Path]:
    """The sample's French treebank copied under `tmp_path` and mined there: (UD folder, corpus)."""
    ud = tmp_path / "ud"
    shutil.copytree(SAMPLE / "ud" / "UD_French-Sample", ud / "UD_French-Sample")
    args = ["--ud-dir", str(ud), "--unimorph-dir", str(SAMPLE / "unimorph"), "--lang", "fr"]
    assert mine_main([*args, "--out", str(tmp_path / "corpus"), "--quiet", "--jobs", "1"]) == 0
    return ud, tmp_path / "corpus"


def _edit_after_mining(ud: Path) -> None:
    """The treebank as a new release changes it: a comment line more at its top."""
    conllu = ud / "UD_French-Sample" / "fr_sample-ud-test.conllu"
    conllu.write_text("# newdoc id = release-2\n" + conllu.read_text(encoding="utf-8"))


def _compare_after_a_change(tmp_path: Path, corpus: Path) -> list[str]:
    ud, mined = _sample_mined_here(tmp_path)
    table = tmp_path / "pairs.tsv"  # MultiBLiMP rows of the corpus's own sentences
    assert export_main([str(mined / "fr" / "pairs.parquet"), "--format", "multiblimp",
                        "--out", str(table)]) == 0  # fmt: skip
    _edit_after_mining(ud)
    return [str(table), "--corpus", str(mined), "--out", "classed.tsv"]


def _compare_lang_dot_dot(tmp_path: Path, corpus: Path) -> list[str]:
    """MultiBLiMP rows of the corpus's own sentences, one row's `lang` a path out of --corpus."""
    table = tmp_path / "pairs.tsv"
    assert export_main([str(corpus / "fr" / "pairs.parquet"), "--format", "multiblimp",
                        "--out", str(table)]) == 0  # fmt: skip
    rows = pl.read_csv(table, separator="\t", infer_schema_length=0)
    rows = rows.with_columns(lang=pl.when(pl.int_range(pl.len()) == 1).then(pl.lit("../fr"))
                             .otherwise(pl.col("lang")))  # fmt: skip
    rows.write_csv(table, separator="\t")
    return [str(table), "--corpus", str(corpus / "fr"), "--out", "classed.tsv"]


def _export_after_a_change(tmp_path: Path, corpus: Path) -> list[str]:
    ud, mined = _sample_mined_here(tmp_path)
    _edit_after_mining(ud)
    return [str(mined / "fr" / "pairs.parquet"), "--format", "multiblimp", "--out", "p.tsv"]


def _file_named_dot_dot(tmp_path: Path, corpus: Path) -> list[str]:
    """A treebank whose file name gives the language code `..` (the output folder out/..)."""
    folder = tmp_path / "ud" / "UD_Xx-Test"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE / "ud" / "UD_French-Sample" / "fr_sample-ud-test.conllu",
                folder / ".._test-ud-test.conllu")  # fmt: skip
    return ["--ud-dir", str(tmp_path / "ud"), "--out", "out"]


def _own_table_in(tmp_path: Path) -> list[str]:
    """`--out` whose fr/ holds a pairs table of one's own (no miner's manifest beside it)."""
    (tmp_path / "mine" / "fr").mkdir(parents=True)
    (tmp_path / "mine" / "fr" / "pairs.parquet").write_bytes(b"a table edited by hand")
    return [*_sample_with(), "--out", str(tmp_path / "mine")]


def _sample_with(*option: str) -> list[str]:
    """The sample's French mined with `option` (given last: the case's value is the one read)."""
    args = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    return [*args, "--lang", "fr", "--out", "out", "--quiet", *option]


def _pairs_of_lang(tmp_path: Path, corpus: Path, lang: str) -> Path:
    pairs = pl.read_parquet(corpus / "fr" / "pairs.parquet").with_columns(lang=pl.lit(lang))
    (tmp_path / "bad" / "fr").mkdir(parents=True)
    pairs.write_parquet(tmp_path / "bad" / "fr" / "pairs.parquet")
    return tmp_path / "bad"


def _export_lang(layout: str, lang: str | None) -> Callable[[Path, Path], list[str]]:
    """Pairs whose `lang` is `lang` (None: an absolute path under tmp_path), exported."""

    def make(tmp_path: Path, corpus: Path) -> list[str]:
        pairs = _pairs_of_lang(tmp_path, corpus, lang or str(tmp_path / "elsewhere"))
        return [str(pairs), "--format", layout, "--out", "exported"]

    return make


def _export_again(
    layout: str, *extra: str, own: str | None = None, first: str | None = None
) -> Callable[[Path, Path], list[str]]:
    """An export of `layout` into the folder of an earlier one (of `first`, default the same
    layout; holding the user's file `own` too, where given), with `extra` options."""

    def make(tmp_path: Path, corpus: Path) -> list[str]:
        out = tmp_path / "exported"
        assert export_main([str(corpus), "--format", first or layout, "--out", str(out)]) == 0
        if own:
            (out / own).parent.mkdir(parents=True, exist_ok=True)
            (out / own).write_text("the user's own notes")
        return [str(corpus), "--format", layout, "--out", str(out), *extra]

    return make


def _writing_over(tool: str, name: str, layout: str = "blimp") -> Callable:
    """`tool` (export in `layout`, or compare) on a copy of the corpus, with `--out` its file
    `name` (`data.tsv`: compare's own MultiBLiMP file)."""

    def make(tmp_path: Path, corpus: Path) -> list[str]:
        copy = tmp_path / "corpus"
        shutil.copytree(corpus, copy)
        out = str(tmp_path / name) if name == "data.tsv" else str(copy / "fr" / name)
        if tool == "export":
            return [str(copy / "fr" / "pairs.parquet"), "--format", layout, "--out", out]
        return [*_multiblimp_without_sen(tmp_path), "--corpus", str(copy), "--out", out]

    return make


def _file_there(layout: str, folder: bool = False) -> Callable:
    """An export of `layout` whose `--out` already holds a file of the user's (or is a folder)."""

    def make(tmp_path: Path, corpus: Path) -> list[str]:
        out = tmp_path / "mine.out"
        out.mkdir() if folder else out.write_text("the user's own edits")
        return [str(corpus / "fr" / "pairs.parquet"), "--format", layout, "--out", str(out)]

    return make


def _edited_pairs(layout: str, change: Callable[[pl.DataFrame], pl.DataFrame]) -> Callable:
    """The sample's pairs changed by `change`, saved as a table of one's own, exported."""

    def make(tmp_path: Path, corpus: Path) -> list[str]:
        path = tmp_path / "edited.parquet"
        change(pl.read_parquet(corpus / "fr" / "pairs.parquet")).write_parquet(path)
        return [str(path), "--format", layout, "--out", str(tmp_path / "exported")]

    return make


def _a_null(column: str) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda f: f.with_columns(
        pl.when(pl.int_range(pl.len()) == 1).then(None).otherwise(pl.col(column)).alias(column)
    )


def _corpus_changed(layout: str, how: str) -> Callable[[Path, Path], list[str]]:
    """A copy of the corpus whose pairs were cut by hand (`cut`), or whose French folder was
    copied under another name (`copied`: two tables of one language), exported whole."""

    def make(tmp_path: Path, corpus: Path) -> list[str]:
        copy = tmp_path / "corpus"
        shutil.copytree(corpus, copy)
        if how == "cut":
            pairs = copy / "fr" / "pairs.parquet"
            pl.read_parquet(pairs).head(3).write_parquet(pairs)
        else:
            shutil.copytree(copy / "fr", copy / "fr-copy")
        return [str(copy), "--format", layout, "--out", str(tmp_path / "exported")]

    return make


def _export_over_own_files(tmp_path: Path, corpus: Path) -> list[str]:
    """An --out folder holding the user's own files: an export, which replaces its folder
    whole, must not remove them."""
    own = tmp_path / "thesis"
    own.mkdir()
    (own / "chapter1.tex").write_text("kept")
    return [str(corpus), "--format", "hf", "--out", str(own)]


MINER_CASES: dict[str, tuple[str, Callable[[Path, Path], list[str]], str]] = {
    # name: (tool, argv made in tmp_path from the sample corpus, words of the error)
    "unimorph/latin-1-byte": ("mine", lambda p, c: _latin1_line(p), "fra:3: not valid UTF-8"),
    "unimorph/damaged-xz": ("mine", lambda p, c: _damaged_xz(p), "fra.xz: cannot read this UniMorph"),
    "mine/out-empty": ("mine", lambda p, c: ["--ud-dir", str(SAMPLE / "ud"), "--out", ""], "--out"),
    "mine/file-named-dot-dot": ("mine", _file_named_dot_dot, "'..' cannot name a folder"),
    "mine/lang-dot-dot": (
        "mine", lambda p, c: ["--ud-dir", str(SAMPLE / "ud"), "--lang", ".."], "--lang .."
    ),
    "mine/over-a-table-of-ones-own": ("mine", lambda p, c: _own_table_in(p), "which the miner did not write"),
    "mine/nonce-negative": ("mine", lambda p, c: _sample_with("--nonce", "-1"), "--nonce: -1"),
    "mine/seed-negative": ("mine", lambda p, c: _sample_with("--seed", "-1"), "--seed: -1"),
    "mine/jobs-zero": ("mine", lambda p, c: _sample_with("--jobs", "0"), "--jobs: 0"),
    "mine/jobs-negative": ("mine", lambda p, c: _sample_with("--jobs", "-2"), "--jobs: -2"),
    "mine/nonce-not-a-number": ("mine", lambda p, c: _sample_with("--nonce", "2.5"), "--nonce"),
    "compare/no-sen-column": (
        "compare", lambda p, c: [*_multiblimp_without_sen(p), "--corpus", str(c)], "no column sen"
    ),
    "compare/out-empty": (
        "compare", lambda p, c: [*_multiblimp_without_sen(p), "--corpus", str(c), "--out", ""], "--out"
    ),
    "compare/lang-dot-dot": ("compare", _compare_lang_dot_dot, "pairs.tsv:3: lang: '../fr'"),
    "compare/conllu-changed-since-mining": (
        "compare", _compare_after_a_change, "changed since the corpus was mined"
    ),
    "export/out-empty": ("export", lambda p, c: [str(c), "--format", "hf", "--out", ""], "--out"),
    "export/multiblimp-conllu-changed-since-mining": (
        "export", _export_after_a_change, "changed since the corpus was mined"
    ),
    "export/hf-lang-dot-dot": ("export", _export_lang("hf", "../x"), "'../x' cannot name a folder"),
    "export/hf-lang-absolute": ("export", _export_lang("hf", None), "cannot name a folder"),
    "export/lm-eval-lang-dot-dot": (
        "export", _export_lang("lm-eval", ".."), "'..' cannot name a folder"
    ),
    "export/blimp-over-an-earlier-file": ("export", _file_there("blimp"), "exists: --force"),
    "export/clams-into-a-folder": ("export", _file_there("clams", folder=True), "is a folder"),
    "export/blimp-over-its-pairs": ("export", _writing_over("export", "pairs.parquet"), "reads"),
    "export/clams-over-a-corpus-table": (
        "export", _writing_over("export", "sentences.parquet", "clams"), "sentences.parquet, which"
    ),
    "export/multiblimp-over-the-manifest": (
        "export", _writing_over("export", "manifest.json", "multiblimp"), "manifest.json, which"
    ),
    "compare/over-its-multiblimp-file": (
        "compare", _writing_over("compare", "data.tsv"), "data.tsv, which it reads"
    ),
    "compare/over-a-corpus-table": (
        "compare", _writing_over("compare", "pairs.parquet"), "pairs.parquet, which it reads"
    ),
    "export/clams-null-sentence": (
        "export", _edited_pairs("clams", _a_null("sentence_bad")), "sentence_bad is null in row 2"
    ),
    "export/hf-derived-as-text": (
        "export", _edited_pairs("hf", lambda f: f.with_columns(pl.col("derived").list.join("+"))),
        "column derived holds text, not lists of text",
    ),
    "export/hf-lang-null": ("export", _edited_pairs("hf", _a_null("lang")), "lang is null"),
    "export/blimp-target-id-as-text": (
        "export", _edited_pairs("blimp", lambda f: f.with_columns(pl.col("target_id").cast(str))),
        "column target_id holds text, not integers",
    ),
    "export/blimp-unknown-type": (
        "export", _edited_pairs("blimp", lambda f: f.with_columns(type=pl.lit("weird"))),
        "column type holds 'weird'",
    ),
    "export/lm-eval-no-pair": ("export", _edited_pairs("lm-eval", pl.DataFrame.clear), "no pairs"),
    "export/hf-pairs-cut-by-hand": (
        "export", _corpus_changed("hf", "cut"), "pairs.parquet changed since it was mined"
    ),
    "export/lm-eval-a-language-in-two-folders": (
        "export", _corpus_changed("lm-eval", "copied"), "pairs of fr, as "
    ),
    "export/hf-rerun-without-force": ("export", _export_again("hf"), "an earlier hf export (fr)"),
    "export/lm-eval-rerun-without-force": (
        "export", _export_again("lm-eval"), "--force replaces it whole"
    ),
    "export/hf-rerun-over-an-export-holding-own-files": (
        "export", _export_again("hf", "--force", own="fr/notes.txt"), "holds fr/notes.txt"
    ),
    "export/lm-eval-over-an-hf-export-without-force": (
        "export", _export_again("lm-eval", first="hf"), "an earlier hf export (fr)"
    ),
    "export/hf-over-a-folder-of-own-files": (
        "export", _export_over_own_files, "not a hf export"
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(MINER_CASES))
def test_hostile_input_to_the_miners_tools_is_one_line_exit_2(
    name, corpus, tmp_path, monkeypatch, capsys
):
    from ud_agree.mine.compare import main as compare_main

    tool, make, says = MINER_CASES[name]
    argv = make(tmp_path, corpus)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # an empty --out would be the working directory
    if tool == "mine":
        argv += ["--quiet", "--jobs", "1"] + ([] if "--out" in argv else ["--out", "out"])
    before = _tree(tmp_path)
    capsys.readouterr()
    main = {"mine": mine_main, "compare": compare_main, "export": export_main}[tool]
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert says in one_line(capsys)
    assert list(work.iterdir()) == []  # nothing written: no corpus, no export in the wrong place
    assert _tree(tmp_path) == before  # nor anywhere else, nor anything removed


def _tree(folder: Path, relative_to: Path = Path("/")) -> dict[str, bytes]:
    """Every file under `folder` (named relative to `relative_to`) and its bytes."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return {str(p.relative_to(relative_to)): p.read_bytes() for p in files}


# ------------------------------------------------- input that gave a wrong result with exit 0


def _shared_sent_ids(tmp_path: Path, corpus: Path) -> list[str]:
    """A treebank whose dev file repeats its test file's sent_ids, or one file holding its
    sentences twice: a join on (treebank, sent_id) would be ambiguous there, so the first
    sentence of each id is kept (the dev file's: files are read in the order of their names),
    the rest dropped and counted in the manifest, and the corpus is scored as the one file's."""
    ud = tmp_path / "ud"
    shutil.copytree(SAMPLE / "ud" / "UD_French-Sample", ud / "UD_French-Sample")
    test = ud / "UD_French-Sample" / "fr_sample-ud-test.conllu"
    shutil.copy(test, test.with_name("fr_sample-ud-dev.conllu"))
    args = ["--unimorph-dir", str(SAMPLE / "unimorph"), "--quiet", "--jobs", "1"]
    assert mine_main(["--ud-dir", str(ud), "--out", str(tmp_path / "two"), *args]) == 0
    one_file = tmp_path / "one" / "UD_French-Sample"  # the same sentences twice in one file
    one_file.mkdir(parents=True)
    (one_file / test.name).write_bytes(test.read_bytes() * 2)
    assert mine_main(["--ud-dir", str(one_file.parent), "--out", str(tmp_path / "c1"), *args]) == 0
    alone = pl.read_parquet(corpus / "fr" / "pairs.parquet")
    n = json.loads((corpus / "fr" / "manifest.json").read_text())["counts"]["sentences"]
    problems = []
    for folder in ("two", "c1"):
        counts = json.loads((tmp_path / folder / "fr" / "manifest.json").read_text())["counts"]
        if counts["duplicate_sent_ids"] != n or counts["sentences"] != n:
            problems.append(f"{folder}: {counts['duplicate_sent_ids']} duplicates, not {n}")
        if counts["duplicate_sent_ids_by_treebank"] != {"Sample": n}:
            problems.append(f"{folder}: by treebank {counts['duplicate_sent_ids_by_treebank']}")
        pairs = pl.read_parquet(tmp_path / folder / "fr" / "pairs.parquet")
        if not pairs.equals(alone):
            problems.append(f"{folder}: {pairs.height} pairs, not the one file's {alone.height}")
        if evaluate(tmp_path / folder, tmp_path / f"scored-{folder}") != 0:
            problems.append(f"{folder}: not scored")
    return problems


def _larger_export_first(layout: str) -> Callable[[Path, Path], list[str]]:
    """An export rerun into the folder of an older export of more languages: refused without
    --force (it holds another export's files); with it, the new export alone remains, none of
    the old one's languages."""

    def check(tmp_path: Path, corpus: Path) -> list[str]:
        args = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
        three = tmp_path / "three"
        assert mine_main([*args, "--out", str(three), "--quiet", "--jobs", "1"]) == 0
        out = tmp_path / "export"
        assert export_main([str(three), "--format", layout, "--out", str(out)]) == 0
        older = _tree(out, out)
        assert export_main([str(corpus), "--format", layout, "--out", str(out)]) == 2
        problems = [] if _tree(out, out) == older else ["refused, yet the older export changed"]
        assert export_main([str(corpus), "--format", layout, "--out", str(out), "--force"]) == 0
        fresh = tmp_path / "fresh"
        assert export_main([str(corpus), "--format", layout, "--out", str(fresh)]) == 0
        stale = sorted(_names(out) - _names(fresh))
        problems += [f"files of the older export left: {stale}"] if stale else []
        if _tree(out, out) != _tree(fresh, fresh):
            problems.append("the export differs from a fresh one")
        if [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]:
            problems.append("a temporary folder is left")
        return problems

    return check


def _names(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _field_over_the_csv_limit(tmp_path: Path, corpus: Path) -> list[str]:
    """A MultiBLiMP TSV whose second row's sentence is longer than Python's csv field limit
    (131,072 characters): every row is read, the long one to be skipped as too long."""
    from ud_agree.evaluate.sources.files import read_suite

    rows = [("Le chat dort .", "Le chat dorment ."), ("mot " * 40_000, "mots " * 40_000),
            ("Les chats dorment .", "Les chats dort ."), ("Il dort .", "Il dorment .")]  # fmt: skip
    path = tmp_path / "long.tsv"
    text = "sen\twrong_sen\tphenomenon\tlang\n"
    path.write_text(text + "".join(f"{g}\t{b}\tSV-#\tfra\n" for g, b in rows), encoding="utf-8")
    suite = read_suite(path)
    problems = [f"{m.line}: {m.reason}" for m in suite.malformed]
    if suite.pairs.height != len(rows):
        problems.append(f"{suite.pairs.height} pairs read of {len(rows)}")
    return problems


def _treebank_named_dot_dot(tmp_path: Path, corpus: Path) -> list[str]:
    """A UD folder `UD_French-..`: its treebank name is a column value, never a path."""
    ud = tmp_path / "ud"
    shutil.copytree(SAMPLE / "ud" / "UD_French-Sample", ud / "UD_French-..")
    out = tmp_path / "deep" / "out"
    assert mine_main(["--ud-dir", str(ud), "--unimorph-dir", str(SAMPLE / "unimorph"),
                      "--out", str(out), "--quiet", "--jobs", "1"]) == 0  # fmt: skip
    outside = [p.name for p in (tmp_path / "deep").iterdir() if p != out]
    treebanks = pl.read_parquet(out / "fr" / "pairs.parquet")["treebank"].unique().to_list()
    return [f"written outside --out: {outside}"] * bool(outside) + [f"treebanks {treebanks}"] * (
        treebanks != [".."]
    )


RESULT_CASES: dict[str, Callable[[Path, Path], list[str]]] = {
    # name: a check on the outcome (what is wrong with it; empty when handled as promised)
    "mine/treebank-folder-named-dot-dot": _treebank_named_dot_dot,
    "mine/test-and-dev-share-sent-ids": _shared_sent_ids,
    "export/hf-rerun-over-a-larger-export": _larger_export_first("hf"),
    "export/lm-eval-rerun-over-a-larger-export": _larger_export_first("lm-eval"),
    "suite/multiblimp-field-over-the-csv-limit": _field_over_the_csv_limit,
}


@pytest.mark.parametrize("name", list(RESULT_CASES))
def test_hostile_input_to_the_miners_tools_gives_no_wrong_result(name, corpus, tmp_path):
    assert RESULT_CASES[name](tmp_path, corpus) == []


def test_an_export_folder_out_of_space_keeps_the_older_export_whole(
    corpus, tmp_path, capsys, no_space_at
):
    args = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    assert mine_main([*args, "--out", str(tmp_path / "three"), "--quiet", "--jobs", "1"]) == 0
    for layout in ("hf", "lm-eval"):
        out = tmp_path / layout
        assert export_main([str(corpus), "--format", layout, "--out", str(out)]) == 0
        older = _tree(out)
        capsys.readouterr()
        no_space_at(3)  # the disk fills while the new export (of three languages) is written
        bigger = [str(tmp_path / "three"), "--format", layout, "--out", str(out), "--force"]
        assert export_main(bigger) == 1
        assert "no space left on device on " in one_line(capsys)
        assert _tree(out) == older  # the older export whole, no part of the new one
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
        no_space_at(0)


def test_a_folder_swap_that_fails_puts_the_older_folder_back(tmp_path, monkeypatch):
    out = tmp_path / "export"
    out.mkdir()
    (out / "old.txt").write_text("older")
    real, calls = os.rename, []

    def rename(src, dst):
        calls.append(dst)
        if len(calls) == 2:  # the new folder's rename into place
            raise OSError(errno.EIO, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(ud_agree.atomic.os, "rename", rename)
    with (
        pytest.raises(ud_agree.errors.MachineError, match=f"on {out}$"),
        ud_agree.atomic.atomic_folder(out) as folder,
    ):
        (folder / "new.txt").write_text("newer")
    assert _tree(out, out) == {"old.txt": b"older"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]


def test_an_export_folder_over_a_file_keeps_the_file(corpus, tmp_path, capsys):
    in_the_way = tmp_path / "export"
    in_the_way.write_text("mine")
    assert export_main([str(corpus), "--format", "hf", "--out", str(in_the_way)]) == 1
    assert f"not a directory on {in_the_way}" in one_line(capsys)
    assert in_the_way.read_text() == "mine" and sorted(tmp_path.iterdir()) == [in_the_way]
