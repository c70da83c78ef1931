"""A determiner's bad form that, after its noun, is also a personal pronoun: Greek *η πρόταση
αυτή* 'this proposal' → *αυτής* reads *η πρόταση αυτής* 'her proposal' (the pronoun's genitive
as a possessive, formal Greek), so no pair; before its noun (*αυτή η πρόταση* → *αυτής η
πρόταση*) no such reading, and a Gender pair to *αυτό* is none either. Sentences written here."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

DEMONSTRATIVE = "Case={case}|Gender={gender}|Number=Sing|PronType=Dem"
VERB = "Aspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act"


def concerns(after_noun: bool) -> tuple[str, ...]:
    """*Η πρόταση αυτή αφορά τους οδηγούς* (or *Αυτή η πρόταση …*): 'this proposal concerns the
    drivers'."""
    this = f"αυτή αυτός DET {DEMONSTRATIVE.format(case='Nom', gender='Fem')}"
    article = "Case=Nom|Definite=Def|Gender=Fem|Number=Sing|PronType=Art"
    if after_noun:
        words = [f"1 Η ο DET {article} 2 det", "2 πρόταση πρόταση NOUN", f"3 {this} 2 det"]
        head = 4
    else:
        words = [f"1 {this.replace('αυτή', 'Αυτή', 1)} 3 det", f"2 η ο DET {article} 3 det"]
        words.append("3 πρόταση πρόταση NOUN")
        head = 4
    noun = next(i for i, w in enumerate(words) if "NOUN" in w)
    words[noun] += f" Case=Nom|Gender=Fem|Number=Sing {head} nsubj"
    return (
        *words,
        f"4 αφορά αφορώ VERB {VERB} 0 root",
        "5 τους ο DET Case=Acc|Definite=Def|Gender=Masc|Number=Plur|PronType=Art 6 det",
        "6 οδηγούς οδηγός NOUN Case=Acc|Gender=Masc|Number=Plur 4 obj",
    )


# The other cells of *αυτός* its treebank attests: the genitive and the neuter.
OTHER_CELLS = (
    "1 Η ο DET Case=Nom|Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
    "2 ουσία ουσία NOUN Case=Nom|Gender=Fem|Number=Sing 0 root",
    "3 της ο DET Case=Gen|Definite=Def|Gender=Fem|Number=Sing|PronType=Art 4 det",
    "4 πρότασης πρόταση NOUN Case=Gen|Gender=Fem|Number=Sing 2 nmod",
    f"5 αυτής αυτός DET {DEMONSTRATIVE.format(case='Gen', gender='Fem')} 4 det",
    "6 και και CCONJ _ 8 cc",
    "7 το ο DET Case=Nom|Definite=Def|Gender=Neut|Number=Sing|PronType=Art 8 det",
    "8 σχέδιο σχέδιο NOUN Case=Nom|Gender=Neut|Number=Sing 2 conj",
    f"9 αυτό αυτός DET {DEMONSTRATIVE.format(case='Nom', gender='Neut')} 8 det",
)


def demonstrative_bad_forms(pairs: pl.DataFrame, sent_id: str) -> set[tuple[str, str]]:
    rows = pairs.filter(
        (pl.col("sent_id") == sent_id)
        & (pl.col("type") == "determiner")
        & (pl.col("lemma") == "αυτός")
    )
    return set(rows.select("feature", pl.col("bad_form").str.to_lowercase()).iter_rows())


def test_a_demonstrative_after_its_noun_is_not_varied_to_a_possessive_pronoun(tmp_path):
    blocks = [concerns(after_noun=True), concerns(after_noun=False), OTHER_CELLS]
    pairs, skips, _ = mine_with_skips(tmp_path, *blocks, lang="Greek")
    after, before = demonstrative_bad_forms(pairs, "s1"), demonstrative_bad_forms(pairs, "s2")
    assert ("Case", "αυτής") not in after
    assert ("Gender", "αυτό") in after  # no pronoun reading: made
    assert ("Case", "αυτής") in before  # before its noun: made
    refused = skips.filter(pl.col("reason") == "pronoun-reading")
    assert set(refused.select("sent_id", "feature", "bad_value").iter_rows()) == {
        ("s1", "Case", "Gen")
    }


def test_the_pronoun_reading_is_refused_only_in_its_own_language(tmp_path):
    blocks = [concerns(after_noun=True), OTHER_CELLS]
    pairs, skips, _ = mine_with_skips(tmp_path, *blocks, lang="Croatian")
    assert ("Case", "αυτής") in demonstrative_bad_forms(pairs, "s1")
    assert skips.filter(pl.col("reason") == "pronoun-reading").height == 0
