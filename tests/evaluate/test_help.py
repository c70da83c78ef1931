"""Help texts true to what the tools do: every option explained, no literal `%%`, the evaluator
described as scoring masked and causal LMs and the frequency baseline."""

from __future__ import annotations

import importlib

import pytest
import tomllib
from ud_agree.evaluate.cli import parser as evaluate_parser
from ud_agree.evaluate.cluster import parser as cluster_parser
from ud_agree.evaluate.suites.cli import parser as suite_parser

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
