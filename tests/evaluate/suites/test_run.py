"""`python -m evaluate.suite` end to end with stub scorers: oracles, loops, resume, errors, results."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import ud_agree.evaluate.backends
from ud_agree.evaluate import load_results
from ud_agree.evaluate.options import Options, suite_run
from ud_agree.evaluate.run import run_suites
from ud_agree.evaluate.sources.files import read_suite
from ud_agree.evaluate.suite import main
from ud_agree.evaluate.tasks.suite_files import SuiteRun

from tests.suite_stubs import (
    BLIMP_ROWS,
    CLAMS,
    SUITES,
    HashScorer,
    OracleScorer,
    factory,
    sentence_score_of,
    write,
)
from ud_agree import load_suite_results
from ud_agree.errors import UserError
from ud_agree.formats.problems import SuiteFormatError
from ud_agree.schemas.suites import COLUMNS


def options(tmp_path: Path, files: list[Path], **kwargs) -> SuiteRun:
    settings = {"model": "stub", "out": str(tmp_path / "out"), "progress": False, **kwargs}
    return suite_run(files=[str(f) for f in files], **settings)


@pytest.mark.parametrize("layout", sorted(SUITES))
@pytest.mark.parametrize("reverse", [False, True])
def test_own_suite_scores_all_with_the_oracle_and_none_reversed(
    tmp_path: Path, layout: str, reverse: bool
) -> None:
    name, text, good, extra = SUITES[layout]
    path = write(tmp_path, name, text)
    scorer = OracleScorer(good, reverse=reverse)
    (outcome,) = run_suites(options(tmp_path, [path], **extra), factory(scorer))
    assert outcome.manifest["format"] == layout
    assert outcome.manifest["counts"]["malformed"] == 0
    first = outcome.summary.row(0, named=True)
    assert first["breakdown"] == "all"
    assert first["accuracy"] == (0.0 if reverse else 1.0)
    assert first["n"] == outcome.manifest["counts"]["read"] > 0
    results = load_suite_results(outcome.folder).collect()
    assert results["right"].to_list() == [not reverse] * results.height
    assert (outcome.folder / "summary.csv").is_file()


def test_chunks_written_before_the_rule_columns_read_with_nulls_there(tmp_path: Path) -> None:
    from ud_agree.schemas.results import RULE_NAMES

    name, text, good, extra = SUITES["clams"]
    (outcome,) = run_suites(options(tmp_path, [write(tmp_path, name, text)], **extra),
                            factory(OracleScorer(good)))  # fmt: skip
    (chunk,) = outcome.folder.glob("suite-*.parquet")
    now = pl.read_parquet(chunk)
    # ud-agree 0.2.0 wrote neither the ingredients nor the rules' decisions.
    older = now.select([c for c in now.columns if not c.startswith(("lp_", "n_", "right_"))])
    older.write_parquet(chunk)
    results = load_suite_results(outcome.folder).collect()
    assert results["right"].to_list() == now["right"].to_list()
    assert results[f"right_{RULE_NAMES[0]}"].null_count() == results.height
    assert results.columns[: len(now.columns)] == now.columns


def test_scores_equal_a_one_pair_at_a_time_loop(tmp_path: Path) -> None:
    paths = [write(tmp_path, SUITES[k][0], SUITES[k][1]) for k in ("clams", "blimp", "multiblimp")]
    scorer = HashScorer()
    run_suites(options(tmp_path, paths, chunk_size=2), factory(scorer))
    results = load_suite_results(tmp_path / "out").collect()
    # The pairs, read independently of the readers: CLAMS by hand, BLiMP with json.
    expected = []
    true = None
    for line, text in enumerate(CLAMS.splitlines(), start=1):
        label, sentence = text.split("\t")
        if label == "True":
            true = sentence
        else:
            expected.append(("simple_agrmt", str(line), true, sentence))
    for line, row in enumerate(BLIMP_ROWS, start=1):
        expected.append(("regular_agreement", str(line), row["sentence_good"], row["sentence_bad"]))
    clams_and_blimp = results.filter(pl.col("format") != "multiblimp").sort("suite", "line")
    got = clams_and_blimp.select("suite", "pair_id", "sentence_good", "sentence_bad").rows()
    assert sorted(got) == sorted(expected)
    for row in results.iter_rows(named=True):
        good = sentence_score_of(row["sentence_good"])
        bad = sentence_score_of(row["sentence_bad"])
        assert (row["score_good"], row["score_bad"], row["right"]) == (good, bad, good > bad)
    assert results["model"].unique().to_list() == ["hash"]
    assert results["method"].unique().to_list() == ["causal"]


class Interrupted(Exception):
    """Stands for a crash or Ctrl-C in the middle of a run."""


class FailingScorer(HashScorer):
    """Scores `calls_before_failing` batches, then fails."""

    def __init__(self, calls_before_failing: int):
        self.left = calls_before_failing

    def token_scores(self, texts, words=None):
        if self.left == 0:
            raise Interrupted
        self.left -= 1
        return super().token_scores(texts, words)


LONG_CLAMS = "".join(f"True\ta{i} b\nFalse\ta{i} c\nFalse\ta{i} d\n" for i in range(7))


@pytest.mark.parametrize("layout", ["clams", "syntaxgym"])
def test_resume_loses_and_duplicates_nothing(tmp_path: Path, layout: str) -> None:
    name, text = ("long.txt", LONG_CLAMS) if layout == "clams" else SUITES["syntaxgym"][:2]
    path = write(tmp_path, name, text)
    first = options(tmp_path, [path], chunk_size=3 if layout == "clams" else 1)
    with pytest.raises(Interrupted):  # after 2 of 7 chunks (CLAMS), 1 of 2 items (SyntaxGym)
        run_suites(first, factory(FailingScorer(2 if layout == "clams" else 1)))
    folder = tmp_path / "out" / path.stem / "stub"
    # A half-written run is refused, as load_results refuses it: its rows are not a result.
    with pytest.raises(UserError, match="never finished"):
        load_suite_results(folder)
    partial = pl.read_parquet(sorted(folder.glob("suite-*.parquet")))
    assert 0 < partial["pair_id"].n_unique() < read_suite(path).size

    first = replace(first, resume=True)
    (outcome,) = run_suites(first, factory(HashScorer()))
    resumed = load_suite_results(folder).collect()
    counts = outcome.manifest["counts"]
    assert counts["resumed_already_done"] == partial["pair_id"].n_unique()
    assert counts["scored_now"] + counts["resumed_already_done"] == counts["read"]
    key = ["pair_id", "prediction"]
    assert resumed.select(key).is_duplicated().sum() == 0

    fresh = options(tmp_path, [path], out=str(tmp_path / "fresh"))
    run_suites(fresh, factory(HashScorer()))
    whole = load_suite_results(tmp_path / "fresh").collect()
    columns = ["pair_id", "prediction", "score_good", "score_bad", "right", "surprisals"]
    assert resumed.select(columns).sort(key).equals(whole.select(columns).sort(key))


def test_resume_refuses_other_settings_and_a_run_without_resume_starts_afresh(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "long.txt", LONG_CLAMS)
    run_suites(options(tmp_path, [path], chunk_size=5), factory(HashScorer()))
    write(tmp_path, "long.txt", LONG_CLAMS + "True\tz y\nFalse\tz x\n")  # the file changed
    with pytest.raises(Exception, match="other settings \\(input_sha256\\)"):
        run_suites(options(tmp_path, [path], resume=True), factory(HashScorer()))
    run_suites(options(tmp_path, [path], chunk_size=100), factory(HashScorer()))
    folder = tmp_path / "out" / "long" / "stub"
    assert len(list(folder.glob("suite-*.parquet"))) == 1
    assert load_suite_results(folder).collect().height == 15  # 14 pairs and the new one


def run_cli(argv: list[str], capsys, monkeypatch, scorer=None) -> tuple[int, str, str]:
    """main() with evaluate.backends.load_scorer stubbed; (exit code, stdout, stderr)."""
    monkeypatch.setattr(
        ud_agree.evaluate.backends, "load_scorer", factory(scorer or HashScorer()), raising=False
    )
    code = main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_reports_malformed_lines_and_strict_exits_2(tmp_path, capsys, monkeypatch) -> None:
    path = write(tmp_path, "bad.txt", CLAMS + "Maybe\tle chat\n")
    code, out, err = run_cli(
        [str(path), "--model", "m", "--out", str(tmp_path)], capsys, monkeypatch
    )
    assert code == 0
    assert f"{path}:6: expected True<TAB>sentence or False<TAB>sentence" in err
    assert "3 read, 1 malformed lines skipped" in out
    code, out, err = run_cli(
        [str(path), "--model", "m", "--out", str(tmp_path), "--strict"], capsys, monkeypatch
    )
    assert code == 2
    assert err == f"error: {path}:6: expected True<TAB>sentence or False<TAB>sentence\n"


def first_of_two_files_named_alike(tmp_path, capsys, monkeypatch) -> tuple[Path, Path, list[str]]:
    """`a/x.txt` scored into `out/`, and `b/x.txt` (other pairs) beside it; the options."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write(tmp_path / "a", "x.txt", CLAMS)
    second = write(tmp_path / "b", "x.txt", CLAMS.replace("pilote", "marin"))
    argv = ["--model", "m", "--out", str(tmp_path / "out")]
    assert run_cli([str(first), *argv], capsys, monkeypatch)[0] == 0
    return first, second, argv


def test_a_file_of_the_same_name_elsewhere_never_replaces_another_files_results(
    tmp_path, capsys, monkeypatch
) -> None:
    first, second, argv = first_of_two_files_named_alike(tmp_path, capsys, monkeypatch)
    before = load_suite_results(tmp_path / "out").collect()
    code, _, err = run_cli([str(second), *argv], capsys, monkeypatch)
    assert code == 2 and f"holds the results of {first.resolve()}, not of {second}" in err
    assert str(first.resolve()) in err
    assert load_suite_results(tmp_path / "out").collect().equals(before)
    # The same file again is a rerun: it starts afresh, as before.
    assert run_cli([str(first), *argv], capsys, monkeypatch)[0] == 0


def test_force_clears_a_folder_holding_another_files_results_and_scores_anew(
    tmp_path, capsys, monkeypatch
) -> None:
    _, second, argv = first_of_two_files_named_alike(tmp_path, capsys, monkeypatch)
    (folder,) = {p.parent for p in (tmp_path / "out").rglob("manifest.json")}
    (folder / "notes.txt").write_text("stale")
    code, _, err = run_cli([str(second), *argv, "--force", "--resume"], capsys, monkeypatch)
    assert code == 2 and "--force clears a results folder and --resume keeps it" in err
    assert run_cli([str(second), *argv, "--force"], capsys, monkeypatch)[0] == 0
    assert not (folder / "notes.txt").exists()
    rows = load_suite_results(tmp_path / "out").collect()
    good = " ".join(rows["sentence_good"])
    assert "marin" in good and "pilote" not in good
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["file"] == str(second.resolve())


def test_a_suite_named_as_a_language_never_shares_a_folder_with_a_corpus_run(tmp_path) -> None:
    # One layout, <out>/<lang or suite>/<model>: a suite `fr` and French's class-average run of
    # the same model would meet in <out>/fr/<model>; whichever comes second is refused.
    from ud_agree.evaluate.output.writer import RunOutput, prepare_folder

    from ud_agree.errors import UsageError

    corpus_run = tmp_path / "out" / "fr" / "stub"
    corpus_run.mkdir(parents=True)
    (corpus_run / "manifest.json").write_text(json.dumps({"tool": "ud-agree evaluate",
                                                         "corpus": "corpus/fr"}))  # fmt: skip
    path = write(tmp_path, "fr.txt", CLAMS)
    with pytest.raises(UserError, match="holds the results of a corpus run"):
        run_suites(options(tmp_path, [path]), factory(HashScorer()))
    (corpus_run / "manifest.json").unlink()
    (outcome,) = run_suites(options(tmp_path, [path]), factory(HashScorer()))
    assert outcome.folder == corpus_run
    with pytest.raises(UsageError, match="holds the results of the suite"):
        prepare_folder(corpus_run, RunOutput("stub", "context", "class-average"), None)
    assert load_suite_results(corpus_run).collect().height == outcome.manifest["counts"]["read"]
    # --force clears the suite's results first; never with --resume.
    prepare_folder(corpus_run, RunOutput("stub", "context", "class-average", force=True), None)
    assert list(corpus_run.iterdir()) == []
    with pytest.raises(UsageError, match="--force clears a results folder and --resume keeps it"):
        Options(lang="fr", model="frequency", force=True, resume=True)


def test_the_printed_table_fits_120_columns_with_long_names(tmp_path, capsys, monkeypatch) -> None:
    # A long suite name and long conditions (BLiMP's UIDs) are cut with an ellipsis; only the
    # lines that name a path may be longer.
    name = "a_suite_file_with_a_very_long_name_indeed.jsonl"
    path = write(tmp_path, name, SUITES["blimp"][1])
    code, out, _ = run_cli([str(path), "--model", "m", "--out", str(tmp_path)], capsys, monkeypatch)
    assert code == 0
    table = [line for line in out.splitlines() if str(tmp_path) not in line]
    assert any("regular_plural_subject_verb" in line for line in table)
    assert max(len(line) for line in table) <= 120
    assert any(line.startswith("a_suite_file_with_a…") for line in table)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "frequency"], "not defined for arbitrary suites"),
        (["--model", "m", "--pll", "word"], "use --pll sentence"),
        (["--model", "m", "--good", "x"], "--good and --bad go together"),
    ],
)
def test_cli_refusals_are_one_line_exit_2(tmp_path, capsys, monkeypatch, argv, message) -> None:
    path = write(tmp_path, "s.txt", CLAMS)
    code, _, err = run_cli([str(path), *argv, "--out", str(tmp_path)], capsys, monkeypatch)
    assert code == 2
    assert err.count("\n") == 1 and message in err


def test_cli_missing_file_is_one_line_exit_2(tmp_path, capsys, monkeypatch) -> None:
    code, _, err = run_cli([str(tmp_path / "nope.txt"), "--model", "m"], capsys, monkeypatch)
    assert (code, err) == (2, f"error: no such suite file: {tmp_path / 'nope.txt'}\n")


def test_cli_prints_the_summary_and_writes_results_and_manifest(
    tmp_path, capsys, monkeypatch
) -> None:
    paths = [write(tmp_path, SUITES[k][0], SUITES[k][1]) for k in ("clams", "syntaxgym")]
    scorer = OracleScorer([*SUITES["clams"][2], *SUITES["syntaxgym"][2]])
    code, out, _ = run_cli(
        [*map(str, paths), "--model", "org/m", "--out", str(tmp_path / "r")],
        capsys,
        monkeypatch,
        scorer,
    )
    assert code == 0
    assert "simple_agrmt" in out and "all predictions" in out and "100.0%" in out
    folder = tmp_path / "r" / "number_agreement" / "org--m"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["complete"] and manifest["model"] == "oracle"
    assert manifest["scorer"] == {"stub": "oracle", "reverse": False}
    assert manifest["counts"]["read"] == 2
    summary = pl.read_csv(folder / "summary.csv")
    assert summary["group"].to_list() == [
        "all predictions",
        "0: (2;%mismatch%) > (2;%match%)",
        "1: (*;%mismatch%) > (*;%match%)",
    ]


def test_results_have_the_documented_columns_then_metadata(tmp_path: Path) -> None:
    paths = [write(tmp_path, SUITES[k][0], SUITES[k][1]) for k in ("blimp", "syntaxgym")]
    run_suites(options(tmp_path, paths), factory(HashScorer()))
    frame = load_suite_results(tmp_path / "out").collect()
    assert tuple(frame.columns[: len(COLUMNS)]) == COLUMNS
    assert {"UID", "pairID", "linguistics_term"} <= set(frame.columns)
    gym = frame.filter(pl.col("format") == "syntaxgym")
    assert gym["sentence_good"].null_count() == gym.height == 4  # 2 items × 2 predictions
    assert set(json.loads(gym["surprisals"][0])) == {"match", "mismatch"}


def test_suite_runs_are_in_load_results_beside_corpus_runs(tmp_path: Path) -> None:
    from tests.evaluate.report.test_synthetic import write_run
    from tests.ud_agree.test_docs_recipes import hand_frame

    write_run(tmp_path / "out", hand_frame("m", "context", lambda item: True), "m")
    paths = [write(tmp_path, "s.txt", CLAMS), write(tmp_path, *SUITES["syntaxgym"][:2])]
    run_suites(options(tmp_path, paths, rule="chars"), factory(HashScorer()))
    rows = load_results(tmp_path / "out").collect()
    suites = load_suite_results(tmp_path / "out").collect()
    assert rows.height == 9 + suites.height == 9 + 3 + 4
    ours = rows.filter(pl.col("reading") == "suite").sort("suite", "pair_id", "condition")
    clams = ours.filter(pl.col("suite") == "s")
    expected = suites.filter(pl.col("suite") == "s").sort("pair_id")
    for column in ("pair_id", "score_good", "score_bad", "right", "right_sum", "model", "method"):
        assert clams[column].to_list() == expected[column].to_list(), column
    assert clams["rule"].to_list() == ["chars"] * 3 and clams["lang"].null_count() == 3
    gym = ours.filter(pl.col("suite") == "number_agreement")
    assert gym["condition"].to_list() == ["0: (2;%mismatch%) > (2;%match%)",
                                          "1: (*;%mismatch%) > (*;%match%)"] * 2  # fmt: skip
    assert gym["rule"].null_count() == gym.height


def test_files_sharing_a_stem_are_told_apart_by_their_folder(tmp_path: Path) -> None:
    paths = []
    for lang in ("deu", "fra"):
        (tmp_path / lang).mkdir()
        paths.append(write(tmp_path / lang, "data.tsv", SUITES["multiblimp"][1]))
    outcomes = run_suites(options(tmp_path, paths), factory(HashScorer()))
    assert [o.manifest["suite"] for o in outcomes] == ["deu-data", "fra-data"]


def test_ud_agree_suite_subcommand_dispatches(capsys) -> None:
    from ud_agree.cli import main as ud_agree

    with pytest.raises(SystemExit) as exit_:
        ud_agree(["suite", "--help"])
    assert exit_.value.code == 0
    assert "usage: ud-agree suite" in capsys.readouterr().out


def test_empty_suites_and_suites_without_valid_predictions_are_skipped_whole(
    tmp_path: Path,
) -> None:
    gym = json.loads(SUITES["syntaxgym"][1])
    gym["predictions"] = ["(2;%mismatch%) >"]
    paths = [write(tmp_path, "empty.txt", ""), write(tmp_path, "gym.json", json.dumps(gym))]
    warnings: list[str] = []
    # Neither has anything to score (issue 34: no "0 scored now" with exit 0), said so, no folder.
    with pytest.raises(SuiteFormatError, match=r"nothing to score: .*empty.txt skipped whole"):
        run_suites(options(tmp_path, paths), factory(HashScorer()), warnings.append)
    assert any("empty.txt: suite skipped whole" in w for w in warnings)
    assert any("prediction 0: the formula ends too early" in w for w in warnings)
    assert any(w.endswith("gym.json: suite skipped whole: prediction 0: the formula ends too early")
               for w in warnings)  # fmt: skip
    assert not (tmp_path / "out").exists()


def test_a_suite_skipped_whole_alone_is_a_one_line_error_and_no_folder(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.txt", "")
    with pytest.raises(SuiteFormatError, match=r"empty.txt skipped whole"):
        run_suites(options(tmp_path, [path]), factory(HashScorer()), lambda message: None)
    assert not (tmp_path / "out").exists()


def test_resume_refuses_another_condition_column(tmp_path: Path) -> None:
    path = write(tmp_path, SUITES["table"][0], SUITES["table"][1])
    columns = {"good": "good sentence", "bad": "bad sentence"}
    run_suites(options(tmp_path, [path], **columns), factory(HashScorer()))
    again = options(tmp_path, [path], resume=True, condition="kind", **columns)
    with pytest.raises(Exception, match=r"other settings \(condition\)"):
        run_suites(again, factory(HashScorer()))


def test_a_suite_run_takes_the_rule_and_records_it(tmp_path: Path) -> None:
    name, text, good, _ = SUITES["blimp"]
    path = write(tmp_path, name, text)
    (outcome,) = run_suites(
        options(tmp_path, [path], rule="word", rules=("minicons",), leading_space=True),
        factory(OracleScorer(good)),
    )
    manifest = outcome.manifest
    assert manifest["settings"]["rule"] == "word" and manifest["options"]["rule"] == "word"
    assert manifest["settings"]["rules"] == ["minicons"] and manifest["settings"]["leading_space"]
    rows = load_suite_results(outcome.folder).collect()
    assert (rows["right"].eq_missing(rows["right_word"])).all()
    # The stub gives no lp_native: right_minicons is null, and so `right` under that rule.
    assert rows["right_minicons"].null_count() == rows.height
    assert manifest["counts"]["undecided"] == 0
    (again,) = run_suites(options(tmp_path, [path], rule="minicons"), factory(OracleScorer(good)))
    assert again.manifest["counts"]["undecided"] == again.manifest["counts"]["in_results"] > 0


class FlatScorer(HashScorer):
    """Every whitespace token scores -1: two sentences of as many words tie under `sum`."""

    name = "flat"

    def token_scores(self, texts, words=None):
        out = super().token_scores(texts, words)
        return [type(s)(s.spans, np.full(len(s.spans), -1.0)) for s in out]


def test_suite_summaries_count_ties_per_rule_as_corpus_runs_do(tmp_path: Path) -> None:
    from ud_agree.evaluate.summary.tables import COLUMNS as RUN_COLUMNS

    text = "True\tthe dogs run\nFalse\tthe dogs ran\nFalse\tthe dog run\nTrue\tit is\nFalse\tit are here\n"
    (outcome,) = run_suites(options(tmp_path, [write(tmp_path, "s.txt", text)], rule="chars"),
                            factory(FlatScorer()))  # fmt: skip
    ties = [c for c in RUN_COLUMNS if c == "undecided" or c.startswith("ties")]
    assert set(ties) <= set(outcome.summary.columns)
    rows = load_suite_results(outcome.folder).collect()
    # Counted one pair at a time: a sum tie is two sentences of as many words; a chars tie also
    # needs as many characters (the headline `ties` follows --rule chars).
    words = [(len(g.split()), len(b.split()), len(g), len(b))
             for g, b in zip(rows["sentence_good"], rows["sentence_bad"], strict=True)]  # fmt: skip
    sum_ties = sum(1 for g, b, _, _ in words if g == b)
    chars_ties = sum(1 for g, b, cg, cb in words if g == b and cg == cb)
    first = outcome.summary.row(0, named=True)
    assert (first["ties_sum"], first["ties_chars"], first["ties"]) == (sum_ties, chars_ties,
                                                                       chars_ties)  # fmt: skip
    assert sum_ties == 2 and chars_ties == 1  # the pairs here make both kinds
    by_rule = outcome.summary.filter(pl.col("breakdown") == "rule")
    assert dict(zip(by_rule["group"], by_rule["ties"], strict=True))["sum"] == sum_ties
    assert pl.read_csv(outcome.folder / "summary.csv")["ties_sum"][0] == sum_ties


@pytest.mark.parametrize("with_corpus_run", [False, True])
def test_the_report_shows_suite_runs(tmp_path: Path, with_corpus_run: bool) -> None:
    from ud_agree.evaluate.report.html import build_report

    from tests.evaluate.report.test_synthetic import write_run
    from tests.ud_agree.test_docs_recipes import hand_frame

    if with_corpus_run:
        frame = hand_frame("m", "context", lambda item: True)
        write_run(tmp_path / "out", frame.with_columns(reading=pl.lit("class-average")), "m")
    name, text, good, extra = SUITES["clams"]
    right = run_suites(options(tmp_path, [write(tmp_path, name, text)], **extra),
                       factory(OracleScorer(good, name="right")))  # fmt: skip
    wrong = run_suites(
        options(tmp_path, [write(tmp_path, name, text)], model="other", **extra),
        factory(OracleScorer(good, reverse=True, name="wrong")),
    )
    page = (build_report(tmp_path / "out", tmp_path / "report")).read_text()
    assert "<h2>Peers' suites</h2>" in page
    table = page[page.index("<h2>Peers' suites</h2>") :]
    # The oracle is right on every pair, its reverse on none: each run's row says so.
    assert right[0].manifest["counts"]["in_results"] == wrong[0].manifest["counts"]["in_results"]
    assert table.count("simple_agrmt") >= 2
    assert "<td>right</td>" in table and "<td>wrong</td>" in table
    row_right = table[table.index("<td>right</td>") :].split("</tr>")[0]
    row_wrong = table[table.index("<td>wrong</td>") :].split("</tr>")[0]
    assert "100.0%" in row_right and "0.0%" in row_wrong and "100.0%" not in row_wrong
    assert ("Per language and agreement type" in page) == with_corpus_run
