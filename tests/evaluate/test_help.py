"""Help texts true to what the tools do: every option explained, no literal `%%`, the evaluator
described as scoring masked and causal LMs and the frequency baseline."""

from __future__ import annotations

import argparse
import importlib
import re

import pytest
import tomllib
from ud_agree.evaluate.cli import parser as evaluate_parser
from ud_agree.evaluate.cluster import parser as cluster_parser
from ud_agree.evaluate.suite import parser as suite_parser

from tests.paths import ROOT
from ud_agree.cli import COMMANDS


@pytest.mark.parametrize("make", [evaluate_parser, suite_parser, cluster_parser])
def test_every_option_has_help(make):
    parser = make()
    missing = [a.option_strings or a.dest for a in parser._actions if not a.help]
    assert missing == []


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"mine", "export"}))
def test_help_prints_no_literal_percent_signs(command, capsys):
    main = importlib.import_module(COMMANDS[command][0]).main
    with pytest.raises(SystemExit) as exit_:
        main(["--help"], prog=f"ud-agree {command}")
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert "%%" not in text and "usage:" in text
    # A description is whole sentences, not a docstring's first line cut mid-way.
    description = text.split("\n\n")[1]
    assert description.rstrip().endswith("."), description


def test_the_evaluator_is_described_as_what_it_scores(capsys):
    text = evaluate_parser().format_help()
    assert "95% CIs" in text and "Score a masked LM" not in text
    for kind in ("masked", "causal", "frequency"):
        assert kind in text
    model = next(a for a in evaluate_parser()._actions if "--model" in a.option_strings)
    assert "masked or causal" in model.help
    description = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]
    assert "causal" in description and "masked-LM agreement accuracy" not in description


def help_of(command: str, capsys) -> str:
    """What `ud-agree COMMAND --help` prints."""
    main = importlib.import_module(COMMANDS[command][0]).main
    with pytest.raises(SystemExit) as exit_:
        main(["--help"], prog=f"ud-agree {command}")
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_every_parser_takes_options_only_as_spelled_in_full(monkeypatch, capsys):
    seen = []
    parse = argparse.ArgumentParser.parse_known_args

    def record(self, *args, **kwargs):
        seen.append(self)
        return parse(self, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", record)
    for command in COMMANDS:
        help_of(command, capsys)
    assert {parser.prog for parser in seen} >= {f"ud-agree {c}" for c in COMMANDS}
    subcommands = [
        sub
        for parser in seen
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for sub in action.choices.values()
    ]
    assert [p.prog for p in [*seen, *subcommands] if p.allow_abbrev] == []


def test_an_abbreviated_option_is_refused_and_the_full_one_named(capsys):
    with pytest.raises(SystemExit) as exit_:
        evaluate_parser().parse_args(["--lang", "fr", "--min-candidate", "3"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --min-candidate 3; did you mean --min-candidates?" in err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_names_docs_pages_and_the_command_as_it_was_run(command, capsys):
    text = help_of(command, capsys)
    for private in ("DESIGN", "§", "python -m"):
        assert private not in text, (command, private)
    for page in re.findall(r"docs/[\w/.-]+\.md", text):
        assert (ROOT / page).is_file(), page


def test_export_help_names_all_five_formats(capsys):
    text = " ".join(help_of("export", capsys).split())
    description = text.split(" options: ")[0]
    for name in ("MultiBLiMP", "BLiMP", "CLAMS", "lm-evaluation-harness", "Hugging Face"):
        assert name in description, name
    for choice in ("multiblimp", "blimp", "clams", "lm-eval", "hf"):
        assert choice in text
    assert "MultiBLiMP" in COMMANDS["export"][1] and "lm-eval" in COMMANDS["export"][1]
