"""`python -m mine.export`: pairs in MultiBLiMP, BLiMP and CLAMS layouts, read back the same."""

from __future__ import annotations

import ast
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.readings.pair_scores import pair_scores
from ud_agree.evaluate.sources.files import read_suite
from ud_agree.mine.export import main

from tests.paths import ROOT, SAMPLE
from tests.suite_stubs import HashScorer, sentence_score_of
from ud_agree.formats.pairs_table import PAIR_COLUMNS
from ud_agree.schemas.corpus import RELATION_KEY

# lang, sent_id, type, target, controller, feature, good value, bad value, lemma, upos,
# good form, bad form, good sentence, bad sentence (the varied word is the first difference).
ROWS = [
    ("fr", "s1", "subject-verb", 3, 2, "Number", "Plur", "Sing", "être", "AUX", "sont", "est",
     "Les clés sont cassées .", "Les clés est cassées ."),
    ("fr", "s1", "predicative", 4, 2, "Number", "Plur", "Sing", "cassé", "ADJ", "cassées", "cassée",
     "Les clés sont cassées .", "Les clés sont cassée ."),
    ("fr", "s1", "predicative", 4, 2, "Gender", "Fem", "Masc", "cassé", "ADJ", "cassées", "cassés",
     "Les clés sont cassées .", "Les clés sont cassés ."),
    ("fr", "s2", "determiner", 1, 2, "Number", "Sing", "Plur", "le", "DET", "Le", "Les",
     'Le "chat" dort, dit-il .', 'Les "chat" dort, dit-il .'),
    ("fr", "s3", "attributive", 3, 2, "Number", "Sing", "Plur", "rouge", "ADJ", "rouge", "rouges",
     "Une voiture rouge et élégante .", "Une voiture rouges et élégante ."),
    ("de", "s9", "subject-verb", 2, 1, "Person", "1", "3", "lachen", "VERB", "lachen", "lacht",
     "Wir lachen .", "Wir lacht ."),
]  # fmt: skip


def pairs_table() -> pl.DataFrame:
    """The pairs of ROWS with every column of DESIGN.md §3 `pairs`."""
    records = []
    for (
        lang,
        sent,
        type_,
        target,
        controller,
        feature,
        gv,
        bv,
        lemma,
        upos,
        gf,
        bf,
        good,
        bad,
    ) in ROWS:
        start = next(i for i, (a, b) in enumerate(zip(good, bad, strict=False)) if a != b)
        start = good.rfind(" ", 0, start) + 1
        records.append(
            {
                "lang": lang,
                "treebank": "GSD",
                "sent_id": sent,
                "type": type_,
                "target_id": target,
                "controller_id": controller,
                "varied": "target",
                "feature": feature,
                "good_value": gv,
                "bad_value": bv,
                "lemma": lemma,
                "upos": upos,
                "good_form": gf,
                "bad_form": bf,
                "bad_count": 3,
                "bad_source": "ud",
                "sentence_good": good,
                "sentence_bad": bad,
                "start": start,
                "end_good": start + len(gf),
                "end_bad": start + len(bf),
                "also": [],
                "derived": [],
                "variant": "original",
            }
        )
    frame = pl.DataFrame(records)
    assert tuple(frame.columns) == PAIR_COLUMNS
    return frame


@pytest.fixture
def pairs_path(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.parquet"
    pairs_table().write_parquet(path)
    return path


def export(pairs_path: Path, layout: str, name: str) -> Path:
    out = pairs_path.parent / name
    assert main([str(pairs_path), "--format", layout, "--out", str(out)]) == 0
    return out


def test_multiblimp_layout_has_its_columns_and_unimorph_tags(pairs_path: Path) -> None:
    out = export(pairs_path, "multiblimp", "fr_pairs.tsv")
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert list(rows[0])[:3] == ["sen", "verb", "verb_idx"]
    assert list(rows[0])[20:27] == [
        "num_attractors",
        "phenomenon",
        "lang",
        "grammatical_feature",
        "ungrammatical_feature",
        "wo",
        "inflect_item",
    ]
    first, fourth, last = rows[0], rows[3], rows[5]
    assert (first["phenomenon"], first["feature_vals"], first["prefix"]) == (
        "SV-#",
        "PL -> SG",
        "Les clés",
    )
    assert (first["swap_head"], first["wrong_sen"]) == ("est", "Les clés est cassées .")
    assert rows[2]["phenomenon"] == "PA-G" and rows[2]["feature_vals"] == "FEM -> MASC"
    assert fourth["sen"] == 'Le "chat" dort, dit-il .' and fourth["prefix"] == ""
    assert (last["phenomenon"], last["grammatical_feature"], last["ungrammatical_feature"]) == (
        "SV-P",
        "1",
        "3",
    )
    # A pairs table alone: the corpus's columns stay empty, ud-agree's follow MultiBLiMP's.
    assert (first["verb"], first["metadata"], first["head_idx"]) == ("", "", "")
    assert (first["sent_id"], first["target_id"], first["lang"]) == ("s1", "3", "fr")


def test_blimp_layout_has_its_fields_and_ud_agree_ids(pairs_path: Path) -> None:
    out = export(pairs_path, "blimp", "fr_pairs.jsonl")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6
    assert rows[0]["UID"] == "fr_subject_verb_agreement_number"
    assert rows[3]["linguistics_term"] == "determiner_noun_agreement"
    assert [r["pairID"] for r in rows[1:3]] == ["0", "0"]  # each paradigm counts its own pairs
    assert rows[0]["simple_LM_method"] is True and rows[0]["one_prefix_method"] is False
    assert (rows[4]["sent_id"], rows[4]["controller_id"], rows[4]["bad_form"]) == (
        "s3",
        2,
        "rouges",
    )


def test_clams_layout_shares_a_true_line_between_consecutive_pairs(pairs_path: Path) -> None:
    out = export(pairs_path, "clams", "fr_pairs.txt")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[:4] == [
        "True\tLes clés sont cassées .",
        "False\tLes clés est cassées .",
        "False\tLes clés sont cassée .",
        "False\tLes clés sont cassés .",
    ]
    assert [line.split("\t")[0] for line in lines].count("True") == 4


@pytest.mark.parametrize(
    ("layout", "name"), [("multiblimp", "p.tsv"), ("blimp", "p.jsonl"), ("clams", "p.txt")]
)
def test_round_trip_gives_the_decisions_of_the_pairs_table(
    pairs_path: Path, layout: str, name: str
) -> None:
    suite = read_suite(export(pairs_path, layout, name))
    assert suite.format == layout and suite.malformed == []
    table = pairs_table()
    direct = [
        sentence_score_of(g) > sentence_score_of(b)
        for g, b in table.select("sentence_good", "sentence_bad").iter_rows()
    ]
    scored = suite.pairs.with_columns(*pair_scores(HashScorer(), suite.pairs).values())
    assert scored["right"].to_list() == direct
    assert (
        scored.select("sentence_good", "sentence_bad").rows()
        == table.select("sentence_good", "sentence_bad").rows()
    )
    if layout != "clams":  # the layouts with room for ids keep ud-agree's
        for column in (
            "lang",
            "sent_id",
            "type",
            "target_id",
            "controller_id",
            "feature",
            "bad_form",
        ):
            assert scored[column].to_list() == [str(v) for v in table[column]]


def test_a_table_without_pair_columns_is_one_line_exit_2(tmp_path: Path, capsys) -> None:
    path = tmp_path / "not_pairs.parquet"
    pl.DataFrame({"a": [1]}).write_parquet(path)
    assert main([str(path), "--format", "clams", "--out", str(tmp_path / "x.txt")]) == 2
    assert capsys.readouterr().err == f"error: {path}: not a pairs table (no column 'lang')\n"
    assert not (tmp_path / "x.txt").exists()


@pytest.mark.parametrize("layout", ["multiblimp", "blimp", "clams"])
def test_a_file_export_replaces_an_existing_file_only_with_force(
    pairs_path: Path, layout: str, capsys
) -> None:
    out = pairs_path.parent / "edited.out"
    out.write_text("a judge's notes")
    args = [str(pairs_path), "--format", layout, "--out", str(out)]
    assert main(args) == 2
    assert (
        capsys.readouterr().err
        == f"error: --out {out} exists: --force replaces it, or name another file\n"
    )
    assert out.read_text() == "a judge's notes"
    assert main([*args, "--force"]) == 0
    assert out.read_text() == export(pairs_path, layout, "fresh.out").read_text()


def test_export_never_imports_torch_transformers_or_the_evaluator() -> None:
    code = (
        "import sys, mine.export, mine.cli; "
        "print(sorted(m for m in ('torch', 'transformers', 'evaluate') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"


def test_one_command_mines_a_language_then_writes_multiblimp(tmp_path: Path, capsys) -> None:
    out, corpus = tmp_path / "en.tsv", tmp_path / "corpus"
    argv = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    argv += ["--lang", "en", "--corpus", str(corpus), "--format", "multiblimp", "--out", str(out)]
    assert main(argv) == 0
    mined = pl.read_parquet(corpus / "en" / "pairs.parquet")
    written = pl.read_csv(out, separator="\t", infer_schema_length=0)
    assert written.height == mined.height > 0
    assert set(written["lang"]) == {"eng"} and written["metadata"].str.contains("UD_English").all()
    # Neither a pairs table nor a language to mine: one line, exit 2.
    assert main(["--format", "multiblimp", "--out", str(out)]) == 2
    assert "--ud-dir and --lang" in capsys.readouterr().err


def test_swap_head_is_the_head_as_the_wrong_sentence_has_it_for_either_varied_member() -> None:
    from ud_agree.formats.multiblimp import write

    pairs = pairs_table().head(1)  # Les clés sont cassées . → Les clés est cassées .
    controller = pairs.with_columns(
        varied=pl.lit("controller"), good_form=pl.lit("clés"), bad_form=pl.lit("clé"),
        start=pl.lit(4, pl.Int64), end_good=pl.lit(8, pl.Int64), end_bad=pl.lit(7, pl.Int64),
        sentence_bad=pl.lit("Les clé sont cassées ."),
    )  # fmt: skip
    facts = pairs.select("lang", "treebank", "sent_id", "target_id", "controller_id").with_columns(
        head=pl.lit("sont")
    )
    rows = list(csv.DictReader(write(pl.concat([pairs, controller]), facts=facts).splitlines(),
                               delimiter="\t"))  # fmt: skip
    assert [(r["head"], r["swap_head"], r["wrong_sen"]) for r in rows] == [
        ("sont", "est", "Les clés est cassées ."),
        ("sont", "sont", "Les clé sont cassées ."),
    ]


# A corpus whose pairs include ones without a relation row (issue 53): *they are* (*are*
# unmarked, §4.2's `unmarked-cell`) and *the people who are here* (*who* without Number, §4.2's
# `antecedent`) — relations dropped for want of a feature, pairs made all the same.
WITHOUT_RELATION = {"they is", "the people who is here"}
# Every layout but CLAMS (its text has no room for ids) and where it writes the pairs.
WHOLE_LAYOUTS = {"multiblimp": "en.tsv", "blimp": "en.jsonl", "lm-eval": "tasks", "hf": "hf"}


@pytest.fixture(scope="module")
def mined_without_relations(tmp_path_factory) -> Path:
    """The folder of a mined English corpus with pairs whose relation is absent from relations."""
    from ud_agree.mine.plan import Options
    from ud_agree.mine.run import mine_languages

    from tests.mine.test_pairs_antecedent import relative
    from tests.mine.test_pairs_cells import THEY_ARE, YOU_ARE
    from tests.mine.test_pairs_contrasts import BE_FORMS
    from tests.sentences import write_treebank

    tmp = tmp_path_factory.mktemp("whole")
    who = [relative("who", "Plur", "Plur")] * 11 + [relative("who", "Sing", "Sing")] * 11
    blocks = (THEY_ARE, YOU_ARE, YOU_ARE, *BE_FORMS, *BE_FORMS, *who)
    write_treebank(tmp / "ud", "English", "xx", blocks)
    options = Options(ud_dir=tmp / "ud", out=tmp / "corpus", all_types=True, progress=False)
    (manifest,) = mine_languages(options)
    return tmp / "corpus" / manifest["lang"]


def exported_rows(folder: Path, layout: str) -> list[dict]:
    """Every row an export of the folder's pairs writes in `layout`, as a dict."""
    source = folder / "pairs.parquet" if layout in ("multiblimp", "blimp") else folder.parent
    out = folder.parent.parent / "exports" / WHOLE_LAYOUTS[layout]
    assert main([str(source), "--format", layout, "--out", str(out)]) == 0
    if layout == "multiblimp":
        with out.open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle, delimiter="\t"))
    if layout == "hf":
        return pl.read_parquet(out / "*" / "test.parquet").to_dicts()
    files = sorted(out.glob("*.jsonl")) if layout == "lm-eval" else [out]
    lines = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("layout", list(WHOLE_LAYOUTS))
def test_every_exported_row_names_its_treebank_sentence_and_words(
    mined_without_relations: Path, layout: str
) -> None:
    folder = mined_without_relations
    pairs = pl.read_parquet(folder / "pairs.parquet")
    relations = pl.read_parquet(folder / "relations.parquet")
    orphans = pairs.join(relations, on=list(RELATION_KEY), how="anti")
    assert set(orphans["sentence_bad"]) >= WITHOUT_RELATION
    assert {"unmarked-cell", "antecedent"} <= set(orphans["derived"].explode())
    rows = exported_rows(folder, layout)
    assert len(rows) == pairs.height
    assert {r.get("sentence_bad", r.get("wrong_sen")) for r in rows} >= WITHOUT_RELATION
    for row in rows:
        assert row["treebank"] == "Test" and row["sent_id"].startswith("s")
        assert int(row["target_id"]) > 0 and int(row["controller_id"]) > 0
    if layout != "multiblimp":
        return
    # MultiBLiMP's own columns, which its scripts and `mine.compare` join on: every row has them.
    sentences = dict(pl.read_parquet(folder / "sentences.parquet").select("sent_id", "text").rows())
    for row in rows:
        words = row["sen"].split(" ")
        target, controller = int(row["target_id"]) - 1, int(row["controller_id"]) - 1
        assert (row["head_idx"], row["child_idx"]) == (str(target), str(controller))
        assert (row["head"], row["child"]) == (words[target], words[controller])
        assert row["verb"] and int(row["distance"]) == target - controller
        metadata = ast.literal_eval(row["metadata"])
        assert metadata == {
            "sent_id": row["sent_id"],
            "text": sentences[row["sent_id"]],
            "treebank": "UD_English-Test/xx_test-ud-test.conllu",
        }


@pytest.mark.parametrize("reverse", [False, True])
def test_an_lm_eval_task_folder_is_scored_as_its_pairs(
    mined_without_relations: Path, tmp_path: Path, reverse: bool
) -> None:
    # An exported task folder is a source of pairs like any file: each task scored, every pair
    # once, the oracle right on all of them (reversed: on none), `source` naming each task.
    from ud_agree.evaluate.options import suite_run
    from ud_agree.evaluate.run import run_suites

    from tests.suite_stubs import OracleScorer, factory
    from ud_agree import load_results, load_suite_results

    folder = mined_without_relations
    out = tmp_path / "tasks"
    assert main([str(folder.parent), "--format", "lm-eval", "--out", str(out)]) == 0
    pairs = pl.read_parquet(folder / "pairs.parquet")
    scorer = OracleScorer(pairs["sentence_good"].to_list(), reverse=reverse)
    run = suite_run(files=[str(out)], model="stub", out=str(tmp_path / "out"), progress=False)
    outcomes = run_suites(run, factory(scorer))
    tasks = sorted(p.stem for p in out.glob("*.jsonl"))
    assert sorted(o.manifest["suite"] for o in outcomes) == tasks
    rows = load_suite_results(tmp_path / "out").collect()
    assert sorted(rows.select("sentence_good", "sentence_bad").rows()) == sorted(
        pairs.select("sentence_good", "sentence_bad").rows()
    )
    results = load_results(tmp_path / "out").collect()
    assert results["right"].to_list() == [not reverse] * pairs.height
    assert sorted(results["source"].unique()) == tasks


def test_a_folder_without_lm_eval_tasks_is_one_line(tmp_path: Path, capsys) -> None:
    from ud_agree.evaluate.suite import main as suite_main

    (tmp_path / "empty").mkdir()
    code = suite_main([str(tmp_path / "empty"), "--model", "stub", "--out", str(tmp_path / "o")])
    assert code == 2
    assert "no lm-eval task in it" in capsys.readouterr().err
