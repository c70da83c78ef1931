"""The surface the language writes (DESIGN.md §4.1): MISC spacing keys read whole, and the bad
sentence written as the language writes it, on sentences written here."""

from __future__ import annotations

import polars as pl
import pytest
from ud_agree.mine.plan import Options
from ud_agree.mine.read import rebuild_text
from ud_agree.mine.run import mine_languages

from tests.mine.test_pairs import mine_with_skips
from tests.sentences import sentence, write_treebank
from ud_agree.surface import decode_spaces, misc_spacing, surface_text


@pytest.mark.parametrize(
    ("misc", "expected"),
    [
        ("_", (True, None)),
        ("SpaceAfter=No", (False, None)),
        ("Gloss=x|SpaceAfter=No", (False, None)),
        ("CorrectSpaceAfter=No", (True, None)),  # a correction's key, not this token's spacing
        ("CorrectForm=L'|CorrectSpaceAfter=No|wordform=l", (True, None)),
        ("SpaceAfter=Nope", (True, None)),
        (r"SpacesAfter=\s\s", (True, "  ")),
        (r"SpacesAfter=\u00A0", (True, "\u00a0")),
        (r"SpacesAfter=\n\n|Gloss=x", (True, "\n\n")),
        (r"SpacesAfter=\t\p\\", (True, "\t|\\")),
    ],
)
def test_misc_keys_are_read_whole(misc, expected):
    assert misc_spacing(misc) == expected


def test_spaces_after_escapes_decode_as_ud_documents():
    assert decode_spaces(r"\s\s\s") == "   "
    assert decode_spaces(r"\r\n") == "\r\n"


SPACED = (
    "1 Les le DET Definite=Def|Gender=Fem|Number=Plur|PronType=Art 2 det",
    r"2 clés clé NOUN Gender=Fem|Number=Plur 4 nsubj SpacesAfter=\s\s",
    "3 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 4 cop CorrectSpaceAfter=No",
    r"4 cassées cassé ADJ Gender=Fem|Number=Plur 0 root SpacesAfter=\u00A0",
    r"5 ! ! PUNCT _ 4 punct SpacesAfter=\n\n",
)
SINGULAR = (
    "1 La le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
    "2 clé clé NOUN Gender=Fem|Number=Sing 4 nsubj",
    "3 est être AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 4 cop",
    "4 cassée cassé ADJ Gender=Fem|Number=Sing 0 root",
)
# Two spaces after *clés*, one after *sont* (its correction's key is not its own), a no-break
# space after *cassées*, and nothing after the last word (the newlines end the paragraph).
SPACED_TEXT = "Les clés  sont cassées\u00a0!"


def test_the_reader_rebuilds_the_whitespace_spaces_after_gives():
    s = sentence(*SPACED)
    assert s.space_after == [True, True, True, True, True]
    assert s.spaces_after == [None, "  ", None, "\u00a0", "\n\n"]
    assert rebuild_text(s.words, s.space_after, s.spaces_after) == SPACED_TEXT
    text, spans = surface_text(s.words, s.space_after, {2: "est"}, s.spaces_after)
    assert text == "Les clés  est cassées\u00a0!"
    assert [text[a:b] for a, b in spans] == ["Les", "clés", "est", "cassées", "!"]


def test_mined_text_and_pair_offsets_keep_the_spaces(tmp_path):
    pairs, _, _ = mine_with_skips(tmp_path, SPACED, SINGULAR)
    sentences = pl.read_parquet(tmp_path / "corpus" / "fr" / "sentences.parquet")
    row = sentences.filter(pl.col("sent_id") == "s1").row(0, named=True)
    assert row["text"] == SPACED_TEXT
    assert row["spaces_after"] == [None, "  ", None, "\u00a0", "\n\n"]
    rows = pairs.filter(pl.col("sent_id") == "s1")
    assert {r["bad_form"] for r in rows.iter_rows(named=True)} >= {"est", "cassée"}
    for r in rows.iter_rows(named=True):
        good, bad = r["sentence_good"], r["sentence_bad"]
        assert good == SPACED_TEXT
        assert good[r["start"] : r["end_good"]] == r["good_form"]
        assert bad[r["start"] : r["end_bad"]] == r["bad_form"]
        assert good[r["end_good"] :] == bad[r["end_bad"] :]


def pairs_by_form(pairs: pl.DataFrame, sent_id: str) -> dict[str, dict]:
    """A sentence's pairs by their good form (one pair each here)."""
    return {
        r["good_form"]: r for r in pairs.filter(pl.col("sent_id") == sent_id).iter_rows(named=True)
    }


def assert_offsets_cover_the_replacement(row: dict) -> None:
    good, bad, start = row["sentence_good"], row["sentence_bad"], row["start"]
    assert bad == good[:start] + row["bad_form"] + good[row["end_good"] :]
    assert bad[start : row["end_bad"]] == row["bad_form"]


FR_LEXICON = (
    "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
    "2 garçon garçon NOUN Gender=Masc|Number=Sing 3 nsubj",
    "3 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
)


def test_french_de_le_is_written_du_and_the_offsets_cover_de_la(tmp_path):
    de_la_table = (
        "1 Il il PRON Number=Sing|Person=3 2 nsubj",
        "2 parle parler VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
        "3 De de ADP _ 5 case",
        "4 la le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 5 det",
        "5 table table NOUN Gender=Fem|Number=Sing 2 obl",
    )
    pairs, _, _ = mine_with_skips(tmp_path, de_la_table, FR_LEXICON)
    row = pairs_by_form(pairs, "s1")["la"]
    # The capital of the word before is the contraction's.
    assert row["sentence_bad"] == "Il parle Du table"
    assert row["bad_form"] == "Du"
    assert row["sentence_good"][row["start"] : row["end_good"]] == "De la"
    assert_offsets_cover_the_replacement(row)


def test_french_le_before_a_vowel_is_elided_onto_the_next_word(tmp_path):
    amie = (
        "1 La le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 amie ami NOUN Gender=Fem|Number=Sing 3 nsubj",
        "3 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    # *La amie* is not French either, but it is the good sentence as written here: only the bad
    # form's spelling is the rule's.
    hache = (
        "1 la le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 hache hache NOUN Gender=Fem|Number=Sing 0 root",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, amie, hache, FR_LEXICON)
    row = pairs_by_form(pairs, "s1")["La"]
    assert (row["bad_form"], row["sentence_bad"]) == ("L'", "L'amie dort")
    assert row["sentence_good"][row["start"] : row["end_good"]] == "La "
    assert_offsets_cover_the_replacement(row)
    # h muet or h aspiré (*l'homme*, *le héros*) is the word's: no written form is sure.
    assert "s2" not in set(pairs["sent_id"])
    assert "ambiguous-onset" in set(skips.filter(pl.col("sent_id") == "s2")["reason"])


def subject_verb(subject: str, person: str, verb: str, lemma: str, number: str) -> tuple[str, ...]:
    feats = f"Mood=Ind|Number={number}|Person={person}|Tense=Pres|VerbForm=Fin"
    return (f"1 {subject} {subject.lower()} PRON Number={number}|Person={person}|PronType=Prs 2 nsubj",
            f"2 {verb} {lemma} VERB {feats} 0 root")  # fmt: skip


def test_a_french_word_written_whole_before_a_bad_form_it_would_elide_onto_gives_no_pair(tmp_path):
    # *Je vais* → Plur *allons*: French writes *j'allons*, never *je allons*; → 3sg *va* stays.
    je_vais = subject_verb("Je", "1", "vais", "aller", "Sing")
    lexicon = [subject_verb("Nous", "1", "allons", "aller", "Plur"),
               subject_verb("Il", "3", "va", "aller", "Sing")] * 3  # fmt: skip
    pairs, skips, _ = mine_with_skips(tmp_path, je_vais, *lexicon)
    made = pairs.filter(pl.col("sent_id") == "s1")
    assert set(made.select("feature", "bad_form", "sentence_bad").iter_rows()) == {
        ("Person", "va", "Je va")
    }
    tried = skips.filter(pl.col("sent_id") == "s1")
    assert ("Number", "Plur", "elision") in set(
        tried.select("feature", "bad_value", "reason").iter_rows()
    )


def test_a_word_that_french_never_elides_keeps_the_vowel_bad_form(tmp_path):
    # *Tu vas* → Plur *allez*: *tu* is written whole before a vowel (*tu as*).
    tu_vas = subject_verb("Tu", "2", "vas", "aller", "Sing")
    lexicon = [subject_verb("Vous", "2", "allez", "aller", "Plur")] * 3
    pairs, _, _ = mine_with_skips(tmp_path, tu_vas, *lexicon)
    made = pairs.filter(pl.col("sent_id") == "s1")
    assert ("Number", "allez", "Tu allez") in set(
        made.select("feature", "bad_form", "sentence_bad").iter_rows()
    )


def test_spanish_de_el_is_written_del(tmp_path):
    de_la_casa = (
        "1 Habla hablar VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
        "2 de de ADP _ 4 case",
        "3 la el DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 4 det",
        "4 casa casa NOUN Gender=Fem|Number=Sing 1 obl",
    )
    el_perro = (
        "1 El el DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 perro perro NOUN Gender=Masc|Number=Sing 3 nsubj",
        "3 duerme dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    pairs, _, _ = mine_with_skips(tmp_path, de_la_casa, el_perro, lang="Spanish")
    row = pairs_by_form(pairs, "s1")["la"]
    assert (row["bad_form"], row["sentence_bad"]) == ("del", "Habla del casa")
    assert_offsets_cover_the_replacement(row)


IT_ARTICLES = (
    "1 il il DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
    "2 cane cane NOUN Gender=Masc|Number=Sing 0 root",
    "3 i il DET Definite=Def|Gender=Masc|Number=Plur|PronType=Art 4 det",
    "4 cani cane NOUN Gender=Masc|Number=Plur 2 conj",
    "5 uno uno DET Definite=Ind|Gender=Masc|Number=Sing|PronType=Art 6 det",
    "6 zio zio NOUN Gender=Masc|Number=Sing 2 conj",
    "7 gli il DET Definite=Def|Gender=Masc|Number=Plur|PronType=Art 8 det",
    "8 zii zio NOUN Gender=Masc|Number=Plur 2 conj",
)


def test_italian_articles_follow_the_next_words_onset(tmp_path):
    blocks = (
        # *i* before s + vowel, not *gli*: the plural of *il successo* is written *i*.
        ("1 il il DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
         "2 successo successo NOUN Gender=Masc|Number=Sing 0 root"),
        # *una relazione* → the masculine *uno* is written *un* before a consonant.
        ("1 una uno DET Definite=Ind|Gender=Fem|Number=Sing|PronType=Art 2 det",
         "2 relazione relazione NOUN Gender=Fem|Number=Sing 0 root"),
        # *gli amici* → the singular *il* before a vowel is *l'*, glued to it.
        ("1 Gli il DET Definite=Def|Gender=Masc|Number=Plur|PronType=Art 2 det",
         "2 amici amico NOUN Gender=Masc|Number=Plur 0 root"),
        # *lo studio* → the plural before s + consonant is *gli*.
        ("1 lo il DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
         "2 studio studio NOUN Gender=Masc|Number=Sing 0 root"),
        IT_ARTICLES,
    )  # fmt: skip
    pairs, _, _ = mine_with_skips(tmp_path, *blocks, lang="Italian")
    bad = {(r["sent_id"], r["good_form"], r["feature"]): r for r in pairs.iter_rows(named=True)}
    assert bad[("s1", "il", "Number")]["sentence_bad"] == "i successo"
    assert bad[("s2", "una", "Gender")]["sentence_bad"] == "un relazione"
    row = bad[("s3", "Gli", "Number")]
    assert (row["bad_form"], row["sentence_bad"]) == ("L'", "L'amici")
    assert bad[("s4", "lo", "Number")]["sentence_bad"] == "gli studio"
    for row in pairs.iter_rows(named=True):
        assert_offsets_cover_the_replacement(row)


def test_a_bad_form_that_changes_the_final_sound_before_ukrainian_b_is_no_pair(tmp_path):
    # *б* follows a vowel, *би* a consonant: *були б* → *був б* is written *був би*
    # (mine/data/alternating_clitics.tsv); rewriting the particle is no re-inflection.
    past = "Mood=Ind|Number={}|Tense=Past|VerbForm=Fin"
    pronoun = "Case=Nom|Number={}|Person=3|PronType=Prs"
    with_particle = (
        f"1 Вони вони PRON {pronoun.format('Plur')} 2 nsubj",
        f"2 були бути VERB {past.format('Plur')} 0 root",
        "3 б б PART _ 2 discourse",
    )
    without = (
        f"1 Вони вони PRON {pronoun.format('Plur')} 2 nsubj",
        f"2 були бути VERB {past.format('Plur')} 0 root",
        "3 тут тут ADV _ 2 advmod",
    )
    singular = (
        f"1 Він він PRON {pronoun.format('Sing')} 2 nsubj",
        f"2 був бути VERB {past.format('Sing')} 0 root",
    )
    ud = tmp_path / "ud"
    write_treebank(ud, "Ukrainian", "uk", [with_particle, without, singular])
    (manifest,) = mine_languages(
        Options(ud_dir=ud, out=tmp_path / "corpus", all_types=True, progress=False)
    )
    folder = tmp_path / "corpus" / manifest["lang"]
    pairs = pl.read_parquet(folder / "pairs.parquet")
    made = set(pairs.select("sent_id", "good_form", "bad_form").iter_rows())
    assert ("s1", "були", "був") not in made
    assert ("s2", "були", "був") in made
    skips = pl.read_parquet(folder / "pair_skips.parquet")
    refused = skips.filter((pl.col("sent_id") == "s1") & (pl.col("feature") == "Number"))
    assert refused.get_column("reason").to_list() == ["elision"]


def test_italian_articles_take_the_onset_of_the_word_past_a_quote(tmp_path):
    blocks = (
        # *lo "studio"*: the quote has no onset; the plural before s + consonant is *gli*.
        ('1 lo il DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 3 det',
         '2 " " PUNCT _ 3 punct SpaceAfter=No',
         "3 studio studio NOUN Gender=Masc|Number=Sing 0 root"),
        # *gli « amici »*: the singular before a vowel is *l'*, glued to the quote.
        ("1 gli il DET Definite=Def|Gender=Masc|Number=Plur|PronType=Art 3 det",
         "2 « « PUNCT _ 3 punct",
         "3 amici amico NOUN Gender=Masc|Number=Plur 0 root"),
        IT_ARTICLES,
    )  # fmt: skip
    pairs, _, _ = mine_with_skips(tmp_path, *blocks, lang="Italian")
    bad = {(r["sent_id"], r["feature"]): r for r in pairs.iter_rows(named=True)}
    assert bad[("s1", "Number")]["sentence_bad"] == 'gli "studio'
    row = bad[("s2", "Number")]
    assert (row["bad_form"], row["sentence_bad"]) == ("l'", "l'« amici")
    for row in pairs.iter_rows(named=True):
        assert_offsets_cover_the_replacement(row)


FIN = "Mood=Ind|Tense=Pres|VerbForm=Fin"
# *isn't* and *aren't*, each written as a token of its own, and *am*, *are* for the lexicon.
ENGLISH_BE = (
    ("1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
     f"2 am be AUX {FIN}|Number=Sing|Person=1 0 root"),
    ("1 you you PRON Case=Nom|Number=Sing|Person=2|PronType=Prs 2 nsubj",
     f"2 are be AUX {FIN}|Number=Sing|Person=2 0 root"),
    ("1 they they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 4 nsubj",
     "2-3 aren't _ _ _ _ _",
     f"2 are be AUX {FIN}|Number=Plur|Person=3 4 cop",
     "3 n't not PART Polarity=Neg 4 advmod",
     "4 right right ADJ Degree=Pos 0 root"),
)  # fmt: skip


def this_isnt_a(misc: str) -> tuple[str, ...]:
    """*This isn't a fps*, MISC `misc` on *isn't* (`SpaceAfter=No`: *isn'ta*)."""
    return (
        "1 This this PRON Number=Sing|PronType=Dem 5 nsubj",
        f"2-3 isn't _ _ _ _ _ {misc}",
        f"2 is be AUX {FIN}|Number=Sing|Person=3 5 cop",
        "3 n't not PART Polarity=Neg 5 advmod",
        "4 a a DET Definite=Ind|PronType=Art 5 det",
        "5 fps fps NOUN Number=Sing 0 root",
    )


def test_a_rebuilt_token_glued_to_another_word_is_unattested(tmp_path):
    comma_before = (  # *This,isn't a fps*
        "1 This this PRON Number=Sing|PronType=Dem 6 nsubj SpaceAfter=No",
        "2 , , PUNCT _ 6 punct SpaceAfter=No",
        "3-4 isn't _ _ _ _ _",
        f"3 is be AUX {FIN}|Number=Sing|Person=3 6 cop",
        "4 n't not PART Polarity=Neg 6 advmod",
        "5 a a DET Definite=Ind|PronType=Art 6 det",
        "6 fps fps NOUN Number=Sing 0 root",
    )
    comma_after = (  # *This isn't, a fps*
        "1 This this PRON Number=Sing|PronType=Dem 6 nsubj",
        "2-3 isn't _ _ _ _ _ SpaceAfter=No",
        f"2 is be AUX {FIN}|Number=Sing|Person=3 6 cop",
        "3 n't not PART Polarity=Neg 6 advmod",
        "4 , , PUNCT _ 6 punct",
        "5 a a DET Definite=Ind|PronType=Art 6 det",
        "6 fps fps NOUN Number=Sing 0 root",
    )
    blocks = (
        # *isn'ta* (a space missing) → *aren'ta*: *aren't* is a token the treebank writes,
        # *aren'ta* none; nor *This,aren't* (no space after the comma).
        this_isnt_a("CorrectSpaceAfter=Yes|SpaceAfter=No"),
        comma_before,
        # Written apart, or glued to punctuation only (*isn't,*), the token is a word of its own.
        this_isnt_a("_"),
        comma_after,
        *ENGLISH_BE,
    )
    pairs, skips, _ = mine_with_skips(tmp_path, *blocks, lang="English")
    made = {r["sent_id"]: r["sentence_bad"] for r in pairs.iter_rows(named=True)
            if r["bad_value"] == "Plur"}  # fmt: skip
    assert made == {"s3": "This aren't a fps", "s4": "This aren't, a fps"}
    for sent_id in ("s1", "s2"):
        refused = skips.filter((pl.col("sent_id") == sent_id) & (pl.col("bad_value") == "Plur"))
        assert refused.get_column("reason").to_list() == ["unattested-token"]


MODELS = ["Chat", "CHAT", "chat", "A", "a", "É", "ÉTAT", "Ça", "iPhone", "McDonald", "A1", "1a",
          "1A", "ß", "ΣΤΗ", "Στη", "'s", "L'", "", "-", "ǅ"]  # fmt: skip


@pytest.mark.parametrize("model", MODELS)
def test_one_capitalisation_rule_for_columns_and_single_words(model):
    from ud_agree.mine.rules.surface import capitalised_like, capitalised_word_like

    frame = pl.DataFrame({"form": ["élan"], "model": [model]})
    column = frame.select(capitalised_like(pl.col("form"), pl.col("model")))["form"][0]
    assert column == capitalised_word_like("élan", model)
