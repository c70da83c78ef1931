"""`python -m mine.validate sample|score`: draw minimal pairs for people to judge, and measure how
many hold (DESIGN.md §4.1 "Validation, built in"; docs/validity.md).

`sample` draws a seeded sample of a corpus's original pairs stratified by language × type × rule
(the pair's `derived` values, `plain` where it has none) and writes one CSV sheet and one HTML page
per language, and `key.csv` (every item drawn; in a blind sample, which sentence is the bad one).
`score` reads judged sheets against their key and writes validity per cell with Wilson 95%
intervals (`validity.parquet`).
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from ud_agree.atomic import write_bytes, write_parquet, write_text
from ud_agree.errors import OneLineParser, UserError, run_main, tool_command
from ud_agree.schemas.validity import FAILURES, RULES, VALIDITY, VERDICTS

RULE_SEPARATOR = "+"  # a pair with several derived values: `implicit-person+transparent-token`
MARK_OPEN, MARK_CLOSE = "[[", "]]"
Z95 = 1.959963984540054  # the normal quantile of 0.975
KEY = "key.csv"
# Columns of a sheet, plain and blind; a blind sheet names no sentence good or bad.
SHEET_COLUMNS = (
    *("item", "lang", "type", "rule", "treebank", "sent_id", "target_id", "controller_id"),
    *("varied", "feature", "good_value", "bad_value", "good_form", "bad_form", "also"),
    *("sentence_good", "sentence_bad", "verdict", "reason"),
)
BLIND_COLUMNS = (
    *("item", "lang", "type", "rule", "treebank", "sent_id", "target_id", "controller_id"),
    *("varied", "feature", "value_a", "value_b", "form_a", "form_b", "also"),
    *("sentence_a", "sentence_b", "choice", "verdict", "reason"),
)
KEY_COLUMNS = ("item", "lang", "type", "rule", "bad")
CHOICES = ("a", "b", "neither")
# What identifies a pair across minings of the same release (§3: the pair key less `variant`).
ITEM_KEY = (
    *("lang", "treebank", "sent_id", "target_id", "controller_id", "varied", "feature"),
    "bad_value",
)


class ValidateError(UserError):
    """A corpus, sheet or key that cannot be sampled or scored."""


# --- sample -------------------------------------------------------------------------------------


def rules_of(pairs: pl.DataFrame, relations: pl.DataFrame | None = None) -> pl.Series:
    """Each pair's rules (list<str>): its `derived` values, `plain` where empty; for a corpus
    mined before `derived` existed, re-derived from `relations` and `bad_source`."""
    if "derived" in pairs.columns:
        derived = pairs.get_column("derived").fill_null([]).cast(pl.List(pl.String))
    else:
        derived = _derived_before(pairs, relations)
    return (
        pl.select(
            pl.when(derived.list.len() > 0)
            .then(derived.list.unique(maintain_order=True))
            .otherwise(pl.lit(["plain"], dtype=pl.List(pl.String)))
        )
        .to_series()
        .alias("rules")
    )


def _derived_before(pairs: pl.DataFrame, relations: pl.DataFrame | None) -> pl.Series:
    """What `derived` would say, for the three rules an older corpus can show: implicit person
    (a subject-verb Person pair whose controller has no Person), transparent token (the varied
    word inside a multiword token) and UniMorph form (the bad form from UniMorph only)."""
    key = ["treebank", "sent_id", "target_id", "controller_id"]
    if relations is None:
        facts = pairs.select(
            pl.lit(None, pl.Boolean).alias("no_person"), pl.lit(None, pl.Boolean).alias("in_mwt")
        )
    else:
        joined = pairs.select(*key, "varied").join(
            relations.select(
                *key, "controller_person", "in_mwt_target", "in_mwt_controller"
            ).unique(key, keep="first"),
            on=key,
            how="left",
            maintain_order="left",
        )
        facts = joined.select(
            (pl.col("controller_person").list.len().fill_null(0) == 0).alias("no_person"),
            pl.when(pl.col("varied") == "controller")
            .then(pl.col("in_mwt_controller"))
            .otherwise(pl.col("in_mwt_target"))
            .alias("in_mwt"),
        )
    frame = pl.concat([pairs.select("type", "feature", "bad_source"), facts], how="horizontal")
    return frame.select(
        pl.concat_list(
            pl.when(
                (pl.col("type") == "subject-verb")
                & (pl.col("feature") == "Person")
                & pl.col("no_person").fill_null(False)
            ).then(pl.lit("implicit-person")),
            pl.when(pl.col("in_mwt").fill_null(False)).then(pl.lit("transparent-token")),
            pl.when(pl.col("bad_source") == "unimorph").then(pl.lit("unimorph-form")),
        )
        .list.drop_nulls()
        .alias("derived")
    ).to_series()


def item_ids(pairs: pl.DataFrame) -> pl.Series:
    """A stable id per pair: the first 12 hex digits of SHA-1 over its key."""
    keys = pairs.select(
        pl.concat_str([pl.col(c).cast(pl.String).fill_null("") for c in ITEM_KEY], separator="\t")
    ).to_series()
    return pl.Series("item", [hashlib.sha1(k.encode()).hexdigest()[:12] for k in keys], pl.String)


def draw(pairs: pl.DataFrame, per_cell: int, seed: int) -> pl.DataFrame:
    """A seeded sample with at least min(per_cell, available) pairs in every language × type ×
    rule cell. A pair belongs to each of its rules' cells: cells are filled smallest first, and a
    pair drawn for one cell counts towards its other cells too (so those may hold more)."""
    frame = pairs.with_columns(pl.int_range(pl.len()).alias("_row")).sort(
        "item"
    )  # the draw depends on the pairs, not on the order the miner wrote them
    cells = (
        frame.select("lang", "type", "rules", "_row", "item")
        .explode("rules")
        .group_by("lang", "type", "rules")
        .agg("_row", "item")
        .with_columns(pl.col("_row").list.len().alias("size"))
        .sort("size", "lang", "type", "rules")
    )
    rng = np.random.default_rng(seed)
    chosen: set[int] = set()
    for rows in cells.get_column("_row").to_list():
        have = sum(1 for row in rows if row in chosen)
        free = [row for row in rows if row not in chosen]
        need = min(max(per_cell - have, 0), len(free))
        if need:
            picked = rng.choice(len(free), size=need, replace=False)
            chosen.update(free[i] for i in sorted(picked.tolist()))
    return (
        frame.filter(pl.col("_row").is_in(sorted(chosen))).sort("lang", "type", "item").drop("_row")
    )


def marked(sentence: str, start: int, end: int) -> str:
    """The sentence with the characters [start, end) between `[[` and `]]`."""
    return f"{sentence[:start]}{MARK_OPEN}{sentence[start:end]}{MARK_CLOSE}{sentence[end:]}"


def sheet_rows(sample: pl.DataFrame, blind: bool, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The sheet (plain or blind) and its key for a drawn sample."""
    good = [
        marked(s, a, b)
        for s, a, b in sample.select("sentence_good", "start", "end_good").iter_rows()
    ]
    bad = [
        marked(s, a, b) for s, a, b in sample.select("sentence_bad", "start", "end_bad").iter_rows()
    ]
    also = sample.get_column("also") if "also" in sample.columns else None
    base = sample.select(
        "item",
        "lang",
        "type",
        pl.col("rules").list.join(RULE_SEPARATOR).alias("rule"),
        "treebank",
        "sent_id",
        "target_id",
        "controller_id",
        "varied",
        "feature",
    ).with_columns(
        pl.Series(
            "also",
            [] if also is None else [" ".join(x or []) for x in also.to_list()],
            pl.String,
        )
        if also is not None
        else pl.lit("").alias("also")
    )
    empty = pl.lit("").alias
    if not blind:
        sheet = pl.concat(
            [
                base,
                sample.select("good_value", "bad_value", "good_form", "bad_form"),
            ],
            how="horizontal",
        ).with_columns(
            pl.Series("sentence_good", good, pl.String),
            pl.Series("sentence_bad", bad, pl.String),
            empty("verdict"),
            empty("reason"),
        )
        key = base.select("item", "lang", "type", "rule").with_columns(empty("bad"))
        return sheet.select(SHEET_COLUMNS), key.select(KEY_COLUMNS)
    # Blind: bad first where the item's seeded coin says so; the key keeps the bad one's letter.
    bad_first = np.array([_coin(item, seed) for item in sample.get_column("item")], dtype=bool)
    swap = pl.Series(bad_first)

    def pick(first: pl.Series, second: pl.Series, when: pl.Series) -> pl.Series:
        return pl.select(pl.when(when).then(second).otherwise(first)).to_series()

    columns = {
        "value": (sample.get_column("good_value"), sample.get_column("bad_value")),
        "form": (sample.get_column("good_form"), sample.get_column("bad_form")),
        "sentence": (pl.Series(good, dtype=pl.String), pl.Series(bad, dtype=pl.String)),
    }
    sides = {}
    for name, (g, b) in columns.items():
        sides[f"{name}_a"] = pick(g, b, swap).alias(f"{name}_a")
        sides[f"{name}_b"] = pick(b, g, swap).alias(f"{name}_b")
    sheet = base.with_columns(*sides.values(), empty("choice"), empty("verdict"), empty("reason"))
    key = base.select("item", "lang", "type", "rule").with_columns(
        pl.Series("bad", np.where(bad_first, "a", "b"), pl.String)
    )
    return sheet.select(BLIND_COLUMNS), key.select(KEY_COLUMNS)


def _coin(item: str, seed: int) -> bool:
    """A seeded coin per item (not per row: languages and draws do not share one sequence)."""
    return hashlib.sha1(f"{seed}\t{item}".encode()).digest()[0] & 1 == 1


def page(sheet: pl.DataFrame, lang: str, blind: bool) -> str:
    """An HTML page for reading a sheet: one block per item, the marked words highlighted."""
    first, second = ("sentence_a", "sentence_b") if blind else ("sentence_good", "sentence_bad")
    labels = ("a", "b") if blind else ("good", "bad")
    blocks = []
    for row in sheet.iter_rows(named=True):
        if blind:
            contrast = f"{row['feature']}: {row['value_a']} / {row['value_b']}"
        else:
            contrast = f"{row['feature']}: {row['good_value']} → {row['bad_value']}"
        also = f" (also {row['also']})" if row["also"] else ""
        head = (
            f"{row['item']} · {row['type']} · {row['rule']} · {row['treebank']} "
            f"{row['sent_id']} · {row['varied']} · {contrast}{also}"
        )
        lines = "".join(
            f"<p><b>{label}</b> {_highlight(row[column])}</p>"
            for label, column in zip(labels, (first, second), strict=True)
        )
        blocks.append(f'<div class="item"><h2>{html.escape(head)}</h2>{lines}</div>')
    title = f"Pairs to judge: {lang}" + (" (blind)" if blind else "")
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;max-width:60em;margin:auto}"
        ".item{border-bottom:1px solid #ccc;padding:.5em 0}h2{font-size:.85em;color:#555}"
        "mark{background:#ffd54f;font-weight:bold}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{''.join(blocks)}</body></html>\n"
    )


def _highlight(text: str) -> str:
    """Escaped text with the `[[…]]` span inside <mark>."""
    before, _, rest = text.partition(MARK_OPEN)
    word, _, after = rest.partition(MARK_CLOSE)
    if not rest:
        return html.escape(text)
    return f"{html.escape(before)}<mark>{html.escape(word)}</mark>{html.escape(after)}"


def read_language(folder: Path) -> pl.DataFrame:
    """A language's original pairs with their rules and item ids."""
    path = folder / "pairs.parquet"
    pairs = _read(path)
    needed = [*ITEM_KEY, "type", "good_value", "good_form", "bad_form", "bad_source"]
    needed += ["sentence_good", "sentence_bad", "start", "end_good", "end_bad"]
    missing = [c for c in needed if c not in pairs.columns]
    if missing:
        raise ValidateError(f"{path}: no column {', '.join(missing)}; re-run the miner")
    if "variant" in pairs.columns:
        pairs = pairs.filter(pl.col("variant") == "original")
    relations = None
    if "derived" not in pairs.columns:
        relations = _read(folder / "relations.parquet")
    return pairs.with_columns(rules_of(pairs, relations), item_ids(pairs))


def _read(path: Path) -> pl.DataFrame:
    try:
        return pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as error:
        raise ValidateError(f"{path}: not a readable table ({type(error).__name__})") from None


def sample(
    corpus: Path,
    out: Path,
    langs: Sequence[str] | None = None,
    per_cell: int = 25,
    seed: int = 0,
    blind: bool = False,
) -> pl.DataFrame:
    """Draw and write the sheets (`<out>/<lang>.csv`, `.html`) and `<out>/key.csv`; the key."""
    if not corpus.is_dir():
        raise ValidateError(f"{corpus}: no such corpus folder (--corpus)")
    if per_cell < 1:
        raise ValidateError(f"--per-cell {per_cell}: must be at least 1")
    have = sorted(p.parent.name for p in corpus.glob("*/pairs.parquet"))
    wanted = list(langs) if langs else have
    absent = [lang for lang in wanted if lang not in have]
    if absent:
        raise ValidateError(
            f"{corpus}: no pairs for {', '.join(absent)} (languages there: {', '.join(have) or 'none'})"
        )
    sheets, keys = [], []
    for lang in wanted:
        drawn = draw(read_language(corpus / lang), per_cell, seed)
        sheet, key = sheet_rows(drawn, blind, seed)
        sheets.append((lang, sheet))
        keys.append(key)
    out.mkdir(parents=True, exist_ok=True)
    for lang, sheet in sheets:
        write_bytes(_csv_bytes(sheet), out / f"{lang}.csv")
        write_text(page(sheet, lang, blind), out / f"{lang}.html")
    key = pl.concat(keys)
    write_bytes(_csv_bytes(key), out / KEY)
    return key


def _csv_bytes(frame: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.write_csv(buffer)
    return buffer.getvalue()


# --- score --------------------------------------------------------------------------------------


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


def read_key(path: Path) -> dict[str, dict[str, str]]:
    """A sample's key.csv by item."""
    _, rows = _read_csv(path, KEY_COLUMNS)
    key: dict[str, dict[str, str]] = {}
    for line, row in rows:
        if row["item"] in key:
            raise ValidateError(f"{path}:{line}: item {row['item']} twice in the key")
        key[row["item"]] = row
    return key


def _read_csv(
    path: Path, required: Sequence[str], blind: Sequence[str] = ()
) -> tuple[bool, list[tuple[int, dict[str, str]]]]:
    """Whether a CSV is blind (has `sentence_a`), and its rows with the line each ends on; a
    missing column (`blind` ones too in a blind sheet) or an unreadable file is an error naming
    the file."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        cause = error.strerror if isinstance(error, OSError) else "not UTF-8"
        raise ValidateError(f"{path}:1: unreadable ({cause})") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or []
        is_blind = "sentence_a" in header
        missing = [c for c in (*required, *(blind if is_blind else ())) if c not in header]
        if missing:
            raise ValidateError(f"{path}:1: no column {', '.join(missing)}")
        rows = []
        for row in reader:
            if None in row or any(value is None for value in row.values()):
                raise ValidateError(f"{path}:{reader.line_num}: not as many fields as the header")
            rows.append((reader.line_num, {k: v.strip() for k, v in row.items()}))
    except csv.Error as error:
        raise ValidateError(f"{path}:{reader.line_num}: not CSV ({error})") from None
    return is_blind, rows


def read_sheet(path: Path, key: dict[str, dict[str, str]], key_path: Path) -> list[Judgment]:
    """A judged sheet's rows checked against the sample's key; a blind sheet's verdict resolved
    with the key (the judge's choice of the good sentence, or `neither`, is `grammatical-bad`)."""
    blind, rows = _read_csv(
        path, ("item", "lang", "type", "rule", "verdict", "reason"), ("choice",)
    )
    judged = []
    for line, row in rows:
        where = f"{path}:{line}"
        entry = key.get(row["item"])
        if entry is None:
            raise ValidateError(f"{where}: item {row['item']!r} matches no pair of {key_path}")
        for column in ("lang", "type", "rule"):
            if row[column] != entry[column]:
                raise ValidateError(
                    f"{where}: item {row['item']} has {column} {row[column]!r}, the key "
                    f"{entry[column]!r}"
                )
        verdict = row["verdict"]
        if verdict not in VERDICTS:
            raise ValidateError(f"{where}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        if blind != bool(entry["bad"]):
            kind = "blind" if blind else "plain"
            raise ValidateError(f"{where}: a {kind} sheet, but {key_path} is not")
        if blind and verdict != "unsure":
            choice = row["choice"]
            if choice not in CHOICES:
                raise ValidateError(
                    f"{where}: choice {choice!r} is not one of {', '.join(CHOICES)}"
                )
            if choice != entry["bad"]:
                verdict = "grammatical-bad"
        rules = tuple(row["rule"].split(RULE_SEPARATOR))
        judged.append(Judgment(row["item"], where, row["lang"], row["type"], rules, verdict))
    return judged


def read_judged(sheets: Sequence[Path], key_path: Path | None = None) -> list[Judgment]:
    """Every judged row of the sheets (each checked against `key_path`, else the key.csv beside
    it); an item judged twice is an error naming its second line."""
    keys: dict[Path, dict[str, dict[str, str]]] = {}
    seen: dict[str, str] = {}
    judged: list[Judgment] = []
    for sheet in sheets:
        path = key_path or sheet.parent / KEY
        if path not in keys:
            keys[path] = read_key(path)
        for judgment in read_sheet(sheet, keys[path], path):
            if judgment.item in seen:
                raise ValidateError(
                    f"{judgment.where}: item {judgment.item} judged twice (first at "
                    f"{seen[judgment.item]})"
                )
            seen[judgment.item] = judgment.where
            judged.append(judgment)
    return judged


def validity(judged: Sequence[Judgment], judges: str | None = None) -> pl.DataFrame:
    """Validity per language × type, language × rule and language × type × rule (§4.1)."""
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
    table = validity(read_judged(sheets, key), judges)
    if out is not None:
        write_parquet(table.to_arrow(), out, VALIDITY)
    return table


# --- command line -------------------------------------------------------------------------------


def parser(prog: str = "python -m mine.validate") -> OneLineParser:
    """The command's options: `sample` and `score`."""
    parser = OneLineParser(
        prog=prog,
        description="Draw minimal pairs for people to judge, and score judged sheets "
        "(docs/validity.md).",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    draw_ = commands.add_parser(
        "sample", help="a seeded sample stratified by language × type × rule, as sheets to judge"
    )
    draw_.add_argument(
        "--corpus",
        type=Path,
        required=True,
        help=f"a corpus written by {tool_command(prog, 'mine')}",
    )
    draw_.add_argument("--lang", nargs="+", help="language folders (default: all with pairs)")
    draw_.add_argument(
        "--per-cell", type=int, default=25, help="pairs per language × type × rule (default 25)"
    )
    draw_.add_argument("--seed", type=int, default=0, help="seed of the draw (default 0)")
    draw_.add_argument(
        "--blind",
        action="store_true",
        help="show the sentences as a/b in random order; key.csv says which is bad",
    )
    draw_.add_argument("--out", type=Path, required=True, help="folder for the sheets and key.csv")
    judge = commands.add_parser("score", help="validity per cell from judged sheets")
    judge.add_argument("sheets", type=Path, nargs="+", help="judged sheets (CSV)")
    judge.add_argument(
        "--key", type=Path, help="the sample's key.csv (default: key.csv beside each sheet)"
    )
    judge.add_argument("--out", type=Path, help="write validity here (Parquet)")
    judge.add_argument(
        "--judges", help="who judged, stored with the table (e.g. maintainers, native speakers)"
    )
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m mine.validate") -> int:
    """Entry point; user errors are one line on stderr and exit status 2."""
    args = parser(prog).parse_args(argv)

    def body() -> int:
        if args.command == "sample":
            key = sample(args.corpus, args.out, args.lang, args.per_cell, args.seed, args.blind)
            langs = key.get_column("lang").n_unique()
            print(f"wrote {key.height} pairs to judge ({langs} language(s)) to {args.out}")
            return 0
        table = score(args.sheets, args.out, args.key, args.judges)
        print(printed(table))
        if args.out:
            print(f"wrote {table.height} cells to {args.out}")
        return 0

    return run_main(body)


if __name__ == "__main__":
    sys.exit(main())
