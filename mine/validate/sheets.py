"""The judging sheets of a drawn sample: CSV for the verdicts, an HTML page to read, a README with
the instructions, and the key; `sample` writes them into a folder holding no one's work."""

from __future__ import annotations

import hashlib
import html
import io
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from ud_agree.atomic import write_bytes, write_text
from ud_agree.schemas.validity import VERDICTS

from .common import (
    BLIND_COLUMNS,
    CHOICES,
    ITEM_PREFIX,
    KEY,
    KEY_COLUMNS,
    MARK_CLOSE,
    MARK_OPEN,
    MEANINGS,
    README,
    RULE_SEPARATOR,
    SHEET_COLUMNS,
    ValidateError,
)
from .draw import draw, draw_uniform, read_language
from .table import kept_because


def marked(sentence: str, start: int, end: int) -> str:
    """The sentence with the characters [start, end) between `[[` and `]]`."""
    return f"{sentence[:start]}{MARK_OPEN}{sentence[start:end]}{MARK_CLOSE}{sentence[end:]}"


def sheet_rows(
    sample: pl.DataFrame, blind: bool, seed: int, sheet: str = ""
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The sheet (plain or blind) and its key for a drawn sample written to file `sheet`."""
    good = [marked(*row) for row in sample.select("sentence_good", "start", "end_good").iter_rows()]
    bad = [marked(*row) for row in sample.select("sentence_bad", "start", "end_bad").iter_rows()]
    also = sample.get_column("also").to_list() if "also" in sample.columns else []
    base = sample.select(
        *("item", "lang", "type"),
        pl.col("rules").list.join(RULE_SEPARATOR).alias("rule"),
        *("treebank", "sent_id", "target_id", "controller_id", "varied", "feature"),
    ).with_columns(
        pl.Series("also", [" ".join(x or []) for x in also], pl.String)
        if also
        else pl.lit("").alias("also"),
        pl.lit("").alias("choice"),
        pl.lit("").alias("verdict"),
        pl.lit("").alias("reason"),
    )
    key = base.with_columns(pl.lit(sheet).alias("sheet"))
    if not blind:
        sheet_frame = base.with_columns(
            *sample.select("good_value", "bad_value", "good_form", "bad_form"),
            pl.Series("sentence_good", good, pl.String),
            pl.Series("sentence_bad", bad, pl.String),
        )
        key = key.with_columns(pl.lit("").alias("bad"))
        return sheet_frame.select(SHEET_COLUMNS), key.select(KEY_COLUMNS)
    # Blind: bad first where the item's seeded coin says so; the key keeps the bad one's letter.
    swap = pl.Series([_coin(item, seed) for item in sample.get_column("item")], dtype=pl.Boolean)
    sides = {
        "value": (sample.get_column("good_value"), sample.get_column("bad_value")),
        "form": (sample.get_column("good_form"), sample.get_column("bad_form")),
        "sentence": (pl.Series(good, dtype=pl.String), pl.Series(bad, dtype=pl.String)),
    }
    columns = []
    for name, (g, b) in sides.items():
        columns.append(pl.select(pl.when(swap).then(b).otherwise(g)).to_series().alias(f"{name}_a"))
        columns.append(pl.select(pl.when(swap).then(g).otherwise(b)).to_series().alias(f"{name}_b"))
    key = key.with_columns(pl.Series("bad", np.where(swap.to_numpy(), "a", "b"), pl.String))
    return base.with_columns(*columns).select(BLIND_COLUMNS), key.select(KEY_COLUMNS)


def _coin(item: str, seed: int) -> bool:
    """A seeded coin per item (not per row: languages and draws do not share one sequence); over
    the id's hex digits, so that a seed gives the order it gave before ids had their letter."""
    digits = item.removeprefix(ITEM_PREFIX)
    return hashlib.sha1(f"{seed}\t{digits}".encode()).digest()[0] & 1 == 1


def instructions(blind: bool) -> list[str]:
    """What a judge does, in paragraphs (the README's and the page's head)."""
    if blind:
        what = (
            "Each item is two sentences, a and b, that differ in one word, marked [[like this]]. "
            "In one of them the marked word was changed so that it no longer agrees with "
            "another word in the named feature. In the column choice write the letter of the "
            "sentence that is ungrammatical (a or b), or neither if both are fine (then the verdict "
            "is grammatical-bad). Otherwise judge "
            "the sentence you chose: write one verdict word in the column verdict."
        )
    else:
        what = (
            "Each item is two sentences: sentence_good as a treebank has it, and sentence_bad, "
            "where one word, marked [[like this]], was changed so that it no longer agrees with "
            "another word in the named feature. Judge the bad sentence: write one verdict word "
            "in the column verdict."
        )
    return [
        what,
        "For every verdict but valid, write a few words why in the column reason. Judge the "
        "sentence as a whole: spelling, elision and contractions count. Use unsure rather than "
        "guess, and judge alone.",
        "Fill only the first columns (" + ("choice, " if blind else "") + "verdict, reason) and "
        "leave the others as they are: they tell the items apart. Rows may be sorted, but none "
        "added or deleted. A spreadsheet may open the sheet and save it again as CSV (comma- "
        "or semicolon-separated).",
    ]


def verdict_lines(blind: bool) -> list[tuple[str, str]]:
    """Each verdict word and what it means (on a blind sheet, of the sentence chosen)."""
    chosen = "the sentence you chose" if blind else "the bad sentence"
    return [(v, MEANINGS[v].replace("the bad sentence", chosen)) for v in VERDICTS]


def readme(blind: bool, langs: Sequence[str]) -> str:
    """The README beside the sheets: the instructions and the verdict words."""
    sheets = ", ".join(f"{lang}.csv" for lang in langs)
    lines = [f"Pairs to judge: {sheets} (read them more easily in the .html page of the same name)"]
    for text in instructions(blind):
        lines += ["", textwrap.fill(text, 100)]
    lines += ["", "The verdict words:"]
    lines += [f"  {verdict:<16} {meaning}" for verdict, meaning in verdict_lines(blind)]
    if blind:
        lines += ["", f"The choice words: {', '.join(CHOICES)}."]
    lines += ["", f"The judges get the sheets, the pages and this file; {KEY} is the record."]
    if blind:
        lines += [f"Never show {KEY} to a judge: it says which sentence is the bad one."]
    return "\n".join(lines) + "\n"


def page(sheet: pl.DataFrame, lang: str, blind: bool) -> str:
    """An HTML page for reading a sheet: the instructions, then one block per item, the marked
    words highlighted; a blind page's headers show the contrast only, in the sheet's a/b order."""
    first, second = ("sentence_a", "sentence_b") if blind else ("sentence_good", "sentence_bad")
    labels = ("a", "b") if blind else ("good", "bad")
    blocks = []
    for number, row in enumerate(sheet.iter_rows(named=True), 1):
        if blind:
            head = f"{number}. {row['feature']}: {row['value_a']} / {row['value_b']}"
            where = f"item {row['item']}"
        else:
            head = f"{number}. {row['feature']}: {row['good_value']} → {row['bad_value']}"
            also = f" · also {row['also']}" if row["also"] else ""
            where = (
                f"item {row['item']} · {row['type']} · rule {row['rule']} · {row['treebank']} "
                f"{row['sent_id']} · varied: {row['varied']}{also}"
            )
        lines = "".join(
            f"<p><b>{label}</b> {_highlight(row[column])}</p>"
            for label, column in zip(labels, (first, second), strict=True)
        )
        blocks.append(
            f'<div class="item"><h2>{html.escape(head)}</h2>{lines}'
            f'<p class="where">{html.escape(where)}</p></div>'
        )
    title = f"Pairs to judge: {lang}" + (" (blind)" if blind else "")
    how = "".join(f"<p>{html.escape(text)}</p>" for text in instructions(blind))
    words = "".join(
        f"<tr><td><code>{verdict}</code></td><td>{html.escape(meaning)}</td></tr>"
        for verdict, meaning in verdict_lines(blind)
    )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;max-width:60em;margin:auto}"
        ".how{background:#f4f4f4;padding:.5em 1em}td{padding:0 .5em;vertical-align:top}"
        ".item{border-bottom:1px solid #ccc;padding:.5em 0}h2{font-size:1em}"
        ".where{font-size:.75em;color:#777}"
        "mark{background:#ffd54f;font-weight:bold}</style></head><body>"
        f'<h1>{html.escape(title)}</h1><div class="how">{how}'
        f"<p>The verdict words ({html.escape(lang)}.csv, column verdict):</p>"
        f"<table>{words}</table></div>{''.join(blocks)}</body></html>\n"
    )


def _highlight(text: str) -> str:
    """Escaped text with the `[[…]]` span inside <mark>."""
    before, _, rest = text.partition(MARK_OPEN)
    word, _, after = rest.partition(MARK_CLOSE)
    if not rest:
        return html.escape(text)
    return f"{html.escape(before)}<mark>{html.escape(word)}</mark>{html.escape(after)}"


def sample(
    corpus: Path,
    out: Path,
    langs: Sequence[str] | None = None,
    per_cell: int = 25,
    seed: int = 0,
    blind: bool = False,
    force: bool = False,
    uniform: int | None = None,
) -> pl.DataFrame:
    """Draw and write the sheets (`<out>/<lang>.csv`, `.html`), README.txt and `<out>/key.csv`;
    the key. `out` must hold no sample's files, or with `force` no judged sheet (then cleared).
    With `uniform`, that many pairs drawn over all the languages' pairs at once, not per cell."""
    wanted = _languages(corpus, langs, per_cell, seed)
    if uniform is not None:
        if uniform < 1:
            raise ValidateError(f"--uniform {uniform}: must be at least 1")
        every = pl.concat([read_language(corpus / lang) for lang in wanted], how="diagonal_relaxed")
        drawn_all = draw_uniform(every, uniform, seed)
        wanted = [lang for lang in wanted if lang in set(drawn_all.get_column("lang"))]
        drawn_per = {lang: drawn_all.filter(pl.col("lang") == lang) for lang in wanted}
    sheets, keys = [], []
    for lang in wanted:
        if uniform is None:
            drawn = draw(read_language(corpus / lang), per_cell, seed)
        else:
            drawn = drawn_per[lang]
        sheet, key = sheet_rows(drawn, blind, seed, f"{lang}.csv")
        sheets.append((lang, sheet))
        keys.append(key)
    cleared(out, force)
    out.mkdir(parents=True, exist_ok=True)
    for lang, sheet in sheets:
        write_bytes(_csv_bytes(sheet), out / f"{lang}.csv")
        write_text(page(sheet, lang, blind), out / f"{lang}.html")
    write_text(readme(blind, wanted), out / README)
    key = pl.concat(keys)
    write_bytes(_csv_bytes(key), out / KEY)
    return key


def _languages(corpus: Path, langs: Sequence[str] | None, per_cell: int, seed: int) -> list[str]:
    """The languages to sample, the options checked."""
    if not corpus.is_dir():
        raise ValidateError(f"{corpus}: no such corpus folder (--corpus)")
    if per_cell < 1:
        raise ValidateError(f"--per-cell {per_cell}: must be at least 1")
    if seed < 0:
        raise ValidateError(f"--seed {seed}: must be 0 or more")
    named = list(langs or ())
    twice = sorted({lang for lang in named if named.count(lang) > 1})
    if twice:
        raise ValidateError(f"--lang {' '.join(twice)}: given twice")
    have = sorted(p.parent.name for p in corpus.glob("*/pairs.parquet"))
    if not have and (corpus / "pairs.parquet").is_file():
        raise ValidateError(
            f"{corpus}: a language's folder; --corpus names the corpus folder ({corpus.parent})"
        )
    wanted = list(langs) if langs else have
    if not wanted:
        raise ValidateError(f"{corpus}: holds no <lang>/pairs.parquet; mine it with pairs")
    absent = [lang for lang in wanted if lang not in have]
    if absent:
        raise ValidateError(
            f"{corpus}: no pairs for {', '.join(absent)} (languages there: {', '.join(have) or 'none'})"
        )
    return wanted


def cleared(out: Path, force: bool) -> None:
    """Refuse an `out` holding files (a sample's only with `force`, and never a judged sheet);
    with `force`, delete the other sample's files."""
    if out.exists() and not out.is_dir():
        raise ValidateError(f"{out}: not a folder (--out)")
    entries = sorted(out.iterdir()) if out.is_dir() else []
    if not entries:
        return
    names = ", ".join(e.name for e in entries[:4]) + (", …" if len(entries) > 4 else "")
    foreign = [e for e in entries if not _sample_file(e)]
    if foreign:
        raise ValidateError(
            f"{out}: holds {foreign[0].name}, not a sample's file; choose an empty folder (--out)"
        )
    if not force:
        raise ValidateError(
            f"{out}: holds another sample's files ({names}); choose an empty folder, or --force "
            "to replace them"
        )
    for entry in entries:
        why = entry.suffix == ".csv" and entry.name != KEY and kept_because(entry)
        if why:
            raise ValidateError(
                f"{entry}: {why}; move it out of {out} first (--force deletes only a sample's "
                "unjudged files)"
            )
    for entry in entries:
        entry.unlink()


def _sample_file(entry: Path) -> bool:
    return entry.is_file() and (entry.suffix in (".csv", ".html") or entry.name == README)


def _csv_bytes(frame: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.write_csv(buffer)
    return buffer.getvalue()
