"""Users read the docs, the README and what the commands print, never the specification the
project was built from: none of them cites a section number (`§4.1`) or `DESIGN`."""

from __future__ import annotations

import ast
import importlib
import re

import pytest

from tests.paths import ROOT
from ud_agree.cli import COMMANDS

CITATION = re.compile(r"§|DESIGN")
PAGES = sorted(
    [
        ROOT / "README.md",
        ROOT / "mkdocs.yml",
        *(ROOT / "docs").rglob("*.md"),
        *ROOT.glob("data/*.md"),
    ]
)


def citations(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if CITATION.search(line)]


def test_the_pages_cite_no_section_of_the_specification():
    cited = {
        str(page.relative_to(ROOT)): found
        for page in PAGES
        if (found := citations(page.read_text(encoding="utf-8")))
    }
    assert cited == {}


def test_the_scan_sees_a_citation():
    assert citations("ok\nsee DESIGN.md\nrule (§4.1)") == ["see DESIGN.md", "rule (§4.1)"]


HELPS = [[command] for command in COMMANDS] + [["validate", "sample"], ["validate", "score"]]


@pytest.mark.parametrize("words", HELPS, ids=" ".join)
def test_no_help_cites_the_specification(words, capsys):
    main = importlib.import_module(COMMANDS[words[0]][0]).main
    with pytest.raises(SystemExit) as exit_:
        main([*words[1:], "--help"], prog=f"ud-agree {words[0]}")
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert "usage:" in text and citations(text) == []


def printed_strings(source: str) -> list[tuple[int, str]]:
    """The string constants of a module that can reach a user (help, messages, HTML, schema
    descriptions): every one but docstrings; comments are not in the syntax tree."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_no_string_the_code_can_print_cites_the_specification():
    cited = [
        f"{path.relative_to(ROOT)}:{line}: {text[:80]!r}"
        for folder in ("mine", "evaluate", "ud_agree")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, text in printed_strings(path.read_text(encoding="utf-8"))
        if CITATION.search(text)
    ]
    assert cited == []


def test_the_string_scan_skips_docstrings_and_comments_only():
    source = '"""Module (§1)."""\n# comment §2\ndef f():\n    """Doc §3."""\n    return "said §4"\n'
    assert printed_strings(source) == [(5, "said §4")]
