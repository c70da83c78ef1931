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
    assert upos == {"VERB"} and bundle == (("Sing",), ("Fem",), (), (), ())
    upos, bundle = map_unimorph_tags("N;ADJ;IN+ESS;PL", UniMorphMap.load())
    assert upos == {"NOUN", "ADJ"} and bundle == (("Plur",), (), ("Ine",), (), ())
    assert map_unimorph_tags("ADV", UniMorphMap.load()) == (set(), None)


ENGLISH_PRESENT = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
VERBS = ["walk", "talk", "jump", "sing", "read", "swim"]


def third_singular(verbs, feats=ENGLISH_PRESENT):
    """UD words of `verbs` in the third singular present, with `feats`."""
    return [(f"{verb}s", verb, "VERB", feats) for verb in verbs]


def unimorph_present(verbs) -> str:
    """English UniMorph lines: the third singular present, tagged without mood or finiteness."""
    return "".join(f"{verb}\t{verb}s\tV;PRS;3;SG\n" for verb in verbs)


def feats_of(lexicon: pl.DataFrame, form: str) -> set[str]:
    return set(lexicon.filter(pl.col("form") == form)["feats"])


def test_a_tag_set_without_mood_takes_the_feats_its_treebank_forms_carry(tmp_path):
    # English UniMorph tags *walks* V;PRS;3;SG (Tense=Pres only) where UD says Mood=Ind and
    # VerbForm=Fin: the five forms the treebank holds agree, so *dwells*, unseen there, agrees too.
    lexicon = lexicon_of(
        third_singular(VERBS[:5]), unimorph_present([*VERBS[:5], "dwell"]), tmp_path
    )
    assert feats_of(lexicon, "dwells") == {"Mood=Ind|Tense=Pres|VerbForm=Fin"}
    assert set(lexicon.filter(pl.col("form") == "walks")["source"]) == {"both"}


def test_a_tag_set_is_not_completed_from_fewer_than_five_treebank_forms(tmp_path):
    lexicon = lexicon_of(
        third_singular(VERBS[:4]), unimorph_present([*VERBS[:4], "dwell"]), tmp_path
    )
    assert feats_of(lexicon, "dwells") == {"Tense=Pres"}


def test_a_tag_set_whose_treebank_forms_disagree_is_not_completed(tmp_path):
    # Two of six attested forms carry Aspect=Perf: one FEATS has 4 of 6, under nine in ten.
    words = third_singular(VERBS[:4]) + third_singular(VERBS[4:], "Aspect=Perf|" + ENGLISH_PRESENT)
    lexicon = lexicon_of(words, unimorph_present([*VERBS, "dwell"]), tmp_path)
    assert feats_of(lexicon, "dwells") == {"Tense=Pres"}


def test_a_tag_set_is_never_completed_against_its_own_tags(tmp_path):
    # The treebank's forms say Tense=Past where UniMorph says PRS: the tags win, nothing is added.
    past = "Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin"
    lexicon = lexicon_of(third_singular(VERBS, past), unimorph_present([*VERBS, "dwell"]), tmp_path)
    assert feats_of(lexicon, "dwells") == {"Tense=Pres"}
