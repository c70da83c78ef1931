"""The miner's engine (`mine.columnar`, rules in `mine.rules`) against the reference
(`tests/reference/`), the readable oracle kept in the tests."""

from __future__ import annotations

import lzma
import subprocess
import sys
from pathlib import Path

import pytest
from ud_agree.mine.columnar import mine_file_columnar
from ud_agree.mine.languages import (
    load_definite_types,
    load_ergative_markers,
    load_have_lemmas,
    load_object_participle_lemmas,
    load_participle_languages,
    load_value_sets,
)
from ud_agree.mine.read import MalformedError
from ud_agree.mine.rules.words import Features

from tests.paths import SHARED, UD, needs_shared
from tests.reference.compare import assert_same, assert_strict_alike, job
from tests.reference.extract import mine_file
from tests.sentences import KEYS_ARE_BROKEN, conllu

MAKE_MALFORMED = SHARED / "checks" / "make_malformed.py"
SOME = frozenset({"attributive", "subject-verb"})
TREEBANKS = sorted(p for p in UD.glob("UD_*") if p.is_dir()) if UD.is_dir() else []


def write(tmp_path: Path, text: str | bytes, name: str = "xx_test-ud-dev.conllu") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("treebank", TREEBANKS, ids=lambda p: p.name)
def test_every_shared_treebank_mines_alike(treebank: Path):
    """With the language's facts as `python -m mine` passes them (participles, value sets)."""
    files = sorted(treebank.glob("*.conllu*"))
    assert files
    for path in files:
        assert_same(path, **language_facts(path))


def language_facts(path: Path) -> dict:
    """The FileJob facts that mine.plan gives a file of this language (UD code = name prefix):
    participles, value sets, the *have* and ergative-marker lemmas of §1.7, the types where
    Definite is in F."""
    code = path.name.split("_")[0]
    return {
        "participle_agreement": code in load_participle_languages(),
        "value_sets": load_value_sets().get(code, {}),
        "have_lemmas": load_have_lemmas().get(code, frozenset()),
        "ergative_lemmas": load_ergative_markers().get(code, frozenset()),
        "object_have_lemmas": load_object_participle_lemmas().get(code, frozenset()),
        "definite_types": load_definite_types().get(code, frozenset()),
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", ["UD_Russian-PUD", "UD_Norwegian-Bokmaal", "UD_Czech-PUD"])
def test_other_facts_mine_alike(name: str):
    """The participle rule and Norwegian's value sets on treebanks of other languages too."""
    for path in sorted((UD / name).glob("*.conllu*")):
        facts = language_facts(path)
        assert_same(
            path,
            participle_agreement=not facts["participle_agreement"],
            value_sets=facts["value_sets"] or load_value_sets()["no"],
        )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["UD_French-PUD", "UD_English-PUD", "UD_Portuguese-Bosque"])
def test_restricted_types_mine_alike(name: str):
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
@needs_shared
@pytest.mark.parametrize("keep_utf8_fault", [True, False], ids=["with-utf8", "without-utf8"])
def test_malformed_copy_mines_alike_and_strict_raises_alike(tmp_path: Path, keep_utf8_fault: bool):
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
def test_written_cases_mine_alike(tmp_path: Path, text: str):
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


def shifted(offset: int) -> str:
    """KEYS_ARE_BROKEN with every ID and non-zero HEAD moved up by offset."""
    rows = []
    for row in KEYS_ARE_BROKEN:
        token_id, form, lemma, upos, feats, head, *rest = row.split()
        head = str(int(head) + offset) if head != "0" else head
        rows.append(" ".join([str(int(token_id) + offset), form, lemma, upos, feats, head, *rest]))
    return conllu(*rows, sent_id="shifted")


@pytest.mark.parametrize(
    "odd",
    [
        shifted(10**9),  # IDs and HEADs of 10 digits
        shifted(2**31 - 9),  # the last ID is 2^31 - 1
        corrupt(0, "0000000002").replace("\t2\tnsubj", "\t00000000000000000002\tnsubj"),
        corrupt(6, "000000000007"),
        GOOD.replace("\n4\t", "\n4-99999999999999999999\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n4\t"),
        GOOD.replace("\n4\t", "\n3.00000000000000001\tx\t_\t_\t_\t_\t_\t_\t_\t_\n4\t"),
    ],
)
def test_integers_of_more_than_eight_digits_are_read_alike(tmp_path: Path, odd: str):
    """Long IDs and HEADs are parsed in Python: well-formed below 2^31 (§1.0)."""
    first, last = (GOOD.replace("= s1", f"= {name}") for name in ("first", "last"))
    got = assert_same(write(tmp_path, first + odd + last))  # three sent_ids: all kept
    assert got is not None and got.malformed == []
    assert got.sentences.num_rows == 3


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
        corrupt(0, "\u0662.1"),  # non-ASCII digits in a decimal or a range are no ID either
        corrupt(0, "\u0661-3"),
        corrupt(0, "2147483648"),  # an ID of 2^31 or more
        corrupt(6, "2147483648"),  # a HEAD of 2^31 or more: no word has that ID
        corrupt(6, "9" * 30),
        shifted(2**31 - 8),  # the last ID is 2^31
    ],
)
def test_malformed_sentences_are_named_alike(tmp_path: Path, bad: str):
    text = GOOD + bad + GOOD
    path = write(tmp_path, text)
    assert_same(path)
    assert_strict_alike(path)


@pytest.mark.parametrize("bad", [b"\xff", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"])
def test_invalid_utf8_file_is_mined_alike(tmp_path: Path, bad: bytes):
    data = GOOD.encode() + GOOD.replace("clés", "cl@s").encode().replace(b"@", bad)
    got = assert_same(write(tmp_path, data + GOOD.encode()))
    assert got is not None and got.malformed == [(GOOD.count("\n") + 1, "invalid UTF-8")]


BAD = b"\xe2\x82"  # a truncated sequence


@pytest.mark.parametrize(
    "data",
    [
        BAD + b"\n" + GOOD.encode(),  # a line of its own before a sentence: joins it
        BAD + b"\n\n" + GOOD.encode(),  # a block of its own: a sentence of one line
        b"# note " + BAD + b"\n\n" + GOOD.encode(),  # a comment-only block: no sentence
        GOOD.replace("sont", "s@nt").encode().replace(b"@", BAD) + GOOD.encode(),
        GOOD.replace("# sent_id = s1", "# sent_id = s@").encode().replace(b"@", BAD),
        corrupt(6, "x").replace("clés", "cl@s").encode().replace(b"@", BAD),  # also a bad HEAD
        GOOD.encode() + GOOD.replace("\tnsubj\t", "\tnsubj@\n").encode().replace(b"@", BAD),
        GOOD.encode() + b"\n\n" + BAD,  # at the end of the file, no newline
        b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode() + BAD + b"\r\n",  # BOM, CRLF
    ],
)
def test_invalid_utf8_is_found_per_sentence_without_the_reference(tmp_path: Path, data: bytes):
    """Invalid bytes mark only their sentence malformed, before any other fault (§1.0)."""
    path = write(tmp_path, data)
    assert_same(path)
    assert_strict_alike(path)


def test_package_runs_without_the_reference():
    """The reference engine is a test oracle only: the package never imports it."""
    code = (
        "import sys, mine.run, mine.columnar, mine.cli; "
        "assert not [m for m in sys.modules if m.startswith('tests')], sys.modules.keys()"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_features_of_more_than_64_values_use_wide_masks(tmp_path: Path):
    """A feature with more values than 64 bits hold is compared with Python-integer masks."""
    strings = [f"Case=C{i}|Number=Sing" for i in range(70)]
    assert Features.build(strings, {}).compared.dtype == object
    rows = []
    for i in range(70):
        rows += [
            f"{2 * i + 1} x x NOUN Case=C{i}|Number=Sing 0 root",
            f"{2 * i + 2} y y ADJ Case=C{i},C{(i + 1) % 70}|Number=Sing {2 * i + 1} amod",
        ]
    rows += ["141 z z ADJ Case=C3 1 amod"]  # disagrees with C0
    got = assert_same(write(tmp_path, conllu(*rows)))
    assert got is not None and got.relations.num_rows == 70 and got.drops == {"disagree": 1}


def test_non_ascii_file_is_mined_alike(tmp_path: Path):
    text = GOOD.replace("clés", "clés\u00a0😀") + MWT_EMPTY_SPACE.replace("chat", "chat\u2028")
    assert_same(write(tmp_path, text))


def test_compressed_file_is_mined_alike(tmp_path: Path):
    path = tmp_path / "xx_test-ud-dev.conllu.xz"
    path.write_bytes(lzma.compress((GOOD + MWT_EMPTY_SPACE).encode()))
    assert_same(path)
