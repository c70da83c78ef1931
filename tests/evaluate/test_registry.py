"""The back-end registry: every kind names a class with its protocol's members; the frequency
baseline is a reading over lexicon counts, no back-end; readings never probe scorers for
undeclared members; back-ends never decide (the layering of issues 25 and 54)."""

from __future__ import annotations

import inspect
import re

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.backends import BACKENDS, FormScorer, TokenScorer, backend_kind, registered
from ud_agree.evaluate.options import Options
from ud_agree.evaluate.readings.frequency import count_pair_columns, pair_counts

from tests.paths import ROOT


def members(protocol: type) -> set[str]:
    return {n for n in vars(protocol) if not n.startswith("_")} | set(
        getattr(protocol, "__annotations__", {})
    )


def test_every_registered_class_has_its_protocols_members():
    pytest.importorskip("torch")
    from ud_agree.evaluate.backends.causal import CausalLM
    from ud_agree.evaluate.backends.masked import MaskedPLL

    classes = [(registered(BACKENDS, kind), FormScorer) for kind in BACKENDS]
    for cls, protocol in [*classes, (CausalLM, TokenScorer), (MaskedPLL, TokenScorer)]:
        assert inspect.isclass(cls)
        methods = {n for n in members(protocol) if callable(getattr(protocol, n, None))}
        assert methods <= set(dir(cls)), (cls, methods - set(dir(cls)))


def test_form_scorers_declare_their_context():
    pytest.importorskip("torch")
    found = {kind: registered(BACKENDS, kind) for kind in BACKENDS}
    assert {k: c.context for k, c in found.items()} == {"masked": "both", "causal": "left"}


def test_the_kind_of_a_model():
    assert backend_kind(Options(lang="fr", model="gpt2", kind="causal").model_spec) == "causal"
    spec = Options(lang="fr", model="camembert-base", kind="masked").model_spec
    assert backend_kind(spec) == "masked"


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
            "definite": [[]] * 3,
            "count": [7, 20, 10],
        },
        schema_overrides={name: pl.List(pl.String) for name in ("case", "person", "definite")},
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
            "m_definite": [[]],
        },
        schema_overrides={
            name: pl.List(pl.String) for name in ("m_case", "m_person", "m_definite")
        },
    )
    good, bad = pair_counts(pair, lexicon)
    assert np.array_equal(good, [7.0]) and np.array_equal(bad, [30.0])  # casings summed
    columns = count_pair_columns(good, bad)
    assert columns["right"].to_list() == [False] and columns["right_slor"].to_list() == [False]
    assert columns["score_good"].to_list() == [7.0] and columns["score_bad"].to_list() == [30.0]


def test_readings_do_not_probe_scorers_for_undeclared_members():
    for path in (ROOT / "evaluate" / "readings").glob("*.py"):
        text = path.read_text()
        assert not re.search(r"(getattr|hasattr)\((self\.)?(scorer|backend|pairs)\b", text), path
        assert "FREQUENCY" not in text, path  # the loop (run.py) chooses the baseline
