"""A worker's task is a bundle of small files (`mine.run.bundles`); a batch of files' attempts at
pairs are prepared at once (`mine.pairs.prepare_bundle`): each file gets what it gets alone."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa
from ud_agree.mine import pair_stream, run
from ud_agree.mine.columnar import mine_file_columnar
from ud_agree.mine.extract import FileJob
from ud_agree.mine.pairs import prepare_attempts, prepare_bundle
from ud_agree.mine.plan import Options

from tests.mine.test_pairs_fold import DOG_HAS, DOG_IS, I_AM, I_HAVE, THEY_HAVE
from tests.sentences import conllu
from ud_agree.schemas.corpus import TYPES

ALL = frozenset(TYPES)
# A coordinated subject: its verb's attempts are skipped (§4 `coordinated`).
COORDINATED = (
    "1 dogs dog NOUN Number=Plur 4 nsubj",
    "2 and and CCONJ _ 3 cc",
    "3 cats cat NOUN Number=Plur 1 conj",
    "4 bark bark VERB Mood=Ind|Tense=Pres|VerbForm=Fin|Number=Plur|Person=3 0 root",
)


def write(path: Path, *blocks: tuple[tuple[str, ...], str]) -> Path:
    """Sentences (rows, sent_id) as one CoNLL-U file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(conllu(*rows, sent_id=sent_id) for rows, sent_id in blocks))
    return path


def test_a_bundle_prepares_each_file_as_it_would_alone(tmp_path):
    # s1 is in both files (a repeat across files is no duplicate within either: `mine.run`
    # drops it), s2 twice in the second (the reader keeps the first): keys that mix files
    # would decide both otherwise.
    first = write(
        tmp_path / "a.conllu", (DOG_HAS, "s1"), (DOG_IS, "s3"), (I_AM, "s4"), (COORDINATED, "s6")
    )
    second = write(
        tmp_path / "b.conllu", (THEY_HAVE, "s2"), (DOG_IS, "s1"), (I_HAVE, "s2"), (DOG_HAS, "s5")
    )
    mined = [mine_file_columnar(FileJob(p, p.name, "en", "Test", ALL)) for p in (first, second)]
    files = [(m.relations, m.sentences) for m in mined]
    alone = [prepare_attempts(*f) for f in files]
    together = prepare_bundle(files)
    assert [a.height for a, _ in alone] == [a.height for a, _ in together]
    assert sum(s.height for _, s in alone) > 0  # the coordinated subject's skips are compared
    for (attempts, skips), (bundled, bundled_skips) in zip(alone, together, strict=True):
        assert bundled.equals(attempts)
        assert bundled_skips.equals(skips)


def test_small_files_of_one_language_share_a_task_and_large_ones_run_alone():
    def job(name: str, lang: str) -> FileJob:
        return FileJob(Path(name), name, lang, "Test", ALL)

    jobs = [job("big", "fr"), job("s1", "fr"), job("s2", "fr"), job("s3", "fr"), job("e1", "en")]
    mib = 1 << 20
    size = {Path("big"): 9 * mib, Path("s1"): 3 * mib, Path("s2"): 2 * mib, Path("s3"): mib}
    size[Path("e1")] = mib
    tasks = run.bundles(jobs, size)
    assert [[j.label for j in task] for task in tasks] == [["big"], ["s1", "s2"], ["s3"], ["e1"]]


def test_the_last_languages_files_are_handed_out_together_so_that_both_finish_at_the_end():
    def job(name: str, lang: str) -> FileJob:
        return FileJob(Path(name), name, lang, "Test", ALL)

    mib = 1 << 20
    files = {"en1": 20, "en2": 10, "pt1": 8, "pt2": 6, "pt3": 6, "fr1": 5, "fr2": 5, "fr3": 5}
    jobs = [job(name, name[:2]) for name in files]
    size = {Path(name): n * mib for name, n in files.items()}
    labels = [[j.label for j in task] for task in run.task_order(jobs, size, workers=2)]
    # English, the largest, first and alone; Portuguese and French by the share of their bytes
    # done (fr1 33%, pt1 40%, fr2 67%, pt2 70%, then both 100%): their last files end the run.
    assert labels == [["en1"], ["en2"], ["fr1"], ["pt1"], ["fr2"], ["pt2"], ["pt3"], ["fr3"]]
    one = [[j.label for j in task] for task in run.task_order(jobs, size, workers=1)]
    assert one == [[name] for name in files]  # one worker: one language after the other
    three = [[j.label for j in task] for task in run.task_order(jobs, size, workers=3)]
    # Three workers: every language's files interleaved (en1 67% before fr2 67%: file order).
    assert three == [["fr1"], ["pt1"], ["en1"], ["fr2"], ["pt2"], ["en2"], ["pt3"], ["fr3"]]


def mined_both_ways(tmp_path, monkeypatch, setting: str, values: tuple[int, int], repeat: str):
    """Three files of English (the dev file's last sentence has sent_id `repeat`) mined with
    `mine.run`'s `setting` at each of `values`: each run's pairs, skips and relations."""
    ud = tmp_path / "ud" / "UD_English-Test"
    write(ud / "en_test-ud-train.conllu", (DOG_HAS, "s1"), (THEY_HAVE, "s2"), (I_AM, "s3"))
    write(ud / "en_test-ud-dev.conllu", (DOG_IS, "d1"), (I_HAVE, "d2"), (DOG_HAS, repeat))
    write(ud / "en_test-ud-test.conllu", (DOG_HAS, "t1"), (DOG_IS, "t2"), (I_AM, "t3"))
    tables = []
    for value in values:
        monkeypatch.setattr(pair_stream if hasattr(pair_stream, setting) else run, setting, value)
        out = tmp_path / f"corpus{value}"
        options = Options(ud_dir=tmp_path / "ud", out=out, all_types=True, progress=False, jobs=1)
        run.mine_languages(options)
        tables.append(
            {
                n: pl.read_parquet(out / "en" / f"{n}.parquet")
                for n in ("pairs", "pair_skips", "relations")
            }
        )
    return tables


def test_a_corpus_mined_in_bundles_equals_one_mined_file_by_file(tmp_path, monkeypatch):
    # Every file alone; all three files in one task (s1 repeats across two of them).
    alone, bundled = mined_both_ways(tmp_path, monkeypatch, "BUNDLE_BYTES", (0, 1 << 30), "s1")
    assert alone["pairs"].height > 0 and alone["pair_skips"].height > 0
    for name, table in alone.items():
        assert bundled[name].equals(table), name


def test_pairs_decided_a_batch_per_file_on_threads_equal_one_batch(tmp_path, monkeypatch):
    # A batch per file, several deciding at once; one batch.
    batches, one = mined_both_ways(tmp_path, monkeypatch, "PAIR_BATCH", (1, 1 << 30), "d3")
    assert batches["pairs"]["sent_id"].n_unique() > 3  # pairs from every file
    for name, table in one.items():
        assert batches[name].equals(table), name


def test_a_batch_prepared_a_file_at_a_time_equals_one_prepared_at_once(tmp_path, monkeypatch):
    # Every file's attempts prepared in a call of its own; all three in one call.
    alone, together = mined_both_ways(tmp_path, monkeypatch, "PREPARE_BATCH", (1, 1 << 30), "d3")
    assert alone["pairs"]["sent_id"].n_unique() > 3  # pairs from every file
    for name, table in together.items():
        assert alone[name].equals(table), name


def test_files_are_prepared_in_groups_of_fewer_relations_than_the_limit(monkeypatch):
    monkeypatch.setattr(pair_stream, "PREPARE_BATCH", 10)
    files = [(pa.table({"r": list(range(n))}), pa.table({"s": []})) for n in (4, 5, 12, 3, 6, 2)]
    groups = pair_stream.prepare_groups(files)
    # 4 + 5 fit; 12 is alone; 3 + 6 fit; 2 more would make 11.
    assert [[f[0].num_rows for f in group] for group in groups] == [[4, 5], [12], [3, 6], [2]]
