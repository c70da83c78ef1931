"""The feature lexicon (DESIGN.md §2): UD word forms with counts, united with UniMorph paradigms."""

from __future__ import annotations

import lzma
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pyarrow as pa

from ud_agree.schemas.corpus import FEATURES, LEXICON

from .features import has_layered_value, parse_feats
from .languages import definite_in_f
from .read import Sentence, UnreadableError, decode, read_bytes
from .resources import read_rows
from .rules.candidates import MEMBER_UPOS

# The UPOS of relations' members, declared with the rules that find them.
LEXICON_UPOS = MEMBER_UPOS
_SKIPPED_FILES = (".md", ".txt", ".args", ".segmentations", ".derivations", ".json", ".tsv")

# A bundle: the four value sets as sorted tuples, hashable and ready to write as lists.
Values = tuple[str, ...]
BundleKey = tuple[Values, Values, Values, Values]


def count_ud_words(counts: Counter, sentence: Sentence) -> None:
    """Add one sentence's words to counts keyed (form, lemma, upos, FEATS); filtered in ud_entries
    (MISC is not read here: no word counts as `corrected`)."""
    counts.update(zip(sentence.forms, sentence.lemmas, sentence.upos, sentence.feats, strict=True))


def other_feats(feats: str, definite: bool = False) -> str:
    """FEATS beyond those of F, `Name=Value|…` sorted; Typo left out, layered features such as
    `Number[psor]` kept (§4.1: *leur* → *sa* changes the possessor's number); Definite kept
    unless `definite` (the language's Definite is in F, §1.7)."""
    if not feats or feats == "_":
        return ""
    skipped = _SKIPPED_FEATS if definite else _SKIPPED_FEATS_PLAIN
    kept = []
    for item in feats.split("|"):
        name, _, value = item.partition("=")
        if value and name not in skipped:
            kept.append(item)
    return "|".join(sorted(kept))


_SKIPPED_FEATS = frozenset({*FEATURES, "Typo"})
_SKIPPED_FEATS_PLAIN = _SKIPPED_FEATS - {"Definite"}


def lifted_definite(entries: pl.DataFrame) -> pl.DataFrame:
    """Lexicon keys (bundle string, other FEATS) of a language whose Definite is in F (§1.7):
    `Definite=…` moved from the other FEATS into the bundle's Definite slot. Entries are built
    with Definite among the other FEATS first, so that a UniMorph tag set silent on it (Bokmål
    `ADJ;NEUT;SG`) is completed from the treebank as any other feature (`completed_feats`)."""
    item = pl.col("feats").str.extract(r"(?:^|\|)Definite=([^|]*)")
    rest = (
        pl.col("feats")
        .str.split("|")
        .list.eval(pl.element().filter(~pl.element().str.starts_with("Definite=")))
        .list.join("|")
    )
    parts = pl.col("bundle").str.split("|")
    slot = FEATURES.index("Definite")
    return entries.with_columns(
        pl.concat_str(
            parts.list.slice(0, slot).list.join("|"), pl.lit("|"), item.fill_null("")
        ).alias("bundle"),
        rest.alias("feats"),
    )


def is_marked(feats: str) -> bool:
    """Whether FEATS mark a token as no plain word of the language (§4.1: `Typo=Yes`,
    `Foreign=Yes`, `Abbr=Yes`, any `Style`): its form is no bad-form candidate."""
    for item in feats.split("|"):
        name, _, value = item.partition("=")
        if (name == "Style" and value) or item in _MARKS:
            return True
    return False


_MARKS = frozenset({"Typo=Yes", "Foreign=Yes", "Abbr=Yes"})


# A file's UD words counted (mine.columnar), summed over a language's files by build_lexicon
# (which may be given a `treebank` column besides: the file's treebank).
COUNTS = pa.schema(
    [
        ("form", pa.string()),
        ("lemma", pa.string()),
        ("upos", pa.string()),
        ("feats", pa.string()),  # FEATS as written
        ("corrected", pa.bool_()),  # MISC holds a `CorrectForm` key
        ("count", pa.int64()),
    ]
)


def count_table(counts: Counter) -> pa.Table:
    """(form, lemma, upos, FEATS) → occurrences as a table of COUNTS (none `corrected`)."""
    columns = list(zip(*counts, strict=True)) if counts else [(), (), (), ()]
    arrays = [pa.array(column, pa.string()) for column in columns]
    corrected = pa.array([False] * len(counts), pa.bool_())
    return pa.Table.from_arrays(
        [*arrays, corrected, pa.array(list(counts.values()), pa.int64())], schema=COUNTS
    )


def ud_entries(counts: pa.Table) -> pl.DataFrame:
    """UD word counts (COUNTS, of any number of files) → one row per (form, lemma, upos, bundle,
    other FEATS) with its `count`, `typo_count` (how many were `Typo=Yes` words), `clean_count`
    (how many were unmarked: `is_marked` or `corrected` words are not) and `treebanks` (sorted,
    where it was seen unmarked; from the counts' `treebank` column, empty without one); words of
    other UPOS, form `_`, or no value in F (plain or layered) left out. Each distinct FEATS is parsed once."""
    frame = pl.DataFrame(counts)
    if "corrected" not in frame.columns:
        frame = frame.with_columns(pl.lit(False).alias("corrected"))
    if "treebank" not in frame.columns:
        frame = frame.with_columns(pl.lit(None, pl.String).alias("treebank"))
    frame = frame.filter(
        pl.col("upos").is_in(list(LEXICON_UPOS))
        & (pl.col("form") != "_")
        & (pl.col("feats") != "_")
    )
    parsed = []
    for feats in frame.get_column("feats").unique().to_list():
        bundle = parse_feats(feats)
        # §1.7: a word whose only values of F are layered (a Basque auxiliary) enters too.
        if bundle.has_value() or ("[" in feats and has_layered_value(feats)):
            values = tuple(tuple(sorted(v)) for v in bundle.values())
            marked = is_marked(feats)
            parsed.append((feats, _bundle_string(values), other_feats(feats), bundle.typo, marked))
    bundles = pl.DataFrame(
        parsed,
        schema={
            "feats": pl.String,
            "bundle": pl.String,
            "other": pl.String,
            "typo": pl.Boolean,
            "marked": pl.Boolean,
        },
        orient="row",
    )
    clean = ~pl.col("marked") & ~pl.col("corrected")
    return (
        frame.join(bundles, on="feats")
        .group_by("form", "lemma", "upos", "bundle", "other")
        .agg(
            pl.col("count").sum(),
            pl.col("count").filter(pl.col("typo")).sum().alias("typo_count"),
            pl.col("count").filter(clean).sum().alias("clean_count"),
            pl.col("treebank").filter(clean).drop_nulls().unique().sort().alias("treebanks"),
        )
        .rename({"other": "feats"})
    )


@dataclass
class UniMorphMap:
    """UniMorph tag → UD upos or (feature, value), from `data/unimorph_map.tsv`."""

    upos: dict[str, str] = field(default_factory=dict)
    features: dict[str, tuple[int, str]] = field(default_factory=dict)
    other: dict[str, list[str]] = field(default_factory=dict)  # tag → `Name=Value` beyond F

    @classmethod
    def load(cls) -> UniMorphMap:
        """Read the mapping table kept as data (`mine/data/unimorph_map.tsv`)."""
        mapping = cls()
        # DEF, INDF map to other FEATS first (`lifted_definite` moves them where Definite is in F).
        slots = {name: slot for slot, name in enumerate(FEATURES) if name != "Definite"}
        for row in read_rows("unimorph_map.tsv"):
            tag, feature, value = row["unimorph"], row["feature"], row["value"]
            if feature == "upos":
                mapping.upos[tag] = value
            elif feature in slots:
                mapping.features[tag] = (slots[feature], value)
            else:
                mapping.other.setdefault(tag, []).append(f"{feature}={value}")
        return mapping


def map_unimorph_tags(tags: str, mapping: UniMorphMap) -> tuple[set[str], BundleKey | None]:
    """UD upos tags and bundle of a UniMorph tag string; bundle None when no value in F."""
    upos, bundle, _ = map_unimorph_line(tags, mapping)
    return upos, bundle


def map_unimorph_line(
    tags: str, mapping: UniMorphMap
) -> tuple[set[str], BundleKey | None, str | None]:
    """UD upos tags, bundle (None: no value in F) and other FEATS (None: a tag is not mapped)."""
    upos: set[str] = set()
    values: list[set[str]] = [set() for _ in FEATURES]
    other: set[str] = set()
    known = True
    for tag in tags.split(";"):
        tag = tag.strip()
        if not tag:
            continue
        if "/" in tag:  # ambiguous tags such as NOM/ACC say nothing definite
            known = False
            continue
        mapped = False
        if tag in mapping.upos:
            upos.add(mapping.upos[tag])
            mapped = True
        if tag in mapping.features:
            slot, value = mapping.features[tag]
            values[slot].add(value)
            mapped = True
        if tag in mapping.other:
            other.update(mapping.other[tag])
            mapped = True
        known &= mapped
    if not any(values):
        return upos, None, None
    bundle = tuple(tuple(sorted(v)) for v in values)
    # Other FEATS are known only when every tag was understood: an unmapped tag may be one.
    return upos, bundle, "|".join(sorted(other)) if known else None  # type: ignore[return-value]


def unimorph_files(roots: Iterable[Path], iso3: str) -> list[Path]:
    """Paradigm files of a language under each root's `<iso3>/` folder (READMEs and side files skipped)."""
    files: list[Path] = []
    for root in roots:
        folder = Path(root) / iso3
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            name = path.name.lower()
            if not path.is_file() or name.startswith(("readme", "license", ".")):
                continue
            plain = name.removesuffix(".xz").removesuffix(".gz").removesuffix(".bz2")
            if plain.endswith(_SKIPPED_FILES):
                continue
            files.append(path)
    return files


def _bundle_string(bundle: Iterable[Values]) -> str:
    """A bundle as one hashable, joinable string: `Plur|Fem||` (values `,`-joined)."""
    return "|".join(",".join(values) for values in bundle)


def unimorph_text(path: Path) -> str:
    """A UniMorph file's text; one that cannot be read or decompressed, or that is not UTF-8
    (a paradigm file always is: a bad byte means a damaged or converted copy), is an
    UnreadableError naming the file and line (exit 2)."""
    try:
        text, valid = decode(read_bytes(path))
    except (EOFError, lzma.LZMAError, zlib.error, OSError, ValueError) as error:
        # gzip's BadGzipFile is an OSError; bz2's damaged stream raises OSError or ValueError.
        raise UnreadableError(f"{path}: cannot read this UniMorph file: {error}") from None
    if not valid:
        line = next(n for n, s in enumerate(text.split("\n"), 1) if _undecodable(s))
        raise UnreadableError(
            f"{path}:{line}: not valid UTF-8 (UniMorph files are UTF-8: re-download it, or "
            "convert it, e.g. iconv -f latin1 -t utf-8)"
        )
    return text


def _undecodable(line: str) -> bool:
    """Whether a line decoded with surrogateescape holds a byte that was not UTF-8."""
    return any("\udc80" <= c <= "\udcff" for c in line)


def unimorph_frame(
    path: Path, mapping: UniMorphMap, silent: list[dict[str, str]] | None = None
) -> pl.DataFrame:
    """(form, lemma, upos, bundle string, feats) of a UniMorph file's usable lines, with the
    cells its tag set is silent on (`silent`, `with_silent_cells`); blank and odd lines
    skipped."""
    return mapped_entries(with_silent_cells(unimorph_entries(path), silent or []), mapping)


def unimorph_entries(path: Path) -> pl.DataFrame:
    """(form, lemma, tags) of a UniMorph file's usable lines; blank and odd lines skipped."""
    text = unimorph_text(path)
    lines = pl.Series("line", [text]).str.split("\n").explode().str.split("\t")
    return (
        pl.DataFrame({"fields": lines})
        .filter(pl.col("fields").list.len() >= 3)
        .select(
            form=pl.col("fields").list.get(1),
            lemma=pl.col("fields").list.get(0),
            tags=pl.col("fields").list.get(2),
        )
        .filter(pl.col("form").str.strip_chars() != "")
    )


def mapped_entries(entries: pl.DataFrame, mapping: UniMorphMap) -> pl.DataFrame:
    """UniMorph lines (form, lemma, tags) as lexicon keys (form, lemma, upos, bundle string,
    feats) with their tags; lines whose tags map to no bundle left out."""
    # Tag strings repeat across a paradigm file: map each distinct one once.
    rows = []
    for tags in entries["tags"].unique().to_list():
        upos, bundle, feats = map_unimorph_line(tags, mapping)
        if bundle is not None:
            string = _bundle_string(bundle)
            rows += [(tags, tag, string, feats) for tag in upos if tag in LEXICON_UPOS]
    mapped = pl.DataFrame(
        rows,
        schema={"tags": pl.String, "upos": pl.String, "bundle": pl.String, "feats": pl.String},
        orient="row",
    )
    return entries.join(mapped, on="tags").select(*LEXICON_KEY, "tags")


# A lexicon row is one (form, lemma, upos, bundle, feats): DESIGN.md §3.
LEXICON_KEY = ("form", "lemma", "upos", "bundle", "feats")

# A tag set's other FEATS are completed from the treebank only when this many of its forms that
# the treebank holds (distinct form and lemma) carry one FEATS, and that FEATS is this share.
COMPLETION_FORMS = 5
COMPLETION_SHARE = 0.9


def feats_agree(known: str, fuller: str) -> bool:
    """Whether `fuller` holds every `Name=Value` of `known` (other FEATS strings)."""
    return set(filter(None, known.split("|"))) <= set(filter(None, fuller.split("|")))


def completed_feats(unimorph: pl.DataFrame, ud: pl.DataFrame) -> pl.DataFrame:
    """UniMorph rows with each tag set's other FEATS completed from the treebank: a tag set that
    leaves out what the language never marks (English `V;PRS;3;SG`: no mood, no finiteness) takes
    the FEATS its treebank forms carry, when nearly all agree and hold its own (docs/choices.md)."""
    seen = (
        unimorph.filter(pl.col("feats").is_not_null())
        .join(
            ud.filter(pl.col("typo_count") < pl.col("count")).select(
                "form", "lemma", "upos", "bundle", pl.col("feats").alias("treebank")
            ),
            on=["form", "lemma", "upos", "bundle"],
        )
        .unique(["tags", "upos", "form", "lemma", "treebank"])
    )
    forms = seen.group_by("tags", "upos").agg(pl.struct("form", "lemma").n_unique().alias("n"))
    votes = (
        seen.group_by("tags", "upos", "feats", "treebank")
        .agg(pl.struct("form", "lemma").n_unique().alias("votes"))
        .join(forms, on=["tags", "upos"])
        .filter(
            (pl.col("votes") >= COMPLETION_FORMS)
            & (pl.col("votes") >= COMPLETION_SHARE * pl.col("n"))
            & (pl.col("treebank") != pl.col("feats"))
        )
    )
    completion = {
        (tags, upos): treebank
        for tags, upos, feats, treebank in votes.select(
            "tags", "upos", "feats", "treebank"
        ).iter_rows()
        if feats_agree(feats, treebank)
    }
    if not completion:
        return unimorph
    table = pl.DataFrame(
        [(t, u, f) for (t, u), f in completion.items()],
        schema={"tags": pl.String, "upos": pl.String, "completed": pl.String},
        orient="row",
    )
    return (
        unimorph.join(table, on=["tags", "upos"], how="left")
        .with_columns(pl.coalesce("completed", "feats").alias("feats"))
        .drop("completed")
    )


def silent_cells() -> dict[str, list[dict[str, str]]]:
    """Per language key, the paradigm cells its UniMorph tag set leaves to another cell's form
    (`mine/data/unimorph_cells.tsv`: English lists the present only as 3sg)."""
    cells: dict[str, list[dict[str, str]]] = {}
    for row in read_rows("unimorph_cells.tsv"):
        cells.setdefault(row["lang"].strip(), []).append(row)
    return cells


def with_silent_cells(entries: pl.DataFrame, rules: list[dict[str, str]]) -> pl.DataFrame:
    """UniMorph lines (form, lemma, tags) with the cells the tag set is silent on (§4.2 unmarked
    cells, `silent_cells`): a lemma with a `requires` form gets its `from` form in each of
    `cells`, unless that form is also a `requires` form (*can*) or the lemma is excepted."""
    added = []
    for rule in rules:
        required = entries.filter(pl.col("tags") == rule["requires"]).select("lemma", "form")
        source = (
            entries.filter(pl.col("tags") == rule["from"])
            .filter(~pl.col("lemma").is_in(rule["except"].split()))
            .join(required.select("lemma").unique(), on="lemma", how="semi")
            .join(required, on=["lemma", "form"], how="anti")
            .select("form", "lemma")
        )
        added += [
            source.with_columns(pl.lit(tags).alias("tags")) for tags in rule["cells"].split("|")
        ]
    # A cell the tag set is silent on is no line of the file: nothing added repeats a line
    # (`build_lexicon` drops repeated rows of all files together).
    return pl.concat([entries, *added]) if added else entries


def build_lexicon(
    lang: str, ud_counts: pa.Table | Counter, unimorph_paths: list[Path], mapping: UniMorphMap
) -> pa.Table:
    """Lexicon table: one row per (form, lemma, upos, bundle, feats) with UD count and source
    (`ud_counts`: COUNTS, or a Counter keyed (form, lemma, upos, FEATS))."""
    return build_lexicons(lang, ud_counts, unimorph_paths, mapping)[0]


def build_lexicons(
    lang: str,
    ud_counts: pa.Table | Counter,
    unimorph_paths: list[Path],
    mapping: UniMorphMap,
    pairs: bool = True,
) -> tuple[pa.Table, pa.Table]:
    """The lexicon table (`build_lexicon`), and the one the pair rules read: the same, with the
    cells the language's UniMorph tag set is silent on (§4.2, `silent_cells`) for the lemmas its
    treebanks hold (the only ones a pair asks about). The written lexicon, and the evaluator's
    readings of it, stay without them (`pairs` false: no pairs to make, the same table twice)."""
    key = list(LEXICON_KEY)
    counts = ud_counts if isinstance(ud_counts, pa.Table) else count_table(ud_counts)
    ud = ud_entries(counts).select(*key, "count", "typo_count", "clean_count", "treebanks")
    entries = [unimorph_entries(path) for path in unimorph_paths]
    lift = lifted_definite if definite_in_f(lang) else (lambda frame: frame)
    if not entries:
        table = _lexicon_table(lang, lift(ud), ud.select(key).clear())
        return table, table
    plain = pl.concat([mapped_entries(e, mapping) for e in entries]).unique()
    table = _lexicon_table(lang, lift(ud), lift(completed_feats(plain, ud).drop("tags").unique()))
    rules = silent_cells().get(lang, []) if pairs else []
    if not rules:
        return table, table
    lemmas = ud.select("lemma").unique()
    extra = [
        with_silent_cells(e.join(lemmas, on="lemma", how="semi"), rules).join(
            e, on=["form", "lemma", "tags"], how="anti"
        )
        for e in entries
    ]
    silent = pl.concat([mapped_entries(e, mapping) for e in extra])
    if silent.height == 0:
        return table, table
    both = pl.concat([plain, silent]).unique()
    return table, _lexicon_table(
        lang, lift(ud), lift(completed_feats(both, ud).drop("tags").unique())
    )


def _lexicon_table(lang: str, ud: pl.DataFrame, unimorph: pl.DataFrame) -> pa.Table:
    """UD rows and UniMorph rows (lexicon keys) merged into the lexicon table."""
    key = list(LEXICON_KEY)
    # Unknown feats (null) match nothing: such UniMorph rows stay rows of their own.
    merged = ud.join(
        unimorph.with_columns(in_unimorph=pl.lit(True)), on=key, how="full", coalesce=True
    )
    in_ud, in_unimorph = pl.col("count").is_not_null(), pl.col("in_unimorph").fill_null(False)
    parts = pl.col("bundle").str.split("|")
    values = {
        name.lower(): pl.when(parts.list.get(i) == "")
        .then(pl.lit([], dtype=pl.List(pl.String)))
        .otherwise(parts.list.get(i).str.split(","))
        for i, name in enumerate(FEATURES)
    }
    table = merged.sort(key, nulls_last=True).select(
        lang=pl.lit(lang),
        form="form",
        lemma="lemma",
        upos="upos",
        **values,
        feats="feats",
        count=pl.col("count").fill_null(0),
        typo_count=pl.col("typo_count").fill_null(0),
        clean_count=pl.col("clean_count").fill_null(0),
        treebanks=pl.col("treebanks").fill_null(pl.lit([], pl.List(pl.String))),
        source=pl.when(in_ud & in_unimorph)
        .then(pl.lit("both"))
        .when(in_ud)
        .then(pl.lit("ud"))
        .otherwise(pl.lit("unimorph")),
    )
    # In memory only (§4.1's attestation, for the pair builder): `typo_count`, `clean_count`
    # (unmarked tokens: a form seen only marked is no bad form) and `treebanks` (where seen so).
    return table.to_arrow().select([*LEXICON.names, *ATTESTATION])


ATTESTATION = ("typo_count", "clean_count", "treebanks")
