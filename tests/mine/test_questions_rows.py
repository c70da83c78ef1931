"""Rules read on the rows they concern (`questions.when_rows`...) give what the whole expression
gives."""

import polars as pl

from mine.questions import and_rows, joined, when_rows

FRAME = pl.DataFrame(
    {
        "kind": ["article", "noun", None, "article", "noun"],
        "form": ["Le", "chat", "x", None, "Chien"],
        "other": ["la", "chats", "y", "les", None],
    }
)


def test_when_rows_is_when_then_otherwise():
    which = pl.col("kind") == "article"
    then = pl.col("form").str.to_uppercase() + pl.col("other")
    got = when_rows(FRAME, which, then, pl.col("other"))
    want = FRAME.select(pl.when(which).then(then).otherwise(pl.col("other"))).to_series()
    assert got.to_list() == want.to_list() == ["LEla", "chats", "y", None, None]


def test_and_rows_is_kleene_and_with_a_null_guard():
    which = pl.col("kind") == "noun"
    rule = pl.col("form").str.len_chars() >= 1
    got = and_rows(FRAME, which, rule)
    want = FRAME.select(which & rule).to_series()
    assert got.to_list() == want.to_list() == [False, True, None, False, True]


def test_and_rows_without_a_null_guard_reads_only_the_picked_rows():
    frame = FRAME.with_columns(pl.col("kind").fill_null("verb"))
    rule = pl.col("form").str.starts_with("c")
    got = and_rows(frame, pl.col("kind") == "noun", rule)
    assert got.to_list() == [False, True, False, False, False]


def test_joined_is_list_join():
    lists = pl.DataFrame(
        {"v": [["Sing"], [], None, ["Plur", "Sing"], [None], ["a", None, "b"], ["Masc"]]},
        schema={"v": pl.List(pl.String)},
    )
    want = lists.select(pl.col("v").list.join(",")).to_series().to_list()
    assert joined(lists, pl.col("v")).to_list() == want
    assert want[:4] == ["Sing", "", None, "Plur,Sing"]
