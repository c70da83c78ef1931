"""The partitive genitive: after Czech *co*, *něco*, *nic* an adjective may stand in the genitive
(*to, co je nelogické* and *co je nelogického* are both Czech), so a Case pair between the
genitive and the nominative there is no violation; after a noun it is (*víno je dobrého* is no
Czech). Sentences written here, where the right pairs are known."""

from __future__ import annotations

import polars as pl

from tests.mine.test_instrumental_predicate import ADJ, attribute
from tests.mine.test_pairs import mine_with_skips


def predicate(subject: str, lemma: str, upos: str, feats: str, adjective: str) -> tuple[str, ...]:
    """*<subject> je <adjective>*: a nominative subject and its predicative adjective."""
    copula = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
    return (
        f"1 {subject} {lemma} {upos} Case=Nom|{feats} 3 nsubj",
        f"2 je být AUX {copula} 3 cop",
        f"3 {adjective} dobrý ADJ Case=Nom|{ADJ} 0 root",
    )


OTHER_CASES = [attribute("bez", "Gen", "dobrého", "vína"), attribute("k", "Dat", "dobrému", "vínu")]


def case_pairs(pairs: pl.DataFrame, sent_id: str) -> set[str]:
    rows = pairs.filter((pl.col("sent_id") == sent_id) & (pl.col("feature") == "Case"))
    return set(rows.get_column("bad_value"))


def test_no_genitive_pair_after_co(tmp_path):
    co = predicate("co", "co", "PRON", "Animacy=Inan|PronType=Int,Rel", "dobré")
    wine = predicate("víno", "víno", "NOUN", "Gender=Neut|Number=Sing", "dobré")
    pairs, skips, _ = mine_with_skips(tmp_path, co, wine, *OTHER_CASES, lang="Czech")
    assert case_pairs(pairs, "s2") >= {"Gen", "Dat"}  # *víno je dobrého* is no Czech
    assert "Gen" not in case_pairs(pairs, "s1")  # *co je dobrého* is
    assert "Dat" in case_pairs(pairs, "s1")
    refused = skips.filter(pl.col("reason") == "partitive-genitive")
    assert set(refused.select("sent_id", "bad_value").iter_rows()) == {("s1", "Gen")}


def test_the_genitive_after_co_in_polish_too_but_not_in_russian(tmp_path):
    co = predicate("co", "co", "PRON", "PronType=Int", "dobre")
    pairs, _, _ = mine_with_skips(tmp_path, co, *OTHER_CASES, lang="Polish")
    assert "Gen" not in case_pairs(pairs, "s1")
    chto = predicate("что", "что", "PRON", "PronType=Int", "dobre")
    pairs, _, _ = mine_with_skips(tmp_path / "ru", chto, *OTHER_CASES, lang="Russian")
    assert "Gen" in case_pairs(pairs, "s1")
