"""A bad form that is the good form's other spelling before the next word: Greek drops the -ν
of the masculine *τον* before a continuant in the older norm (*το δάσκαλο*), so *τον δάσκαλο* →
*το δάσκαλο* reads as the masculine, not the neuter: no pair. Before a stop or a vowel the -ν
stays (*τον πατέρα*), and *το πατέρα* is a Gender error: made. Sentences written here."""

from __future__ import annotations

import polars as pl

from tests.mine.test_pairs import mine_with_skips

ARTICLE = "Case=Acc|Definite=Def|Gender={gender}|Number=Sing|PronType=Art"


def seen(article: str, gender: str, noun: str, lemma: str) -> tuple[str, ...]:
    """*Είδα <article> <noun>*: 'I saw the <noun>', the article the noun's determiner."""
    return (
        "1 Είδα βλέπω VERB Aspect=Perf|Mood=Ind|Number=Sing|Person=1|Tense=Past|VerbForm=Fin 0 root",
        f"2 {article} ο DET {ARTICLE.format(gender=gender)} 3 det",
        f"3 {noun} {lemma} NOUN Case=Acc|Gender={gender}|Number=Sing 1 obj",
    )


def determiner_bad_forms(pairs: pl.DataFrame, sent_id: str) -> set[str]:
    rows = pairs.filter((pl.col("sent_id") == sent_id) & (pl.col("type") == "determiner"))
    return set(rows.get_column("bad_form"))


def test_no_pair_to_the_masculine_article_spelled_without_its_final_n(tmp_path):
    blocks = [
        seen("τον", "Masc", "δάσκαλο", "δάσκαλος"),  # a continuant: το δάσκαλο is masculine
        seen("τον", "Masc", "πατέρα", "πατέρας"),  # a stop: the -ν stays, το πατέρα is wrong
        seen("τον", "Masc", "άντρα", "άντρας"),  # a vowel: likewise
        seen("το", "Neut", "βιβλίο", "βιβλίο"),  # the neuter's own article, attested
    ]
    pairs, skips, _ = mine_with_skips(tmp_path, *blocks, lang="Greek")
    assert "το" not in determiner_bad_forms(pairs, "s1")
    assert "το" in determiner_bad_forms(pairs, "s2")
    assert "το" in determiner_bad_forms(pairs, "s3")
    refused = skips.filter(pl.col("reason") == "ambiguous-onset")
    assert set(refused.select("sent_id", "bad_value").iter_rows()) == {("s1", "Neut")}


def test_the_other_spelling_is_refused_only_in_its_own_language(tmp_path):
    # The same words labelled Croatian: no spelling of Croatian is listed, the pair is made.
    blocks = [seen("τον", "Masc", "δάσκαλο", "δάσκαλος"), seen("το", "Neut", "βιβλίο", "βιβλίο")]
    pairs, skips, _ = mine_with_skips(tmp_path, *blocks, lang="Croatian")
    assert "το" in determiner_bad_forms(pairs, "s1")
    assert skips.filter(pl.col("reason") == "ambiguous-onset").height == 0
