"""The vectorised engine (`mine.columnar`) against the reference `mine.extract.mine_file`."""

from __future__ import annotations

import lzma
import subprocess
import sys
from pathlib import Path

import pytest

from mine import columnar
from mine.columnar import mine_file_columnar
from mine.extract import FileJob, FileResult, mine_file
from mine.lexicon import ud_entries
from mine.read import MalformedError
from mine.schema import TYPES
from tests.paths import SHARED, UD  # noqa: E402
from tests.sentences import KEYS_ARE_BROKEN, conllu

MAKE_MALFORMED = SHARED / "checks" / "make_malformed.py"
ALL = frozenset(TYPES)
SOME = frozenset({"attributive", "subject-verb"})
TREEBANKS = sorted(p for p in UD.glob("UD_*") if p.is_dir()) if UD.is_dir() else []


def job(path: Path, types: frozenset[str] = ALL, strict: bool = False) -> FileJob:
    return FileJob(path, path.name, "xx", "Test", types, strict)


def assert_same(path: Path, types: frozenset[str] = ALL) -> FileResult | None:
    """Both engines give the same tables, counts and lexicon entries for one file (or raise
    the same error)."""
    try:
        expected = mine_file(job(path, types))
    except Exception as error:  # noqa: BLE001 - the columnar engine must fail alike
        with pytest.raises(type(error)) as raised:
            mine_file_columnar(job(path, types))
        assert str(raised.value) == str(error)
        return None
    got = mine_file_columnar(job(path, types))
    for name in ("relations", "sentences"):
        want, have = getattr(expected, name), getattr(got, name)
        assert want.schema == have.schema, name
        for column in want.column_names:  # column by column, for a readable failure
            assert want[column].to_pylist() == have[column].to_pylist(), (name, column)
        assert want.equals(have), name
    for name in ("label", "sha256", "size", "words", "duplicate_sent_ids", "malformed"):
        assert getattr(expected, name) == getattr(got, name), name
    for name in ("drops", "agree", "disagree"):
        assert getattr(expected, name) == getattr(got, name), name
    assert ud_entries(expected.lexicon_counts) == ud_entries(got.lexicon_counts)
    return got


@pytest.fixture
def no_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if the columnar engine hands a file to the reference engine."""

    def refuse(job: FileJob) -> FileResult:
        raise AssertionError(f"{job.label} fell back to mine_file")

    monkeypatch.setattr(columnar, "mine_file", refuse)


def write(tmp_path: Path, text: str | bytes, name: str = "xx_test-ud-dev.conllu") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("treebank", TREEBANKS, ids=lambda p: p.name)
def test_every_shared_treebank_mines_alike(treebank: Path, no_fallback):
    files = sorted(treebank.glob("*.conllu*"))
    assert files
    for path in files:
        assert_same(path)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["UD_French-PUD", "UD_English-PUD", "UD_Portuguese-Bosque"])
def test_restricted_types_mine_alike(name: str, no_fallback):
    for path in sorted((UD / name).glob("*.conllu*")):
        assert_same(path, SOME)


def malformed_copy(tmp_path: Path, keep_utf8_fault: bool) -> Path:
    """French-PUD with the shared checker's malformed sentences (optionally minus bad UTF-8)."""
    source = UD / "UD_French-PUD" / "fr_pud-ud-test.conllu.xz"
    target = tmp_path / "fr_pud-ud-test.conllu"
    subprocess.run([sys.executable, str(MAKE_MALFORMED), str(source), str(target)], check=True)
    if not keep_utf8_fault:
        target.write_bytes(target.read_bytes().replace(b"\xff\xfe", b""))
    return target


@pytest.mark.slow
@pytest.mark.parametrize("keep_utf8_fault", [True, False], ids=["with-utf8", "without-utf8"])
def test_malformed_copy_mines_alike_and_strict_raises_alike(
    tmp_path: Path, keep_utf8_fault: bool, request: pytest.FixtureRequest
):
    if not keep_utf8_fault:
        request.getfixturevalue("no_fallback")  # the other five faults are found column-wise
    path = malformed_copy(tmp_path, keep_utf8_fault)
    got = assert_same(path)
    assert got is not None
    assert len(got.malformed) == (6 if keep_utf8_fault else 5)
    with pytest.raises(MalformedError) as expected:
        mine_file(job(path, strict=True))
    with pytest.raises(MalformedError) as raised:
        mine_file_columnar(job(path, strict=True))
    assert str(raised.value) == str(expected.value)


MWT_EMPTY_SPACE = conllu(
    "1-2 du _ _ _ _ _ SpaceAfter=No",
    "1 de de ADP _ 3 case",
    "2 le le DET Gender=Masc|Number=Sing 3 det",
    "3 chat chat NOUN Gender=Masc|Number=Sing 5 nsubj",
    "3.1 est être AUX _ _ _",
    "4 noir noir ADJ Gender=Masc|Number=Sing 3 amod SpaceAfter=No",
    "5 dort dormir VERB Number=Sing|Person=3|VerbForm=Fin 0 root",
    "6 . . PUNCT _ 5 punct SpaceAfter=No",
)
SHUFFLED_IDS = conllu(
    "3 chats chat NOUN Gender=Masc|Number=Plur 4 nsubj",
    "1 Les le DET Number=Plur 3 det",
    "4 dorment dormir VERB Number=Plur|Person=3 0 root",
    "2 noirs noir ADJ Gender=Masc|Number=Plur 3 amod",
    sent_id="shuffled",
)
GAPPED_IDS = conllu(
    "10 Les le DET Number=Plur 30 det",
    "20 grands grand ADJ Number=Plur 30 amod",
    "30 chats chat NOUN Gender=Masc|Number=Plur|Typo=Yes 40 nsubj:pass",
    "40 mangés manger VERB Number=Plur|VerbForm=Part 0 root",
    "50 souris souris NOUN Number=Sing 40 obj",
    sent_id="gapped",
)
PASSIVE_AND_FEATURES = conllu(
    "1 Les le DET Number=Plur|Number[psor]=Sing 2 det",
    "2 clés clé NOUN Gender=Fem|Number=Plur,Sing 4 nsubj:pass",
    "3 ont avoir AUX Number=Plur|Person=3|VerbForm=Fin 4 aux",
    "4 cassées casser VERB Gender=Fem|Number=Plur|VerbForm=Part 0 root",
    "5 armoires armoire NOUN Gender=Masc|Number=Sing 4 obl",
    "6 portes porte NOUN Gender=Fem|Number=Plur 4 obl",
    "7 elles lui PRON Gender=Fem|Number=Plur|Person=3 8 nsubj",
    "8 fermées fermer ADJ Gender=Fem|Number=Plur 4 conj",
    "9 a avoir AUX Number=Sing|Person=3|VerbForm=Inf 8 cop",
    "10 l' le DET Number=Sing=x|Gender= 5 det:poss",
)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n\n",
        "# only = comments\n# sent_id = none\n\n",
        MWT_EMPTY_SPACE,
        SHUFFLED_IDS,
        GAPPED_IDS,
        PASSIVE_AND_FEATURES,
        conllu(*KEYS_ARE_BROKEN) * 3,  # duplicate sent_ids
        conllu(*KEYS_ARE_BROKEN, sent_id=None) + conllu(*KEYS_ARE_BROKEN, sent_id=None),
        conllu(*KEYS_ARE_BROKEN).rstrip("\n"),  # no final newline
        "\ufeff" + conllu(*KEYS_ARE_BROKEN).replace("\n", "\r\n"),  # BOM and CRLF
        "  \n\t\n" + conllu(*KEYS_ARE_BROKEN) + " \n\n\n\n" + conllu(*KEYS_ARE_BROKEN),
        "\u3000\n\x1c\n" + conllu(*KEYS_ARE_BROKEN) + "\u2029\n\n\x85",  # Unicode blanks
        conllu(*KEYS_ARE_BROKEN, sent_id=None, comments=("# sent_id=a", "# sent_id =  b  ")),
        conllu(*KEYS_ARE_BROKEN, sent_id=None, comments=("# sent_id = a", "# sent_id =")),
        conllu(*KEYS_ARE_BROKEN, sent_id=None, comments=("# sent_id  c\u00a0", "# sent_idd")),
        conllu(*KEYS_ARE_BROKEN).replace("# sent_id = s1\n", "# x\n1\tx\n# sent_id = late\n"),
    ],
    ids=lambda text: repr(text[:30]),
)
def test_written_cases_mine_alike(tmp_path: Path, text: str, no_fallback):
    assert_same(write(tmp_path, text))
    assert_same(write(tmp_path, text), SOME)


def corrupt(column: int, value: str, row: int = 2) -> str:
    """KEYS_ARE_BROKEN with one field of one token row replaced."""
    lines = conllu(*KEYS_ARE_BROKEN).rstrip("\n").split("\n")
    cols = lines[row].split("\t")
    cols[column] = value
    lines[row] = "\t".join(cols)
    return "\n".join(lines) + "\n\n"


GOOD = conllu(*KEYS_ARE_BROKEN)


@pytest.mark.parametrize(
    "bad",
    [
        GOOD.replace("\tnsubj\t", "\tnsubj "),  # 9 fields
        GOOD.replace("\tnsubj\t", "\tnsubj\t\t"),  # 11 fields
        corrupt(6, "x"),
        corrupt(6, "99"),
        corrupt(6, "123456789012"),
        corrupt(0, "1"),  # repeated ID
        corrupt(0, "0"),
        corrupt(0, "one"),
        corrupt(0, "1-x"),
        corrupt(0, "2.x"),
        corrupt(0, "1-2-3"),
        corrupt(0, "1.2.3"),
        corrupt(0, "-1"),
        corrupt(0, "1-"),
        corrupt(0, ".5"),
        corrupt(0, "123456789"),
        corrupt(6, "1", row=1),  # cycle between words 1 and 2
        corrupt(6, "2", row=2),  # word 2 heads itself
        "# sent_id = mwt-only\n1-2\tdu\t_\t_\t_\t_\t_\t_\t_\t_\n\n",
        GOOD.replace("# sent_id = s1\n", "# sent_id = s1\n \n"),  # space line inside
        GOOD.replace("# sent_id = s1\n", "# sent_id = s1\né\n"),
        GOOD.replace("\n3\t", "\n\t\t\t\t\t\t\t\t\t\n3\t"),  # empty fields line inside
        corrupt(0, "\u0661"),  # Arabic-Indic digit: an integer for Python, not for numpy
        corrupt(6, "\u0661"),
        corrupt(0, "1\u0661-\u0662"),
    ],
)
def test_malformed_sentences_are_named_alike(tmp_path: Path, bad: str):
    text = GOOD + bad + GOOD
    path = write(tmp_path, text)
    assert_same(path)
    try:
        mine_file(job(path, strict=True))
    except Exception as error:  # noqa: BLE001 - MalformedError, or whatever the reference raises
        with pytest.raises(type(error)) as raised:
            mine_file_columnar(job(path, strict=True))
        assert str(raised.value) == str(error)
    else:
        assert mine_file_columnar(job(path, strict=True)).malformed == []


@pytest.mark.parametrize("bad", [b"\xff", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"])
def test_invalid_utf8_file_is_mined_alike(tmp_path: Path, bad: bytes):
    data = GOOD.encode() + GOOD.replace("clés", "cl@s").encode().replace(b"@", bad)
    assert_same(write(tmp_path, data + GOOD.encode()))


def test_non_ascii_file_is_mined_without_fallback(tmp_path: Path, no_fallback):
    text = GOOD.replace("clés", "clés\u00a0😀") + MWT_EMPTY_SPACE.replace("chat", "chat\u2028")
    assert_same(write(tmp_path, text))


def test_compressed_file_is_mined_alike(tmp_path: Path):
    path = tmp_path / "xx_test-ud-dev.conllu.xz"
    path.write_bytes(lzma.compress((GOOD + MWT_EMPTY_SPACE).encode()))
    assert_same(path)
