"""Minimal pairs (DESIGN.md §4) built by the miner from sentences written here."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from ud_agree.mine.plan import Options
from ud_agree.mine.run import mine_languages

from tests.sentences import KEYS_ARE_BROKEN, write_treebank
from ud_agree.schemas.corpus import SKIP_REASONS

# Sentences that only put forms into the lexicon (UD words enter it with their lemma and FEATS).
LEXICON_SENTENCES = {
    "le": "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
    "garçon": "2 garçon garçon NOUN Gender=Masc|Number=Sing 0 root",
}
PORTE_EST_CASSEE = (
    "1 La le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
    "2 porte porte NOUN Gender=Fem|Number=Sing 4 nsubj",
    "3 est être AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 4 cop",
    "4 cassée cassé ADJ Gender=Fem|Number=Sing 0 root SpaceAfter=No",
    "5 . . PUNCT _ 4 punct",
)
LE_GARCON = (
    "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
    "2 garçon garçon NOUN Gender=Masc|Number=Sing 3 nsubj",
    "3 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
)


def mine_pairs(
    tmp_path: Path, *blocks: tuple[str, ...], vary: str = "target"
) -> tuple[pl.DataFrame, dict]:
    """Mine sentences (each a tuple of rows, sent_ids s1, s2, …) and return pairs and manifest."""
    pairs, _, manifest = mine_with_skips(tmp_path, *blocks, vary=vary)
    return pairs, manifest


def mine_with_skips(
    tmp_path: Path,
    *blocks: tuple[str, ...],
    vary: str = "target",
    lang: str = "French",
    unimorph: tuple[str, str] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    """Mine sentences of a language (sent_ids s1, s2, …), with `unimorph` (ISO 639-3 code, file
    text) as its paradigms: pairs, pair skips and manifest, with the manifest's skip counts
    checked against the skips' rows."""
    write_treebank(tmp_path / "ud", lang, "xx", blocks)
    if unimorph:
        iso3, paradigms = unimorph
        (tmp_path / "unimorph" / iso3).mkdir(parents=True)
        (tmp_path / "unimorph" / iso3 / iso3).write_text(paradigms, encoding="utf-8")
    options = Options(
        ud_dir=tmp_path / "ud",
        out=tmp_path / "corpus",
        unimorph_dirs=[tmp_path / "unimorph"],
        all_types=True,
        progress=False,
        vary=vary,
    )
    (manifest,) = mine_languages(options)
    folder = tmp_path / "corpus" / manifest["lang"]
    pairs = pl.read_parquet(folder / "pairs.parquet")
    skips = pl.read_parquet(folder / "pair_skips.parquet")
    assert_skips_counted(skips, manifest)
    return pairs, skips, manifest


def assert_skips_counted(skips: pl.DataFrame, manifest: dict) -> None:
    """The manifest's skip counts are the skips' rows per reason, and each row is a skip."""
    counted = dict(skips.group_by("reason").len().iter_rows())
    assert {r: n for r, n in manifest["counts"]["pair_skips"].items() if n} == counted
    assert set(counted) <= set(SKIP_REASONS)


def pairs_of(pairs: pl.DataFrame, sent_id: str) -> set[tuple]:
    rows = pairs.filter(pl.col("sent_id") == sent_id)
    return set(rows.select("type", "feature", "good_form", "bad_form", "sentence_bad").iter_rows())


def test_determiner_pair_changes_gender_and_keeps_the_capital(tmp_path):
    fille = (
        "1 La le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 fille fille NOUN Gender=Fem|Number=Sing 3 nsubj",
        "3 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    pairs, _ = mine_pairs(tmp_path, fille, LE_GARCON)
    assert ("determiner", "Gender", "La", "Le", "Le fille dort") in pairs_of(pairs, "s1")
    row = pairs.filter((pl.col("sent_id") == "s1") & (pl.col("type") == "determiner")).row(
        0, named=True
    )
    assert (row["good_value"], row["bad_value"], row["lemma"], row["upos"]) == (
        "Fem",
        "Masc",
        "le",
        "DET",
    )
    assert (row["start"], row["end_good"], row["end_bad"], row["bad_count"]) == (0, 2, 2, 1)
    assert row["sentence_good"] == "La fille dort" and row["bad_source"] == "ud"


def test_all_upper_word_gets_an_all_upper_bad_form(tmp_path):
    fille = (
        "1 LA le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 FILLE fille NOUN Gender=Fem|Number=Sing 0 root",
    )
    pairs, _ = mine_pairs(tmp_path, fille, LE_GARCON)
    assert pairs_of(pairs, "s1") == {("determiner", "Gender", "LA", "LE", "LE FILLE")}


def test_attributive_pair_and_a_form_missing_from_the_paradigm(tmp_path):
    robe = (
        "1 une un DET Definite=Ind|Gender=Fem|Number=Sing|PronType=Art 2 det",
        "2 robe robe NOUN Gender=Fem|Number=Sing 0 root",
        "3 verte vert ADJ Gender=Fem|Number=Sing 2 amod",
    )
    vert = ("1 vert vert ADJ Gender=Masc|Number=Sing 0 root",)
    grands = ("1 grands grand ADJ Gender=Masc|Number=Plur 0 root",)  # the lexicon knows Plur
    pairs, manifest = mine_pairs(tmp_path, robe, vert, grands)
    got = {p for p in pairs_of(pairs, "s1") if p[0] == "attributive"}
    # Gender has its masculine form; the plural *vertes* is in no sentence: no-form.
    assert got == {("attributive", "Gender", "verte", "vert", "une robe vert")}
    assert manifest["counts"]["pair_skips"]["no-form"] >= 1


def test_predicative_and_copula_pairs_with_space_after_no_rebuilt_exactly(tmp_path):
    pairs, _ = mine_pairs(tmp_path, KEYS_ARE_BROKEN, PORTE_EST_CASSEE)
    got = pairs_of(pairs, "s1")
    assert ("subject-verb", "Number", "sont", "est", "Les clés de l'armoire est cassées.") in got
    assert (
        "predicative",
        "Number",
        "cassées",
        "cassée",
        "Les clés de l'armoire sont cassée.",
    ) in got
    rows = pairs.filter(pl.col("sent_id") == "s1")
    assert set(rows["sentence_good"]) == {"Les clés de l'armoire sont cassées."}
    for row in rows.iter_rows(named=True):
        good, bad = row["sentence_good"], row["sentence_bad"]
        assert good[row["start"] : row["end_good"]] == row["good_form"]
        assert bad[row["start"] : row["end_bad"]] == row["bad_form"]
        assert good[: row["start"]] == bad[: row["start"]]
        assert good[row["end_good"] :] == bad[row["end_bad"] :]


def test_same_spelling_for_the_bad_bundle_is_syncretic_not_a_pair(tmp_path):
    # *gris* is singular and plural: "le chat gris" has no number violation to offer.
    chat = (
        "1 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 chat chat NOUN Gender=Masc|Number=Sing 0 root",
        "3 gris gris ADJ Gender=Masc|Number=Sing 2 amod",
    )
    chats = (
        "1 chats chat NOUN Gender=Masc|Number=Plur 0 root",
        "2 gris gris ADJ Gender=Masc|Number=Plur 1 amod",
    )
    pairs, manifest = mine_pairs(tmp_path, chat, chats)
    assert not {p for p in pairs_of(pairs, "s1") if p[0] == "attributive"}
    assert manifest["counts"]["pair_skips"]["syncretic"] >= 1


def test_form_that_could_also_agree_is_refused_as_syncretic(tmp_path):
    beau = (
        "1 beau beau ADJ Gender=Masc|Number=Sing 2 amod",
        "2 garçon garçon NOUN Gender=Masc|Number=Sing 0 root",
    )
    # *belle* is feminine, but an analysis (twice: one token alone decides nothing, §4.1) also
    # makes it masculine: it could agree.
    belle = (
        "1 belle beau ADJ Gender=Fem|Number=Sing 0 root",
        "2 belle beau ADJ Gender=Masc|Number=Sing 1 conj",
        "3 belle beau ADJ Gender=Masc|Number=Sing 1 conj",
    )
    pairs, manifest = mine_pairs(tmp_path, beau, belle)
    assert not pairs_of(pairs, "s1")
    assert manifest["counts"]["pair_skips"]["syncretic"] == 1


def test_word_inside_a_multiword_token_is_skipped(tmp_path):
    du = (
        "1 Il il PRON Gender=Masc|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        "2 parle parler VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
        "3-4 du _ _ _ _ _ _",
        "3 de de ADP _ 5 case",
        "4 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 5 det",
        "5 chat chat NOUN Gender=Masc|Number=Sing 2 obl",
    )
    la = ("1 la le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 0 root",)
    pairs, manifest = mine_pairs(tmp_path, du, la)
    assert not {p for p in pairs_of(pairs, "s1") if p[0] == "determiner"}
    # Counted once per agreeing feature of the relation (Gender, Number).
    assert manifest["counts"]["pair_skips"]["in-mwt"] == 2


def test_multi_valued_feature_is_not_varied_but_the_others_are(tmp_path):
    enfants = (
        "1 les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 enfants enfant NOUN Gender=Masc|Number=Plur 0 root",
        "3 calmes calme ADJ Gender=Fem,Masc|Number=Plur 2 amod",
    )
    calme = ("1 calme calme ADJ Gender=Fem,Masc|Number=Sing 0 root",)
    fem = ("1 calme calme ADJ Gender=Fem|Number=Sing 0 root",)
    pairs, manifest = mine_pairs(tmp_path, enfants, calme, fem)
    got = {p for p in pairs_of(pairs, "s1") if p[0] == "attributive"}
    assert got == {("attributive", "Number", "calmes", "calme", "les enfants calme")}
    assert manifest["counts"]["pair_skips"]["multi-valued"] >= 1


def test_ambiguous_controller_gives_no_pair(tmp_path):
    prix = (
        "1 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 prix prix NOUN Gender=Masc|Number=Sing 3 nsubj",
        "3 augmente augmenter VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    plural = (
        "1 prix prix NOUN Gender=Masc|Number=Plur 2 nsubj",
        "2 augmentent augmenter VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    pairs, manifest = mine_pairs(tmp_path, prix, plural)
    assert not {p for p in pairs_of(pairs, "s1") if p[0] == "subject-verb"}
    # Both sentences: *prix* is singular and plural.
    assert manifest["counts"]["pair_skips"]["ambiguous-controller"] == 2


def test_person_gives_one_pair_per_other_attested_value(tmp_path):
    il = (
        "1 il il PRON Gender=Masc|Number=Sing|Person=3|PronType=Prs 2 nsubj",
        "2 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    forms = (
        "1 je moi PRON Number=Sing|Person=1|PronType=Prs 2 nsubj",
        "2 dors dormir VERB Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin 0 root",
        "3 dors dormir VERB Mood=Ind|Number=Sing|Person=2|Tense=Pres|VerbForm=Fin 2 conj",
    )
    pairs, _ = mine_pairs(tmp_path, il, forms)
    rows = pairs.filter((pl.col("sent_id") == "s1") & (pl.col("feature") == "Person"))
    # *dors* is 1sg and 2sg: one bad sentence, one row (§4.1), the other value in `also`.
    assert rows.select("bad_value", "sentence_bad", "also").rows() == [
        ("1", "il dors", ["Person=2"])
    ]


def test_bad_form_keeps_the_other_inflection(tmp_path):
    # *est* is present indicative: *étaient* (imperfect) is another Number form of être, but no
    # minimal pair for it; *sont* is.
    etaient = ("1 étaient être AUX Mood=Ind|Number=Plur|Person=3|Tense=Imp|VerbForm=Fin 0 root",)
    pairs, _ = mine_pairs(tmp_path, PORTE_EST_CASSEE, etaient)
    assert not {p for p in pairs_of(pairs, "s1") if p[0] == "subject-verb"}
    sont = ("1 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",)
    pairs, _ = mine_pairs(tmp_path / "again", PORTE_EST_CASSEE, etaient, sont)
    assert ("subject-verb", "Number", "est", "sont", "La porte sont cassée.") in pairs_of(
        pairs, "s1"
    )


def test_controller_varied_with_vary_controller(tmp_path):
    chats = ("1 chats chat NOUN Gender=Masc|Number=Plur 0 root",)
    pairs, manifest = mine_pairs(tmp_path, LE_GARCON, chats, vary="controller")
    assert set(pairs["varied"]) <= {"controller"}
    assert manifest["options"]["vary"] == "controller"
    both, _ = mine_pairs(tmp_path / "both", LE_GARCON, chats, vary="both")
    assert set(both["varied"]) >= set(pairs["varied"])


def test_coordinated_controller_gives_no_pair(tmp_path):
    coordination = (
        "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 chat chat NOUN Gender=Masc|Number=Sing 6 nsubj",
        "3 et et CCONJ _ 5 cc",
        "4 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 5 det",
        "5 chien chien NOUN Gender=Masc|Number=Sing 2 conj",
        "6 dorment dormir VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    la = ("1 la le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 0 root",)
    pairs, manifest = mine_pairs(tmp_path, coordination, la)
    # chat (with a conj dependent) is coordinated; chien is not.
    assert {(r["controller_id"], r["type"]) for r in pairs.iter_rows(named=True)} == {
        (5, "determiner")
    }
    assert manifest["counts"]["pair_skips"]["coordinated"] >= 1
    assert json.loads((tmp_path / "corpus" / "fr" / "manifest.json").read_text())["counts"][
        "pairs"
    ] == len(pairs)


def test_form_seen_only_as_a_typo_is_no_bad_form(tmp_path):
    # French-PUD has *e* (for *de*) as a plural article with Typo=Yes: never a bad form.
    typo = ("1 e un DET Definite=Ind|Gender=Masc|Number=Plur|PronType=Art|Typo=Yes 0 root",)
    un_chat = (
        "1 un un DET Definite=Ind|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 chat chat NOUN Gender=Masc|Number=Sing 0 root",
    )
    plural = ("1 chats chat NOUN Gender=Masc|Number=Plur 0 root",)
    pairs, manifest = mine_pairs(tmp_path, un_chat, typo, plural)
    assert "e" not in set(pairs["bad_form"])
    assert manifest["counts"]["pair_skips"]["no-form"] >= 1


def test_bad_form_that_breaks_the_elision_before_it_is_skipped(tmp_path):
    # *s'est* → *s'sont* would be wrong for its sound, not its agreement.
    incendie = (
        "1 un un DET Definite=Ind|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 incendie incendie NOUN Gender=Masc|Number=Sing 5 nsubj",
        "3 s' se PRON Person=3|PronType=Prs|Reflex=Yes 5 expl:pv SpaceAfter=No",
        "4 est être AUX Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 5 aux",
        "5 déclaré déclarer VERB Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part 0 root",
    )
    sont = ("1 sont être AUX Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",)
    pairs, manifest = mine_pairs(tmp_path, incendie, sont)
    assert not {p for p in pairs_of(pairs, "s1") if p[0] == "subject-verb"}
    assert manifest["counts"]["pair_skips"]["elision"] >= 1


def test_unimorph_form_tagged_without_mood_is_a_bad_form_once_its_tag_set_is_completed(tmp_path):
    # English UniMorph tags *dwells* V;PRS;3;SG, no mood nor finiteness; the treebank's own third
    # singular presents say Mood=Ind|VerbForm=Fin, so *dwells* keeps *dwell*'s other FEATS.
    present = "Mood=Ind|Number={}|Person=3|Tense=Pres|VerbForm=Fin"
    they_dwell = (
        "1 They they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
        f"2 dwell dwell VERB {present.format('Plur')} 0 root",
    )
    verbs = ["walk", "talk", "jump", "sing", "read"]
    seen = [(f"1 {v}s {v} VERB {present.format('Sing')} 0 root",) for v in verbs]
    paradigms = "".join(f"{v}\t{v}s\tV;PRS;3;SG\n" for v in [*verbs, "dwell"])
    pairs, _, _ = mine_with_skips(
        tmp_path, they_dwell, *seen, lang="English", unimorph=("eng", paradigms)
    )
    assert ("subject-verb", "Number", "dwell", "dwells", "They dwells") in pairs_of(pairs, "s1")
    fewer, skips, _ = mine_with_skips(
        tmp_path / "fewer", they_dwell, *seen[:4], lang="English", unimorph=("eng", paradigms)
    )
    assert not pairs_of(fewer, "s1")
    assert "no-form" in set(skips.filter(pl.col("sent_id") == "s1")["reason"])


def test_the_cells_most_frequent_spelling_is_the_bad_form_then_the_first_alphabetically(tmp_path):
    un_beau = (
        "1 un un DET Definite=Ind|Gender=Masc|Number=Sing|PronType=Art 3 det",
        "2 beau beau ADJ Gender=Masc|Number=Sing 3 amod",
        "3 garçon garçon NOUN Gender=Masc|Number=Sing 0 root",
    )
    beaux = ("1 beaux beau ADJ Gender=Masc|Number=Plur 0 root",)
    beaus = ("1 beaus beau ADJ Gender=Masc|Number=Plur 0 root",)

    def plural_of_beau(folder: Path, *blocks: tuple[str, ...]) -> tuple:
        pairs, _ = mine_pairs(folder, un_beau, *blocks)
        rows = pairs.filter((pl.col("type") == "attributive") & (pl.col("feature") == "Number"))
        return rows.select("bad_form", "bad_count", "sentence_bad").row(0)

    # *beaux* twice, *beaus* once: the more frequent.
    assert plural_of_beau(tmp_path / "a", beaux, beaus, beaux) == ("beaux", 2, "un beaux garçon")
    # Once each: the first alphabetically (*beaus* < *beaux*).
    assert plural_of_beau(tmp_path / "b", beaux, beaus) == ("beaus", 1, "un beaus garçon")


def test_a_target_that_could_carry_the_controllers_bad_value_is_ambiguous(tmp_path):
    # Varying the controller: *le chat gris* → *chats*, but *gris* is plural too, so the
    # attributive relation would still agree (§4 `ambiguous-target`).
    chat_gris = (
        "1 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 chat chat NOUN Gender=Masc|Number=Sing 0 root",
        "3 gris gris ADJ Gender=Masc|Number=Sing 2 amod",
    )
    plural = (
        "1 chats chat NOUN Gender=Masc|Number=Plur 0 root",
        "2 gris gris ADJ Gender=Masc|Number=Plur 1 amod",
    )
    pairs, skips, _ = mine_with_skips(tmp_path, chat_gris, plural, vary="controller")
    s1 = pairs.filter(pl.col("sent_id") == "s1")
    # The determiner's controller becomes *chats* (*le* is singular only); the adjective's not.
    assert set(s1.select("type", "bad_form", "sentence_bad").iter_rows()) == {
        ("determiner", "chats", "le chats gris")
    }
    ambiguous = skips.filter((pl.col("sent_id") == "s1") & (pl.col("type") == "attributive"))
    assert ambiguous.select("feature", "bad_value", "reason").rows() == [
        ("Number", "Plur", "ambiguous-target")
    ]


def test_value_sets_make_a_form_syncretic_where_its_values_stand_for_the_words(tmp_path):
    # Norwegian adjectives carry Gender=Com where nouns carry Masc or Fem (Com = {Masc, Fem}):
    # *stort*, also tagged Masc (twice: one token alone decides nothing, §4.1), could agree
    # with *stor*'s Com, so it is no bad form there.
    en_stor_bil = (
        "1 en en DET Gender=Masc|Number=Sing|PronType=Art 3 det",
        "2 stor stor ADJ Definite=Ind|Gender=Com|Number=Sing 3 amod",
        "3 bil bil NOUN Definite=Ind|Gender=Masc|Number=Sing 0 root",
    )
    stort = ("1 stort stor ADJ Definite=Ind|Gender=Neut|Number=Sing 0 root",)
    stort_masc = ("1 stort stor ADJ Definite=Ind|Gender=Masc|Number=Sing 0 root",)
    pairs, _, _ = mine_with_skips(tmp_path / "a", en_stor_bil, stort, lang="Norwegian")
    gender = (pl.col("type") == "attributive") & (pl.col("feature") == "Gender")
    assert pairs.filter(gender).select("bad_value", "sentence_bad").rows() == [
        ("Neut", "en stort bil")
    ]
    pairs, skips, _ = mine_with_skips(
        tmp_path / "b", en_stor_bil, stort, stort_masc, stort_masc, lang="Norwegian"
    )
    assert pairs.filter(gender).is_empty()
    assert "syncretic" in set(skips.filter((pl.col("sent_id") == "s1") & gender)["reason"])
