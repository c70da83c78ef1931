"""`python -m mine` end to end: tables, manifest, exit codes, resume, bad input."""

from __future__ import annotations

import json
import lzma
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from ud_agree.mine.cli import main

from tests.paths import ROOT, SAMPLE, SHARED, UD, needs_pud, needs_ud
from tests.sentences import KEYS_ARE_BROKEN, conllu
from ud_agree.schemas.corpus import LEXICON, RELATIONS, SENTENCES

PUD = SHARED / "data" / "ud" / "UD_French-PUD" / "fr_pud-ud-test.conllu.xz"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mine", *args], capture_output=True, text=True, cwd=ROOT
    )


@pytest.fixture(scope="module")
def sample_corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    code = main(
        [
            "--ud-dir",
            str(SAMPLE / "ud"),
            "--unimorph-dir",
            str(SAMPLE / "unimorph"),
            "--all-types",
            "--out",
            str(out),
            "--quiet",
            "--jobs",
            "1",
        ]
    )
    assert code == 0
    return out


def test_worker_processes_write_what_one_process_writes(sample_corpus, tmp_path):
    # Files and whole languages are then done in the pool: nothing may depend on the order.
    args = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    assert main([*args, "--all-types", "--out", str(tmp_path), "--quiet", "--jobs", "2"]) == 0
    languages = sorted(p.name for p in sample_corpus.iterdir())
    assert languages == sorted(p.name for p in tmp_path.iterdir()) and len(languages) > 1
    for lang in languages:
        for table in ("relations", "sentences", "lexicon", "pairs"):
            one = pl.read_parquet(sample_corpus / lang / f"{table}.parquet")
            two = pl.read_parquet(tmp_path / lang / f"{table}.parquet")
            assert one.equals(two), (lang, table)
        counts = [
            json.loads((d / lang / "manifest.json").read_text())["counts"]
            for d in (sample_corpus, tmp_path)
        ]
        assert counts[0] == counts[1]
        assert not (tmp_path / lang / ".parts").exists()


def test_no_pairs_writes_the_same_tables_and_no_pairs(sample_corpus, tmp_path):
    args = ["--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph")]
    args += ["--all-types", "--lang", "fr", "--out", str(tmp_path), "--quiet", "--jobs", "1"]
    assert main(args) == 0 and (tmp_path / "fr" / "pairs.parquet").exists()
    assert main([*args, "--no-pairs"]) == 0  # not current: the options differ
    assert not (tmp_path / "fr" / "pairs.parquet").exists()  # the earlier one would be stale
    for table in ("relations", "sentences", "lexicon"):
        one = pl.read_parquet(sample_corpus / "fr" / f"{table}.parquet")
        assert one.equals(pl.read_parquet(tmp_path / "fr" / f"{table}.parquet")), table
    manifest = json.loads((tmp_path / "fr" / "manifest.json").read_text())
    assert manifest["options"]["pairs"] is False and manifest["counts"]["pairs"] == 0


def test_sample_relations_match_hand_derived_expectations(sample_corpus):
    expected = json.loads((SAMPLE / "expected.json").read_text())
    for lang, want in expected.items():
        relations = pl.read_parquet(sample_corpus / lang / "relations.parquet")
        got = set(relations.select("sent_id", "type", "target_id", "controller_id").iter_rows())
        assert got == {
            (r["sent_id"], r["type"], r["target_id"], r["controller_id"]) for r in want["relations"]
        }
        manifest = json.loads((sample_corpus / lang / "manifest.json").read_text())
        assert manifest["counts"]["drops"] == want["drops"]


def test_tables_are_written_with_the_declared_schemas(sample_corpus):
    for name, schema in [("relations", RELATIONS), ("sentences", SENTENCES), ("lexicon", LEXICON)]:
        assert pq.read_schema(sample_corpus / "fr" / f"{name}.parquet").remove_metadata() == schema


def test_surface_indices_point_at_the_masked_words(sample_corpus):
    relations = pl.read_parquet(sample_corpus / "fr" / "relations.parquet")
    sentences = pl.read_parquet(sample_corpus / "fr" / "sentences.parquet")
    joined = relations.join(sentences, on=["lang", "treebank", "sent_id"], how="left")
    assert joined["words"].null_count() == 0
    for row in joined.iter_rows(named=True):
        for role in ("target", "controller"):
            surface_word = row["words"][row[f"{role}_surface"]]
            if not row[f"in_mwt_{role}"]:
                assert surface_word == row[f"{role}_form"]
    assert joined["in_mwt_target"].any() or joined["in_mwt_controller"].any()


def test_lexicon_unites_ud_counts_and_unimorph(sample_corpus):
    lexicon = pl.read_parquet(sample_corpus / "fr" / "lexicon.parquet")
    assert set(lexicon["source"]) <= {"ud", "unimorph", "both"}
    assert {"ud", "unimorph"} <= set(lexicon["source"])
    assert (lexicon.filter(pl.col("source") == "unimorph")["count"] == 0).all()
    assert (lexicon.filter(pl.col("source") != "unimorph")["count"] > 0).all()
    assert lexicon.filter(pl.col("form") == "_").is_empty()
    has_value = pl.concat_list("number", "gender", "case", "person").list.len() > 0
    assert lexicon.select(has_value.all()).item()


def test_default_run_drops_types_the_language_does_not_have(tmp_path):
    code = main(
        [
            "--ud-dir",
            str(SAMPLE / "ud"),
            "--lang",
            "English",
            "--out",
            str(tmp_path),
            "--quiet",
            "--jobs",
            "1",
            "--unimorph-dir",
            str(SAMPLE / "unimorph"),
        ]
    )
    assert code == 0
    types = set(pl.read_parquet(tmp_path / "en" / "relations.parquet")["type"])
    valid = set(
        json.loads((tmp_path / "en" / "manifest.json").read_text())["options"]["valid_types"]
    )
    assert types <= valid and "attributive" not in valid


@pytest.mark.parametrize("name", ["fr", "fra", "French", "french"])
def test_lang_accepts_iso_codes_and_ud_name(tmp_path, name):
    assert (
        main(
            [
                "--ud-dir",
                str(SAMPLE / "ud"),
                "--lang",
                name,
                "--out",
                str(tmp_path),
                "--quiet",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fr"]


def test_missing_ud_dir_is_one_line_and_exit_2(tmp_path):
    result = run_cli("--ud-dir", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert (
        result.stderr.strip().count("\n") == 0
        and "nowhere" in result.stderr
        and "Traceback" not in result.stderr
    )


def test_the_module_run_in_process_returns_to_its_caller(tmp_path, monkeypatch, capsys):
    # `python -m mine` ends its process without the interpreter's teardown; a program running
    # the module in-process (runpy: the docs' tests, a notebook) gets SystemExit and goes on.
    monkeypatch.setattr(sys, "argv", ["mine", "--ud-dir", str(tmp_path / "nowhere")])
    with pytest.raises(SystemExit) as stop:
        runpy.run_module("ud_agree.mine", run_name="__main__", alter_sys=False)
    assert stop.value.code == 2 and "nowhere" in capsys.readouterr().err


def test_a_run_in_worker_processes_ends_with_nothing_on_stderr(tmp_path):
    # It skips the interpreter's teardown: nothing the pool made may be left for multiprocessing's
    # resource tracker to warn about.
    result = run_cli(
        "--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(SAMPLE / "unimorph"),
        "--out", str(tmp_path / "out"), "--jobs", "2", "--quiet",
    )  # fmt: skip
    assert result.returncode == 0 and result.stderr == ""
    assert (tmp_path / "out" / "fr" / "manifest.json").is_file()


@pytest.mark.parametrize(
    ("orig_argv", "owns"),
    [
        (["python", "-m", "ud_agree.mine", "--ud-dir", "ud"], True),
        (["python", "-X", "importtime", "-m", "ud_agree.mine"], True),
        (["python", "-m", "pytest", "-m", "ud_agree.mine"], False),
        (["python", "-c", "import runpy"], False),
    ],
)
def test_only_the_command_started_for_it_skips_the_teardown(monkeypatch, orig_argv, owns):
    from ud_agree.mine import pool

    monkeypatch.setattr(sys, "orig_argv", orig_argv)
    assert pool.started_for_command() is owns


def test_language_without_treebank_is_one_line_and_exit_2(tmp_path):
    result = run_cli("--ud-dir", str(SAMPLE / "ud"), "--lang", "Tamil", "--out", str(tmp_path))
    assert result.returncode == 2
    assert "Tamil" in result.stderr and "Traceback" not in result.stderr


def test_corrupt_compressed_file_is_one_line_and_exit_2(tmp_path):
    folder = tmp_path / "ud" / "UD_French-Bad"
    folder.mkdir(parents=True)
    (folder / "fr_bad-ud-test.conllu.xz").write_bytes(b"not xz at all")
    result = run_cli("--ud-dir", str(tmp_path / "ud"), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "fr_bad-ud-test.conllu.xz" in result.stderr and "Traceback" not in result.stderr


def test_empty_file_is_no_error(tmp_path):
    folder = tmp_path / "ud" / "UD_French-Empty"
    folder.mkdir(parents=True)
    (folder / "fr_empty-ud-test.conllu").write_text("")
    (folder / "fr_empty-ud-dev.conllu").write_text(conllu(*KEYS_ARE_BROKEN))
    assert (
        main(
            [
                "--ud-dir",
                str(tmp_path / "ud"),
                "--out",
                str(tmp_path / "out"),
                "--quiet",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    assert pl.read_parquet(tmp_path / "out" / "fr" / "relations.parquet").height == 4


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_language_without_relations_has_empty_tables(tmp_path, jobs):
    # Afrikaans in the shared data: no relation at all, so no attempt at a pair to index.
    folder = tmp_path / "ud" / "UD_French-Greetings"
    folder.mkdir(parents=True)
    for split in ("test", "dev"):
        text = conllu("1 Bonjour bonjour INTJ _ 0 root", "2 ! ! PUNCT _ 1 punct", sent_id=split)
        (folder / f"fr_greetings-ud-{split}.conllu").write_text(text)
    args = ["--ud-dir", str(tmp_path / "ud"), "--out", str(tmp_path / "out"), "--quiet"]
    assert main([*args, "--jobs", jobs]) == 0
    assert pl.read_parquet(tmp_path / "out" / "fr" / "relations.parquet").height == 0
    assert pl.read_parquet(tmp_path / "out" / "fr" / "pairs.parquet").height == 0
    assert pl.read_parquet(tmp_path / "out" / "fr" / "sentences.parquet").height == 2


def test_rerun_skips_a_current_language_and_force_redoes_it(tmp_path):
    args = [
        "--ud-dir",
        str(SAMPLE / "ud"),
        "--lang",
        "de",
        "--out",
        str(tmp_path),
        "--quiet",
        "--jobs",
        "1",
    ]
    assert main(args) == 0
    manifest = tmp_path / "de" / "manifest.json"
    stamp = manifest.stat().st_mtime_ns
    assert main(args) == 0
    assert manifest.stat().st_mtime_ns == stamp
    assert main([*args, "--force"]) == 0
    assert manifest.stat().st_mtime_ns != stamp


@needs_pud
def test_malformed_french_pud_keeps_994_sentences_and_reports_six(tmp_path):
    folder = tmp_path / "ud" / "UD_French-PUD"
    folder.mkdir(parents=True)
    bad = folder / "fr_pud-ud-test.conllu"
    made = subprocess.run(
        [sys.executable, str(SHARED / "checks" / "make_malformed.py"), str(PUD), str(bad)],
        capture_output=True,
        text=True,
        check=True,
    )
    starts = sorted(json.loads(made.stdout)["faults"].values())
    result = run_cli("--ud-dir", str(tmp_path / "ud"), "--out", str(tmp_path / "out"), "--quiet")
    assert result.returncode == 0
    manifest = json.loads((tmp_path / "out" / "fr" / "manifest.json").read_text())
    assert manifest["counts"]["sentences"] == 994
    reported = sorted(int(entry.split(":")[1]) for entry in manifest["malformed"])
    assert reported == starts
    assert all(f"fr_pud-ud-test.conllu:{line}" in result.stderr for line in starts)

    strict = run_cli(
        "--ud-dir", str(tmp_path / "ud"), "--out", str(tmp_path / "strict"), "--strict", "--quiet"
    )
    assert strict.returncode == 2
    assert (
        f"fr_pud-ud-test.conllu:{starts[0]}:" in strict.stderr and "Traceback" not in strict.stderr
    )
    assert not (tmp_path / "strict" / "fr").exists()


def test_miner_never_imports_torch_transformers_or_pyarrow_acero(tmp_path):
    # pyarrow.acero (`pa.Table.group_by`) brings pyarrow.dataset: ~0.27 s in every worker.
    code = (
        "import sys; from mine.cli import main; "
        f"main(['--ud-dir', {str(SAMPLE / 'ud')!r}, '--out', {str(tmp_path)!r}, '--quiet', '--jobs', '1']); "
        "print(sorted(m for m in ('torch', 'transformers', 'pyarrow.acero') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.slow
@needs_ud
def test_three_shared_languages_mine_end_to_end(tmp_path):
    um = SHARED / "data"
    result = run_cli(
        "--ud-dir",
        str(UD),
        "--lang",
        "de",
        "it",
        "sv",
        "--out",
        str(tmp_path),
        "--unimorph-dir",
        str(um / "unimorph"),
        "--unimorph-dir",
        str(um / "unimorph_sigmorphon2018"),
    )
    assert result.returncode == 0, result.stderr
    for lang in ("de", "it", "sv"):
        manifest = json.loads((tmp_path / lang / "manifest.json").read_text())
        relations = pl.read_parquet(tmp_path / lang / "relations.parquet")
        sentences = pl.read_parquet(tmp_path / lang / "sentences.parquet")
        lexicon = pl.read_parquet(tmp_path / lang / "lexicon.parquet")
        counts = manifest["counts"]
        assert counts["relations"] == relations.height > 100
        assert counts["sentences"] == sentences.height
        assert dict(relations.group_by("type").len().iter_rows()) == {
            t: n for t, n in counts["relations_by_type"].items() if n
        }
        assert set(relations["type"]) <= set(manifest["options"]["valid_types"])
        assert relations.join(sentences, on=["lang", "treebank", "sent_id"], how="anti").is_empty()
        assert lexicon.height == counts["lexicon"] and "unimorph" in set(lexicon["source"])
        assert set(manifest["counts"]["treebanks"]) == set(sentences["treebank"])
        assert all(len(i["sha256"]) == 64 for i in manifest["inputs"])
    assert "lang" in result.stdout and "subj-verb" in result.stdout


def test_single_treebank_folder_can_be_the_ud_dir(tmp_path):
    folder = tmp_path / "UD_French-Mine"
    shutil.copytree(SAMPLE / "ud" / "UD_French-Sample", folder)
    assert (
        main(["--ud-dir", str(folder), "--out", str(tmp_path / "out"), "--quiet", "--jobs", "1"])
        == 0
    )
    sentences = pl.read_parquet(tmp_path / "out" / "fr" / "sentences.parquet")
    assert set(sentences["treebank"]) == {"Mine"}
    assert sentences["file"][0] == "UD_French-Mine/fr_sample-ud-test.conllu"


def test_unimorph_lines_map_tags_in_any_order_and_skip_ambiguous_ones(tmp_path):
    from ud_agree.mine.lexicon import UniMorphMap, unimorph_frame

    path = tmp_path / "fra.xz"
    with lzma.open(path, "wt", encoding="utf-8") as handle:
        handle.write(
            "\n\nchat\tchats\tPL;N;MASC\n\nêtre\tsont\tV;3;PL;IND;PRS\nle\tles\tART;PL;NOM/ACC\nx\ty\tADV\n"
        )
    entries = set(unimorph_frame(path, UniMorphMap.load()).iter_rows())
    # Columns: form, lemma, upos, bundle, other FEATS (unknown, None, when a tag is ambiguous),
    # and the tags as written (a tag set is completed from the treebank as one).
    assert entries == {
        ("chats", "chat", "NOUN", "Plur|Masc|||", "", "PL;N;MASC"),
        ("sont", "être", "VERB", "Plur|||3|", "Mood=Ind|Tense=Pres|VerbForm=Fin", "V;3;PL;IND;PRS"),
        ("les", "le", "DET", "Plur||||", None, "ART;PL;NOM/ACC"),
    }


def test_usage_error_is_one_line_and_exit_2():
    result = run_cli("--lang", "fr")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--ud-dir" in result.stderr


def test_a_unimorph_dir_that_does_not_exist_is_refused(tmp_path):
    result = run_cli("--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(tmp_path / "nowhere"),
                     "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet")  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert f"--unimorph-dir {tmp_path / 'nowhere'}: no such folder" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_language_without_unimorph_is_warned_about_attested_bundles(tmp_path):
    (tmp_path / "none").mkdir()  # a UniMorph root holding no language
    result = run_cli("--ud-dir", str(SAMPLE / "ud"), "--unimorph-dir", str(tmp_path / "none"),
                     "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet")  # fmt: skip
    assert result.returncode == 0, result.stderr
    warned = [line for line in result.stderr.splitlines() if "no UniMorph data" in line]
    languages = sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir())
    assert len(warned) == len(languages) >= 2  # one line per language
    assert all("class-average results there lean on attested bundles" in w for w in warned)


def test_a_language_folder_of_tables_the_miner_did_not_write_is_written_over_only_with_force(
    tmp_path, capsys
):
    own = tmp_path / "de" / "pairs.parquet"
    own.parent.mkdir()
    own.write_bytes(b"pairs cut by hand, kept as one's own")
    args = ["--ud-dir", str(SAMPLE / "ud"), "--lang", "de", "--out", str(tmp_path), "--quiet"]
    assert main([*args, "--jobs", "1"]) == 2
    assert "holds pairs.parquet, which the miner did not write" in capsys.readouterr().err
    assert own.read_bytes() == b"pairs cut by hand, kept as one's own"
    assert main([*args, "--jobs", "1", "--force"]) == 0
    assert pl.read_parquet(own).height > 0 and (own.parent / "manifest.json").is_file()
