"""Readers of peers' suites: each layout's pairs, ids and metadata; malformed lines; detection."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.sources.files import detect_format, read_suite
from ud_agree.evaluate.sources.syntaxgym import GymSuite

from tests.suite_stubs import BLIMP, CLAMS, MULTIBLIMP, SUITES, SYNTAXGYM, TABLE, write
from ud_agree.formats.problems import MalformedInput, SuiteFormatError


@pytest.mark.parametrize("layout", sorted(SUITES))
def test_each_layout_is_detected_from_extension_and_content(tmp_path: Path, layout: str) -> None:
    name, text, _, _ = SUITES[layout]
    assert detect_format(write(tmp_path, name, text)) == layout


def test_clams_false_lines_pair_with_the_true_line_before_them(tmp_path: Path) -> None:
    suite = read_suite(write(tmp_path, "simple_agrmt.txt", CLAMS))
    pairs = suite.pairs
    assert pairs.select("sentence_good", "sentence_bad").rows() == [
        ("les auteurs sont vieux", "les auteurs est vieux"),
        ("les auteurs sont vieux", "le auteur sont vieux"),  # two words changed: still a pair
        ("le pilote parle", "le pilote parlent"),
    ]
    assert pairs["pair_id"].to_list() == ["2", "3", "5"]  # the False line
    assert pairs["true_line"].to_list() == ["1", "1", "4"]
    assert set(pairs["condition"]) == {"simple_agrmt"}  # the file stem is the condition
    assert set(pairs["suite"]) == {"simple_agrmt"}
    assert suite.malformed == []


def test_blimp_keeps_its_fields_and_uid_is_the_condition(tmp_path: Path) -> None:
    pairs = read_suite(write(tmp_path, "agr.jsonl", BLIMP)).pairs
    assert pairs["sentence_good"].to_list() == ["The cats sleep.", "This dog barks."]
    assert pairs["condition"].to_list() == pairs["UID"].to_list()
    assert pairs["linguistics_term"][1] == "determiner_noun_agreement"
    assert pairs["pairID"].to_list() == ["0", "1"]
    assert pairs["simple_LM_method"].to_list() == ["true", "true"]  # non-strings as JSON text
    assert pairs["pair_id"].to_list() == ["1", "2"]


def test_huggingface_blimp_pair_id_field_is_kept_under_a_prefix(tmp_path: Path) -> None:
    row = {"sentence_good": "A b.", "sentence_bad": "A c.", "pair_id": 7, "UID": "x"}
    pairs = read_suite(write(tmp_path, "hf.jsonl", json.dumps(row) + "\n")).pairs
    assert pairs["meta_pair_id"].to_list() == ["7"]
    assert pairs["pair_id"].to_list() == ["1"]


def test_multiblimp_tsv_with_pandas_index_and_quotes(tmp_path: Path) -> None:
    pairs = read_suite(write(tmp_path, "deu.tsv", MULTIBLIMP)).pairs
    assert pairs["sentence_good"].to_list() == [
        "Die Kinder spielen.",
        'Er sagt: "Ich gehe."',
        "Wir lachen.",
    ]
    assert pairs["sentence_bad"][1] == 'Er sagt: "Ich gehen."'
    assert pairs["condition"].to_list() == ["SV-#", "SV-P", "SV-P"]  # phenomenon
    for column in ("phenomenon", "lang", "grammatical_feature", "ungrammatical_feature", "prefix"):
        assert column in pairs.columns
    assert pairs["column_1"].to_list() == ["0", "1", "2"]  # pandas' unnamed index column
    assert pairs["pair_id"].to_list() == ["2", "3", "4"]


def test_any_table_with_good_and_bad_columns(tmp_path: Path) -> None:
    pairs = read_suite(
        write(tmp_path, "mine.csv", TABLE),
        good="good sentence",
        bad="bad sentence",
        condition="kind",
    ).pairs
    assert pairs.select("sentence_good", "sentence_bad").rows() == [
        ("she walks", "she walk"),
        ("they walk", "they walks"),
    ]
    assert pairs["condition"].to_list() == ["sv", "sv"]
    assert pairs["id"].to_list() == ["1", "2"]


def test_parquet_table_rows_stand_for_lines(tmp_path: Path) -> None:
    path = tmp_path / "pairs.parquet"
    pl.DataFrame({"g": ["a b", "c d"], "b": ["a x", "c y"], "n": [1, 2]}).write_parquet(path)
    suite = read_suite(path, good="g", bad="b")
    assert suite.format == "table"
    assert suite.pairs.select("pair_id", "sentence_good", "n").rows() == [
        ("1", "a b", "1"),
        ("2", "c d", "2"),
    ]


def test_a_table_without_known_columns_asks_for_good_and_bad(tmp_path: Path) -> None:
    with pytest.raises(SuiteFormatError, match="--good COLUMN --bad COLUMN"):
        read_suite(write(tmp_path, "mine.csv", TABLE))
    with pytest.raises(SuiteFormatError, match="no column 'nope'"):
        read_suite(write(tmp_path, "mine.csv", TABLE), good="nope", bad="bad sentence")


def test_format_flag_overrides_detection(tmp_path: Path) -> None:
    path = write(tmp_path, "odd.data", CLAMS)
    assert read_suite(path, fmt="clams").pairs.height == 3
    assert isinstance(read_suite(write(tmp_path, "s.txt", SYNTAXGYM), fmt="syntaxgym"), GymSuite)


MALFORMED_CLAMS = (
    "True\tle chat dort\n"
    "False\tle chat dorment\n"
    "Vrai\tles chats dorment\n"  # 3: not True/False: its False lines have no partner
    "False\tles chats dort\n"  # 4
    "True\tle chien court\n"
    "False\n"  # 6: no sentence
    "False\tle chien courent\n"
)


def test_malformed_lines_are_reported_as_file_line_and_skipped(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.txt", MALFORMED_CLAMS)
    suite = read_suite(path)
    assert [str(m) for m in suite.malformed] == [
        f"{path}:3: expected True<TAB>sentence or False<TAB>sentence",
        f"{path}:4: its True line (3) is malformed",
        f"{path}:6: expected True<TAB>sentence or False<TAB>sentence",
    ]
    assert suite.pairs["pair_id"].to_list() == ["2", "7"]


def test_strict_stops_at_the_first_malformed_line(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.txt", MALFORMED_CLAMS)
    with pytest.raises(MalformedInput, match=r"bad\.txt:3: expected True"):
        read_suite(path, strict=True)


@pytest.mark.parametrize(
    ("name", "text", "line", "reason"),
    [
        ("b.jsonl", BLIMP + "{oops\n", 3, "not valid JSON"),
        ("b.jsonl", BLIMP + '{"sentence_good": "x"}\n', 3, "sentence_bad is missing"),
        ("b.jsonl", BLIMP + '["a", "b"]\n', 3, "not a JSON object"),
        ("m.tsv", MULTIBLIMP + "3\tonly two\n", 5, "2 fields where the header has 8"),
        ("m.tsv", MULTIBLIMP + "3\tA.\t\tA\tSV-#\tdeu\tPL\tSG\n", 5, "wrong_sen is missing"),
        ("c.txt", "False\tx y\nTrue\ta b\nFalse\ta c\n", 1, "a False line with no True line"),
    ],
)
def test_malformed_line_reasons(
    tmp_path: Path, name: str, text: str, line: int, reason: str
) -> None:
    path = write(tmp_path, name, text)
    (entry,) = read_suite(path).malformed
    assert (entry.line, entry.file) == (line, str(path))
    assert reason in entry.reason


def test_invalid_utf8_line_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes(b"True\ta b\nFalse\ta \xff\nFalse\ta c\n")
    suite = read_suite(path)
    assert [(m.line, m.reason) for m in suite.malformed] == [(2, "not valid UTF-8")]
    assert suite.pairs["sentence_bad"].to_list() == ["a c"]


def test_empty_files_hold_no_pairs(tmp_path: Path) -> None:
    for name in ("e.txt", "e.jsonl", "e.tsv"):
        suite = read_suite(write(tmp_path, name, ""), fmt="clams" if name.endswith("txt") else None)
        assert suite.pairs.height == 0
        assert suite.malformed == []


def test_crlf_and_bom_read_like_plain_files(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes(b"\xef\xbb\xbf" + CLAMS.replace("\n", "\r\n").encode())
    assert read_suite(path).pairs["sentence_bad"][0] == "les auteurs est vieux"


def test_options_that_do_not_fit_the_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SuiteFormatError, match="apply to tables"):
        read_suite(write(tmp_path, "c.txt", CLAMS), good="a", bad="b")
    with pytest.raises(SuiteFormatError, match="go together"):
        read_suite(write(tmp_path, "t.csv", TABLE), good="good sentence")
    with pytest.raises(SuiteFormatError, match="no such suite file"):
        read_suite(tmp_path / "missing.txt")
