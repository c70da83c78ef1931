"""Judged sheets read against their key, and validity per cell with Wilson 95% intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from ud_agree.atomic import write_parquet
from ud_agree.schemas.validity import FAILURES, RULES, VALIDITY, VERDICTS

from .common import CHOICES, KEY, KEY_REQUIRED, RULE_SEPARATOR, SHEET_REQUIRED, ValidateError
from .table import looks_like_number, read_table, word

Z95 = 1.959963984540054  # the normal quantile of 0.975
Key = dict[str, dict[str, str]]


def wilson(valid: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of valid/n (Wilson 1927); (nan, nan) when n is 0."""
    if n == 0:
        return math.nan, math.nan
    p = valid / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At p = 0 or 1 one bound is exactly 0 or 1; rounding would leave 0.9999999999999999.
    low = 0.0 if valid == 0 else max(0.0, centre - half)
    high = 1.0 if valid == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Judgment:
    """One judged row: the item, its cell and the verdict it counts as."""

    item: str
    where: str  # file:line
    lang: str
    type: str
    rules: tuple[str, ...]
    verdict: str


def read_key(path: Path) -> Key:
    """A sample's key.csv by item (each row with `_line`, the line it ends on)."""
    _, rows = read_table(path, KEY_REQUIRED)
    key: Key = {}
    for line, row in rows:
        if row["item"] in key:
            raise ValidateError(f"{path}:{line}: item {row['item']} twice in the key")
        bad = word(row["bad"])
        if bad not in ("", "a", "b"):
            raise ValidateError(
                f"{path}:{line}: column bad holds {row['bad']!r}, not a or b (blind) or empty"
            )
        key[row["item"]] = {**row, "bad": bad, "_line": str(line)}
    if not key:
        raise ValidateError(f"{path}:2: no items in the key")
    return key


def read_sheet(path: Path, key: Key, key_path: Path) -> list[Judgment]:
    """A judged sheet's rows checked against the sample's key; a blind sheet's verdict resolved
    with the key (the judge's choice of the good sentence, or `neither`, is `grammatical-bad`)."""
    header, rows = read_table(path, SHEET_REQUIRED)
    blind = "sentence_a" in header
    if blind and "choice" not in header:
        raise ValidateError(f"{path}:1: no column choice (a blind sheet)")
    if not rows:
        raise ValidateError(f"{path}:2: no rows to score, only the header")
    return [_judgment(f"{path}:{line}", row, blind, key, key_path) for line, row in rows]


def _judgment(where: str, row: dict[str, str], blind: bool, key: Key, key_path: Path) -> Judgment:
    """One row checked against its key entry, with the verdict it counts as."""
    entry = key.get(row["item"])
    if entry is None:
        why = ""
        if looks_like_number(row["item"]):
            why = "; a spreadsheet made the ids numbers: open the CSV with column item as text"
        raise ValidateError(f"{where}: item {row['item']!r} matches no pair of {key_path}{why}")
    for column in ("lang", "type", "rule"):
        if row[column] != entry[column]:
            raise ValidateError(
                f"{where}: item {row['item']} has {column} {row[column]!r}, the key {entry[column]!r}"
            )
    verdict = word(row["verdict"])
    if verdict not in VERDICTS:
        raise ValidateError(
            f"{where}: verdict {row['verdict']!r} is not one of {', '.join(VERDICTS)}"
        )
    if blind != bool(entry["bad"]):
        kind = "blind" if blind else "plain"
        raise ValidateError(f"{where}: a {kind} sheet, but {key_path} is not")
    if blind and verdict != "unsure":
        choice = word(row["choice"])
        if choice not in CHOICES:
            raise ValidateError(
                f"{where}: choice {row['choice']!r} is not one of {', '.join(CHOICES)}"
            )
        if choice != entry["bad"]:
            verdict = "grammatical-bad"
    rules = tuple(row["rule"].split(RULE_SEPARATOR))
    return Judgment(row["item"], where, row["lang"], row["type"], rules, verdict)


def read_judged(sheets: Sequence[Path], key_path: Path | None = None) -> list[Judgment]:
    """Every judged row of the sheets (each checked against `key_path`, else the key.csv beside
    it); an item judged twice, or an item of a sheet the key lists left out, is an error."""
    keys: dict[Path, Key] = {}
    seen: dict[str, str] = {}
    judged: list[Judgment] = []
    for sheet in sheets:
        path = key_path or sheet.parent / KEY
        if path not in keys:
            if key_path is None and not path.is_file():
                raise ValidateError(f"{path}: no key beside {sheet}; name the sample's key (--key)")
            keys[path] = read_key(path)
        for judgment in read_sheet(sheet, keys[path], path):
            if judgment.item in seen:
                raise ValidateError(
                    f"{judgment.where}: item {judgment.item} judged twice (first at "
                    f"{seen[judgment.item]})"
                )
            seen[judgment.item] = judgment.where
            judged.append(judgment)
    for path, key in keys.items():
        _check_whole(path, key, seen)
    return judged


def _check_whole(path: Path, key: Key, seen: dict[str, str]) -> None:
    """Refuse a sheet the key lists whose items are judged only in part (rows deleted); a key
    written before its `sheet` column cannot say, and is not checked."""
    groups: dict[str, list[str]] = {}
    for item, entry in key.items():
        if entry.get("sheet"):
            groups.setdefault(entry["sheet"], []).append(item)
    for name, items in groups.items():
        judged = [seen[item] for item in items if item in seen]
        lost = [item for item in items if item not in seen]
        if judged and lost:
            sheet = judged[0].rsplit(":", 1)[0]
            raise ValidateError(
                f"{sheet}: {len(lost)} of the {len(items)} items {path} lists for {name} are not "
                f"in it (first {lost[0]}, key line {key[lost[0]]['_line']}); restore their rows"
            )


def validity(judged: Sequence[Judgment], judges: str | None = None) -> pl.DataFrame:
    """Validity per language × type, language × rule and language × type × rule."""
    rows = pl.DataFrame(
        {
            "lang": [j.lang for j in judged],
            "type": [j.type for j in judged],
            "rule": [list(j.rules) for j in judged],
            "verdict": [j.verdict for j in judged],
        },
        schema={
            "lang": pl.String,
            "type": pl.String,
            "rule": pl.List(pl.String),
            "verdict": pl.String,
        },
    )
    exploded = rows.explode("rule")
    groups = (
        ("type", rows.drop("rule"), ["lang", "type"]),
        ("rule", exploded, ["lang", "rule"]),
        ("type-rule", exploded, ["lang", "type", "rule"]),
    )
    counts = [
        pl.col("verdict").is_in(["valid", *FAILURES]).sum().alias("n"),
        (pl.col("verdict") == "valid").sum().alias("valid"),
        *((pl.col("verdict") == v).sum().alias(v.replace("-", "_")) for v in FAILURES),
        (pl.col("verdict") == "unsure").sum().alias("unsure"),
    ]
    tables = []
    for cell, frame, by in groups:
        table = frame.group_by(by).agg(counts).with_columns(pl.lit(cell).alias("cell"))
        for column in ("type", "rule"):
            if column not in by:
                table = table.with_columns(pl.lit(None, pl.String).alias(column))
        tables.append(table)
    table = pl.concat(tables, how="diagonal").with_columns(pl.col(pl.UInt32).cast(pl.Int64))
    intervals = [wilson(v, n) for v, n in table.select("valid", "n").iter_rows()]
    rule_order = {rule: i for i, rule in enumerate(RULES)}
    table = table.with_columns(
        pl.when(pl.col("n") > 0).then(pl.col("valid") / pl.col("n")).alias("share"),
        pl.Series("low", [x[0] for x in intervals], pl.Float64).fill_nan(None),
        pl.Series("high", [x[1] for x in intervals], pl.Float64).fill_nan(None),
        pl.lit(judges, pl.String).alias("judges"),
        pl.col("cell")
        .replace_strict({c: i for i, c in enumerate(("type", "rule", "type-rule"))})
        .alias("_cell"),
        pl.col("rule").replace_strict(rule_order, default=len(RULES)).alias("_rule"),
    )
    table = table.sort("lang", "_cell", "type", "_rule", "rule", nulls_last=False)
    return pl.from_arrow(
        table.drop("_cell", "_rule").select(VALIDITY.names).to_arrow().cast(VALIDITY)
    )  # type: ignore[return-value]


def printed(table: pl.DataFrame) -> str:
    """The validity table as text: one line per cell."""
    lines = [f"{'lang':<5} {'cell':<45} {'n':>5} {'valid':>5} {'share':>6}  95% interval  unsure"]
    for row in table.iter_rows(named=True):
        name = " × ".join(x for x in (row["type"] or "all types", row["rule"]) if x)
        share = "–" if row["share"] is None else f"{100 * row['share']:.1f}%"
        interval = "–" if row["low"] is None else f"{100 * row['low']:.1f}–{100 * row['high']:.1f}%"
        lines.append(
            f"{row['lang']:<5} {name:<45} {row['n']:>5} {row['valid']:>5} {share:>6}  "
            f"{interval:<12}  {row['unsure']:>6}"
        )
    return "\n".join(lines)


def score(
    sheets: Sequence[Path], out: Path | None, key: Path | None = None, judges: str | None = None
) -> pl.DataFrame:
    """Read judged sheets, write `out` (validity.parquet) when given; the table."""
    if not sheets:
        raise ValidateError("no sheet to score")
    if out is not None:
        _check_out(out, [*sheets, *([key] if key else []), *(s.parent / KEY for s in sheets)])
    table = validity(read_judged(sheets, key), judges)
    if out is not None:
        write_parquet(table.to_arrow(), out, VALIDITY)
    return table


def _check_out(out: Path, inputs: Sequence[Path]) -> None:
    """Refuse an `--out` that is one of the inputs, a folder, or a file other than a validity
    table (a judged sheet, a key): score writes over nothing but its own earlier output."""
    if out.is_dir():
        raise ValidateError(f"{out}: a folder; --out names the validity.parquet to write")
    if any(out.resolve() == path.resolve() for path in inputs):
        raise ValidateError(f"{out}: one of the inputs (sheet or key); choose another --out")
    if out.exists():
        try:
            names = pq.read_schema(out).names
        except Exception:  # noqa: BLE001  (any unreadable file: it is not ours to replace)
            names = []
        if names != VALIDITY.names:
            raise ValidateError(
                f"{out}: exists and is not a validity table; --out writes over nothing else"
            )
