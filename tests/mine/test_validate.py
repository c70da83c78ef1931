"""`python -m mine.validate`: sampling stratified by language × type × rule on pairs written here
(so every cell's size is known), blind sheets and their key, scoring with Wilson intervals
computed by hand, and every bad sheet as one line naming file and line, exit 2."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from ud_agree.mine.validate import (
    KEY,
    draw,
    draw_uniform,
    item_ids,
    main,
    marked,
    rules_of,
    sample,
    score,
    wilson,
)

from ud_agree.schemas.validity import VALIDITY

# (type, derived, how many pairs) of the hand-written English pairs; French has one cell of 3.
CELLS = (
    ("subject-verb", [], 40),
    ("subject-verb", ["implicit-person"], 12),
    ("subject-verb", ["transparent-token"], 30),
    ("subject-verb", ["implicit-person", "transparent-token"], 4),
    ("determiner", [], 7),
)


def pairs_frame(lang: str, cells: tuple) -> pl.DataFrame:
    """Pairs with distinct keys: sentence `s<k>`, the verb `is` → `are` (<b> marked in HTML)."""
    rows = []
    for type_, derived, count in cells:
        for _ in range(count):
            k = len(rows)
            good, bad = f"The <b>cat</b> {k} is here.", f"The <b>cat</b> {k} are here."
            start = good.index(" is ") + 1
            rows.append(
                dict(
                    lang=lang, treebank="T", sent_id=f"s{k}", type=type_, target_id=3,
                    controller_id=2, varied="target", feature="Number", good_value="Sing",
                    bad_value="Plur", lemma="be", upos="AUX", good_form="is", bad_form="are",
                    bad_count=5, bad_source="ud", sentence_good=good, sentence_bad=bad,
                    start=start, end_good=start + 2, end_bad=start + 3, variant="original",
                    also=["Person=1"] if k == 0 else [], derived=derived,
                )
            )  # fmt: skip
    # A nonce variant of the first pair: never sampled.
    rows.append({**rows[0], "variant": "nonce-1", "sent_id": "s0"})
    return pl.DataFrame(rows)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for lang, cells in (("en", CELLS), ("fr", (("determiner", [], 3),))):
        (root / lang).mkdir(parents=True)
        pairs_frame(lang, cells).write_parquet(root / lang / "pairs.parquet")
    return root


def read_sheet(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write_sheet(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_every_cell_holds_the_pairs_asked_or_all_it_has(corpus: Path, tmp_path: Path) -> None:
    key = sample(corpus, tmp_path / "sheets", per_cell=10, seed=0)
    # A pair counts in each of its rules' cells: the 4 implicit-person+transparent-token pairs
    # fill both cells, which hold 16 and 34 pairs, so each gets exactly 10.
    en = key.filter(pl.col("lang") == "en").with_columns(pl.col("rule").str.split("+"))
    per = dict(
        ((t, r), n) for t, r, n in en.explode("rule").group_by("type", "rule").len().iter_rows()
    )
    assert per == {
        ("subject-verb", "plain"): 10,
        ("subject-verb", "implicit-person"): 10,
        ("subject-verb", "transparent-token"): 10,
        ("determiner", "plain"): 7,  # fewer than asked: all of them
    }
    assert en.height < 37  # the double pairs drawn are on the sheet once
    assert key.filter(pl.col("lang") == "fr").height == 3  # fewer than asked: all of them
    assert key.get_column("item").is_unique().all()


def test_the_draw_is_seeded(corpus: Path, tmp_path: Path) -> None:
    a = sample(corpus, tmp_path / "a", per_cell=5, seed=7)
    b = sample(corpus, tmp_path / "b", per_cell=5, seed=7)
    c = sample(corpus, tmp_path / "c", per_cell=5, seed=8)
    assert a.equals(b)
    assert (tmp_path / "a" / "en.csv").read_bytes() == (tmp_path / "b" / "en.csv").read_bytes()
    assert set(a.get_column("item")) != set(c.get_column("item"))


def test_the_draw_ignores_the_order_pairs_were_written(corpus: Path) -> None:
    pairs = pairs_frame("en", CELLS).filter(pl.col("variant") == "original")
    pairs = pairs.with_columns(rules_of(pairs), item_ids(pairs))
    forward = draw(pairs, 5, 3).get_column("item").to_list()
    backward = draw(pairs.reverse(), 5, 3).get_column("item").to_list()
    assert forward == backward


def originals(lang: str, cells: tuple) -> pl.DataFrame:
    pairs = pairs_frame(lang, cells).filter(pl.col("variant") == "original")
    return pairs.with_columns(rules_of(pairs), item_ids(pairs))


def test_a_uniform_draw_gives_every_pair_the_same_chance() -> None:
    # 93 English pairs in five cells and 3 French: a draw per cell would give French its 3 pairs
    # every time; drawn uniformly, a French pair is 3 of 96, so 10 pairs hold 0.3125 on average.
    pairs = pl.concat([originals("en", CELLS), originals("fr", (("determiner", [], 3),))])
    french = [
        draw_uniform(pairs, 10, seed).get_column("lang").eq("fr").sum() for seed in range(400)
    ]
    assert abs(sum(french) / 400 - 0.3125) < 0.06
    drawn = draw_uniform(pairs, 10, 7)
    assert drawn.height == 10 and drawn.get_column("item").is_unique().all()
    assert drawn.equals(draw_uniform(pairs.reverse(), 10, 7))  # not the order read
    assert draw_uniform(pairs, 500, 0).height == pairs.height  # all where fewer


def test_uniform_sheets_are_blind_sheets_per_language_that_score(
    corpus: Path, tmp_path: Path
) -> None:
    key = sample(corpus, tmp_path / "u", seed=3, blind=True, uniform=12)
    assert key.height == 12 and key.get_column("item").is_unique().all()
    # Asked more than there are: every original pair (93 + 3), never the nonce variant.
    assert sample(corpus, tmp_path / "all", seed=3, uniform=500).height == 96
    langs = sorted(set(key.get_column("lang")))
    sheets = sorted(p.name for p in (tmp_path / "u").glob("*.csv") if p.name != KEY)
    assert sheets == [f"{lang}.csv" for lang in langs]  # a sheet only where a pair was drawn
    for sheet in sheets:
        rows = read_sheet(tmp_path / "u" / sheet)
        assert "choice" in rows[0] and "sentence_good" not in rows[0]
        bad = {r["item"]: r["bad"] for r in read_sheet(tmp_path / "u" / KEY)}
        for row in rows:
            row.update(choice=bad[row["item"]], verdict="valid")
        write_sheet(tmp_path / "u" / sheet, rows)
    table = score([tmp_path / "u" / s for s in sheets], None)
    assert table.filter(pl.col("cell") == "type").get_column("valid").sum() == 12


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--uniform", "0"], "--uniform 0: must be at least 1"),
        (["--uniform", "5", "--per-cell", "3"], "--per-cell and --uniform: give one"),
    ],
)
def test_a_bad_uniform_option_is_one_line_and_exit_2(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], options, message: str
) -> None:
    out = tmp_path / "s"
    assert main(["sample", "--corpus", str(corpus), "--out", str(out), *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not out.exists()


def test_the_sheet_marks_the_varied_word_and_leaves_verdicts_empty(
    corpus: Path, tmp_path: Path
) -> None:
    sample(corpus, tmp_path / "s", per_cell=50, seed=0)
    rows = read_sheet(tmp_path / "s" / "fr.csv")
    assert rows[0]["sentence_good"] == "The <b>cat</b> 0 [[is]] here."
    assert rows[0]["sentence_bad"] == "The <b>cat</b> 0 [[are]] here."
    assert all(r["verdict"] == "" and r["reason"] == "" for r in rows)
    en = {r["sent_id"]: r for r in read_sheet(tmp_path / "s" / "en.csv")}
    assert en["s0"]["also"] == "Person=1"
    assert "nonce" not in (tmp_path / "s" / "en.csv").read_text()
    page = (tmp_path / "s" / "fr.html").read_text()
    assert "&lt;b&gt;cat&lt;/b&gt; 0 <mark>is</mark> here." in page  # the page escapes text
    assert "<b>cat</b>" not in page


def test_marked_puts_brackets_around_the_span() -> None:
    assert marked("Die Katze schläft.", 10, 17) == "Die Katze [[schläft]]."


def test_rules_are_rederived_for_a_corpus_mined_before_derived() -> None:
    pairs = pl.DataFrame(
        {
            "treebank": ["T"] * 4,
            "sent_id": ["a", "b", "c", "d"],
            "target_id": [2, 2, 1, 2],
            "controller_id": [1, 1, 2, 1],
            "varied": ["target", "target", "controller", "target"],
            "type": ["subject-verb", "subject-verb", "determiner", "subject-verb"],
            "feature": ["Person", "Person", "Number", "Number"],
            "bad_source": ["ud", "ud", "ud", "unimorph"],
        }
    )
    relations = pl.DataFrame(
        {
            "treebank": ["T"] * 4,
            "sent_id": ["a", "b", "c", "d"],
            "target_id": [2, 2, 1, 2],
            "controller_id": [1, 1, 2, 1],
            "controller_person": [[], ["3"], [], []],
            "in_mwt_target": [False, True, True, False],
            "in_mwt_controller": [False, False, False, False],
        }
    )
    assert rules_of(pairs, relations).to_list() == [
        ["implicit-person"],
        ["transparent-token"],  # controller has Person 3: no implicit person
        ["plain"],  # the varied controller is outside the token the target lies in
        ["unimorph-form"],  # Number, not Person: implicit person does not apply
    ]


def test_a_blind_sheet_hides_which_sentence_is_bad_and_the_key_tells(
    corpus: Path, tmp_path: Path
) -> None:
    sample(corpus, tmp_path / "s", per_cell=10, seed=0, blind=True)
    rows = read_sheet(tmp_path / "s" / "en.csv")
    assert not {"sentence_good", "sentence_bad", "good_form", "bad_form"} & set(rows[0])
    key = {r["item"]: r["bad"] for r in read_sheet(tmp_path / "s" / KEY)}
    for row in rows:
        bad = row[f"sentence_{key[row['item']]}"]
        assert "[[are]]" in bad
    assert {key[r["item"]] for r in rows} == {"a", "b"}  # both orders occur
    # The items (after the instructions) label no sentence good or bad.
    items = (tmp_path / "s" / "en.html").read_text().split('<div class="item">', 1)[1]
    assert "good" not in items and "bad" not in items


def test_blind_round_trip_scores_the_judges_choices(corpus: Path, tmp_path: Path) -> None:
    sample(corpus, tmp_path / "s", per_cell=3, seed=0, blind=True, langs=["fr"])
    sheet = tmp_path / "s" / "fr.csv"
    key = {r["item"]: r["bad"] for r in read_sheet(tmp_path / "s" / KEY)}
    rows = read_sheet(sheet)
    other = {"a": "b", "b": "a"}
    # Right choice and valid; the good sentence chosen; neither chosen.
    choices = [key[rows[0]["item"]], other[key[rows[1]["item"]]], "neither"]
    for row, choice in zip(rows, choices, strict=True):
        row.update(choice=choice, verdict="valid")
    write_sheet(sheet, rows)
    table = score([sheet], None)
    cell = table.filter(pl.col("cell") == "type").row(0, named=True)
    assert (cell["n"], cell["valid"], cell["grammatical_bad"]) == (3, 1, 2)


def judged_sheet(tmp_path: Path, verdicts: list[str]) -> Path:
    """A plain sheet and key of `len(verdicts)` French determiner pairs, judged as given."""
    corpus = tmp_path / "corpus"
    (corpus / "fr").mkdir(parents=True)
    pairs_frame("fr", (("determiner", [], len(verdicts)),)).write_parquet(
        corpus / "fr" / "pairs.parquet"
    )
    sample(corpus, tmp_path / "s", per_cell=len(verdicts), seed=0)
    sheet = tmp_path / "s" / "fr.csv"
    rows = read_sheet(sheet)
    for row, verdict in zip(rows, verdicts, strict=True):
        row["verdict"] = verdict
    write_sheet(sheet, rows)
    return sheet


def test_wilson_matches_the_textbook_value() -> None:
    # 8 of 10: statsmodels' proportion_confint(8, 10, method="wilson") gives (0.4902, 0.9433);
    # by hand, centre (0.8 + 1.9208/10) / 1.38415 = 0.71672, half-width 0.22658.
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.49016, abs=1e-4)
    assert high == pytest.approx(0.94331, abs=1e-4)
    # All valid: the interval is [n / (n + z²), 1] = [10 / 13.8415, 1].
    assert wilson(10, 10) == pytest.approx((0.72246, 1.0), abs=1e-5)
    assert wilson(0, 10)[0] == pytest.approx(0.0)
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_score_counts_unsure_apart_and_writes_the_declared_schema(tmp_path: Path) -> None:
    verdicts = ["valid"] * 8 + ["grammatical-bad", "broken-surface", "unsure"]
    sheet = judged_sheet(tmp_path, verdicts)
    out = tmp_path / "validity.parquet"
    assert main(["score", str(sheet), "--out", str(out), "--judges", "maintainers"]) == 0
    assert pq.read_schema(out).remove_metadata() == VALIDITY.remove_metadata()
    table = pl.read_parquet(out)
    row = table.filter(pl.col("cell") == "type").row(0, named=True)
    assert (row["n"], row["valid"], row["unsure"]) == (10, 8, 1)
    assert (row["grammatical_bad"], row["broken_surface"], row["wrong_feature"]) == (1, 1, 0)
    assert row["share"] == pytest.approx(0.8)
    assert (row["low"], row["high"]) == pytest.approx((0.49016, 0.94331), abs=1e-4)
    assert row["judges"] == "maintainers"
    assert set(table.get_column("cell")) == {"type", "rule", "type-rule"}


def test_a_pair_with_two_rules_counts_in_each_rule(corpus: Path, tmp_path: Path) -> None:
    sample(corpus, tmp_path / "s", per_cell=4, seed=0, langs=["en"])
    sheet = tmp_path / "s" / "en.csv"
    rows = read_sheet(sheet)
    for row in rows:
        row["verdict"] = "valid" if "+" in row["rule"] else "not-agreement"
    write_sheet(sheet, rows)
    table = score([sheet], None).filter(pl.col("cell") == "rule")
    by_rule = {r: (n, v) for r, n, v in table.select("rule", "n", "valid").iter_rows()}
    double = sum("+" in row["rule"] for row in rows)
    assert double > 0
    for rule in ("implicit-person", "transparent-token"):
        assert by_rule[rule] == (sum(rule in row["rule"] for row in rows), double)
    assert by_rule["plain"] == (sum(row["rule"] == "plain" for row in rows), 0)
    by_type = score([sheet], None).filter(pl.col("cell") == "type")
    assert by_type.get_column("n").sum() == len(rows)  # once per pair by type


def edit(sheet: Path, line: int, column: str, value: str) -> None:
    rows = read_sheet(sheet)
    rows[line - 2][column] = value
    write_sheet(sheet, rows)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: edit(s, 3, "verdict", "fine"), ":3: verdict 'fine' is not one of"),
        (lambda s: edit(s, 4, "verdict", ""), ":4: verdict '' is not one of"),
        (lambda s: edit(s, 2, "item", "0123456789ab"), ":2: item '0123456789ab' matches no pair"),
        (lambda s: edit(s, 3, "type", "attributive"), ":3: item"),
        (lambda s: edit(s, 4, "item", read_sheet(s)[0]["item"]), ":4: item"),
        (
            lambda s: s.write_text(s.read_text().replace("verdict", "judgement", 1)),
            ":1: no column verdict",
        ),
        (lambda s: s.write_bytes(b"\x81\x8d\x00garbage"), ":1: unreadable (not text"),
        (lambda s: s.unlink(), ":1: unreadable"),
    ],
    ids=[
        "unknown-verdict",
        "unjudged",
        "no-pair",
        "cell-changed",
        "duplicate",
        "no-column",
        "not-utf8",
        "missing",
    ],
)
def test_bad_sheets_are_one_line_naming_file_and_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change, message: str
) -> None:
    sheet = judged_sheet(tmp_path, ["valid"] * 4)
    change(sheet)
    out = tmp_path / "validity.parquet"
    assert main(["score", str(sheet), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{sheet}{message}" in err, err
    assert not out.exists()


def test_the_same_item_in_two_sheets_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = judged_sheet(tmp_path, ["valid"] * 2)
    copy = sheet.with_name("fr-again.csv")
    copy.write_bytes(sheet.read_bytes())
    assert main(["score", str(sheet), str(copy)]) == 2
    assert f"{copy}:2: item" in capsys.readouterr().err


def test_sample_of_a_language_the_corpus_lacks_is_one_line_and_exit_2(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sample", "--corpus", str(corpus), "--lang", "xx", "--out", str(tmp_path / "s")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no pairs for xx" in err
    assert not (tmp_path / "s").exists()
