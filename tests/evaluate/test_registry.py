"""The back-end registry: every kind names a class with its protocol's members; the frequency
baseline answers pairs from lexicon counts; readings never probe scorers for undeclared members;
back-ends never decide (the layering of issue 25)."""

from __future__ import annotations

import inspect
import re

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.backends import (
    BACKENDS,
    PAIR_SCORERS,
    CountScorer,
    FormScorer,
    TokenScorer,
    backend_kind,
    registered,
)
from ud_agree.evaluate.backends.frequency import FrequencyPairs
from ud_agree.evaluate.options import Options

from tests.paths import ROOT


def members(protocol: type) -> set[str]:
    return {n for n in vars(protocol) if not n.startswith("_")} | set(
        getattr(protocol, "__annotations__", {})
    )


@pytest.mark.parametrize(
    ("registry", "protocols"),
    [
        (BACKENDS, dict.fromkeys(BACKENDS, FormScorer)),
        (PAIR_SCORERS, {"frequency": CountScorer, "masked": TokenScorer, "causal": TokenScorer}),
    ],
)
def test_every_registered_class_has_its_protocols_members(registry, protocols):
    pytest.importorskip("torch")
    for kind in registry:
        cls = registered(registry, kind)
        assert inspect.isclass(cls)
        protocol = protocols[kind]
        methods = {n for n in members(protocol) if callable(getattr(protocol, n, None))}
        assert methods <= set(dir(cls)), (kind, methods - set(dir(cls)))


def test_form_scorers_declare_their_context_and_the_counts_they_need():
    pytest.importorskip("torch")
    found = {kind: registered(BACKENDS, kind) for kind in BACKENDS}
    assert {k: c.context for k, c in found.items()} == {
        "frequency": "none",
        "masked": "both",
        "causal": "left",
    }
    assert {k: c.min_count for k, c in found.items()} == {"frequency": 1, "masked": 0, "causal": 0}


def test_the_kind_of_a_model():
    assert backend_kind(Options(lang="fr", model="frequency")) == "frequency"
    assert backend_kind(Options(lang="fr", model="gpt2", kind="causal")) == "causal"
    assert backend_kind(Options(lang="fr", model="camembert-base", kind="masked")) == "masked"


def test_the_frequency_baseline_scores_pairs_from_lexicon_counts():
    # Good: "chats" (Plur) seen 7 times; bad: "chat" (Sing) seen 30 times: the baseline prefers bad.
    lexicon = pl.DataFrame(
        {
            "form": ["chats", "chat", "Chat"],
            "lemma": ["chat"] * 3,
            "upos": ["NOUN"] * 3,
            "number": [["Plur"], ["Sing"], ["Sing"]],
            "gender": [["Masc"]] * 3,
            "case": [[]] * 3,
            "person": [[]] * 3,
            "count": [7, 20, 10],
        },
        schema_overrides={"case": pl.List(pl.String), "person": pl.List(pl.String)},
    )
    pair = pl.DataFrame(
        {
            "good_form": ["chats"],
            "bad_form": ["chat"],
            "lemma": ["chat"],
            "upos": ["NOUN"],
            "feature": ["Number"],
            "bad_value": ["Sing"],
            "m_number": [["Plur"]],
            "m_gender": [["Masc"]],
            "m_case": [[]],
            "m_person": [[]],
        },
        schema_overrides={"m_case": pl.List(pl.String), "m_person": pl.List(pl.String)},
    )
    scorer = FrequencyPairs(lexicon)
    assert isinstance(scorer, CountScorer)
    good, bad = scorer.pair_counts(pair)
    assert np.array_equal(good, [7.0]) and np.array_equal(bad, [30.0])  # casings summed
    assert scorer.tokenizer is None and scorer.forwards == 0


def test_readings_do_not_probe_scorers_for_undeclared_members():
    for path in (ROOT / "evaluate" / "readings").glob("*.py"):
        text = path.read_text()
        assert not re.search(r"(getattr|hasattr)\((self\.)?(scorer|backend|pairs)\b", text), path
        assert "FREQUENCY" not in text, path  # the baseline is chosen by the registry
