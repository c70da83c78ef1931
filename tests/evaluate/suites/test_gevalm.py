"""gevalm JSON lines (DESIGN.md §7, Zaczynska et al. 2020): read natively, the candidates put in
the blank, masked LMs scoring the blank's word, decisions never inverted."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.backends.api import TokenScores
from ud_agree.evaluate.options import suite_run
from ud_agree.evaluate.readings.token_sums import sentence_scores
from ud_agree.evaluate.run import run_suites
from ud_agree.evaluate.sources.files import detect_format, read_suite

from tests.paths import SHARED
from tests.suite_stubs import factory

GEVALM = SHARED / "data" / "suites" / "gevalm"
LINES = [
    {"text": "Der Hund bellt .", "text_masked": "Der Hund [MASK] .", "candidates": ["bellt", "bellen"],
     "indexMASK": -2, "case": "SimplSent_sg"},
    {"text": "Die Hunde bellen laut .", "text_masked": "Die Hunde [MASK] laut .",
     "candidates": ["bellen", "bellt"], "indexMASK": 2, "case": "SimplSent_pl"},
]  # fmt: skip


def write(tmp_path: Path, lines: list, name: str = "mine.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return path


class BlankOracle:
    """Prefers the word at the blank it is told is correct (reversed: the other one); it sees the
    word only through the span it is given, as a masked LM scoring word PLL does."""

    method = "pll-word"
    tokenizer = None
    forwards = 0
    name = "blank-oracle"

    def __init__(self, correct: set[str], reverse: bool = False):
        self.correct, self.reverse = correct, reverse

    def token_scores(self, texts: Sequence[str], words=None) -> list[TokenScores]:
        assert words is not None and len(words) == len(texts)
        out = []
        for text, (span,) in zip(texts, words, strict=True):
            word = text[span[0] : span[1]]
            out.append(
                TokenScores(
                    [span], np.array([0.0 if (word in self.correct) != self.reverse else -3.0])
                )
            )
        return out

    def facts(self) -> dict:
        return {}


def test_gevalm_is_detected_by_its_keys_and_the_candidates_fill_the_blank(tmp_path):
    path = write(
        tmp_path, [*LINES, {"text_masked": "zwei [MASK] [MASK]", "candidates": ["a", "b"]}]
    )
    assert detect_format(path) == "gevalm"
    suite = read_suite(path)
    pairs = suite.pairs
    assert pairs["sentence_good"].to_list() == ["Der Hund bellt .", "Die Hunde bellen laut ."]
    assert pairs["sentence_bad"].to_list() == ["Der Hund bellen .", "Die Hunde bellt laut ."]
    assert pairs["condition"].to_list() == ["SimplSent_sg", "SimplSent_pl"]
    assert pairs.select("start", "end_good", "end_bad").rows() == [(9, 14, 15), (10, 16, 15)]
    assert [m.line for m in suite.malformed] == [3] and "one [MASK]" in suite.malformed[0].reason


@pytest.mark.parametrize(("reverse", "accuracy"), [(False, 1.0), (True, 0.0)])
def test_an_oracle_at_the_blank_scores_100_percent_and_reversed_0(tmp_path, reverse, accuracy):
    # One file a line: the oracle is told each line's correct word, the first candidate.
    outcomes = []
    for i, line in enumerate(LINES):
        scorer = BlankOracle({line["candidates"][0]}, reverse)
        path = write(tmp_path, [line], f"line{i}.jsonl")
        options = suite_run(files=[str(path)], model="stub", out=str(tmp_path / "out"),
                               progress=False)  # fmt: skip
        outcomes += run_suites(options, factory(scorer))
    rows = pl.concat(
        [pl.read_parquet(p) for o in outcomes for p in o.folder.glob("suite-*.parquet")]
    )
    assert rows.height == 2 and rows["right"].mean() == accuracy


def test_the_real_gevalm_layout_reads_every_line_as_written():
    path = GEVALM / "SVPP_sgpl.jsonl"
    if not path.is_file():
        pytest.skip("shared gevalm files not present")
    suite = read_suite(path)
    raw = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    assert suite.format == "gevalm" and suite.size == len(raw) == 900 and not suite.malformed
    # The good sentence is the file's own `text` (spacing as written); the condition its `case`.
    assert suite.pairs["sentence_good"].to_list() == [r["text"] for r in raw]
    assert set(suite.pairs["condition"]) == {"SVPP_sgpl"}
    first = suite.pairs.row(0, named=True)
    assert first["sentence_bad"][first["start"] : first["end_bad"]] == raw[0]["candidates"][1]


def test_a_masked_lm_scores_the_blank_with_word_pll_as_a_one_pair_loop_does(tmp_path):
    pytest.importorskip("torch")
    from ud_agree.evaluate.backends import load_scorer
    from ud_agree.evaluate.tasks.suite_files import blank_scorer

    transformers = pytest.importorskip("transformers")
    import torch

    source = SHARED / "models" / "bert-base-multilingual-cased"
    config = transformers.AutoConfig.from_pretrained(source)
    config.update({"num_hidden_layers": 1, "hidden_size": 32, "intermediate_size": 64,
                   "num_attention_heads": 2})  # fmt: skip
    torch.manual_seed(0)
    transformers.BertForMaskedLM(config).save_pretrained(tmp_path / "bert")
    transformers.AutoTokenizer.from_pretrained(source).save_pretrained(tmp_path / "bert")
    scorer = load_scorer(str(tmp_path / "bert"), pll="sentence")
    suite = read_suite(write(tmp_path, LINES))
    at_blank = blank_scorer(suite, scorer)
    assert at_blank.method == "pll-word" and scorer.method == "pll-sentence"
    options = suite_run(files=[str(tmp_path / "mine.jsonl")], model=str(tmp_path / "bert"),
                           out=str(tmp_path / "out"), progress=False, pll="sentence")  # fmt: skip
    (outcome,) = run_suites(options, factory(scorer))
    rows = pl.read_parquet(next(outcome.folder.glob("suite-*.parquet"))).sort("line")
    assert set(rows["method"]) == {"pll-word"}
    for row, pair in zip(
        rows.iter_rows(named=True), suite.pairs.iter_rows(named=True), strict=True
    ):
        good = sentence_scores(
            at_blank, [pair["sentence_good"]], [(pair["start"], pair["end_good"])]
        )
        bad = sentence_scores(at_blank, [pair["sentence_bad"]], [(pair["start"], pair["end_bad"])])
        assert row["score_good"] == pytest.approx(float(good[0]), abs=1e-4)
        assert row["score_bad"] == pytest.approx(float(bad[0]), abs=1e-4)
