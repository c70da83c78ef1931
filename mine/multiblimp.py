"""What MultiBLiMP's layout says of a pair beyond the pairs table (DESIGN.md §4): the verb and the
auxiliary inflected, the subject, 0-based word positions as MultiBLiMP counts them (syntactic
words, multiword-token lines and empty nodes dropped: CoNLL-U ID − 1), word order, FEATS, the
attractors and the metadata — read from the corpus's relations and sentences and, for heads and
deprels, from the CoNLL-U files again (`mine.reread`). A pair whose relation the corpus dropped for
want of a feature (§4.2: `unmarked-cell`, `antecedent`) is described the same way, from its own
key and sentence: every exported row names its sentence and words."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import polars as pl

from ud_agree.errors import UserError
from ud_agree.schemas.corpus import FEATURES, RELATION_KEY

from .languages import (
    load_definite_types,
    load_ergative_markers,
    load_have_lemmas,
    load_languages,
    load_object_participle_lemmas,
    load_value_sets,
)
from .read import CONLLU_SUFFIXES, Sentence
from .reread import ChangedSinceMining, mined_from, sentences_at, words_of
from .rules import relations as rules
from .rules import words as vocab

# Per relation, the columns of MultiBLiMP's own layout that the pairs table lacks.
FACTS = (
    *("verb", "verb_idx", "cop", "cop_idx", "child", "child_idx", "child_features"),
    *("child_upos", "head", "head_idx", "head_features", "head_upos", "distance"),
    *("attractors", "num_attractors", "metadata", "wo", "inflect_item", "iso3"),
)


def treebank_file(file: str) -> str:
    """A corpus file as MultiBLiMP's metadata names it: `UD_English-EWT/en_ewt-ud-dev.conllu`."""
    for suffix in CONLLU_SUFFIXES:
        if file.endswith(suffix):
            return file[: -len(suffix)] + ".conllu"
    return file


def relation_facts(
    corpus: Path, ud_dir: Path | None = None, pairs: pl.DataFrame | None = None
) -> pl.DataFrame | None:
    """MultiBLiMP's columns per relation of a language folder (RELATION_KEY, then FACTS), and per
    relation of `pairs` that `relations` lacks (see `described`); None when the folder lacks the
    corpus tables or its CoNLL-U files (a pairs table alone)."""
    try:
        manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
        relations = pl.read_parquet(corpus / "relations.parquet")
        sentences = pl.read_parquet(corpus / "sentences.parquet")
    except (OSError, ValueError, pl.exceptions.PolarsError):
        return None
    sentences = sentences.unique(["treebank", "sent_id"], keep="first", maintain_order=True)
    source = ud_dir or Path((manifest.get("options") or {}).get("ud_dir", "."))
    places = sentences.select("file", "line").iter_rows()
    try:
        parsed = sentences_at(source, places, mined_from(manifest))
    except ChangedSinceMining:  # its lines would name other sentences: refused
        raise
    except UserError as error:  # an unreadable CoNLL-U file: the columns stay empty
        print(f"warning: {error}", file=sys.stderr)
        return None
    lang = manifest.get("lang", "")
    code = next((x.code for x in load_languages() if x.key == lang), lang)
    value_sets = load_value_sets().get(code, {})
    have_lemmas = load_have_lemmas().get(code, frozenset())
    ergative_lemmas = load_ergative_markers().get(code, frozenset())
    object_have = load_object_participle_lemmas().get(code, frozenset())
    definite_types = load_definite_types().get(code, frozenset())
    iso3 = manifest.get("iso639_3") or lang
    joined = described(relations, pairs).join(
        sentences.select("treebank", "sent_id", "file", "line", "text"),
        on=["treebank", "sent_id"],
        how="left",
    )
    rows = []
    words_cache: dict[tuple[str, int], tuple[vocab.Words, vocab.Features]] = {}
    for relation in joined.iter_rows(named=True):
        place = (relation["file"], relation["line"])
        sentence = parsed.get(place)
        if sentence is None:
            continue
        if place not in words_cache:
            words_cache[place] = words_of(
                sentence, value_sets, have_lemmas, ergative_lemmas, object_have, definite_types
            )
        facts = _facts(relation, sentence, *words_cache[place], iso3)
        rows.append({**{k: relation[k] for k in RELATION_KEY}, **facts})
    schema = {k: pl.String for k in FACTS} | {
        "verb_idx": pl.Int32, "child_idx": pl.Int32, "head_idx": pl.Int32, "cop_idx": pl.Int32,
        "distance": pl.Int32, "num_attractors": pl.Int32, "target_id": pl.Int32,
        "controller_id": pl.Int32, "lang": pl.String, "treebank": pl.String, "sent_id": pl.String,
    }  # fmt: skip
    return pl.DataFrame(rows, schema={k: schema[k] for k in (*RELATION_KEY, *FACTS)})


def described(relations: pl.DataFrame, pairs: pl.DataFrame | None) -> pl.DataFrame:
    """The relations MultiBLiMP's columns describe (RELATION_KEY, `agreeing`): every row of
    `relations`, then each relation that only `pairs` names — one §1 dropped for want of a feature
    and §4.2 made pairs of (`unmarked-cell`, `antecedent`) —, agreeing in the features its pairs
    vary. Both are read by one path, from the sentence's CoNLL-U words."""
    known = relations.select(*RELATION_KEY, "agreeing")
    if pairs is None:
        return known
    key = list(RELATION_KEY)
    only = (
        pairs.join(known, on=key, how="anti")
        .group_by(key, maintain_order=True)
        .agg(pl.col("feature").unique(maintain_order=True).alias("agreeing"))
    )
    return pl.concat([known, only.select(known.columns)], how="vertical_relaxed")


def _facts(
    relation: dict, sentence: Sentence, words: vocab.Words, features: vocab.Features, iso3: str
) -> dict:
    """MultiBLiMP's columns for one relation of a sentence."""
    index = {word_id: i for i, word_id in enumerate(sentence.ids)}
    t, c = index[relation["target_id"]], index[relation["controller_id"]]
    is_aux = sentence.upos[t] == "AUX" and sentence.deprels[t].split(":")[0] in ("aux", "cop")
    verb = int(words.head[t]) if is_aux and words.head[t] >= 0 else t
    between = _attractors(words, features, t, c, relation["agreeing"] or [])
    metadata = {
        "sent_id": relation["sent_id"],
        "text": relation["text"],
        "treebank": treebank_file(relation["file"]),
    }
    return {
        "verb": sentence.forms[verb],
        "verb_idx": verb,
        "cop": sentence.forms[t] if is_aux else None,
        "cop_idx": t if is_aux else None,
        "child": sentence.forms[c],
        "child_idx": c,
        "child_features": repr(_features(sentence, c)),
        "child_upos": sentence.upos[c],
        "head": sentence.forms[t],
        "head_idx": t,
        "head_features": repr(_features(sentence, t)),
        "head_upos": sentence.upos[t],
        "distance": t - c,
        "attractors": repr([_word(sentence, i) for i in between]),
        "num_attractors": len(between),
        "metadata": repr(metadata),
        "wo": "SV" if c < t else "VS",
        "inflect_item": "aux" if is_aux else _item(sentence.upos[t]),
        "iso3": iso3,
    }


def _item(upos: str) -> str:
    """MultiBLiMP's `inflect_item` of a target that is no auxiliary (`verb`; ud-agree's other
    types: `det`, `adj`, `num`, `pron`, `adp`, `noun`)."""
    items = {"DET": "det", "ADJ": "adj", "NUM": "num", "PRON": "pron", "ADP": "adp", "NOUN": "noun"}
    return items.get(upos, "verb")


def _features(sentence: Sentence, i: int) -> dict[str, str]:
    """A word's FEATS and lemma as MultiBLiMP writes them (`{'Number': 'Sing', 'lemma': …}`)."""
    feats = sentence.feats[i]
    items = dict(x.split("=", 1) for x in feats.split("|") if "=" in x) if feats != "_" else {}
    return {**items, "lemma": sentence.lemmas[i]}


def _word(sentence: Sentence, i: int) -> dict:
    """A word as MultiBLiMP lists attractors: id, form, lemma, upos, feats, head, deprel."""
    return {
        "id": sentence.ids[i],
        "form": sentence.forms[i],
        "lemma": sentence.lemmas[i],
        "upos": sentence.upos[i],
        "feats": _features(sentence, i),
        "head": sentence.heads[i],
        "deprel": sentence.deprels[i],
    }


def _attractors(
    words: vocab.Words, features: vocab.Features, t: int, c: int, agreeing: list[str]
) -> list[int]:
    """§1.3 attractors of a relation: its distractor nouns strictly between target and
    controller, by the rules' own functions (word indices, in order)."""
    bits = sum(1 << FEATURES.index(f) for f in agreeing)
    tt, cc = np.array([t]), np.array([c])
    _, nouns = rules.distractor_nouns(words, features, tt, cc, np.array([bits], np.int64))
    low, high = min(t, c), max(t, c)
    return sorted(int(n) for n in nouns if low < n < high)
