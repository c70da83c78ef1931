"""`python -m mine.compare MULTIBLIMP_TSV --corpus CORPUS [--out FILE]`: every row of a MultiBLiMP
file, classed by what a mined corpus makes of the same contrast (DESIGN.md §4, "Comparison with a
MultiBLiMP file"); a table of classes per phenomenon.

A row is joined on treebank, `sent_id` and the target's and subject's word ids (MultiBLiMP's
`head_idx` and `child_idx` + 1: 0-based positions after it dropped multiword-token lines). Its
class is the first that applies: `not-in-corpus`; `multiblimp-wrong-word` / `words-differ` (the
ids name other words than MultiBLiMP's); for a relation the corpus does not keep, its §1.2 drop
reason (read from `drops.parquet`) or `not-candidate` (no §1.1 candidate; `detail`: the two
words' annotation); `same-pair` / `other-form` (ud-agree has the pair, with MultiBLiMP's bad form
or another); `other-value` (ud-agree varies the feature to another value only); the §4 skip
reason of that bad value (read from `pair_skips.parquet`), `wrong-form-changes-feats` where it
is `no-form` and MultiBLiMP's form changes another feature; `target-lacks-feature` /
`controller-lacks-feature`; `bad-value-unattested`. Every class reads what the miner decided;
none runs its rules again. docs/multiblimp.md lists them. The miner never imports torch or
transformers.
"""

from __future__ import annotations

import ast
import io
import json
import lzma
import sys
import zlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import polars as pl

from ud_agree.atomic import corpus_files, edited_message, input_named, write_bytes, write_parquet
from ud_agree.errors import OneLineParser, UserError, run_main, tool_command
from ud_agree.formats.multiblimp import FEATURE_MARK
from ud_agree.formats.pairs_table import LATER_COLUMNS
from ud_agree.names import path_name
from ud_agree.schemas.conform import conformed
from ud_agree.schemas.corpus import (
    DROP_REASONS,
    DROPS,
    FEATURES,
    LEXICON,
    PAIR_SKIPS,
    PAIRS,
    RELATIONS,
    SENTENCES,
    SKIP_REASONS,
)

from .compare_table import (
    SAME_FEATURE,
    table,
)
from .fold import every_contrast
from .languages import definite_in_f, load_languages
from .lexicon import other_feats
from .paradigms import LIST_COLUMNS
from .read import MAX_ID, Sentence, read_bytes
from .reread import mined_from, sentences_at
from .resources import read_rows

# MultiBLiMP's columns the comparison reads.
NEEDED = (
    *("head", "head_idx", "child", "child_idx", "swap_head", "metadata", "phenomenon"),
    *("grammatical_feature", "ungrammatical_feature", "lang", "sen", "wrong_sen"),
)
# The corpus tables the comparison reads, and their schemas.
TABLES = {
    "sentences": SENTENCES,
    "relations": RELATIONS,
    "pairs": PAIRS,
    "pair_skips": PAIR_SKIPS,
    "drops": DROPS,
    "lexicon": LEXICON,
}
FEATURE_OF_MARK = {mark: feature for feature, mark in FEATURE_MARK.items()}
NOT_CANDIDATE = "not-candidate"  # neither kept nor dropped: no §1.1 candidate
# Every class a row can get; none is a catch-all.
CLASSES = (
    *("not-in-corpus", "words-differ", "multiblimp-wrong-word", *SAME_FEATURE),
    *SKIP_REASONS,
    *("wrong-form-changes-feats", "target-lacks-feature"),
    *("controller-lacks-feature", "bad-value-unattested", *DROP_REASONS, NOT_CANDIDATE),
)


class CompareError(UserError):
    """A MultiBLiMP file or corpus that cannot be compared."""


@dataclass(frozen=True)
class Contrast:
    """What a MultiBLiMP row asks: in a sentence, the target (`head`) varied on one feature."""

    treebank: str
    sent_id: str
    target_id: int
    controller_id: int
    target_form: str
    controller_form: str
    bad_form: str
    feature: str
    good_value: str
    bad_value: str
    cop_id: int | None = None  # MultiBLiMP's `cop_idx` + 1: the auxiliary it inflects, if any


@dataclass(frozen=True)
class Verdict:
    """A row's class, what it rests on (`detail`), and ud-agree's bad form where it has one."""

    kind: str
    detail: str = ""
    ud_bad_form: str | None = None


def read_multiblimp(path: Path) -> pl.DataFrame:
    """A MultiBLiMP TSV (plain or .xz) as strings, checked for the columns the comparison reads."""
    try:
        data = read_bytes(path)
        frame = pl.read_csv(io.BytesIO(data), separator="\t", infer_schema_length=0)
    except (OSError, EOFError, lzma.LZMAError, zlib.error, pl.exceptions.PolarsError) as error:
        raise CompareError(f"{path}: not a readable MultiBLiMP TSV ({error})") from None
    missing = [c for c in NEEDED if c not in frame.columns]
    if missing:
        raise CompareError(f"{path}: no column {', '.join(missing)} (not a MultiBLiMP TSV)")
    return frame


def ud_values() -> dict[str, tuple[str, str]]:
    """UniMorph tag → (UD feature, value), as MultiBLiMP writes values (SG → Number Sing)."""
    return {
        row["unimorph"]: (row["feature"], row["value"]) for row in read_rows("unimorph_map.tsv")
    }


def contrast_of(row: dict, line: int, path: Path) -> Contrast:
    """One MultiBLiMP row as a Contrast (`line`: its line in the file, for messages)."""
    where = f"{path}:{line}"
    try:
        metadata = ast.literal_eval(row["metadata"])
        treebank_path = str(metadata["treebank"])
        sent_id = str(metadata["sent_id"])
        target_id, controller_id = int(row["head_idx"]) + 1, int(row["child_idx"]) + 1
        cop = row.get("cop_idx")
        cop_id = int(float(cop)) + 1 if cop not in (None, "", "nan") else None
    except (ValueError, SyntaxError, KeyError, TypeError, MemoryError, RecursionError) as error:
        raise CompareError(f"{where}: unreadable metadata or word index ({error})") from None
    for name, word in (("head_idx", target_id), ("child_idx", controller_id), ("cop_idx", cop_id)):
        if word is not None and not 0 < word < MAX_ID:  # CoNLL-U IDs, as the miner reads them
            raise CompareError(
                f"{where}: {name} {word - 1} is not a word index (0 to {MAX_ID - 2})"
            )
    folder = treebank_path.split("/")[0]
    treebank = folder.split("-", 1)[1] if folder.startswith("UD_") and "-" in folder else folder
    mark = (row["phenomenon"] or "").rpartition("-")[2]
    feature = FEATURE_OF_MARK.get(mark)
    values = ud_values()
    good = values.get(row["grammatical_feature"] or "")
    bad = values.get(row["ungrammatical_feature"] or "")
    if feature is None or good is None or bad is None or good[0] != feature or bad[0] != feature:
        raise CompareError(
            f"{where}: phenomenon {row['phenomenon']!r} with values "
            f"{row['grammatical_feature']!r} -> {row['ungrammatical_feature']!r} is not one of "
            "ud-agree's features"
        )
    return Contrast(
        treebank,
        sent_id,
        target_id,
        controller_id,
        row["head"] or "",
        row["child"] or "",
        row["swap_head"] or "",
        feature,
        good[1],
        bad[1],
        cop_id,
    )


class ComparedLanguage:
    """One language of a mined corpus: its tables, read once, narrowed to the sentences asked."""

    def __init__(self, folder: Path, ud_dir: Path | None, keys: pl.DataFrame) -> None:
        self.folder = folder
        try:
            self.manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise CompareError(f"{folder}: no readable manifest.json ({error})") from None
        # First: a table edited since it was mined could fail below in ways that name no fault
        # (a renamed column); a missing one is named by `_read`, with what to do.
        names = [f"{t}.parquet" for t in ("sentences", "relations", "pairs", "pair_skips", "drops")]
        edited = edited_message(folder, [n for n in names if (folder / n).is_file()])
        if edited:
            raise CompareError(f"{edited}; mine the corpus again")
        options = self.manifest.get("options") or {}
        self.ud_dir = ud_dir or Path(options.get("ud_dir", "."))
        on = ["treebank", "sent_id"]
        self.sentences = self._read("sentences").join(keys, on=on, how="semi")
        self.sentences = self.sentences.unique(on, keep="first", maintain_order=True)
        self.relations = self._read("relations").join(keys, on=on, how="semi")
        pairs = self._read("pairs").join(keys, on=on, how="semi")
        if "variant" in pairs.columns:
            pairs = pairs.filter(pl.col("variant") == "original")
        self.pairs = every_contrast(pairs.filter(pl.col("varied") == "target"))
        # What the miner decided for every relation and attempt it made no pair of (§1.2, §4).
        self.skips = self._read("pair_skips").join(keys, on=on, how="semi")
        drops = self._read("drops").join(keys, on=on, how="semi")
        places = self.sentences.select("file", "line").iter_rows()
        self.parsed = sentences_at(self.ud_dir, places, mined_from(self.manifest))
        # Rows by key, for a lookup per MultiBLiMP row.
        self.places = {
            (tb, sid): (file, line)
            for tb, sid, file, line in self.sentences.select(*on, "file", "line").iter_rows()
        }
        self.kept = {_key(r): r for r in self.relations.iter_rows(named=True)}
        self.dropped = {_key(r): r for r in drops.iter_rows(named=True)}
        self.pairs_of = _grouped(self.pairs)
        self.skips_of = _grouped(self.skips.filter(pl.col("varied") == "target"))

    def _read(self, name: str) -> pl.DataFrame:
        """A table of the language, checked for the columns and types its schema gives."""
        path = self.folder / f"{name}.parquet"
        if not path.is_file():
            raise CompareError(
                f"{path}: missing; the comparison reads what the miner decided "
                "(mine the corpus again with this version, with pairs)"
            )
        try:
            frame = pl.read_parquet(path)
        except (OSError, pl.exceptions.PolarsError) as error:
            raise CompareError(f"{path}: not a readable table ({error})") from None
        schema = TABLES[name]
        # A pairs table of an earlier version lacks the columns it is completed with.
        required = [c for c in schema.names if name != "pairs" or c not in LATER_COLUMNS]
        return conformed(frame, schema, path, required)

    @cached_property
    def lexicon(self) -> pl.DataFrame:
        """Lexicon rows keyed by lower-cased form (to look MultiBLiMP's bad forms up)."""
        return self._read("lexicon").with_columns(pl.col("form").str.to_lowercase().alias("key"))


def _key(row: dict) -> tuple:
    return (row["treebank"], row["sent_id"], row["target_id"], row["controller_id"])


def _grouped(frame: pl.DataFrame) -> dict[tuple, list[dict]]:
    """Rows by relation and feature."""
    grouped: dict[tuple, list[dict]] = defaultdict(list)
    for row in frame.iter_rows(named=True):
        key = (*_key(row), row["feature"])
        grouped[key].append(row)
    return grouped


def classify(contrast: Contrast, corpus: ComparedLanguage) -> Verdict:
    """The class of one MultiBLiMP row against a corpus."""
    place = corpus.places.get((contrast.treebank, contrast.sent_id))
    if place is None:
        return Verdict("not-in-corpus")
    sentence = corpus.parsed.get(place)
    if sentence is None:
        return Verdict("not-in-corpus", f"{place[0]}:{place[1]} unreadable")
    ids = {word_id: i for i, word_id in enumerate(sentence.ids)}
    t, c = ids.get(contrast.target_id), ids.get(contrast.controller_id)
    if (
        t is None
        or c is None
        or sentence.forms[t] != contrast.target_form
        or sentence.forms[c] != contrast.controller_form
    ):
        named = f"ids name {_form(sentence, t)!r}, {_form(sentence, c)!r}"
        aux = ids.get(contrast.cop_id) if contrast.cop_id is not None else None
        if aux is not None and sentence.forms[aux] == contrast.target_form and aux != t:
            # MultiBLiMP took an auxiliary at position 0 for none (`if cop_idx:`) and inflected
            # the verb's position: its bad sentence changes another word.
            return Verdict("multiblimp-wrong-word", f"{named}; the auxiliary is word {aux + 1}")
        return Verdict("words-differ", named)
    key = (contrast.treebank, contrast.sent_id, contrast.target_id, contrast.controller_id)
    relation = corpus.kept.get(key)
    if relation is None:
        # §4.2: a candidate without an agreeing feature may still give pairs (a relative
        # pronoun's antecedent, an unmarked cell): what the miner made of it, if it tried.
        tried = (*key, contrast.feature)
        if tried not in corpus.pairs_of and tried not in corpus.skips_of:
            return _not_kept(sentence, t, c, corpus.dropped.get(key))
        relation = {
            "target_lemma": sentence.lemmas[t],
            "target_upos": sentence.upos[t],
            "target_form": sentence.forms[t],
            "controller_form": sentence.forms[c],
            "controller_upos": sentence.upos[c],
            "agreeing": [contrast.feature],
        }
    return _kept(contrast, relation, sentence, t, corpus)


def _form(sentence: Sentence, index: int | None) -> str:
    return "" if index is None else sentence.forms[index]


def _kept(
    contrast: Contrast, relation: dict, sentence: Sentence, t: int, corpus: ComparedLanguage
) -> Verdict:
    """A kept relation: the pair, or why the bad value gives none."""
    feature_key = (
        *(contrast.treebank, contrast.sent_id, contrast.target_id, contrast.controller_id),
        contrast.feature,
    )
    pairs = corpus.pairs_of.get(feature_key, [])
    pair = [p for p in pairs if p["bad_value"] == contrast.bad_value]
    if pair:
        form = pair[0]["bad_form"]
        if form.lower() == contrast.bad_form.lower():
            return Verdict("same-pair", ud_bad_form=form)
        # MultiBLiMP's own form may change another feature (Greek past → non-past): say so.
        changed = _changed_feats(contrast, relation, sentence, t, corpus)
        return Verdict("other-form", changed and f"MultiBLiMP's {changed}", ud_bad_form=form)
    skips = corpus.skips_of.get(feature_key, [])
    found = [r for r in skips if r["bad_value"] in (None, contrast.bad_value)]
    reason = str(found[0]["reason"]) if found else None  # None: the miner never tried it
    if reason == "no-form":
        changed = _changed_feats(contrast, relation, sentence, t, corpus)
        if changed:
            reason, detail = "wrong-form-changes-feats", changed
        else:
            detail = _no_form_detail(contrast, relation, sentence, t, corpus)
    else:
        detail = ""
    if pairs:  # the same contrast, towards another value: this value's reason as detail
        others = "/".join(sorted({p["bad_value"] for p in pairs}))
        why = f"{contrast.bad_value}: {reason or 'not tried'}" + (f" ({detail})" if detail else "")
        return Verdict("other-value", f"pairs to {others}; {why}")
    if reason:
        return Verdict(reason, detail)
    return _no_attempt(contrast, relation, corpus)


def _bundle(relation: dict, role: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(relation[f"{role}_{name}"] or ()) for name in LIST_COLUMNS)


def _readings(contrast: Contrast, relation: dict, corpus: ComparedLanguage) -> pl.DataFrame:
    """The lexicon's rows of MultiBLiMP's bad form for the target's lemma and upos."""
    return corpus.lexicon.filter(
        (pl.col("key") == contrast.bad_form.lower())
        & (pl.col("lemma") == relation["target_lemma"])
        & (pl.col("upos") == relation["target_upos"])
    )


def _changed_feats(
    contrast: Contrast, relation: dict, sentence: Sentence, t: int, corpus: ComparedLanguage
) -> str:
    """Where no reading of MultiBLiMP's bad form (the target's lemma and upos) keeps the target's
    other FEATS (Mood, Tense, VerbForm…): how they differ; else "". A UniMorph-only reading names
    only the features its tags map to: those it leaves out are unknown, not changed."""
    own = _feats_dict(
        other_feats(sentence.feats[t], definite_in_f(corpus.manifest.get("lang", "")))
    )
    known = _readings(contrast, relation, corpus).filter(pl.col("feats").is_not_null())
    changes = set()
    for feats, source in known.select("feats", "source").iter_rows():
        theirs = _feats_dict(feats)
        names = set(theirs) if source == "unimorph" else set(own) | set(theirs)
        changed = [n for n in sorted(names) if own.get(n) != theirs.get(n)]
        if not changed:
            return ""
        changes.add(" ".join(f"{n}={own.get(n, '∅')}→{theirs.get(n, '∅')}" for n in changed))
    return f"{contrast.bad_form}: " + "; ".join(sorted(changes)) if changes else ""


def _no_form_detail(
    contrast: Contrast, relation: dict, sentence: Sentence, t: int, corpus: ComparedLanguage
) -> str:
    """Why MultiBLiMP's form is no bad form for §4 though it keeps the target's other FEATS:
    absent from the lexicon, or its bundles are not the bad cell (English *remain*: no Number)."""
    rows = _readings(contrast, relation, corpus)
    if rows.height == 0:
        return f"{contrast.bad_form} not in the lexicon"
    bundles = {
        " ".join(
            f"{f}={','.join(row[n]) or '∅'}" for f, n in zip(FEATURES, LIST_COLUMNS, strict=True)
        )
        for row in rows.iter_rows(named=True)
    }
    return f"{contrast.bad_form}: " + "; ".join(sorted(bundles))


def _feats_dict(feats: str) -> dict[str, str]:
    return dict(item.partition("=")[::2] for item in feats.split("|") if item)


def _no_attempt(contrast: Contrast, relation: dict, corpus: ComparedLanguage) -> Verdict:
    """A kept relation that never tried this bad value: the feature is not agreeing (which
    member lacks it), or the language's lexicon never attests the value."""
    slot = FEATURES.index(contrast.feature)
    target = _bundle(relation, "target")
    if contrast.feature not in (relation["agreeing"] or ()):
        if not target[slot]:
            return Verdict(
                "target-lacks-feature", f"{relation['target_form']}: no {contrast.feature}"
            )
        upos = relation["controller_upos"]
        return Verdict(
            "controller-lacks-feature",
            f"{upos} {relation['controller_form']}: no {contrast.feature}",
        )
    return Verdict(
        "bad-value-unattested",
        f"no {relation['target_upos']} with {contrast.feature}={contrast.bad_value} in the lexicon",
    )


def _not_kept(sentence: Sentence, t: int, c: int, dropped: dict | None) -> Verdict:
    """A relation the corpus does not hold: the §1.2 reason the miner dropped the candidate for
    (`drops.parquet`), or `not-candidate`, with the two words' annotation to say why."""
    if dropped is None:
        return Verdict(
            NOT_CANDIDATE, f"target {_annotation(sentence, t)}; subject {_annotation(sentence, c)}"
        )
    if dropped["reason"] == "invalid-type":
        return Verdict("invalid-type", dropped["type"])
    return Verdict(dropped["reason"], f"{sentence.feats[t]} / {sentence.feats[c]}")


def _annotation(sentence: Sentence, index: int) -> str:
    """A word as §1.1 reads it: form, UPOS, deprel and head, FEATS."""
    head = sentence.heads[index]
    return (
        f"{sentence.forms[index]} {sentence.upos[index]} {sentence.deprels[index]}→{head} "
        f"{sentence.feats[index]}"
    )


def compare(path: Path, corpus_dir: Path, ud_dir: Path | None = None) -> pl.DataFrame:
    """Every row of a MultiBLiMP file with its class against a corpus (`corpus_dir/<lang>/`)."""
    if not corpus_dir.is_dir():
        raise CompareError(f"{corpus_dir}: no such corpus folder (--corpus)")
    frame = read_multiblimp(path)
    contrasts = [contrast_of(row, i + 2, path) for i, row in enumerate(frame.iter_rows(named=True))]
    iso3 = {lang.iso3: lang.key for lang in load_languages() if lang.iso3}
    verdicts: list[Verdict] = []
    corpora: dict[str, ComparedLanguage | None] = {}
    keys = pl.DataFrame(
        {"treebank": [x.treebank for x in contrasts], "sent_id": [x.sent_id for x in contrasts]}
    ).unique()
    for line, (row, contrast) in enumerate(
        zip(frame.iter_rows(named=True), contrasts, strict=True), 2
    ):
        lang = iso3.get(row["lang"] or "", row["lang"] or "")
        path_name(lang, f"{path}:{line}: lang")  # a folder of --corpus, never a path
        if lang not in corpora:
            folder = corpus_dir / lang
            corpora[lang] = ComparedLanguage(folder, ud_dir, keys) if folder.is_dir() else None
        corpus = corpora[lang]
        verdicts.append(
            classify(contrast, corpus) if corpus else Verdict("not-in-corpus", f"no {lang}/")
        )
    if not any(corpora.values()):
        raise CompareError(
            f"{corpus_dir}: holds none of the file's languages ({', '.join(corpora)})"
        )
    return frame.select(
        pl.int_range(pl.len()).alias("row"),
        "phenomenon",
        "lang",
        pl.Series("treebank", [x.treebank for x in contrasts]),
        pl.Series("sent_id", [x.sent_id for x in contrasts]),
        pl.Series("target_id", [x.target_id for x in contrasts], pl.Int32),
        pl.Series("controller_id", [x.controller_id for x in contrasts], pl.Int32),
        "head",
        "child",
        pl.Series("feature", [x.feature for x in contrasts]),
        pl.Series("good_value", [x.good_value for x in contrasts]),
        pl.Series("bad_value", [x.bad_value for x in contrasts]),
        "swap_head",
        pl.Series("class", [v.kind for v in verdicts]),
        pl.Series("detail", [v.detail for v in verdicts]),
        pl.Series("ud_bad_form", [v.ud_bad_form for v in verdicts], pl.String),
        "sen",
        "wrong_sen",
    )


def write(classed: pl.DataFrame, out: Path) -> None:
    """The classed rows as Parquet (`.parquet`) or TSV (anything else), written atomically."""
    if out.suffix == ".parquet":
        write_parquet(classed.to_arrow(), out)
    else:
        buffer = io.BytesIO()
        classed.write_csv(buffer, separator="\t")
        write_bytes(buffer.getvalue(), out)


def main(argv: Sequence[str] | None = None, prog: str = "python -m mine.compare") -> int:
    """Entry point; user errors are one line on stderr and exit status 2."""
    parser = OneLineParser(
        prog=prog,
        description="Class every row of a MultiBLiMP TSV by what a mined corpus makes of its "
        "contrast (docs/multiblimp.md), and print the classes per phenomenon.",
    )
    parser.add_argument("multiblimp", type=Path, help="a MultiBLiMP data.tsv (plain or .xz)")
    parser.add_argument(
        "--corpus",
        type=Path,
        required=True,
        help=f"a corpus folder written by {tool_command(prog, 'mine')}",
    )
    parser.add_argument(
        "--ud-dir",
        type=Path,
        help="the UD folder the corpus was mined from (default: the manifest's --ud-dir)",
    )
    parser.add_argument("--out", type=Path, help="write the classed rows here (.parquet, else TSV)")
    args = parser.parse_args(argv)

    def body() -> int:
        if args.out:
            tables = [f for lang in sorted(args.corpus.glob("*/")) for f in corpus_files(lang)]
            written_over = input_named(args.out, [args.multiblimp, *tables])
            if written_over:
                raise CompareError(f"--out {args.out} is {written_over}, which it reads")
        classed = compare(args.multiblimp, args.corpus, args.ud_dir)
        print(table(classed))
        if args.out:
            write(classed, args.out)
            print(f"wrote {classed.height} rows to {args.out}")
        return 0

    return run_main(body)


if __name__ == "__main__":
    sys.exit(main())
