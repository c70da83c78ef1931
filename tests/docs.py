"""The documentation's code blocks, and a runner that runs a page's blocks in order as a reader
would: shell commands from a fresh folder holding `data/` (the embedded sample), Python blocks in
one namespace, offline. A fence that is not meant to run says so: ```{ .bash .no-run } (the text
beside it says why), or ```{ .bash .synopsis } for a command's usage line."""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import shlex
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from tests.paths import ROOT, SHARED

DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(.*?)\n(.*?)^```[ \t]*$", re.S | re.M)
RUNNABLE = ("bash", "python")
# What a code block may be: commands and Python run; the rest shows a file or an output.
LANGUAGES = (*RUNNABLE, "text", "json", "yaml", "csv", "tsv")
# Shell commands a text block must not hide (it would escape the runner).
COMMANDS = re.compile(r"^\s*(\$ |python |python3 |pip |ud-agree |lm_eval |bash |sbatch )", re.M)


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: its language, whether it runs, its text and first line."""

    page: Path
    line: int
    language: str
    runs: bool
    text: str
    synopsis: bool = False

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """Every Markdown page of the site."""
    return sorted(DOCS.rglob("*.md"))


def blocks(page: Path, heading: str | None = None) -> list[Block]:
    """The page's fenced blocks (under `heading` only, up to the next heading of its level)."""
    text = page.read_text(encoding="utf-8")
    start, end = 0, len(text)
    if heading is not None:
        start = text.index(heading + "\n") + len(heading)
        level = len(heading.split(" ", 1)[0])
        fenced = [m.span() for m in FENCE.finditer(text)]  # a `# comment` in code is no heading
        following = (
            m.start()
            for m in re.compile(rf"^#{{1,{level}}} ", re.M).finditer(text, start)
            if not any(a <= m.start() < b for a, b in fenced)
        )
        end = next(following, len(text))
    found = []
    for match in FENCE.finditer(text, start, end):
        info = match.group(1).strip()
        # `{ .bash .no-run }`: the first class is the language; .no-run: not meant to run (the
        # text beside it says why); .synopsis: a command's usage line.
        classes = re.findall(r"\.([\w-]+)", info) if info.startswith("{") else [info]
        language = classes[0] if classes else ""
        runs = language in RUNNABLE and not {"no-run", "synopsis"} & set(classes)
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(page, line, language, runs, match.group(2), "synopsis" in classes))
    return found


def commands(block: Block) -> list[str]:
    """A shell block's commands: continuation lines joined, comments and blank lines left out."""
    joined = block.text.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and line.strip()[0] != "#"]


@dataclass
class PageRun:
    """What running a page left: its folder, its Python namespace, the text it printed."""

    folder: Path
    namespace: dict = field(default_factory=dict)
    printed: list[str] = field(default_factory=list)


def _in_process(module: str, argv: list[str]) -> int:
    """`python -m module argv…` in this process (the tools' own entry points: no start-up)."""
    if module.split(".")[0] in ("mine", "evaluate"):
        module = "ud_agree." + module
    saved = sys.argv
    sys.argv = [module, *argv]
    try:
        with warnings.catch_warnings():
            # The tools' modules are imported already (by earlier commands): runpy says so.
            warnings.filterwarnings("ignore", "'.*' found in sys.modules", RuntimeWarning)
            runpy.run_module(module, run_name="__main__", alter_sys=False)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        sys.argv = saved
    return 0


def _tool(words: list[str]) -> tuple[str, list[str]] | None:
    """The module and arguments of a command that runs one of ud-agree's tools, else None."""
    if words[0] == "ud-agree":
        return "ud_agree", words[1:]
    if words[:2] == ["python", "-m"] and words[2].split(".")[0] in ("mine", "evaluate", "ud_agree"):
        return words[2], words[3:]
    return None


def run_command(line: str, folder: Path) -> tuple[int, str]:
    """One shell command of a page: its exit status and what it printed."""
    line = line.replace("../shared", str(SHARED))
    words = shlex.split(line, comments=True)
    tool = _tool(words)
    if tool is not None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = _in_process(*tool)
        return status, out.getvalue()
    if words[0] == "python":  # the interpreter running the tests, with what it has installed
        line = shlex.quote(sys.executable) + line.removeprefix("python")
    done = subprocess.run(
        line, shell=True, cwd=folder, capture_output=True, text=True, env=os.environ.copy()
    )
    return done.returncode, done.stdout + done.stderr


def run_page(page: Path, folder: Path, heading: str | None = None) -> PageRun:
    """Run every runnable block of `page` (under `heading` only) in order from `folder`; raise on
    the first failure."""
    (folder / "data").symlink_to(ROOT / "data")
    run = PageRun(folder)
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        for block in blocks(page, heading):
            if not block.runs:
                continue
            if block.language == "python":
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    exec(compile(block.text, block.where, "exec"), run.namespace)
                run.printed.append(out.getvalue())
                continue
            for line in commands(block):
                expect_failure = line.startswith("! ")
                status, printed = run_command(line.removeprefix("! "), folder)
                run.printed.append(printed)
                if (status != 0) != expect_failure:
                    raise AssertionError(f"{block.where}: `{line}` exited {status}\n{printed}")
    finally:
        os.chdir(cwd)
    return run
