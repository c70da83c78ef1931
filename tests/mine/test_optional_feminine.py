"""Bokmål's optional feminine: a feminine noun may take the masculine's determiner, adjective and
possessive (*ei bok* / *en bok*, *ei lita bok* / *en liten bok*, *kona di* / *kona din*), so those
are no violations in UD_Norwegian-Bokmaal; Nynorsk, whose feminine is obligatory and which shares
the code `no`, keeps its pairs. Sentences written here, where the right pairs are known."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from ud_agree.mine.plan import Options
from ud_agree.mine.run import mine_languages

from tests.sentences import conllu

VERB = "3 ligger ligge VERB Mood=Ind|Tense=Pres|VerbForm=Fin 0 root"
# *Ei bok ligger.* / *En stol ligger.*: a feminine and a masculine noun, each with its article.
EI_BOK = (
    "1 Ei en DET Gender=Fem|Number=Sing|PronType=Art 2 det",
    "2 bok bok NOUN Definite=Ind|Gender=Fem|Number=Sing 3 nsubj",
    VERB,
)
EN_STOL = (
    "1 En en DET Gender=Masc|Number=Sing|PronType=Art 2 det",
    "2 stol stol NOUN Definite=Ind|Gender=Masc|Number=Sing 3 nsubj",
    VERB,
)
# *Kona di sover.* / *Bilen din står.*: a possessive of a feminine and of a masculine noun.
POSS = "Number=Sing|Poss=Yes|PronType=Prs"
KONA_DI = (
    "1 kona kone NOUN Definite=Def|Gender=Fem|Number=Sing 3 nsubj",
    f"2 di du PRON Gender=Fem|{POSS} 1 nmod:poss",
    "3 sover sove VERB Mood=Ind|Tense=Pres|VerbForm=Fin 0 root",
)
BILEN_DIN = (
    "1 bilen bil NOUN Definite=Def|Gender=Masc|Number=Sing 3 nsubj",
    f"2 din du PRON Gender=Masc|{POSS} 1 nmod:poss",
    "3 står stå VERB Mood=Ind|Tense=Pres|VerbForm=Fin 0 root",
)
# *Lita bok ligger.* / *Liten stol ligger.*: the adjective's feminine and masculine.
LITA_BOK = (
    "1 Lita liten ADJ Definite=Ind|Degree=Pos|Gender=Fem|Number=Sing 2 amod",
    "2 bok bok NOUN Definite=Ind|Gender=Fem|Number=Sing 3 nsubj",
    VERB,
)
LITEN_STOL = (
    "1 Liten liten ADJ Definite=Ind|Degree=Pos|Gender=Masc|Number=Sing 2 amod",
    "2 stol stol NOUN Definite=Ind|Gender=Masc|Number=Sing 3 nsubj",
    VERB,
)


def mine_norwegian(
    tmp_path: Path, treebank: str, *blocks: tuple[str, ...], unimorph: str = ""
) -> tuple:
    """Mine sentences as `UD_Norwegian-<treebank>` (with `unimorph` as its Bokmål paradigms):
    its pairs and pair skips."""
    folder = tmp_path / "ud" / f"UD_Norwegian-{treebank}"
    folder.mkdir(parents=True)
    text = "".join(conllu(*rows, sent_id=f"s{i}") for i, rows in enumerate(blocks, 1))
    (folder / f"no_{treebank.lower()}-ud-test.conllu").write_text(text, encoding="utf-8")
    (tmp_path / "unimorph" / "nob").mkdir(parents=True)
    if unimorph:
        (tmp_path / "unimorph" / "nob" / "nob").write_text(unimorph, encoding="utf-8")
    options = Options(
        ud_dir=tmp_path / "ud",
        out=tmp_path / "corpus",
        unimorph_dirs=[tmp_path / "unimorph"],
        all_types=True,
        progress=False,
    )
    (manifest,) = mine_languages(options)
    out = tmp_path / "corpus" / manifest["lang"]
    return pl.read_parquet(out / "pairs.parquet"), pl.read_parquet(out / "pair_skips.parquet")


def made(pairs: pl.DataFrame, sent_id: str) -> set[tuple[str, str]]:
    rows = pairs.filter(pl.col("sent_id") == sent_id)
    return set(rows.select("good_form", "bad_form").iter_rows())


def refused(skips: pl.DataFrame) -> list[tuple[str, str, str]]:
    rows = skips.filter(pl.col("reason") == "optional-feminine")
    return sorted(rows.select("sent_id", "type", "bad_value").iter_rows())


def test_bokmal_feminine_nouns_take_the_masculine_determiner_and_adjective(tmp_path):
    pairs, skips = mine_norwegian(tmp_path, "Bokmaal", EI_BOK, EN_STOL, LITA_BOK, LITEN_STOL)
    # *En bok* and *liten bok* are Bokmål; *ei stol* and *lita stol* are not.
    assert made(pairs, "s1") == set() and made(pairs, "s3") == set()
    assert made(pairs, "s2") == {("En", "Ei")} and made(pairs, "s4") == {("Liten", "Lita")}
    assert refused(skips) == [("s1", "determiner", "Masc"), ("s3", "attributive", "Masc")]


def test_nynorsk_keeps_its_feminine(tmp_path):
    # Nynorsk *ei bok* → *ein bok*, *kona di* → *kona din* are no Nynorsk: the pairs stand.
    blocks = (EI_BOK, EN_STOL, LITA_BOK, LITEN_STOL, KONA_DI, BILEN_DIN)
    pairs, skips = mine_norwegian(tmp_path, "Nynorsk", *blocks)
    assert made(pairs, "s1") == {("Ei", "En")} and made(pairs, "s3") == {("Lita", "Liten")}
    assert made(pairs, "s5") == {("di", "din")}
    assert refused(skips) == []


def masculine(noun: str) -> tuple[str, ...]:
    """*En <noun> ligger*: a noun tagged masculine, with its article."""
    return (
        "1 En en DET Gender=Masc|Number=Sing|PronType=Art 2 det",
        f"2 {noun} {noun} NOUN Definite=Ind|Gender=Masc|Number=Sing 3 nsubj",
        VERB,
    )


# Bokmål paradigms as UniMorph 4 writes them: `FEM+MASC` for a noun of both genders.
PARADIGMS = "\n".join(
    [
        "regjering\tregjering\tN;FEM+MASC;SG",
        "stol\tstol\tN;MASC;SG",
        "journalist\tjournalist\tN;MASC;SG",
        "list\tlist\tN;FEM+MASC;SG",
        "en\tei\tART;FEM;SG",
        "en\ten\tART;MASC;SG",
    ]
)


def test_bokmal_nouns_of_both_genders_take_the_feminine_determiner(tmp_path):
    blocks = (
        masculine("regjering"),
        masculine("flertallsregjering"),
        masculine("stol"),
        masculine("journalist"),
    )
    pairs, skips = mine_norwegian(tmp_path, "Bokmaal", *blocks, EI_BOK, unimorph=PARADIGMS)
    # *ei regjering*, *ei flertallsregjering* (its head's genders) are Bokmål: no pair.
    assert made(pairs, "s1") == set() and made(pairs, "s2") == set()
    assert ("s1", "determiner", "Fem") in refused(skips)
    assert ("s2", "determiner", "Fem") in refused(skips)
    # *ei stol* is not; nor *ei journalist*, listed masculine itself (its *list* is not read).
    assert made(pairs, "s3") == {("En", "Ei")} and made(pairs, "s4") == {("En", "Ei")}
