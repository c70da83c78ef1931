"""Reading CoNLL-U (DESIGN.md §1.0, §1.4): malformed sentences, sent_id, surface words, compression."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest
from ud_agree.mine.read import Malformed, Sentence, parse, read_bytes, rebuild_text, stem

from tests.sentences import KEYS_ARE_BROKEN, conllu

GOOD = conllu(
    "1 Il il PRON Number=Sing 2 nsubj", "2 dort dormir VERB Number=Sing 0 root", sent_id=None
)


def parsed(text: str | bytes) -> list[Sentence | Malformed]:
    return list(parse(text.encode() if isinstance(text, str) else text, "fr_test-ud-dev"))


def lines_of(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def corrupt(column: int, value: str, row: int = 1) -> str:
    """GOOD with one field of one token row replaced."""
    lines = lines_of(GOOD)
    cols = lines[row - 1].split("\t")
    cols[column] = value
    lines[row - 1] = "\t".join(cols)
    return "\n".join(lines) + "\n\n"


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (GOOD.replace("\tnsubj\t", "\tnsubj "), "fields"),
        (corrupt(6, "x"), "not an integer"),
        (corrupt(6, "7"), "not a word of the sentence"),
        (corrupt(0, "2", row=1), "repeats"),
        (corrupt(6, "1", row=2).replace("\t2\tnsubj", "\t2\tnsubj"), "cycle"),
        (corrupt(0, "one"), "not an integer"),
        (corrupt(0, "1-x"), "not an integer, range or decimal"),
        (corrupt(0, "2147483648"), "2^31 or more"),
        (corrupt(6, "2147483648"), "not a word of the sentence"),
    ],
)
def test_malformed_sentence_is_skipped_and_named_with_its_first_line(bad, reason):
    result = parsed(GOOD + bad + GOOD)
    assert [type(r).__name__ for r in result] == ["Sentence", "Malformed", "Sentence"]
    assert result[1].line == len(lines_of(GOOD)) + 2
    assert reason in result[1].reason


def test_invalid_utf8_spoils_only_its_sentence():
    data = (
        GOOD.encode()
        + GOOD.replace("dort", "d\udcffrt").encode("utf-8", "surrogateescape")
        + GOOD.encode()
    )
    result = parsed(data)
    assert [type(r).__name__ for r in result] == ["Sentence", "Malformed", "Sentence"]
    assert result[1].reason == "invalid UTF-8"


def test_cycle_without_root_is_malformed():
    text = conllu("1 a a NOUN _ 2 nsubj", "2 b b VERB _ 3 obj", "3 c c VERB _ 1 root")
    (result,) = parsed(text)
    assert isinstance(result, Malformed) and "cycle" in result.reason


def test_empty_file_has_no_sentences():
    assert parsed("") == []
    assert parsed("\n\n\n") == []


def test_sent_id_falls_back_to_file_stem_and_position():
    text = GOOD + conllu("1 x x NOUN _ 0 root", sent_id="given") + GOOD
    ids = [s.sent_id for s in parsed(text)]
    assert ids == ["fr_test-ud-dev:1", "given", "fr_test-ud-dev:3"]
    assert stem(Path("a/fr_pud-ud-test.conllu.xz")) == "fr_pud-ud-test"


def test_blank_lines_and_crlf_keep_line_numbers():
    text = "\n\n" + GOOD + "\n" + GOOD
    first, second = parsed(text.replace("\n", "\r\n"))
    assert (first.line, second.line) == (3, 3 + len(lines_of(GOOD)) + 2)


def test_multiword_token_is_one_surface_word_and_empty_node_is_none():
    text = conllu(
        "1 Il il PRON _ 2 nsubj",
        "2 parle parler VERB _ 0 root",
        "3-4 du _ _ _ _ _ _",
        "3 de de ADP _ 5 case",
        "4 le le DET Number=Sing 5 det",
        "5 chat chat NOUN Number=Sing 2 obl SpaceAfter=No",
        "5.1 dort dormir VERB _ _ _",
        "6 . . PUNCT _ 2 punct",
    )
    (s,) = parsed(text)
    assert s.words == ["Il", "parle", "du", "chat", "."]
    assert s.ids == [1, 2, 3, 4, 5, 6]
    assert s.surface == [0, 1, 2, 2, 3, 4]
    assert s.in_mwt == [False, False, True, True, False, False]
    assert rebuild_text(s.words, s.space_after) == "Il parle du chat."


def test_space_after_comes_from_the_surface_token_not_its_words():
    rows = (
        "1-2 Qu'il _ _ _ _ _ _ _",
        "1 Qu' que SCONJ _ 3 mark",
        "2 il il PRON _ 3 nsubj SpaceAfter=No",
        "3 vienne venir VERB _ 0 root",
    )
    (s,) = parsed(conllu(*rows))
    assert rebuild_text(s.words, s.space_after) == "Qu'il vienne"
    lines = conllu(*rows).split("\n")
    lines[1] = lines[1].rsplit("\t", 1)[0] + "\tSpaceAfter=No"
    (s,) = parsed("\n".join(lines))
    assert rebuild_text(s.words, s.space_after) == "Qu'ilvienne"


def test_surface_words_rebuild_the_text_comment():
    (s,) = parsed(conllu(*KEYS_ARE_BROKEN))
    assert rebuild_text(s.words, s.space_after) == "Les clés de l'armoire sont cassées."


@pytest.mark.parametrize("suffix", ["", ".gz", ".xz", ".bz2"])
def test_compressed_files_read_like_plain_ones(tmp_path, suffix):
    path = tmp_path / f"fr_test-ud-dev.conllu{suffix}"
    opener = {"": open, ".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}[suffix]
    with opener(path, "wb") as handle:
        handle.write(GOOD.encode())
    assert read_bytes(path) == GOOD.encode()


@pytest.mark.parametrize("field", ["", "٢", "+2"])
def test_empty_or_non_ascii_id_and_head_are_malformed(field):
    for column in (0, 6):
        (result,) = parsed(corrupt(column, field, row=2))
        assert isinstance(result, Malformed), (column, field)
