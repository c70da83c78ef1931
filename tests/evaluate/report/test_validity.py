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
