"""Each table's fingerprint in its manifest, hashed while it is written: a table edited by hand
is never taken for current output."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl
import pytest
from ud_agree.mine.cli import main

from tests.paths import SAMPLE
from ud_agree.atomic import atomic_file, changed_tables, fingerprint, write_parquet


def mine(out: Path, *more: str) -> int:
    args = ["--ud-dir", str(SAMPLE / "ud"), "--lang", "de", "--out", str(out), "--jobs", "1"]
    return main([*args, "--quiet", *more])


@pytest.fixture
def mined(tmp_path: Path) -> Path:
    assert mine(tmp_path) == 0
    return tmp_path / "de"


def sha256(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_manifest_holds_the_fingerprint_of_every_table_as_written(mined):
    recorded = json.loads((mined / "manifest.json").read_text())["tables"]
    tables = sorted(p.name for p in mined.glob("*.parquet"))
    assert sorted(recorded) == tables and len(tables) == 7
    assert all(recorded[name] == sha256(mined / name) for name in tables)
    assert changed_tables(mined, recorded) == []


def test_a_fingerprint_hashed_while_writing_equals_one_read_back(tmp_path):
    prints: dict[str, str] = {}
    write_parquet(pl.DataFrame({"a": [1, 2, 3]}).to_arrow(), tmp_path / "t.parquet", None, prints)
    with atomic_file(tmp_path / "b.bin", prints) as handle:
        handle.write(b"abc")
        handle.write(b"def")
    assert prints == {
        "t.parquet": sha256(tmp_path / "t.parquet"),
        "b.bin": sha256(tmp_path / "b.bin"),
    }
    assert prints["b.bin"] == fingerprint(tmp_path / "b.bin")
    assert prints["b.bin"] == "sha256:" + hashlib.sha256(b"abcdef").hexdigest()


def truncate(path: Path) -> None:
    pl.read_parquet(path).head(1).write_parquet(path)


def rename_a_column(path: Path) -> None:
    frame = pl.read_parquet(path)
    frame.rename({frame.columns[0]: "renamed"}).write_parquet(path)


@pytest.mark.parametrize("damage", [truncate, rename_a_column])
@pytest.mark.parametrize("table", ["agreement", "pairs", "relations"])
def test_a_table_edited_by_hand_is_mined_again_not_called_current(mined, damage, table, capsys):
    path = mined / f"{table}.parquet"
    written = pl.read_parquet(path)
    damage(path)
    capsys.readouterr()
    assert mine(mined.parent) == 0
    err = capsys.readouterr().err
    assert f"de: {table}.parquet in {mined} changed since it was written" in err
    assert "is current; skipped" not in err
    assert pl.read_parquet(path).equals(written)
    # Mined again, it is current again.
    assert mine(mined.parent) == 0
    assert "is current; skipped" in capsys.readouterr().err


def test_a_manifest_without_fingerprints_is_not_current(mined, capsys):
    manifest = json.loads((mined / "manifest.json").read_text())
    del manifest["tables"]
    (mined / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert mine(mined.parent) == 0
    assert "is current" not in capsys.readouterr().err
    assert "tables" in json.loads((mined / "manifest.json").read_text())


def test_output_without_pairs_is_current_on_a_second_run(tmp_path, capsys):
    assert mine(tmp_path, "--no-pairs") == 0
    capsys.readouterr()
    assert mine(tmp_path, "--no-pairs") == 0
    assert "is current; skipped" in capsys.readouterr().err


def test_compare_and_export_refuse_a_corpus_edited_since_it_was_mined(mined, tmp_path, capsys):
    from ud_agree.mine.compare import ComparedLanguage, CompareError
    from ud_agree.mine.export import main as export

    out = tmp_path / "x.jsonl"
    args = [str(mined / "pairs.parquet"), "--format", "blimp", "--out", str(out)]
    assert export(args) == 0
    truncate(mined / "pairs.parquet")
    capsys.readouterr()
    assert export(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pairs.parquet changed since it was mined" in err
    keys = pl.DataFrame({"treebank": ["x"], "sent_id": ["y"]})
    with pytest.raises(CompareError, match=r"pairs\.parquet changed since it was mined"):
        ComparedLanguage(mined, None, keys)


def test_the_evaluator_refuses_a_table_edited_since_it_was_mined(mined):
    from ud_agree import read_corpus
    from ud_agree.errors import UsageError

    assert read_corpus(str(mined.parent), "de", pairs=True).pairs is not None
    truncate(mined / "pairs.parquet")
    assert read_corpus(str(mined.parent), "de").relations.height > 0  # pairs not read
    with pytest.raises(UsageError, match=r"pairs\.parquet changed since it was mined"):
        read_corpus(str(mined.parent), "de", pairs=True)


@pytest.mark.parametrize("lang", ["../de", "de/..", "..", ".", ""])
def test_a_language_that_leaves_the_corpus_folder_is_refused(mined, lang):
    from ud_agree import read_corpus
    from ud_agree.errors import UsageError

    (mined.parent / "inner").mkdir()
    with pytest.raises(UsageError, match="is not a language folder"):
        read_corpus(str(mined.parent / "inner"), lang)
