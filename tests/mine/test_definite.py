"""Definite in F (DESIGN.md §1.7) for the attributive adjectives of the languages of
`mine/data/definite_languages.tsv`, on Swedish sentences written here: *det stora huset* →
*det stort huset*; the weak form after a possessive (*mitt stora hus*) is no disagreement."""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl
from ud_agree.mine.languages import definite_in_f, load_definite_types

from tests.mine.test_pairs import mine_with_skips
from tests.reference.compare import assert_same
from tests.sentences import conllu

SWEDISH = frozenset({"attributive"})
# (weak form, strong neuter, strong common, lemma)
ADJECTIVES = (
    ("stora", "stort", "stor", "stor"),
    ("nya", "nytt", "ny", "ny"),
    ("gamla", "gammalt", "gammal", "gammal"),
    ("röda", "rött", "röd", "röd"),
)
# (definite form, indefinite form, lemma, gender)
NOUNS = (
    ("huset", "hus", "hus", "Neut"),
    ("bilen", "bil", "bil", "Com"),
    ("boken", "bok", "bok", "Com"),
    ("äpplet", "äpple", "äpple", "Neut"),
    ("stolen", "stol", "stol", "Com"),
)
VERB = "Mood=Ind|Tense=Pres|VerbForm=Fin|Voice=Act"
WEAK = "Case=Nom|Definite=Def|Degree=Pos"


def strong(gender: str) -> str:
    return f"Case=Nom|Definite=Ind|Degree=Pos|Gender={gender}|Number=Sing"


def noun(definite: str, gender: str) -> str:
    return f"Case=Nom|Definite={definite}|Gender={gender}|Number=Sing"


def article(definite: str, gender: str) -> str:
    return f"Definite={definite}|Gender={gender}|Number=Sing|PronType=Art"


def seen(determiner: str, adjective: str, noun_line: str) -> tuple:
    """*Jag ser <determiner> <adjective> <noun> .*: the three given lines as words 3 to 5."""
    return (
        "1 Jag jag PRON Case=Nom|Definite=Def|Gender=Com|Number=Sing|PronType=Prs 2 nsubj",
        f"2 ser se VERB {VERB} 0 root",
        determiner,
        adjective,
        noun_line,
        "6 . . PUNCT _ 2 punct",
    )


def det_weak_def(weak: str, lemma: str, form: str, noun_lemma: str, gender: str) -> tuple:
    """*Jag ser det stora huset .*"""
    det = "det" if gender == "Neut" else "den"
    return seen(
        f"3 {det} den DET {article('Def', gender)} 5 det",
        f"4 {weak} {lemma} ADJ {WEAK} 5 amod",
        f"5 {form} {noun_lemma} NOUN {noun('Def', gender)} 2 obj",
    )


def indefinite(adjective: tuple, form: str, noun_lemma: str, gender: str) -> tuple:
    """*Jag ser ett stort hus .*"""
    _, neuter, common, lemma = adjective
    art = "ett" if gender == "Neut" else "en"
    return seen(
        f"3 {art} en DET {article('Ind', gender)} 5 det",
        f"4 {neuter if gender == 'Neut' else common} {lemma} ADJ {strong(gender)} 5 amod",
        f"5 {form} {noun_lemma} NOUN {noun('Ind', gender)} 2 obj",
    )


def possessed(adjective: tuple, form: str, noun_lemma: str, gender: str) -> tuple:
    """*Jag ser mitt stora hus .*: the weak form after a possessive, before an indefinite noun."""
    weak, _, _, lemma = adjective
    poss = "mitt" if gender == "Neut" else "min"
    return seen(
        f"3 {poss} min PRON Definite=Def|Gender={gender}|Number=Sing|Poss=Yes|PronType=Prs "
        "5 nmod:poss",
        f"4 {weak} {lemma} ADJ {WEAK} 5 amod",
        f"5 {form} {noun_lemma} NOUN {noun('Ind', gender)} 2 obj",
    )


def relations_of(rows: tuple, definite_types: frozenset[str]) -> tuple[dict, dict]:
    """Kept relations (type, target, controller) → row, and drops, of one sentence, both
    engines alike."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "xx_test-ud-test.conllu"
        path.write_text(conllu(*rows), encoding="utf-8")
        result = assert_same(path, definite_types=definite_types)
    assert result is not None
    found = {
        (r["type"], r["target_id"], r["controller_id"]): r for r in result.relations.to_pylist()
    }
    return found, dict(result.drops)


def test_the_table_names_swedish_norwegian_and_arabic_attributives():
    assert load_definite_types() == {"sv": SWEDISH, "no": SWEDISH, "ar": SWEDISH}
    assert definite_in_f("sv") and not definite_in_f("da") and not definite_in_f("fr")


def test_a_weak_adjective_of_a_definite_noun_agrees_in_definite():
    found, drops = relations_of(det_weak_def("stora", "stor", "huset", "hus", "Neut"), SWEDISH)
    attributive = found[("attributive", 4, 5)]
    assert attributive["agreeing"] == ["Case", "Definite"]
    assert attributive["target_definite"] == ["Def"]
    assert attributive["controller_definite"] == ["Def"]
    # The determiner is no type of the table: its Definite is not compared.
    assert "Definite" not in found[("determiner", 3, 5)]["agreeing"]
    assert drops == {"no-agreeing-feature": 1}  # *Jag ser*: Swedish verbs carry no Number


def test_the_weak_form_after_a_possessive_is_no_disagreement():
    rows = possessed(ADJECTIVES[0], "hus", "hus", "Neut")
    found, drops = relations_of(rows, SWEDISH)
    # *mitt stora hus*: Def against Ind, kept on Case (not dropped as `disagree`).
    assert found[("attributive", 4, 5)]["agreeing"] == ["Case"]
    assert "disagree" not in drops


def test_another_feature_that_disagrees_still_drops():
    rows = list(det_weak_def("stora", "stor", "huset", "hus", "Neut"))
    rows[3] = f"4 stora stor ADJ {WEAK.replace('Nom', 'Gen')} 5 amod"
    found, drops = relations_of(tuple(rows), SWEDISH)
    assert ("attributive", 4, 5) not in found and drops.get("disagree") == 1


def test_outside_the_table_definite_is_no_feature_of_f():
    found, _ = relations_of(det_weak_def("stora", "stor", "huset", "hus", "Neut"), frozenset())
    attributive = found[("attributive", 4, 5)]
    assert attributive["agreeing"] == ["Case"]
    assert attributive["target_definite"] == [] and attributive["controller_definite"] == []


def swedish_blocks() -> list[tuple]:
    """20 definite phrases *det stora huset*, 20 indefinite *ett stort hus*, and 5 possessed
    *mitt stora hus* (the indefinite nouns' weak adjectives: 20 / 25 agree, uncertain)."""
    blocks: list[tuple] = []
    for weak, _, _, lemma in ADJECTIVES:
        for definite, _, noun_lemma, gender in NOUNS:
            blocks.append(det_weak_def(weak, lemma, definite, noun_lemma, gender))
    for adjective in ADJECTIVES:
        for _, form, noun_lemma, gender in NOUNS:
            blocks.append(indefinite(adjective, form, noun_lemma, gender))
    for adjective in ADJECTIVES:
        blocks.append(possessed(adjective, "hus", "hus", "Neut"))
    blocks.append(possessed(ADJECTIVES[0], "bil", "bil", "Com"))
    return blocks


def test_det_stora_huset_becomes_det_stort_huset(tmp_path):
    pairs, skips, _ = mine_with_skips(tmp_path, *swedish_blocks(), lang="Swedish")
    definite = pairs.filter(pl.col("feature") == "Definite")
    made = set(definite.select("sent_id", "good_form", "bad_form", "sentence_bad").iter_rows())
    assert ("s1", "stora", "stort", "Jag ser det stort huset .") in made
    # The strong form of the noun's gender: *den stor bilen*, not *den stort bilen*.
    assert ("s2", "stora", "stor", "Jag ser den stor bilen .") in made
    assert len(definite) == 20 and set(definite["type"]) == {"attributive"}
    assert set(definite["good_value"]) == {"Def"} and set(definite["bad_value"]) == {"Ind"}
    # The weak form marks no Gender: its cell is the noun's (derived `unmarked-cell`).
    assert all(d == ["unmarked-cell"] for d in definite["derived"].to_list())
    # *ett stort hus*: an indefinite noun's adjective is weak after a possessive (*mitt stora
    # hus*), so agreement there is uncertain (20 of 25): no *ett stora hus*.
    indefinite = skips.filter(pl.col("feature") == "Definite")
    assert set(indefinite["reason"]) == {"uncertain-agreement"}
    assert set(indefinite["sent_id"]) == {f"s{i}" for i in range(21, 41)}
    rates = pl.read_parquet(tmp_path / "corpus" / "sv" / "agreement.parquet").filter(
        (pl.col("feature") == "Definite") & (pl.col("controller_value") == "Ind")
    )
    assert not rates["certain"].any()
    # Gender pairs are made as before (*ett stor hus*), never a Definite bad form among them.
    gender = pairs.filter(pl.col("feature") == "Gender")
    assert ("s21", "stort", "stor", "Jag ser ett stor hus .") in set(
        gender.select("sent_id", "good_form", "bad_form", "sentence_bad").iter_rows()
    )


def test_a_language_outside_the_table_never_varies_definite(tmp_path):
    pairs, _, _ = mine_with_skips(tmp_path, *swedish_blocks(), lang="Danish")
    assert pairs.height and "Definite" not in set(pairs["feature"])
    lexicon = pl.read_parquet(tmp_path / "corpus" / "da" / "lexicon.parquet")
    assert lexicon["definite"].list.len().max() == 0
    stort = lexicon.filter(pl.col("form") == "stort")
    assert stort["feats"].to_list() == ["Definite=Ind|Degree=Pos"]


def test_in_the_table_the_lexicon_holds_definite_as_a_feature(tmp_path):
    mine_with_skips(tmp_path, *swedish_blocks(), lang="Swedish")
    lexicon = pl.read_parquet(tmp_path / "corpus" / "sv" / "lexicon.parquet")
    stort = lexicon.filter(pl.col("form") == "stort")
    assert stort["definite"].to_list() == [["Ind"]]
    assert stort["feats"].to_list() == ["Degree=Pos"]


def before_participle() -> tuple:
    """*Jag ser det stora nybyggda huset .*: another modifier of the noun after the target."""
    return (
        "1 Jag jag PRON Case=Nom|Definite=Def|Gender=Com|Number=Sing|PronType=Prs 2 nsubj",
        f"2 ser se VERB {VERB} 0 root",
        f"3 det den DET {article('Def', 'Neut')} 6 det",
        f"4 stora stor ADJ {WEAK} 6 amod",
        "5 nybyggda nybygga VERB Case=Nom|Definite=Def|Degree=Pos|Tense=Past|VerbForm=Part 6 amod",
        f"6 huset hus NOUN {noun('Def', 'Neut')} 2 obj",
        "7 . . PUNCT _ 2 punct",
    )


def test_a_strong_form_before_another_modifier_could_be_its_adverb(tmp_path):
    # *det traditionellt i hemmet utförda arbetet* is Swedish ("traditionally done"): a strong
    # neuter form is also an adverb, so no Definite pair where a modifier of the noun follows.
    found, _ = relations_of(before_participle(), SWEDISH)
    assert found[("attributive", 4, 6)]["target_context"] == "adverb-reading"
    # Without the modifier between (*det stora huset*), no context.
    plain, _ = relations_of(det_weak_def("stora", "stor", "huset", "hus", "Neut"), SWEDISH)
    assert plain[("attributive", 4, 5)]["target_context"] is None
    pairs, skips, _ = mine_with_skips(
        tmp_path, *swedish_blocks(), before_participle(), lang="Swedish"
    )
    last = f"s{len(swedish_blocks()) + 1}"
    assert not pairs.filter((pl.col("sent_id") == last) & (pl.col("feature") == "Definite")).height
    refused = skips.filter((pl.col("sent_id") == last) & (pl.col("feature") == "Definite"))
    assert set(refused["reason"]) == {"adverb-reading"}
    assert pairs.filter(pl.col("feature") == "Definite").height == 20  # the others as before
