"""A `sent_id` repeated in a treebank (its dev and test files sharing ids, or twice in one file):
the first sentence of the id is kept, in the order of the files, the rest dropped and counted in
the manifest by treebank, so that the corpus's sentences have one row per key and are scored."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.corpus import read_corpus
from ud_agree.mine.cli import main

from tests.mine.test_pairs_fold import DOG_HAS, DOG_IS, I_AM, I_HAVE, THEY_HAVE
from tests.sentences import conllu

# (rows, sent_id) per file; the dev file sorts first, so its s1 is kept.
DEV = ((DOG_HAS, "s1"), (DOG_IS, "s2"), (I_AM, "s2"))  # s2 twice in one file
TEST = ((THEY_HAVE, "s1"), (I_HAVE, "s3"), (DOG_IS, "s3"), (THEY_HAVE, "s4"))


def write(path: Path, blocks: tuple[tuple[tuple[str, ...], str], ...]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(conllu(*rows, sent_id=sent_id) for rows, sent_id in blocks))


def mine(tmp_path: Path, name: str, files: dict[str, tuple], jobs: int = 1) -> Path:
    """`files` (folder/file name → blocks) under a UD folder of `name`, mined; the corpus."""
    ud = tmp_path / name / "ud"
    for file, blocks in files.items():
        write(ud / file, blocks)
    out = tmp_path / name / "corpus"
    (tmp_path / "none").mkdir(exist_ok=True)  # no UniMorph: the treebank's forms only
    args = ["--ud-dir", str(ud), "--unimorph-dir", str(tmp_path / "none"), "--out", str(out)]
    assert main([*args, "--quiet", "--jobs", str(jobs)]) == 0
    return out


def tables(corpus: Path) -> tuple[dict, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    folder = corpus / "en"
    manifest = json.loads((folder / "manifest.json").read_text())["counts"]
    read = [pl.read_parquet(folder / f"{name}.parquet") for name in ("sentences", "relations")]
    return manifest, *read, pl.read_parquet(folder / "pairs.parquet")


def key_of(frame: pl.DataFrame) -> list[tuple]:
    return sorted(frame.select("treebank", "sent_id", "text").iter_rows())


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_first_sentence_of_a_repeated_sent_id_is_kept_and_the_rest_counted(
    tmp_path: Path, jobs: int
) -> None:
    corpus = mine(
        tmp_path,
        "shared",
        {
            "UD_English-Test/en_test-ud-dev.conllu": DEV,
            "UD_English-Test/en_test-ud-test.conllu": TEST,
        },
        jobs,
    )
    # The same corpus with only the sentences kept: what the repeats must not change.
    kept = mine(
        tmp_path,
        "kept",
        {
            "UD_English-Test/en_test-ud-dev.conllu": DEV[:2],
            "UD_English-Test/en_test-ud-test.conllu": (TEST[1], TEST[3]),
        },
    )
    counts, sentences, relations, pairs = tables(corpus)
    want_counts, want_sentences, want_relations, want_pairs = tables(kept)
    # s1 of the dev file, s2's first, s3's first, s4: one row per key.
    assert sentences.select("sent_id").to_series().to_list() == ["s1", "s2", "s3", "s4"]
    assert (
        sentences.get_column("file").to_list()[:2] == ["UD_English-Test/en_test-ud-dev.conllu"] * 2
    )
    assert key_of(sentences) == key_of(want_sentences)
    assert relations.drop("lang").equals(want_relations.drop("lang"))
    assert pairs.height > 0 and pairs.equals(want_pairs)
    assert counts["duplicate_sent_ids"] == 3  # test's s1, the second s2, the second s3
    assert counts["duplicate_sent_ids_by_treebank"] == {"Test": 3}
    for name in ("sentences", "words", "relations", "pairs", "lexicon", "pair_skips"):
        assert counts[name] == want_counts[name], name
    # The evaluator reads it (and would have found no pair of those sentences before).
    corpus_read = read_corpus(str(corpus), "en", pairs=True)
    assert corpus_read.pairs is not None and corpus_read.pairs.height == pairs.height


def test_a_corpus_mined_when_repeats_lost_every_sentence_is_mined_again(tmp_path: Path) -> None:
    files = {"UD_English-Test/en_test-ud-dev.conllu": DEV}
    corpus = mine(tmp_path, "old", files)
    manifest = corpus / "en" / "manifest.json"
    record = json.loads(manifest.read_text())
    del record["counts"]["duplicate_sent_ids_by_treebank"]  # as such a corpus's manifest is
    manifest.write_text(json.dumps(record))
    args = ["--ud-dir", str(tmp_path / "old" / "ud"), "--unimorph-dir", str(tmp_path / "none")]
    assert main([*args, "--out", str(corpus), "--quiet", "--jobs", "1"]) == 0
    counts = json.loads(manifest.read_text())["counts"]
    assert counts["duplicate_sent_ids_by_treebank"] == {"Test": 1}  # mined again, not skipped


def test_treebanks_sharing_a_sent_id_are_no_duplicates(tmp_path: Path) -> None:
    corpus = mine(
        tmp_path,
        "two",
        {
            "UD_English-One/en_one-ud-test.conllu": DEV[:2],
            "UD_English-Two/en_two-ud-test.conllu": DEV[:2],
        },
    )
    counts, sentences, _, _ = tables(corpus)
    assert counts["duplicate_sent_ids"] == 0
    assert counts["duplicate_sent_ids_by_treebank"] == {"One": 0, "Two": 0}
    assert sentences.height == 4
