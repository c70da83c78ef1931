"""`python -m mine.validate` against what people and spreadsheets do to its files: no command
writes over its inputs, a judged sheet or a key; every reader refuses what it cannot read (one
line naming the file, exit 2) rather than answer wrongly; sheets saved by a spreadsheet are read;
and the sheets tell a judge what to do."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest
from ud_agree.mine.validate import KEY, README, main, sample, score

from tests.mine.test_validate import CELLS, pairs_frame, read_sheet, write_sheet
from ud_agree.atomic import fingerprint
from ud_agree.schemas.validity import VERDICTS


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for lang, cells in (("en", CELLS), ("fr", (("determiner", [], 9),))):
        (root / lang).mkdir(parents=True)
        pairs_frame(lang, cells).write_parquet(root / lang / "pairs.parquet")
    return root


def refused(capsys: pytest.CaptureFixture[str], code: int, *words: str) -> str:
    """Assert one line on stderr, exit 2, holding every word; the line."""
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert all(word in err for word in words), err
    return err


def sample_args(corpus: Path, out: Path, *more: str) -> list[str]:
    return ["sample", "--corpus", str(corpus), "--out", str(out), "--per-cell", "9", *more]


def judge(sheet: Path, verdict: str = "valid", choice: str | None = None) -> list[dict[str, str]]:
    """Fill every row of a sheet with `verdict` (and `choice`, on a blind sheet); the rows."""
    rows = read_sheet(sheet)
    for row in rows:
        row["verdict"] = verdict
        if choice is not None:
            row["choice"] = choice
    write_sheet(sheet, rows)
    return rows


def folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


# --- sample: never over judged work ---------------------------------------------------------


def test_sample_into_judged_sheets_is_refused_even_with_force_and_they_survive(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    assert main(sample_args(corpus, out, "--lang", "fr")) == 0
    judge(out / "fr.csv")
    before = folder(out)
    capsys.readouterr()
    refused(capsys, main(sample_args(corpus, out, "--lang", "fr")), f"{out}: holds", "--force")
    refused(capsys, main(sample_args(corpus, out, "--lang", "fr", "--force")), "a judged sheet")
    assert folder(out) == before


def test_force_clears_another_samples_files_first(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    assert main(sample_args(corpus, out)) == 0  # en and fr
    capsys.readouterr()
    refused(capsys, main(sample_args(corpus, out, "--lang", "fr")), "en.csv")
    assert main(sample_args(corpus, out, "--lang", "fr", "--force")) == 0
    # No stale English sheet stays beside the new key.
    assert sorted(folder(out)) == [README, "fr.csv", "fr.html", KEY]
    assert set(pl.read_csv(out / KEY).get_column("lang")) == {"fr"}


@pytest.mark.parametrize("where", ["notes", "corpus-folder"])
def test_an_out_holding_other_files_is_refused_even_with_force(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    out = tmp_path / "notes"
    if where == "notes":
        out.mkdir()
        (out / "notes.txt").write_text("mine")
    else:
        out = corpus / "fr"  # it holds the pairs the sample reads
    before = folder(out)
    refused(capsys, main(sample_args(corpus, out, "--force")), "not a sample's file")
    assert folder(out) == before


def test_a_language_given_twice_is_refused(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(sample_args(corpus, tmp_path / "s", "--lang", "fr", "fr"))
    refused(capsys, code, "--lang fr: given twice")
    assert not (tmp_path / "s").exists()


def test_a_negative_seed_is_one_line(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(capsys, main(sample_args(corpus, tmp_path / "s", "--seed", "-1")), "--seed -1")
    assert not (tmp_path / "s").exists()


# --- sample: a corpus it cannot read --------------------------------------------------------


def _null_sentence(pairs: pl.DataFrame) -> pl.DataFrame:
    return pairs.with_columns(
        pl.when(pl.int_range(pl.len()) == 2)
        .then(None)
        .otherwise(pl.col("sentence_bad"))
        .alias("sentence_bad")
    )


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_null_sentence, ("column sentence_bad", "null")),
        (
            lambda p: p.with_columns(pl.col("derived").cast(pl.List(pl.String)).list.join("+")),
            ("column derived", "not lists of text"),
        ),
        (lambda p: p.with_columns(pl.col("start").cast(pl.String)), ("column start", "integers")),
        (lambda p: p.with_columns(pl.lit("de").alias("lang")), ("column lang", "de, not fr")),
        (lambda p: p.drop("sentence_good"), ("no column sentence_good",)),
    ],
    ids=["null-sentence", "derived-as-text", "start-as-text", "another-language", "no-column"],
)
def test_a_pairs_table_it_cannot_read_is_one_line_naming_it_and_column(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change, words
) -> None:
    path = corpus / "fr" / "pairs.parquet"
    change(pl.read_parquet(path)).write_parquet(path)
    code = main(sample_args(corpus, tmp_path / "s", "--lang", "fr"))
    refused(capsys, code, str(path), *words)
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("where", ["language-folder", "empty-folder"])
def test_a_corpus_folder_without_languages_is_one_line(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    given = corpus / "fr" if where == "language-folder" else tmp_path / "empty"
    given.mkdir(exist_ok=True)
    words = (f"--corpus names the corpus folder ({corpus})",) if where == "language-folder" else ()
    code = main(sample_args(given, tmp_path / "s"))
    refused(capsys, code, str(given), *(words or ("no <lang>/pairs.parquet",)))
    assert not (tmp_path / "s").exists()


def test_pairs_cut_by_hand_since_mined_are_refused(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = corpus / "fr" / "pairs.parquet"
    manifest = {"lang": "fr", "tables": {"pairs.parquet": fingerprint(path)}}  # as mined
    (corpus / "fr" / "manifest.json").write_text(json.dumps(manifest))
    pl.read_parquet(path).head(3).write_parquet(path)
    code = main(sample_args(corpus, tmp_path / "s", "--lang", "fr"))
    refused(capsys, code, "pairs.parquet changed since it was mined", "mine the corpus again")
    assert not (tmp_path / "s").exists()


# --- score: never over its inputs -----------------------------------------------------------


@pytest.mark.parametrize("target", ["sheet", "key", "other-sheet", "folder"])
def test_score_out_over_a_sheet_key_or_folder_is_refused(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    out = tmp_path / "s"
    sample(corpus, out, per_cell=9)
    judge(out / "fr.csv")
    judge(out / "en.csv")
    before = folder(out)
    over = {"sheet": out / "fr.csv", "key": out / KEY, "other-sheet": out / "en.csv"}
    code = main(["score", str(out / "fr.csv"), "--out", str(over.get(target, out))])
    refused(capsys, code, "--out")
    assert folder(out) == before


def test_score_out_over_its_own_earlier_table_is_allowed(corpus: Path, tmp_path: Path) -> None:
    sample(corpus, tmp_path / "s", per_cell=9, langs=["fr"])
    sheet = tmp_path / "s" / "fr.csv"
    judge(sheet)
    out = tmp_path / "validity.parquet"
    assert main(["score", str(sheet), "--out", str(out)]) == 0
    judge(sheet, "unsure")
    assert main(["score", str(sheet), "--out", str(out)]) == 0
    assert pl.read_parquet(out).get_column("unsure").max() == 9


# --- score: what it must refuse rather than answer ------------------------------------------


def _only_header(sheet: Path, key: Path) -> None:
    sheet.write_text(sheet.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")


def _verdict_twice(sheet: Path, key: Path) -> None:
    rows = list(csv.reader(sheet.open(encoding="utf-8", newline="")))
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        # A second verdict column: read as the last, it would stand for the judge's.
        csv.writer(handle).writerows([[*row, "verdict" if i == 0 else "valid"] for i, row in enumerate(rows)])  # fmt: skip


def _bad_letter(sheet: Path, key: Path) -> None:
    rows = read_sheet(key)
    rows[2]["bad"] = "c"
    write_sheet(key, rows)


def _rows_deleted(sheet: Path, key: Path) -> None:
    write_sheet(sheet, read_sheet(sheet)[3:])


def _no_key(sheet: Path, key: Path) -> None:
    key.unlink()


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        (_only_header, "sheet", (":2: no rows",)),
        (_verdict_twice, "sheet", (":1: column verdict twice",)),
        (_bad_letter, "key", (":4: column bad holds 'c'",)),
        (_rows_deleted, "sheet", (": 3 of the 9 items", "fr.csv", "restore")),
        (_no_key, "key", (": no key beside", "--key")),
    ],
    ids=["only-header", "verdict-twice", "key-letter", "rows-deleted", "no-key"],
)
def test_a_sheet_or_key_it_cannot_score_is_refused(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change, where, words
) -> None:
    sample(corpus, tmp_path / "s", per_cell=9, langs=["fr"], blind=True)
    sheet, key = tmp_path / "s" / "fr.csv", tmp_path / "s" / KEY
    rows = judge(sheet, "valid", "a")
    assert len(rows) == 9
    change(sheet, key)
    out = tmp_path / "validity.parquet"
    refused(capsys, main(["score", str(sheet), "--out", str(out)]), str(locals()[where]), *words)
    assert not out.exists()


# --- score: what a spreadsheet saves --------------------------------------------------------


def spreadsheet_copy(sheet: Path, target: Path, encoding: str, separator: str) -> None:
    """The sheet as a spreadsheet saves it (on Western Windows: semicolons, cp1252; as "Unicode
    text": tabs, UTF-16), CRLF, the verdicts and choices capitalised, a blank row at the end."""
    rows = read_sheet(sheet)
    for row in rows:
        row["verdict"] = row["verdict"].capitalize()
        row["choice"] = row["choice"].upper()
        row["reason"] = "préféré"
    with target.open("w", encoding=encoding, newline="", errors="replace") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter=separator)
        writer.writeheader()
        writer.writerows(rows)
        handle.write(separator * (len(rows[0]) - 1) + "\r\n")


@pytest.mark.parametrize(("encoding", "separator"), [("cp1252", ";"), ("utf-16", "\t")])
def test_a_sheet_saved_by_a_spreadsheet_scores_as_the_original(
    corpus: Path, tmp_path: Path, encoding: str, separator: str
) -> None:
    sample(corpus, tmp_path / "s", per_cell=9, langs=["fr"], blind=True)
    sheet = tmp_path / "s" / "fr.csv"
    key = {r["item"]: r["bad"] for r in read_sheet(tmp_path / "s" / KEY)}
    rows = read_sheet(sheet)
    for i, row in enumerate(rows):  # right choice but for two rows, one verdict of each kind
        row["choice"] = key[row["item"]] if i > 1 else {"a": "b", "b": "a"}[key[row["item"]]]
        row["verdict"] = VERDICTS[i % len(VERDICTS)]
    write_sheet(sheet, rows)
    saved = tmp_path / "s" / "fr-saved.csv"
    spreadsheet_copy(sheet, saved, encoding, separator)
    assert separator.encode(encoding)[-2:] in saved.read_bytes()
    assert "é".encode(encoding)[-2:] in saved.read_bytes()
    original = score([sheet], None)
    assert score([saved], None).equals(original)
    cell = original.filter(pl.col("cell") == "type").row(0, named=True)
    assert (cell["n"], cell["unsure"], cell["grammatical_bad"]) == (8, 1, 3)


def test_item_ids_stay_text_in_a_spreadsheet(corpus: Path, tmp_path: Path) -> None:
    key = sample(corpus, tmp_path / "s", per_cell=9)
    for item in key.get_column("item"):
        assert item[0].isalpha()
        with pytest.raises(ValueError, match="could not convert"):
            float(item)


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        ("ids-as-numbers", ("item '1.23457E+11'", "column item as text")),
        ("workbook", (":1: a spreadsheet workbook, not CSV", "save it as CSV")),
    ],
)
def test_what_a_spreadsheet_breaks_is_refused_naming_the_fix(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str, words
) -> None:
    sample(corpus, tmp_path / "s", per_cell=9, langs=["fr"])
    sheet = tmp_path / "s" / "fr.csv"
    rows = judge(sheet)
    if damage == "ids-as-numbers":
        rows[0]["item"] = "1.23457E+11"
        write_sheet(sheet, rows)
    else:
        sheet.write_bytes(b"PK\x03\x04\x14\x00\x06\x00")
    refused(capsys, main(["score", str(sheet)]), str(sheet), *words)


# --- the sheets a judge gets ----------------------------------------------------------------


@pytest.mark.parametrize("blind", [False, True])
def test_the_sheets_say_what_to_do_and_put_the_judges_columns_first(
    corpus: Path, tmp_path: Path, blind: bool
) -> None:
    sample(corpus, tmp_path / "s", per_cell=9, langs=["fr"], blind=blind)
    readme = (tmp_path / "s" / README).read_text(encoding="utf-8")
    page = (tmp_path / "s" / "fr.html").read_text(encoding="utf-8")
    head = page.split('<div class="item">', 1)[0]
    for verdict in VERDICTS:
        assert f"\n  {verdict} " in readme and f"<code>{verdict}</code>" in head
    assert "[[like this]]" in readme and "[[like this]]" in head
    header = next(csv.reader((tmp_path / "s" / "fr.csv").open(encoding="utf-8")))
    fills = ["choice", "verdict", "reason"] if blind else ["verdict", "reason"]
    assert header[: len(fills)] == fills
    sentences = header[len(fills) : len(fills) + 2]
    assert sentences == (
        ["sentence_a", "sentence_b"] if blind else ["sentence_good", "sentence_bad"]
    )
    assert header.index("item") > header.index("feature")  # technical columns last
    assert "<mark>is</mark>" in page  # the varied word shows


def test_a_blind_page_and_sheet_do_not_tell_where_the_pair_is_from(
    corpus: Path, tmp_path: Path
) -> None:
    sample(corpus, tmp_path / "s", per_cell=9, langs=["en"], blind=True)
    page = (tmp_path / "s" / "en.html").read_text(encoding="utf-8")
    items = page.split('<div class="item">')[1:]
    assert items
    for block in items:
        heading = block.split("</h2>", 1)[0]
        assert heading.split(". ", 1)[1].startswith("Number: ")
        for hidden in ("subject-verb", "plain", "target", "T ", "s0", "→", "Person=1"):
            assert hidden not in block, (hidden, block)
    header = set(next(csv.reader((tmp_path / "s" / "en.csv").open(encoding="utf-8"))))
    assert not {"treebank", "sent_id", "also", "good_value", "bad_form"} & header
    key = read_sheet(tmp_path / "s" / KEY)
    assert {"sent_id", "treebank", "sheet"} <= set(key[0])


def test_an_old_corpus_without_the_relations_columns_it_needs_is_refused(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Mined before `derived`: the rules are re-derived from relations.parquet, which lacks them.
    path = corpus / "fr" / "pairs.parquet"
    pl.read_parquet(path).drop("derived").write_parquet(path)
    pl.DataFrame({"treebank": ["T"]}).write_parquet(corpus / "fr" / "relations.parquet")
    code = main(sample_args(corpus, tmp_path / "s", "--lang", "fr"))
    refused(capsys, code, str(corpus / "fr" / "relations.parquet"), "no column controller_person")
