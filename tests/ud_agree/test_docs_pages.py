"""The documentation site: every page is in the navigation, every code block either runs (offline,
on the embedded sample, page by page) or says in its fence that it does not, and the site builds
with `mkdocs build --strict` (a broken link or API reference fails it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import yaml

from tests.docs import COMMANDS, DOCS, LANGUAGES, RUNNABLE, blocks, pages, run_page
from tests.paths import MODELS, ROOT

# Pages whose blocks a test of their own runs (with `run_page`) and checks against its figures.
CHECKED_BY = {
    "evaluating/controls.md": "tests/ud_agree/test_docs_controls.py",
    "evaluating/reports.md": "tests/ud_agree/test_docs_recipes.py",
    "reproducing.md": "tests/ud_agree/test_docs_rules.py",
    "reference/index.md": "tests/ud_agree/test_public_api.py",
    "validity.md": "tests/ud_agree/test_docs_validity.py",
}


def nav_pages(entries) -> list[str]:
    """The pages the navigation of mkdocs.yml lists."""
    found = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found += nav_pages(value) if isinstance(value, list) else [value]
    return found


def runnable_pages() -> list[str]:
    return [
        str(page.relative_to(DOCS)) for page in pages() if any(block.runs for block in blocks(page))
    ]


def test_every_page_is_in_the_navigation_once():
    # mkdocs.yml tags Python names (!!python/name) nowhere: a plain YAML load reads it.
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = nav_pages(config["nav"])
    assert sorted(listed) == sorted(str(p.relative_to(DOCS)) for p in pages())
    assert len(listed) == len(set(listed))


def test_every_block_names_its_language_and_commands_are_never_hidden_in_text():
    for page in pages():
        for block in blocks(page):
            assert block.language in LANGUAGES, f"{block.where}: fence language {block.language!r}"
            if block.language not in RUNNABLE:
                assert not COMMANDS.search(block.text), f"{block.where}: a command in a text block"


def test_blocks_that_do_not_run_say_why_beside_them():
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for block in blocks(page):
            if block.runs or block.synopsis or block.language not in RUNNABLE:
                continue
            after = text.split(block.text, 1)[1][:400]
            before = text.split(block.text, 1)[0][-600:]
            assert "not run" in (before + after).lower(), f"{block.where}: say why it does not run"


def test_pages_checked_elsewhere_are_run_there():
    for page, test in CHECKED_BY.items():
        assert f'"{page}"' in (ROOT / test).read_text(encoding="utf-8"), (page, test)


@pytest.mark.parametrize("page", [p for p in runnable_pages() if p not in CHECKED_BY])
def test_page_runs_as_written(page, tmp_path, monkeypatch):
    if not MODELS.is_dir():
        pytest.skip("shared models not present")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    run = run_page(DOCS / page, tmp_path)
    assert any(run.printed), "a page that runs shows what it gives"


def test_readme_quick_start_runs_as_written_and_its_set_up_is_two_commands(tmp_path, monkeypatch):
    readme = ROOT / "README.md"
    (set_up,) = blocks(readme, "## Set-up (fresh clone)")
    assert [line.split("#")[0].strip() for line in set_up.text.splitlines()] == [
        "bash demo.sh",
        ".venv/bin/python -m pytest -n 2 -q -rs",
    ]
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 150
    if not MODELS.is_dir():
        pytest.skip("shared models not present")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    run = run_page(readme, tmp_path, "## Quick start")
    assert (tmp_path / "report" / "index.html").is_file()
    assert "(" in run.printed[-1]  # the shape of every result row read back


def test_site_builds_strictly(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "index.html").is_file()


# A commit hash (7-40 hex digits, at least one letter and one digit: not a year, not a word) and
# an issue or pull-request number: the project's history, which a reader of the site does not have.
COMMIT = re.compile(
    r"(?<![0-9A-Za-z_-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z_-])"
)
ISSUE = re.compile(r"\b(?:issues?|PR|pull request)\s*#?\d+|(?<![\w&/])#\d+\b", re.I)


def history_mentions(text: str) -> list[str]:
    """The commit hashes and issue numbers a text names."""
    return [m.group() for pattern in (COMMIT, ISSUE) for m in pattern.finditer(text)]


def test_history_mentions_are_found_where_they_are_and_only_there():
    assert history_mentions("main's miner at 5bd6a14; see `0a1b2c3d4e5f` (issue 35, #12)") == [
        "5bd6a14",
        "0a1b2c3d4e5f",
        "issue 35",
        "#12",
    ]
    quiet = "ID '2147483648' is 2^31 or more; a defaced token; sha256 " + "ab12" * 16
    assert history_mentions(quiet) == []


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_pages_speak_of_the_project_not_its_history(page):
    assert history_mentions(page.read_text(encoding="utf-8")) == [], page


def test_readme_names_each_page_as_its_title_does():
    rows = re.findall(r"^\| \[([^]]+)\]\((docs/[^)]+)\)", (ROOT / "README.md").read_text(), re.M)
    assert len(rows) >= 10
    for name, path in rows:
        title = (ROOT / path).read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
        assert title.startswith(name), (name, title)


def test_getting_started_lists_every_subcommand():
    from ud_agree.cli import COMMANDS as SUBCOMMANDS

    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    (listed,) = re.findall(r"`ud-agree \{([a-z,]+)\} …`", text)
    assert listed.split(",") == list(SUBCOMMANDS)


def test_demo_installs_into_its_own_environment_only():
    script = (ROOT / "demo.sh").read_text(encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(ROOT / "demo.sh")]).returncode == 0
    commands = [line.split("#")[0].strip() for line in script.splitlines()]
    assert "py=.venv/bin/python" in commands
    assert '"${PYTHON:-python3}" -m venv .venv' in commands
    python_calls = [c for c in commands if re.search(r"(^|\s)(python3?|\"\$py\"|pip3?)\s", c)]
    # Every tool, pip included, runs from .venv; only the venv itself is made by another Python.
    assert all(c.startswith('"$py" -m ') or "-m venv .venv" in c for c in python_calls), (
        python_calls
    )
    assert any("pip install" in c for c in python_calls)
    assert "/.venv/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_commands = [line for line in ci.splitlines() if not line.startswith("#")]
    assert "python -m pip install --quiet -e '.[dev]'" in ci_commands  # CI's own Python
    assert not any(".venv" in line for line in ci_commands)
