"""`python -m mine.compare` against hostile input: a MultiBLiMP file or a corpus it cannot read is
one line naming the file (and line or column), exit 2, never a traceback; a corpus table whose
integer columns have another width is read as it is."""

from __future__ import annotations

import dataclasses
import gzip
import json
import lzma
import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from ud_agree.mine.compare import main
from ud_agree.mine.plan import Options
from ud_agree.mine.run import mine_languages

from tests.mine.test_compare import CASES, SENTENCES, write_tsv
from tests.sentences import write_treebank
from ud_agree.atomic import fingerprint


@pytest.fixture(scope="module")
def mined(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("compare-faults")
    write_treebank(work / "ud", "English", "en", SENTENCES)
    options = Options(
        ud_dir=work / "ud", out=work / "corpus", unimorph_dirs=[work / "none"], progress=False
    )
    mine_languages(options)
    return work


@pytest.fixture
def corpus(mined: Path, tmp_path: Path) -> Path:
    """A copy of the mined corpus to tamper with (its manifest names the original --ud-dir)."""
    shutil.copytree(mined / "corpus", tmp_path / "corpus")
    return tmp_path / "corpus"


def edit_table(corpus: Path, name: str, change: Callable[[pl.DataFrame], pl.DataFrame]) -> Path:
    """Rewrite `en/<name>.parquet` and record it in the manifest, as if mined so: the reader's
    own checks, not the fingerprint, must catch what is wrong."""
    path = corpus / "en" / f"{name}.parquet"
    change(pl.read_parquet(path)).write_parquet(path)
    manifest = path.parent / "manifest.json"
    record = json.loads(manifest.read_text())
    record["tables"][path.name] = fingerprint(path)
    manifest.write_text(json.dumps(record))
    return path


def run(capsys, tsv: Path, corpus: Path, out: Path | None = None) -> tuple[int, str]:
    capsys.readouterr()
    argv = [str(tsv), "--corpus", str(corpus)] + (["--out", str(out)] if out else [])
    code = main(argv)
    return code, capsys.readouterr().err


def refused(code: int, err: str, *words: str) -> None:
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert all(word in err for word in words), err


def rows() -> list[dict]:
    return [row for row, _ in CASES]


# --- the corpus's tables --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "change", "words"),
    [
        ("relations", lambda f: f.rename({"target_id": "target"}), ("target_id",)),
        ("sentences", lambda f: f.rename({"line": "first_line"}), ("line",)),
        ("pairs", lambda f: f.drop("feature"), ("feature",)),
        ("drops", lambda f: f.rename({"reason": "why"}), ("reason",)),
        ("sentences", lambda f: f.with_columns(pl.col("line").cast(pl.String)), ("line",)),
        ("relations", lambda f: f.with_columns(pl.lit(1.5).alias("target_id")), ("target_id",)),
        (
            "sentences",
            lambda f: f.with_columns(pl.col("sent_id").str.slice(1).cast(pl.Int64)),
            ("sent_id",),
        ),
    ],
    ids=[
        "relations-renamed",
        "sentences-renamed",
        "pairs-column-dropped",
        "drops-renamed",
        "line-as-text",
        "target-id-as-float",
        "sent-id-as-integers",
    ],
)
def test_a_corpus_table_it_cannot_read_is_one_line_naming_file_and_column(
    corpus: Path, tmp_path: Path, capsys, name, change, words
) -> None:
    path = edit_table(corpus, name, change)
    tsv = write_tsv(rows(), tmp_path / "data.tsv")
    code, err = run(capsys, tsv, corpus, tmp_path / "o.tsv")
    refused(code, err, str(path), *words)
    assert not (tmp_path / "o.tsv").exists()


@pytest.mark.parametrize(
    ("name", "column", "dtype"),
    [
        ("relations", "target_id", pl.Int64),
        ("relations", "controller_id", pl.UInt16),
        ("pairs", "target_id", pl.Int64),
        ("pair_skips", "controller_id", pl.Int16),
        ("drops", "target_id", pl.Int64),
        ("sentences", "line", pl.Int64),
    ],
)
def test_integer_columns_of_another_width_are_read_as_they_are(
    corpus: Path, tmp_path: Path, capsys, name, column, dtype
) -> None:
    tsv = write_tsv(rows(), tmp_path / "data.tsv")
    assert run(capsys, tsv, corpus, tmp_path / "before.parquet")[0] == 0
    edit_table(corpus, name, lambda f: f.with_columns(pl.col(column).cast(dtype)))
    code, err = run(capsys, tsv, corpus, tmp_path / "after.parquet")
    assert code == 0, err
    before = pl.read_parquet(tmp_path / "before.parquet")
    assert pl.read_parquet(tmp_path / "after.parquet").equals(before)


# --- the MultiBLiMP file --------------------------------------------------------------------


def test_a_word_index_beyond_64_bits_or_32_is_one_line_naming_its_line(
    corpus: Path, tmp_path: Path, capsys
) -> None:
    for index in (2**40, 2**70, -5):
        bad = rows()
        bad[2] = {**bad[2], "head_idx": index}
        tsv = write_tsv(bad, tmp_path / "data.tsv")
        code, err = run(capsys, tsv, corpus, tmp_path / "o.tsv")
        refused(code, err, f"{tsv}:4", "head_idx")
        assert not (tmp_path / "o.tsv").exists()


@pytest.mark.parametrize("depth", [1_000, 200_000])
def test_deeply_nested_metadata_is_one_line_naming_its_line(
    corpus: Path, tmp_path: Path, capsys, depth: int
) -> None:
    bad = rows()
    bad[1] = {**bad[1], "metadata": "{'sent_id': 's1', 'x': " + "[" * depth + "]" * depth + "}"}
    tsv = write_tsv(bad, tmp_path / "data.tsv")
    code, err = run(capsys, tsv, corpus)
    refused(code, err, f"{tsv}:3", "metadata")


@pytest.mark.parametrize("suffix", [".gz", ".xz"])
def test_a_damaged_compressed_multiblimp_file_is_one_line_naming_it(
    corpus: Path, tmp_path: Path, capsys, suffix: str
) -> None:
    plain = write_tsv(rows(), tmp_path / "data.tsv").read_bytes()
    packed = gzip.compress(plain) if suffix == ".gz" else lzma.compress(plain)
    for damaged in (packed[: len(packed) // 2], packed[:10] + b"\x00" * 40 + packed[50:]):
        tsv = tmp_path / f"data.tsv{suffix}"
        tsv.write_bytes(damaged)
        code, err = run(capsys, tsv, corpus)
        refused(code, err, str(tsv))


def test_a_damaged_compressed_conllu_file_is_one_line_naming_it(tmp_path: Path, capsys) -> None:
    ud = tmp_path / "ud"
    write_treebank(ud, "English", "en", SENTENCES)
    conllu = next((ud / "UD_English-Test").glob("*.conllu"))
    packed = conllu.with_name(conllu.name + ".gz")
    packed.write_bytes(gzip.compress(conllu.read_bytes()))
    conllu.unlink()
    options = Options(ud_dir=ud, out=tmp_path / "corpus", unimorph_dirs=[tmp_path / "n"])
    mine_languages(dataclasses.replace(options, progress=False))
    packed.write_bytes(packed.read_bytes()[:-30])  # cut short after mining
    tsv = write_tsv(rows(), tmp_path / "data.tsv")
    code, err = run(capsys, tsv, tmp_path / "corpus")
    refused(code, err, str(packed))
