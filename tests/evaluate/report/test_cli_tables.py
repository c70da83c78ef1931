"""The tables the evaluator prints fit a terminal of 120 columns, long model names and long
groups included, and say a balanced cell's note once under the table, not on every row."""

from __future__ import annotations

from ud_agree.evaluate.report.runs import progress_lines, run_line, runs_table
from ud_agree.evaluate.summary.tables import format_table, summarize

from tests.evaluate.report.test_notes import frame, item

NO_FIGURE = "no figure, fewer than 20 items a value"


def run_row(model: str, reading: str, n: int, balanced: float | None, left_out: int) -> dict:
    return {"lang": "fr", "model": model, "reading": reading, "method": "pll-sentence", "n": n,
            "accuracy": 0.625, "ci_low": 0.451, "ci_high": 1.0, "balanced_accuracy": balanced,
            "ba_ci_low": balanced, "ba_ci_high": balanced, "ba_left_out": left_out,
            "undecided": 0, "folder": "x"}  # fmt: skip


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_the_runs_table_of_long_model_names_fits_120_columns_and_notes_once():
    long = "some-organisation/an-extremely-long-model-name-of-a-finetuned-checkpoint-v2.1"
    rows = [
        run_row(long, "class-average", 123456, None, 123456),
        run_row(long + "-b", "pair", 22, None, 22),
        run_row("gpt2", "pair", 400, 0.7, 300),  # a figure over a quarter of the items
        run_row("bert", "pair", 400, 0.6, 0),
    ]
    table = runs_table(rows)
    assert widest(table) <= 120
    assert table.count(NO_FIGURE) == 1
    assert table.count("over less than half of the row's items") == 1
    lines = table.splitlines()
    # A name too long for its column stands on a line of its own, whole, above its figures.
    whole = next(line for line in lines if line.endswith(long))
    assert whole.split() == ["fr", long]
    below = lines[lines.index(whole) + 1].split()
    assert below[:3] == ["fr", "class-average", "pll-sentence"] and below[3] == "123456"
    assert any(line.split()[1] == "gpt2" and "70.0%*" in line for line in lines[1:])
    assert any(line.split()[1] == "bert" and "60.0% " in line for line in lines[1:])


def test_the_breakdown_table_fits_120_columns_and_notes_once():
    value = "Gender=Fem|Number=Sing|Person=3|PronType=Prs|Case=Nom|Definite=Def"
    rows = [item(i, value if i % 2 else "Number=Plur", i % 3 == 0) for i in range(12)]
    summary = summarize(frame(rows), n_boot=20)
    table = format_table(summary)
    assert widest(table) <= 120
    assert table.count(NO_FIGURE) == 1
    lines = table.splitlines()
    assert f"  {value}" in lines  # whole, on its own line
    everything = next(line for line in lines if line.startswith("all "))
    assert everything.split()[1:3] == ["12", "33.3%"]  # n and accuracy of the row `all`


def test_a_runs_progress_fits_120_columns_but_for_its_folder_line():
    long = "some-organisation/an-extremely-long-model-name-of-a-finetuned-checkpoint-v2.1"
    folder = "/home/someone/a/very/deep/results/folder/fr/" + long.replace("/", "--") + "__pair"
    said = run_line(run_row(long, "pair", 123456, 0.61, 0) | {"random_weights": True})
    lines = progress_lines(f"[12/40] fr {long} pair", said, folder).splitlines()
    assert lines[-1] == f"    → {folder}" and len(lines[-1]) > 120
    assert widest("\n".join(lines[:-1])) <= 120 and lines[1].strip() == said
    short = progress_lines("[1/2] fr gpt2 pair", said, folder).splitlines()
    assert short == [f"[1/2] fr gpt2 pair: {said}", f"    → {folder}"]
