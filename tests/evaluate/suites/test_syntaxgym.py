"""SyntaxGym: the prediction language, regions of a sentence, surprisals in bits, per-item results."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
from ud_agree.evaluate.backends.api import TokenScores
from ud_agree.evaluate.sources import formula
from ud_agree.evaluate.sources.files import read_suite
from ud_agree.evaluate.sources.syntaxgym import Condition, GymSuite
from ud_agree.evaluate.tasks.syntaxgym import region_surprisals, score_items

from tests.paths import needs_models
from tests.suite_stubs import BITS, SYNTAXGYM_SUITE, OracleScorer, write
from ud_agree.formats.problems import MalformedInput

SURPRISALS = {("a", 1): 3.0, ("a", 2): 2.0, ("b", 1): 1.0, ("b", 2): 5.0}


def value(text: str) -> float | bool:
    """A formula evaluated over SURPRISALS."""

    def lookup(condition: str, region: int | None) -> float:
        if region is None:
            return sum(v for (c, _), v in SURPRISALS.items() if c == condition)
        return SURPRISALS[condition, region]

    return formula.evaluate(formula.parse(text), lookup)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(1;%a%) > (1;%b%)", True),
        ("(2;%a%) > (2;%b%)", False),
        ("(#1;%a%) < (#1;%b%)", False),  # `#` before the region number is accepted
        ("(1;%a%) + (2;%a%) < (1;%b%) + (2;%b%)", True),  # two regions on each side: 5 < 6
        ("((1;%a%) - (1;%b%)) + [(2;%a%) - (2;%b%)] > 0", False),  # parentheses, a bracketed sum
        ("((1;%a%) - (1;%b%)) - [(2;%a%) - (2;%b%)] > 4.5", True),  # 2 - (-3) = 5
        ("(*;%a%) < (*;%b%)", True),  # every region of a condition: 5 < 6
        ("5 - 4 - 3 < 0", True),  # left to right
        ("5 - (3 + 2) = 0", True),
        ("(1;%a%) = 3.0005", True),  # `=` allows |a - b| <= 1e-3 + 1e-5·|b|
        ("(1;%a%) = 3.01", False),
        ("(1;%a%) > (1;%b%) & (2;%a%) > (2;%b%)", False),
        ("(1;%a%) > (1;%b%) | (2;%a%) > (2;%b%)", True),
        ("~[(2;%a%) > (2;%b%)]", True),
        ("[[(1;%a%) + (2;%a%)] / 2] < [(2;%b%) * 1]", True),
        ("-(1;%a%) < -2", True),
    ],
)
def test_prediction_formulas(text: str, expected: bool) -> None:
    assert value(text) is expected or value(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(1;%a%)", "compares nothing"),
        ("(1;%a%) < (1;%b%) < 3", "chained comparison"),
        ("(1;%a%) >", "ends too early"),
        ("((1;%a%) > 2", "not closed"),
        ("[(1;%a%) > 2)", "not closed"),
        ("abs((1;%a%)) > 2", "unexpected"),
        ("(1;%a%) & (1;%b%)", "needs comparisons"),
        ("((1;%a%) > 1) + 2 > 0", "needs numbers"),
        ("", "empty"),
    ],
)
def test_bad_formulas_are_refused(text: str, message: str) -> None:
    with pytest.raises(formula.FormulaError, match=message):
        formula.parse(text)


def test_references_name_every_region_read() -> None:
    tree = formula.parse("(2;%a%) + (*;%b%) > (3;%a%)")
    assert formula.references(tree) == {("a", 2), ("b", None), ("a", 3)}


def test_sentence_joins_regions_and_each_region_owns_its_leading_space() -> None:
    condition = Condition("c", ((1, "The woman"), (2, ""), (3, "plays"), (4, "the guitar")))
    text, spans = condition.layout()
    assert text == "The woman plays the guitar"
    assert spans == [(1, 0, 9), (3, 9, 15), (4, 15, 26)]
    assert [text[a:b] for _, a, b in spans] == ["The woman", " plays", " the guitar"]


def tokens(text: str, pieces: list[str], bits: list[float]) -> TokenScores:
    """Token scores for consecutive pieces of `text`, each with a surprisal in bits."""
    assert "".join(pieces) == text
    spans, start = [], 0
    for piece in pieces:
        spans.append((start, start + len(piece)))
        start += len(piece)
    return TokenScores(spans, np.array([-b * BITS for b in bits]))


def test_region_surprisal_sums_bits_of_the_tokens_whose_last_character_it_holds() -> None:
    condition = Condition("c", ((1, "The woman"), (2, "plays"), (3, "the guitar")))
    text = condition.layout()[0]
    # GPT-2 style: the space goes with the next word; "plays" is two pieces; a lone space token.
    scored = tokens(
        text, ["The", " woman", " play", "s", " ", "the", " guitar"], [1, 2, 4, 0.5, 8, 16, 32]
    )
    assert region_surprisals(condition, scored) == {1: 3.0, 2: 4.5, 3: 56.0}


def test_a_token_left_unscored_adds_nothing_and_an_empty_region_is_zero() -> None:
    condition = Condition("c", ((1, "A"), (2, ""), (3, "b c")))
    text = condition.layout()[0]
    scored = TokenScores([(1, 3), (3, 5)], np.array([-1.0, -2.0]))  # "A" itself is not scored
    assert text == "A b c"
    result = region_surprisals(condition, scored)
    assert result[1] == 0.0 and result[2] == 0.0
    assert result[3] == pytest.approx(3.0 / math.log(2))


def gym_file(tmp_path: Path, suite: dict) -> Path:
    return write(tmp_path, "gym.json", json.dumps(suite, indent=1))


def test_one_row_per_item_and_prediction_with_known_surprisals(tmp_path: Path) -> None:
    path = gym_file(tmp_path, SYNTAXGYM_SUITE)
    suite = read_suite(path)
    assert isinstance(suite, GymSuite)
    assert [i.number for i in suite.items] == [1, 2]
    lines = path.read_text().splitlines()
    for item in suite.items:  # the line where the item's "item_number" lies
        assert lines[item.line - 1].strip() == f'"item_number": {item.number},'
    scorer = OracleScorer(["The woman plays the guitar", "The women play the guitar"])
    rows = score_items(suite, suite.items, scorer)
    assert [(r["pair_id"], r["prediction"], r["right"]) for r in rows] == [
        ("1", 0, True),
        ("1", 1, True),
        ("2", 0, True),
        ("2", 1, True),
    ]
    bits = json.loads(rows[0]["surprisals"])
    # Oracle: 1 bit per token when grammatical, 3 bits otherwise.
    assert bits == {
        "match": {"1": 2.0, "2": 1.0, "3": 2.0},
        "mismatch": {"1": 6.0, "2": 3.0, "3": 6.0},
    }
    # Each distinct sentence is scored once, all in one call.
    assert len(scorer.calls) == 1 and len(scorer.calls[0]) == 4


def test_a_two_region_formula_and_a_formula_with_parentheses_and_a_sum(tmp_path: Path) -> None:
    suite = copy.deepcopy(SYNTAXGYM_SUITE)
    suite["predictions"] = [
        "(2;%mismatch%) + (3;%mismatch%) > (2;%match%) + (3;%match%)",
        "((2;%mismatch%) - (2;%match%)) + [(1;%mismatch%) - (1;%match%)] > 5.5",
        "(*;%mismatch%) - (*;%match%) = 10",
    ]
    read = read_suite(gym_file(tmp_path, suite))
    rows = score_items(read, read.items, OracleScorer(["The woman plays the guitar"]))
    # Item 1: mismatch 3 bits a token, match 1 bit: region 2 differs by 2 bits, region 1 by 4,
    # the whole sentences by 10. Item 2: both conditions count as ungrammatical (no difference).
    assert [r["right"] for r in rows] == [True, True, True, False, False, False]


def test_malformed_predictions_and_items_are_reported_and_left_out(tmp_path: Path) -> None:
    suite = copy.deepcopy(SYNTAXGYM_SUITE)
    suite["predictions"].append({"type": "formula", "formula": "(2;%mismatch%) >"})
    suite["predictions"].append({"type": "formula", "formula": "(2;%other%) > (2;%match%)"})
    path = gym_file(tmp_path, suite)
    read = read_suite(path)
    reasons = [m.reason for m in read.malformed]
    assert reasons[0] == "prediction 2: the formula ends too early"
    # The last prediction reads a condition that no item has: every item is left out.
    assert reasons[1:] == [
        "item 1: prediction 3 reads region 2 of 'other', which it lacks",
        "item 2: prediction 3 reads region 2 of 'other', which it lacks",
    ]
    assert read.items == []
    with pytest.raises(MalformedInput, match=r"gym\.json:\d+: prediction 2"):
        read_suite(path, strict=True)


def test_item_problems(tmp_path: Path) -> None:
    suite = copy.deepcopy(SYNTAXGYM_SUITE)
    suite["items"][1]["item_number"] = 1
    suite["items"].append({"item_number": 3, "conditions": []})
    read = read_suite(gym_file(tmp_path, suite))
    assert [m.reason for m in read.malformed] == [
        "item 1: the item number repeats",
        "item 3: no conditions",
    ]
    assert [i.number for i in read.items] == [1]


def test_invalid_json_and_other_metrics_skip_the_suite(tmp_path: Path) -> None:
    broken = write(tmp_path, "broken.json", '{"items": [\n  {"item_number": 1,,}\n]}')
    read = read_suite(broken, fmt="syntaxgym")
    assert [(m.line, m.reason.split(" (")[0]) for m in read.malformed] == [(2, "not valid JSON")]
    suite = copy.deepcopy(SYNTAXGYM_SUITE)
    suite["meta"]["metric"] = "mean"
    read = read_suite(gym_file(tmp_path, suite))
    assert read.items == [] and "only 'sum'" in read.malformed[0].reason


@needs_models
def test_real_tokenizers_put_every_token_in_one_region(tokenizers) -> None:
    condition = Condition(
        "c", ((1, "Les clés de l'armoire"), (2, ""), (3, "sont"), (4, "cassées, dit-il."))
    )
    text, spans = condition.layout()
    for name, tokenizer in tokenizers.items():
        encoded = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
        offsets = [(a, b) for a, b in encoded["offset_mapping"] if b > a]
        scored = TokenScores(offsets, np.full(len(offsets), -BITS))  # 1 bit a token
        bits = region_surprisals(condition, scored)
        assert sum(bits.values()) == pytest.approx(len(offsets)), name
        assert bits[2] == 0 and all(bits[n] >= 1 for n in (1, 3, 4)), (name, bits)
        # "sont" is one word: its region holds exactly the tokens of " sont" (the space included).
        alone = [o for o in offsets if spans[1][1] <= o[1] - 1 < spans[1][2]]
        assert bits[3] == pytest.approx(len(alone)), name
