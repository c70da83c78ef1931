"""The lexicon (DESIGN.md §2): bundles as sets, syncretism, sources, counts."""

from __future__ import annotations

from collections import Counter

import polars as pl
from ud_agree.mine.lexicon import UniMorphMap, build_lexicon, map_unimorph_tags


def lexicon_of(words, unimorph_text: str | None, tmp_path) -> pl.DataFrame:
    """Lexicon of (form, upos, FEATS) or (form, lemma, upos, FEATS) words and a UniMorph text."""
    counts: Counter = Counter()
    for word in words:
        form, lemma, upos, feats = word if len(word) == 4 else (word[0], word[0], *word[1:])
        counts[(form, lemma, upos, feats)] += 1
    paths = []
    if unimorph_text is not None:
        path = tmp_path / "fra"
        path.write_text(unimorph_text, encoding="utf-8")
        paths.append(path)
    return pl.from_arrow(build_lexicon("fr", counts, paths, UniMorphMap.load()))


def test_syncretic_form_keeps_every_bundle_with_its_own_count(tmp_path):
    lexicon = lexicon_of(
        [
            ("souris", "NOUN", "Gender=Fem|Number=Sing"),
            ("souris", "NOUN", "Gender=Fem|Number=Plur"),
            ("souris", "NOUN", "Number=Sing|Gender=Fem"),
        ],
        None,
        tmp_path,
    )
    rows = {(tuple(r["number"]), r["count"]) for r in lexicon.iter_rows(named=True)}
    assert rows == {(("Sing",), 2), (("Plur",), 1)}


def test_same_bundle_from_ud_and_unimorph_is_both(tmp_path):
    lexicon = lexicon_of(
        [
            ("chats", "chat", "NOUN", "Gender=Masc|Number=Plur"),
            ("le", "DET", "Definite=Def|Gender=Masc|Number=Sing"),
        ],
        "chat\tchats\tN;PL;MASC\nchien\tchiens\tN;PL\n",
        tmp_path,
    )
    sources = dict(lexicon.select("form", "source").iter_rows())
    assert sources == {"chats": "both", "le": "ud", "chiens": "unimorph"}


def test_words_without_agreement_features_or_form_are_left_out(tmp_path):
    lexicon = lexicon_of(
        [
            ("vite", "ADV", "_"),
            ("_", "NOUN", "Number=Sing"),
            ("très", "ADJ", "Degree=Pos"),
            ("il", "PRON", "Person=3"),
        ],
        None,
        tmp_path,
    )
    assert lexicon["form"].to_list() == ["il"]


def test_unimorph_line_with_two_pos_tags_gives_a_row_per_tag():
    upos, bundle = map_unimorph_tags("V;V.PTCP;PST;SG;FEM", UniMorphMap.load())
    assert upos == {"VERB"} and bundle == (("Sing",), ("Fem",), (), ())
    upos, bundle = map_unimorph_tags("N;ADJ;IN+ESS;PL", UniMorphMap.load())
    assert upos == {"NOUN", "ADJ"} and bundle == (("Plur",), (), ("Ine",), ())
    assert map_unimorph_tags("ADV", UniMorphMap.load()) == (set(), None)
