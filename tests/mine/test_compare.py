"""`python -m mine.compare`: MultiBLiMP rows classed against a corpus mined from sentences written
here, where the right class is known, and on the two shared MultiBLiMP files."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from ud_agree.mine.compare import CLASSES, compare, main
from ud_agree.mine.compare_table import coverage
from ud_agree.mine.plan import Options
from ud_agree.mine.run import mine_languages

from tests.paths import SHARED, UD, needs_ud
from tests.sentences import write_treebank

PRES = "Mood=Ind|Tense=Pres|VerbForm=Fin"
# English sentences, s1 … in this order; MultiBLiMP's word indices are ID − 1.
SENTENCES = (
    # s1: the plural verb has a singular form in the lexicon (s2).
    ("1 The the DET Definite=Def|PronType=Art 2 det",
     "2 dogs dog NOUN Number=Plur 3 nsubj",
     f"3 bark bark VERB {PRES}|Number=Plur|Person=3 0 root"),
    ("1 The the DET Definite=Def|PronType=Art 2 det",
     "2 dog dog NOUN Number=Sing 3 nsubj",
     f"3 barks bark VERB {PRES}|Number=Sing|Person=3 0 root"),
    # s3: a proper noun subject is never a controller (§1.1).
    ("1 John John PROPN Number=Sing 2 nsubj",
     f"2 barks bark VERB {PRES}|Number=Sing|Person=3 0 root"),
    # s4: a participle with an active subject is no target.
    ("1 dogs dog NOUN Number=Plur 2 nsubj",
     "2 barking bark VERB Tense=Pres|VerbForm=Part 0 root"),
    # s5: subject and verb disagree (§1.2).
    ("1 The the DET Definite=Def|PronType=Art 2 det",
     "2 dogs dog NOUN Number=Plur 3 nsubj",
     f"3 barks bark VERB {PRES}|Number=Sing|Person=3 0 root"),
    # s6: the only other form of *sleep* is an imperative (s7): MultiBLiMP's *sleep* changes Mood.
    ("1 The the DET Definite=Def|PronType=Art 2 det",
     "2 cat cat NOUN Number=Sing 3 nsubj",
     f"3 sleeps sleep VERB {PRES}|Number=Sing|Person=3 0 root"),
    ("1 Sleep sleep VERB Mood=Imp|Number=Plur|Person=2|VerbForm=Fin 0 root",),
    # s8: a coordinated subject (§4 coordinated).
    ("1 dogs dog NOUN Number=Plur 4 nsubj",
     "2 and and CCONJ _ 3 cc",
     "3 cats cat NOUN Number=Plur 1 conj",
     f"4 bark bark VERB {PRES}|Number=Plur|Person=3 0 root"),
    # s9: an auxiliary first: MultiBLiMP's `if cop_idx:` took position 0 for none.
    (f"1 do do AUX {PRES}|Number=Plur|Person=3 3 aux",
     "2 dogs dog NOUN Number=Plur 3 nsubj",
     "3 bark bark VERB VerbForm=Inf 0 root"),
    (f"1 does do AUX {PRES}|Number=Sing|Person=3 0 root",),
    # s11: a first person singular for the implicit third person of *dog* (s2) to meet.
    ("1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
     f"2 bark bark VERB {PRES}|Number=Sing|Person=1 0 root"),
)  # fmt: skip


def mblimp_row(sent: int, head: int, child: int, form: str, child_form: str, swap: str,
               phenomenon: str, good: str, bad: str, cop: int | None = None) -> dict:  # fmt: skip
    """A MultiBLiMP row (only the columns the comparison reads, and the sentences)."""
    metadata = {
        "sent_id": f"s{sent}",
        "text": "…",
        "treebank": "UD_English-Test/en_test-ud-test.conllu",
    }
    return {
        "sen": "…", "wrong_sen": "…", "head": form, "head_idx": head - 1,
        "child": child_form, "child_idx": child - 1, "swap_head": swap,
        "cop_idx": "" if cop is None else f"{cop - 1}.0", "metadata": repr(metadata),
        "phenomenon": phenomenon, "grammatical_feature": good, "ungrammatical_feature": bad,
        "lang": "eng",
    }  # fmt: skip


def write_tsv(rows: list[dict], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("compare")
    write_treebank(work / "ud", "English", "en", SENTENCES)
    options = Options(
        ud_dir=work / "ud",
        out=work / "corpus",
        unimorph_dirs=[work / "no-unimorph"],
        progress=False,
    )
    mine_languages(options)
    return work / "corpus"


# (row, its known class)
CASES = [
    (mblimp_row(1, 3, 2, "bark", "dogs", "barks", "SV-#", "PL", "SG"), "same-pair"),
    (mblimp_row(1, 3, 2, "bark", "dogs", "barkes", "SV-#", "PL", "SG"), "other-form"),
    (mblimp_row(99, 3, 2, "bark", "dogs", "barks", "SV-#", "PL", "SG"), "not-in-corpus"),
    (mblimp_row(1, 2, 3, "dogs", "bark", "barks", "SV-#", "PL", "SG"), "not-candidate"),
    (mblimp_row(1, 3, 1, "bark", "dogs", "barks", "SV-#", "PL", "SG"), "words-differ"),
    (mblimp_row(3, 2, 1, "barks", "John", "bark", "SV-#", "SG", "PL"), "not-candidate"),
    (mblimp_row(4, 2, 1, "barking", "dogs", "bark", "SV-#", "PL", "SG"), "not-candidate"),
    (mblimp_row(5, 3, 2, "barks", "dogs", "bark", "SV-#", "SG", "PL"), "disagree"),
    (mblimp_row(6, 3, 2, "sleeps", "cat", "sleep", "SV-#", "SG", "PL"), "wrong-form-changes-feats"),
    (mblimp_row(8, 4, 1, "bark", "dogs", "barks", "SV-#", "PL", "SG"), "coordinated"),
    (mblimp_row(9, 3, 2, "do", "dogs", "does", "SV-#", "PL", "SG", cop=1), "multiblimp-wrong-word"),
    (mblimp_row(9, 1, 2, "do", "dogs", "does", "SV-#", "PL", "SG", cop=1), "same-pair"),
    # The implicit third person of a noun subject (§4): *the dog bark* with Person 1.
    (mblimp_row(2, 3, 2, "barks", "dog", "bark", "SV-P", "3", "1"), "same-pair"),
    # No second person of *bark*: ud-agree varies Person to 1 only (why not 2: pair_skips).
    (mblimp_row(2, 3, 2, "barks", "dog", "bark", "SV-P", "3", "2"), "other-value"),
]  # fmt: skip


def test_each_row_gets_the_class_its_sentence_calls_for(corpus, tmp_path):
    tsv = write_tsv([row for row, _ in CASES], tmp_path / "data.tsv")
    classed = compare(tsv, corpus)
    assert classed.get_column("class").to_list() == [kind for _, kind in CASES]
    row = classed.row(8, named=True)
    assert "Mood=Ind→Imp" in row["detail"]  # what MultiBLiMP's form changes
    assert classed.row(1, named=True)["ud_bad_form"] == "barks"
    # The Person 2 cell of *bark* is missing: MultiBLiMP's *bark* is another cell.
    assert classed.row(13, named=True)["detail"].startswith("pairs to 1; 2: no-form (bark: ")
    # No candidate: the detail shows what §1.1 reads (a PROPN subject, a participle).
    assert "John PROPN nsubj→2" in classed.row(5, named=True)["detail"]
    assert "VerbForm=Part" in classed.row(6, named=True)["detail"]
    # A dropped candidate: the miner's reason (`drops.parquet`), with both members' FEATS.
    assert classed.row(7, named=True)["detail"].endswith("Number=Plur")


def test_command_prints_the_table_and_writes_the_rows(corpus, tmp_path, capsys):
    tsv = write_tsv([row for row, _ in CASES[:3]], tmp_path / "data.tsv")
    assert main([str(tsv), "--corpus", str(corpus), "--out", str(tmp_path / "out.parquet")]) == 0
    printed = capsys.readouterr().out
    assert "same-pair" in printed and "compared 2" in printed and "(100.0%)" in printed
    written = pl.read_parquet(tmp_path / "out.parquet")
    assert written.get_column("class").to_list() == ["same-pair", "other-form", "not-in-corpus"]


def test_a_file_without_multiblimp_columns_is_one_line_and_exit_2(corpus, tmp_path, capsys):
    (tmp_path / "bad.tsv").write_text("sen\twrong_sen\na\tb\n", encoding="utf-8")
    assert main([str(tmp_path / "bad.tsv"), "--corpus", str(corpus)]) == 2
    error = capsys.readouterr().err
    assert "bad.tsv" in error and "no column" in error and "Traceback" not in error


def test_a_row_with_unreadable_metadata_is_named_by_its_line(corpus, tmp_path, capsys):
    rows = [row for row, _ in CASES[:2]]
    rows[1] = {**rows[1], "metadata": "{'sent_id': 's1'"}
    tsv = write_tsv(rows, tmp_path / "data.tsv")
    assert main([str(tsv), "--corpus", str(corpus), "--out", str(tmp_path / "o.tsv")]) == 2
    error = capsys.readouterr().err
    assert f"{tsv}:3: unreadable metadata" in error and not (tmp_path / "o.tsv").exists()


def test_dropped_candidates_are_the_manifests_drops_row_by_row(corpus):
    drops = pl.read_parquet(corpus / "en" / "drops.parquet")
    manifest = json.loads((corpus / "en" / "manifest.json").read_text(encoding="utf-8"))
    counted = {reason: n for reason, n in manifest["counts"]["drops"].items() if n}
    assert dict(Counter(drops.get_column("reason"))) == counted
    # s5: *The dogs barks*, dropped as disagreeing (§1.2).
    s5 = drops.filter(pl.col("sent_id") == "s5").select("target_id", "controller_id", "reason")
    assert (3, 2, "disagree") in s5.rows()


def test_a_corpus_without_the_miners_decisions_is_one_line_and_exit_2(corpus, tmp_path, capsys):
    old = tmp_path / "old"
    shutil.copytree(corpus, old)
    (old / "en" / "drops.parquet").unlink()
    tsv = write_tsv([row for row, _ in CASES[:1]], tmp_path / "data.tsv")
    assert main([str(tsv), "--corpus", str(old)]) == 2
    error = capsys.readouterr().err
    assert "drops.parquet: missing" in error and "Traceback" not in error


MULTIBLIMP = SHARED / "data" / "suites" / "multiblimp"


@pytest.fixture(scope="module")
def shared_corpus(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("en-el")
    options = Options(
        ud_dir=UD,
        out=work / "corpus",
        langs=["en", "el"],
        unimorph_dirs=[UD.parent / "unimorph"],
        progress=False,
        jobs=1,
    )
    mine_languages(options)
    return work / "corpus"


@pytest.mark.slow
@needs_ud
@pytest.mark.parametrize(
    ("lang", "rows", "compared", "floor"), [("eng", 770, 712, 0.757), ("ell", 1096, 728, 0.755)]
)
def test_every_shared_multiblimp_row_gets_a_specific_class(
    shared_corpus, lang, rows, compared, floor
):
    classed = compare(MULTIBLIMP / f"{lang}.data.tsv.xz", shared_corpus)
    assert classed.height == rows
    assert coverage(classed)[0] == compared
    # Measured with §4.2's rules (issue 41): English 76.0%, Greek 72.0% (524 of 728) of compared
    # rows have the same contrast. The floors are issue 53's: not below what the miner gave when
    # it was filed, English 539 of 712 (75.7%), Greek 550 of 728 (75.5%; its other valid rows
    # want forms the treebank never has). Certainty per direction had cost 9 English and 10 Greek
    # rows (*What do owners do* → *does*, *οι κυρώσεις έχουν* → *έχει*: plural subjects after an
    # auxiliary read as agreeing optionally); a target tagged against its subject whose form is
    # also the subject's value's usual form (*είναι*, ParTUT's *do*) counts as agreeing, and
    # gives them back.
    assert coverage(classed)[2] / compared >= floor
    assert set(classed.get_column("class")) <= set(CLASSES)
    # Every row whose sentence is there names its words as the treebank does, but MultiBLiMP's
    # own slip (an auxiliary at position 0 taken for none).
    assert "words-differ" not in classed.get_column("class").to_list()


# lm-eval's `multiblimp` task config (lm_eval/tasks/multiblimp/_template_yaml), reading a local
# TSV instead of the hub's dataset.
LM_EVAL_TASK = """task: multiblimp_ud_agree
dataset_path: csv
dataset_kwargs:
  data_files:
    train: {data}
  delimiter: "\\t"
  cache_dir: {cache}
output_type: multiple_choice
test_split: train
doc_to_text: ""
target_delimiter: ""
doc_to_target: 0
doc_to_choice: "{{{{[sen,wrong_sen]}}}}"
num_fewshot: 0
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 0
"""


def test_export_round_trip_compare_suite_reader_and_lm_eval(corpus, tmp_path, monkeypatch):
    from ud_agree.evaluate.sources.files import read_suite
    from ud_agree.mine.export import export

    out = tmp_path / "en.tsv"
    n = export(corpus / "en" / "pairs.parquet", "multiblimp", out)
    assert n > 0
    # The export of a corpus, compared against that corpus: every row is its own pair.
    classed = compare(out, corpus)
    assert classed.get_column("class").unique().to_list() == ["same-pair"]
    assert classed.height == n
    row = pl.read_csv(out, separator="\t", infer_schema_length=0).row(0, named=True)
    assert row["metadata"].startswith("{'sent_id': 's")
    assert "'treebank': 'UD_English-Test/en_test-ud-test.conllu'" in row["metadata"]
    assert (row["lang"], row["wo"], row["inflect_item"]) == ("eng", "SV", "verb")
    # The evaluator's suite reader reads it as MultiBLiMP's layout.
    suite = read_suite(out)
    assert suite.format == "multiblimp" and suite.malformed == [] and len(suite.pairs) == n
    # lm-eval's multiblimp task config reads it: the good sentence first, the right answer 0.
    pytest.importorskip("lm_eval")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from lm_eval.tasks import TaskManager

    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "multiblimp_ud_agree.yaml").write_text(
        LM_EVAL_TASK.format(data=out, cache=tmp_path / "cache"), encoding="utf-8"
    )
    manager = TaskManager(include_path=str(tasks), include_defaults=False)
    task = manager.load(["multiblimp_ud_agree"])["tasks"]["multiblimp_ud_agree"]
    docs = list(task.test_docs())
    exported = pl.read_csv(out, separator="\t", infer_schema_length=0)
    assert [task.doc_to_choice(d) for d in docs] == [
        [good, bad] for good, bad in exported.select("sen", "wrong_sen").iter_rows()
    ]
    assert {task.doc_to_target(d) for d in docs} == {0}
