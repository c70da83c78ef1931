"""The feature lexicon (DESIGN.md §2): UD word forms with counts, united with UniMorph paradigms."""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from mine.features import parse_feats
from mine.read import decode, read_bytes
from mine.schema import LEXICON

LEXICON_UPOS = frozenset({"NOUN", "PRON", "DET", "ADJ", "VERB", "AUX"})
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
_SKIPPED_FILES = (".md", ".txt", ".args", ".segmentations", ".derivations", ".json", ".tsv")

# A bundle: the four value sets as sorted tuples, hashable and ready to write as lists.
Values = tuple[str, ...]
BundleKey = tuple[Values, Values, Values, Values]


def count_ud_words(counts: Counter, forms: list[str], upos: list[str], feats: list[str]) -> None:
    """Add one sentence's words to counts keyed by (form, upos, FEATS string); filtered in ud_entries."""
    counts.update(zip(forms, upos, feats, strict=True))


def ud_entries(counts: Counter) -> Counter:
    """(form, upos, FEATS) counts → (form, upos, bundle) counts; words with no value in F left out."""
    entries: Counter = Counter()
    for (form, tag, feat), n in counts.items():
        if tag not in LEXICON_UPOS or form == "_" or feat == "_":
            continue
        bundle = parse_feats(feat)
        if bundle.has_value():
            key = tuple(tuple(sorted(values)) for values in bundle.values())
            entries[(form, tag, key)] += n
    return entries


@dataclass
class UniMorphMap:
    """UniMorph tag → UD upos or (feature, value), from `data/unimorph_map.tsv`."""

    upos: dict[str, str] = field(default_factory=dict)
    features: dict[str, tuple[int, str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path = DATA_DIR / "unimorph_map.tsv") -> UniMorphMap:
        """Read the mapping table kept as data."""
        mapping = cls()
        slots = {"Number": 0, "Gender": 1, "Case": 2, "Person": 3}
        with open(path, encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                if row["feature"] == "upos":
                    mapping.upos[row["unimorph"]] = row["value"]
                else:
                    mapping.features[row["unimorph"]] = (slots[row["feature"]], row["value"])
        return mapping


def map_unimorph_tags(tags: str, mapping: UniMorphMap) -> tuple[set[str], BundleKey | None]:
    """UD upos tags and bundle of a UniMorph tag string; bundle None when no value in F."""
    upos: set[str] = set()
    values: list[set[str]] = [set(), set(), set(), set()]
    for tag in tags.split(";"):
        tag = tag.strip()
        if not tag or "/" in tag:  # ambiguous tags such as NOM/ACC say nothing definite
            continue
        if tag in mapping.upos:
            upos.add(mapping.upos[tag])
        elif tag in mapping.features:
            slot, value = mapping.features[tag]
            values[slot].add(value)
    if not any(values):
        return upos, None
    return upos, tuple(tuple(sorted(v)) for v in values)  # type: ignore[return-value]


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


def unimorph_entries(path: Path, mapping: UniMorphMap) -> Iterator[tuple[str, str, BundleKey]]:
    """(form, upos, bundle) of each usable line; blank and odd lines are skipped."""
    text, _ = decode(read_bytes(path))
    for line in text.split("\n"):
        fields = line.split("\t")
        if len(fields) < 3 or not fields[1].strip():
            continue
        upos, bundle = map_unimorph_tags(fields[2], mapping)
        if bundle is None:
            continue
        for tag in upos:
            if tag in LEXICON_UPOS:
                yield fields[1], tag, bundle


def build_lexicon(
    lang: str, ud_counts: Counter, unimorph_paths: list[Path], mapping: UniMorphMap
) -> pa.Table:
    """Lexicon table: one row per (form, upos, bundle) with UD count and source."""
    entries = ud_entries(ud_counts)
    from_unimorph: set = set()
    for path in unimorph_paths:
        from_unimorph.update(unimorph_entries(path, mapping))
    keys = sorted(set(entries) | from_unimorph)
    columns: dict[str, list] = {name: [] for name in LEXICON.names}
    for key in keys:
        form, tag, bundle = key
        in_ud = key in entries
        in_unimorph = key in from_unimorph
        columns["lang"].append(lang)
        columns["form"].append(form)
        columns["upos"].append(tag)
        columns["number"].append(list(bundle[0]))
        columns["gender"].append(list(bundle[1]))
        columns["case"].append(list(bundle[2]))
        columns["person"].append(list(bundle[3]))
        columns["count"].append(entries.get(key, 0))
        columns["source"].append("both" if in_ud and in_unimorph else "ud" if in_ud else "unimorph")
    return pa.Table.from_pydict(columns, schema=LEXICON)
