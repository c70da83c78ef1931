"""The report with a scored validity.parquet: judged validity beside each language × type row."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from ud_agree.evaluate.report.html import build_report, main
from ud_agree.mine.validate import Judgment, validity, wilson

from tests.evaluate.report.test_synthetic import TYPES, build_results, make_frame, write_run


def judged(lang: str, type_: str, valid: int, invalid: int) -> list[Judgment]:
    verdicts = ["valid"] * valid + ["wrong-feature"] * invalid
    return [
        Judgment(f"{lang}{type_}{i}", f"x.csv:{i + 2}", lang, type_, ("plain",), verdict)
        for i, verdict in enumerate(verdicts)
    ]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    results = build_results(tmp_path_factory.mktemp("results"))
    # Judged pairs describe the pair reading: a French pair run beside the class-average ones.
    pairs = make_frame("fr", "tiny-bert", "pll-word", 0.9).with_columns(reading=pl.lit("pair"))
    write_run(results, pairs, "tiny-bert__pll-word")
    path = tmp_path_factory.mktemp("validity") / "validity.parquet"
    # fr × the first type judged 8 of 10 valid; no other cell judged.
    table = validity(judged("fr", TYPES[0], 8, 2), "maintainers")
    table.write_parquet(path)
    return results, path


def test_each_language_type_row_shows_its_judged_validity(
    written: tuple[Path, Path], tmp_path: Path
) -> None:
    results, path = written
    build_report(results, tmp_path, validity=path)
    summary = pl.read_csv(tmp_path / "summary.csv")
    # The pair run's row only: the class-average rows of the same cell show none.
    fr = summary.filter(
        (pl.col("lang") == "fr")
        & (pl.col("type") == TYPES[0])
        & (pl.col("system") == "tiny-bert (pair)")
    )
    assert fr.height > 0
    low, high = wilson(8, 10)
    assert fr.get_column("validity").to_list() == pytest.approx([0.8] * fr.height)
    assert fr.get_column("validity_low").to_list() == pytest.approx([low] * fr.height)
    assert fr.get_column("validity_high").to_list() == pytest.approx([high] * fr.height)
    assert set(fr.get_column("validity_n")) == {10}
    others = summary.filter(
        (pl.col("lang") != "fr")
        | (pl.col("type") != TYPES[0])
        | (pl.col("system") != "tiny-bert (pair)")
    )
    assert others.get_column("validity").null_count() == others.height
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    table = page.split("Per language and agreement type", 1)[1].split("</table>", 1)[0]
    assert "(column validity, validity_low, validity_high)" in table
    assert re.search(r">80\.0% \[[\d.]+, [\d.]+\]<", table)


def test_without_validity_the_rows_are_unchanged(
    written: tuple[Path, Path], tmp_path: Path
) -> None:
    results, _ = written
    build_report(results, tmp_path)
    assert "validity" not in pl.read_csv(tmp_path / "summary.csv").columns


def test_a_file_that_is_not_a_validity_table_is_one_line_and_exit_2(
    written: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, _ = written
    other = tmp_path / "other.parquet"
    pl.DataFrame({"lang": ["fr"]}).write_parquet(other)
    assert main([str(results), "--out", str(tmp_path / "r"), "--validity", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{other}: no column" in err


def report(results: Path, out: Path, *tables: pl.DataFrame | Path, tmp_path: Path) -> int:
    """`python -m evaluate.report` with each table as a --validity file; its exit code."""
    args = [str(results), "--out", str(out)]
    for i, table in enumerate(tables):
        path = table if isinstance(table, Path) else tmp_path / f"validity-{i}.parquet"
        if isinstance(table, pl.DataFrame):
            table.write_parquet(path)
        args += ["--validity", str(path)]
    return main(args)


def test_two_judges_tables_in_one_file_are_refused_before_anything_is_written(
    written: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, _ = written
    both = pl.concat(
        [validity(judged("fr", TYPES[0], 8, 2), "A"), validity(judged("fr", TYPES[0], 9, 1), "B")]
    )
    code = report(results, tmp_path / "r", both, tmp_path=tmp_path)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"fr × {TYPES[0]} twice (judges: A, B)" in err
    assert not (tmp_path / "r").exists()


def test_validity_given_twice_shows_both_and_a_cell_in_both_is_refused(
    written: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, _ = written
    fr = validity(judged("fr", TYPES[0], 8, 2), "A")
    fr_other = validity(judged("fr", TYPES[1], 3, 1), "B")
    assert report(results, tmp_path / "r", fr, fr_other, tmp_path=tmp_path) == 0
    summary = pl.read_csv(tmp_path / "r" / "summary.csv")
    shown = summary.filter(pl.col("validity").is_not_null()).select("lang", "type", "validity")
    assert set(shown.unique().iter_rows()) == {("fr", TYPES[0], 0.8), ("fr", TYPES[1], 0.75)}
    capsys.readouterr()
    code = report(
        results, tmp_path / "r2", fr, fr.with_columns(judges=pl.lit("C")), tmp_path=tmp_path
    )
    err = capsys.readouterr().err
    assert code == 2 and f"fr × {TYPES[0]} also in" in err, err
    assert not (tmp_path / "r2").exists()


def test_validity_of_a_language_the_results_lack_is_named(
    written: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, _ = written
    table = validity(judged("fr", TYPES[0], 8, 2) + judged("xx", TYPES[0], 5, 0), "A")
    assert report(results, tmp_path / "r", table, tmp_path=tmp_path) == 0
    err = capsys.readouterr().err
    assert f"validity judged for xx {TYPES[0]} (5 pairs), which no pair run here scored" in err
    assert "for fr " not in err


@pytest.mark.parametrize(
    ("column", "dtype"), [("n", pl.String), ("share", pl.String), ("lang", pl.Int64)]
)
def test_validity_columns_of_another_type_are_refused_before_anything_is_written(
    written: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    column: str,
    dtype: pl.DataType,
) -> None:
    results, path = written
    table = pl.read_parquet(path)
    table = table.with_columns(pl.col(column).cast(pl.String).cast(dtype, strict=False))
    code = report(results, tmp_path / "r", table, tmp_path=tmp_path)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"column {column} holds" in err, err
    assert not (tmp_path / "r").exists()


def test_validity_beside_suite_runs_only_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: tuple[Path, Path]
) -> None:
    from ud_agree.evaluate.run import run_suites

    from tests.evaluate.suites.test_run import options
    from tests.suite_stubs import SUITES, OracleScorer, factory, write

    name, text, good, extra = SUITES["clams"]
    run_suites(
        options(tmp_path, [write(tmp_path, name, text)], **extra),
        factory(OracleScorer(good, name="right")),
    )
    _, path = written
    assert report(tmp_path / "out", tmp_path / "r", path, tmp_path=tmp_path) == 0
    assert "validity not shown" in capsys.readouterr().err
