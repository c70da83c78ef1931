"""Nonce pairs (DESIGN.md §9) built by the miner from sentences written here."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from ud_agree.mine.nonce import CONTENT_UPOS
from ud_agree.mine.plan import Options
from ud_agree.mine.read import Sentence, parse
from ud_agree.mine.run import mine_languages

from tests.mine.test_pairs import assert_skips_counted
from tests.sentences import write_treebank

# The sentence whose pairs are varied: every content word has other lemmas to stand in for it.
CHAT = (
    "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 3 det",
    "2 grand grand ADJ Gender=Masc|Number=Sing 3 amod",
    "3 chat chat NOUN Gender=Masc|Number=Sing 6 nsubj",
    "4-5 du _ _ _ _ _",
    "4 de de ADP _ 5 case",
    "5 le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 3 nmod",
    "6 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root SpaceAfter=No",
    "7 . . PUNCT _ 6 punct",
)
# Other lemmas of the same cells, with the forms a bad sentence needs.
OTHERS = (
    (
        "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 3 det",
        "2 petit petit ADJ Gender=Masc|Number=Sing 3 amod",
        "3 chien chien NOUN Gender=Masc|Number=Sing 4 nsubj",
        "4 mange manger VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    ),
    (
        "1 Les le DET Definite=Def|Number=Plur|PronType=Art 3 det",
        "2 petits petit ADJ Gender=Masc|Number=Plur 3 amod",
        "3 chiens chien NOUN Gender=Masc|Number=Plur 4 nsubj",
        "4 mangent manger VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    ),
    (
        "1 La le DET Definite=Def|Gender=Fem|Number=Sing|PronType=Art 3 det",
        "2 grande grand ADJ Gender=Fem|Number=Sing 3 amod",
        "3 poule poule NOUN Gender=Fem|Number=Sing 4 nsubj",
        "4 dorment dormir VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    ),
    (
        "1 Les le DET Definite=Def|Number=Plur|PronType=Art 3 det",
        "2 grands grand ADJ Gender=Masc|Number=Plur 3 amod",
        "3 rats rat NOUN Gender=Masc|Number=Plur 4 nsubj",
        "4 rongent ronger VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    ),
    (
        "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 3 det",
        "2 gros gros ADJ Gender=Masc|Number=Sing 3 amod",
        "3 rat rat NOUN Gender=Masc|Number=Sing 4 nsubj",
        "4 ronge ronger VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    ),
)


def mine(tmp_path: Path, *blocks: tuple[str, ...], nonce: int = 3, seed: int = 0):
    """Mine sentences s1, s2, … with nonce variants: (pairs, manifest, parsed sentences)."""
    text = write_treebank(tmp_path / "ud", "French", "fr", blocks)
    options = Options(
        ud_dir=tmp_path / "ud",
        out=tmp_path / "corpus",
        unimorph_dirs=[tmp_path / "no-unimorph"],
        all_types=True,
        progress=False,
        vary="both",
        nonce=nonce,
        seed=seed,
    )
    (manifest,) = mine_languages(options)
    pairs = pl.read_parquet(tmp_path / "corpus" / "fr" / "pairs.parquet")
    assert_skips_counted(
        pl.read_parquet(tmp_path / "corpus" / "fr" / "pair_skips.parquet"), manifest
    )
    sentences = {s.sent_id: s for s in parse(text.encode(), "t") if isinstance(s, Sentence)}
    return pairs, manifest, sentences


def lexicon_cells(tmp_path: Path) -> dict[tuple[str, str], set[tuple]]:
    """(form, upos) → its (lemma, bundle, feats) rows in the mined lexicon."""
    lexicon = pl.read_parquet(tmp_path / "corpus" / "fr" / "lexicon.parquet")
    cells: dict[tuple[str, str], set[tuple]] = {}
    for row in lexicon.iter_rows(named=True):
        bundle = tuple(
            frozenset(row[n] or ()) for n in ("number", "gender", "case", "person", "definite")
        )
        cells.setdefault((row["form"].lower(), row["upos"]), set()).add(
            (row["lemma"], bundle, row["feats"])
        )
    return cells


def words_of(text: str) -> list[str]:
    """The surface words of CHAT-like text (spaces between words, the final period glued)."""
    return [*text.removesuffix(".").split(" "), "."]


def test_every_replaced_word_has_the_original_upos_bundle_and_feats(tmp_path):
    from ud_agree.mine.features import parse_feats
    from ud_agree.mine.lexicon import other_feats

    pairs, manifest, sentences = mine(tmp_path, CHAT, *OTHERS)
    original = sentences["s1"]
    nonce = pairs.filter((pl.col("sent_id") == "s1") & (pl.col("variant") != "original"))
    assert (
        nonce.height
        and manifest["counts"]["nonce_pairs"]
        == pairs.filter(pl.col("variant") != "original").height
    )
    cells = lexicon_cells(tmp_path)
    replaced = 0
    for text in nonce["sentence_good"]:
        assert text.endswith(".") and not text.endswith(" .")  # SpaceAfter=No kept
        words = words_of(text)
        assert len(words) == len(original.words)
        for surface, (new, old) in enumerate(zip(words, original.words, strict=True)):
            if new == old:
                continue
            replaced += 1
            (i,) = [i for i, s in enumerate(original.surface) if s == surface]
            assert original.upos[i] in CONTENT_UPOS and not original.in_mwt[i]
            bundle = parse_feats(original.feats[i]).values()
            feats = other_feats(original.feats[i])
            rows = cells[(new.lower(), original.upos[i])]
            assert any(b == bundle and f == feats and lemma != original.lemmas[i]
                       for lemma, b, f in rows), (new, old)  # fmt: skip
        # Function words and the multiword token stay as written.
        assert words[0] == "Le" and words[3] == "du"
    assert replaced > 0


def test_the_bad_sentence_differs_from_the_nonce_good_one_at_the_varied_word_only(tmp_path):
    pairs, _, _ = mine(tmp_path, CHAT, *OTHERS)
    nonce = pairs.filter(pl.col("variant") != "original")
    assert {"determiner", "attributive", "subject-verb"} <= set(nonce["type"])
    for row in nonce.iter_rows(named=True):
        good, bad, start = row["sentence_good"], row["sentence_bad"], row["start"]
        assert good[start : row["end_good"]] == row["good_form"]
        assert bad[start : row["end_bad"]] == row["bad_form"]
        assert good[:start] == bad[:start] and good[row["end_good"] :] == bad[row["end_bad"] :]
        assert row["good_form"].lower() != row["bad_form"].lower()


def test_a_varied_content_word_is_replaced_and_its_bad_form_is_the_replacements(tmp_path):
    pairs, _, _ = mine(tmp_path, CHAT, *OTHERS)
    verbs = pairs.filter(
        (pl.col("sent_id") == "s1")
        & (pl.col("type") == "subject-verb")
        & (pl.col("varied") == "target")
        & (pl.col("variant") != "original")
    )
    assert verbs.height
    for row in verbs.iter_rows(named=True):
        # dormir is the word's own lemma; ronger and manger have a plural for the bad sentence.
        assert (row["lemma"], row["good_form"], row["bad_form"]) in {
            ("ronger", "ronge", "rongent"),
            ("manger", "mange", "mangent"),
        }


def test_variants_of_a_sentence_share_their_replacements(tmp_path):
    pairs, _, _ = mine(tmp_path, CHAT, *OTHERS)
    for (variant,), rows in pairs.filter(pl.col("sent_id") == "s1").group_by("variant"):
        # Every pair of one variant reads the same nonce sentence when its varied word's first
        # draw has a bad form (determiner pairs vary `Le`, which is not replaced).
        determiner = rows.filter((pl.col("type") == "determiner") & (pl.col("varied") == "target"))
        assert determiner["sentence_good"].n_unique() == 1, variant


def test_same_seed_same_rows_and_another_seed_other_words(tmp_path):
    first, _, _ = mine(tmp_path / "a", CHAT, *OTHERS, seed=7)
    again, _, _ = mine(tmp_path / "b", CHAT, *OTHERS, seed=7)
    other, _, _ = mine(tmp_path / "c", CHAT, *OTHERS, seed=8)
    assert first.equals(again)
    nonce = pl.col("variant") != "original"
    assert set(first.filter(nonce)["sentence_good"]) != set(other.filter(nonce)["sentence_good"])
    assert first.filter(~nonce).equals(other.filter(~nonce))  # the original pairs never move


def test_a_varied_word_whose_replacements_have_no_bad_form_is_no_nonce(tmp_path):
    # The only other verb lemma (courir) has no plural: the verb's variants cannot be made.
    court = (
        "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 loup loup NOUN Gender=Masc|Number=Sing 3 nsubj",
        "3 court courir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    plural = (
        "1 Les le DET Definite=Def|Number=Plur|PronType=Art 2 det",
        "2 chats chat NOUN Gender=Masc|Number=Plur 3 nsubj",
        "3 dorment dormir VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    dort = (
        "1 Le le DET Definite=Def|Gender=Masc|Number=Sing|PronType=Art 2 det",
        "2 chat chat NOUN Gender=Masc|Number=Sing 3 nsubj",
        "3 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    pairs, manifest, _ = mine(tmp_path, dort, court, plural, nonce=2)
    verb = (pl.col("type") == "subject-verb") & (pl.col("varied") == "target")
    s1 = pairs.filter((pl.col("sent_id") == "s1") & verb)
    assert set(s1["variant"]) == {"original"}
    assert manifest["counts"]["pair_skips"]["no-nonce"] >= 2


def test_without_nonce_every_pair_is_original(tmp_path):
    pairs, manifest, _ = mine(tmp_path, CHAT, *OTHERS, nonce=0)
    assert set(pairs["variant"]) == {"original"}
    assert manifest["counts"]["nonce_pairs"] == 0


def test_exports_carry_the_variant(tmp_path):
    import json

    from ud_agree.mine.export import export

    pairs, _, _ = mine(tmp_path, CHAT, *OTHERS)
    table = tmp_path / "corpus" / "fr" / "pairs.parquet"
    assert export(table, "blimp", tmp_path / "p.jsonl") == pairs.height
    records = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert {r["variant"] for r in records} == set(pairs["variant"])
    assert all(r["UID"].endswith("_nonce") == (r["variant"] != "original") for r in records)
    export(table, "multiblimp", tmp_path / "p.tsv")
    exported = pl.read_csv(tmp_path / "p.tsv", separator="\t", quote_char='"')
    assert exported["variant"].to_list() == pairs["variant"].to_list()


def test_a_replaced_word_takes_the_capitalisation_of_the_word_it_replaces(tmp_path):
    from ud_agree.mine.rules.surface import capitalised_word_like

    assert capitalised_word_like("chien", "Chat") == "Chien"
    assert capitalised_word_like("chien", "CHAT") == "CHIEN"
    assert capitalised_word_like("chien", "chat") == "chien"
    grand = (
        "1 Grand grand ADJ Gender=Masc|Number=Sing 2 amod",
        "2 chat chat NOUN Gender=Masc|Number=Sing 3 nsubj",
        "3 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
    )
    pairs, _, _ = mine(tmp_path, grand, *OTHERS)
    nonce = pairs.filter((pl.col("sent_id") == "s1") & (pl.col("variant") != "original"))
    first_words = {text.split(" ")[0] for text in nonce["sentence_good"]}
    assert first_words and first_words <= {"Petit", "Gros"}  # other lemmas, capitalised


def test_a_nonce_sentence_splits_into_its_originals_surface_words(tmp_path):
    # DESIGN §5: sentence PLL of a nonce variant runs over its surface words, found from the
    # original's words and spacing.
    from ud_agree.surface import word_spans

    pairs, _, sentences = mine(tmp_path, CHAT, *OTHERS)
    original = sentences["s1"]
    nonce = pairs.filter((pl.col("sent_id") == "s1") & (pl.col("variant") != "original"))
    assert nonce.height
    for text, start, end in nonce.select("sentence_good", "start", "end_good").iter_rows():
        spans = word_spans(text, original.words, original.space_after)
        assert spans is not None and (start, end) in spans
        assert [text[a:b] for a, b in spans] == words_of(text)


def test_draws_are_uniform_over_the_cells_other_lemmas_and_skip_the_words_own():
    import numpy as np
    from ud_agree.mine.nonce import Filler, Word, stream

    bundle = (frozenset({"Sing"}), frozenset({"Masc"}), frozenset(), frozenset())
    cell = [Filler(lemma, lemma) for lemma in ("ane", "ours", "oie", "ibis", "aigle")]
    pool = {("NOUN", bundle, "_"): sorted(cell, key=lambda f: f.lemma)}
    for own in ("aigle", "ibis", "ours", "elan"):  # first, middle, last, not in the cell
        word = Word(0, own, own, "NOUN", bundle, "_", False)
        others = [f for f in pool[("NOUN", bundle, "_")] if f.lemma != own]
        for seed in range(20):
            drawn = list(stream(pool, word, lambda seed=seed: np.random.default_rng(seed)))
            rng = np.random.default_rng(seed)
            expected = [others[int(rng.integers(len(others)))] for _ in range(20)]
            assert drawn == expected  # every form starts with a vowel, like the word: all kept
            assert own not in {f.lemma for f in drawn}


def test_forms_with_a_space_or_elided_are_never_fillers():
    from ud_agree.mine.nonce import filler_pool

    rows = [  # one cell, NOUN Masc Sing: three lemmas, two of them unusable
        ("chat", "chat", 3),
        ("pomme de terre", "pomme de terre", 2),
        ("l'", "le", 5),
    ]
    lexicon = pl.DataFrame(
        [
            {"form": form, "lemma": lemma, "upos": "NOUN", "count": count, "feats": "_",
             "number": ["Sing"], "gender": ["Masc"], "case": None, "person": None,
             "definite": None}
            for form, lemma, count in rows
        ],
        schema_overrides={name: pl.List(pl.String) for name in ("case", "person", "definite")},
    )  # fmt: skip
    pool = filler_pool(lexicon)
    assert [f.form for fillers in pool.values() for f in fillers] == ["chat"]


def test_a_word_inside_a_transparent_token_stays_and_its_bad_form_replaces_its_part(tmp_path):
    # *dort-il* is *dort* + *-il* run together (§4: transparent), so *dort* has pairs; the token is
    # no word of its own (§9), so it stays in every variant, and *dorment* replaces *dort* in it.
    dort_il = (
        *CHAT[:2],
        "3 chat chat NOUN Gender=Masc|Number=Sing 4 nsubj",
        "4-5 dort-il _ _ _ _ _",
        "4 dort dormir VERB Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin 0 root",
        "5 -il il PRON _ 4 expl",
        "6 ? ? PUNCT _ 4 punct",
    )
    # *dorment-il* written as a token somewhere (§4.1: a rebuilt token must be attested).
    dorment_il = (
        "1-2 dorment-il _ _ _ _ _",
        "1 dorment dormir VERB Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin 0 root",
        "2 -il il PRON _ 1 expl",
    )
    pairs, _, _ = mine(tmp_path, dort_il, *OTHERS, dorment_il)
    verbs = pairs.filter(
        (pl.col("sent_id") == "s1")
        & (pl.col("type") == "subject-verb")
        & (pl.col("varied") == "target")
    )
    nonce = verbs.filter(pl.col("variant") != "original")
    assert verbs.filter(pl.col("variant") == "original")["sentence_bad"].to_list() == [
        "Le grand chat dorment-il ?"
    ]
    assert sorted(nonce["variant"]) == ["nonce-1", "nonce-2", "nonce-3"]
    for row in nonce.iter_rows(named=True):
        good, bad, start = row["sentence_good"], row["sentence_bad"], row["start"]
        assert good.startswith("Le ") and good.endswith(" dort-il ?")
        assert good.split()[2] in {"chien", "rat"}  # the subject is replaced, the token is not
        assert bad == good.replace("dort-il", "dorment-il")
        assert (good[start : row["end_good"]], bad[start : row["end_bad"]]) == ("dort", "dorment")


def test_a_variants_bad_sentence_names_its_other_contrasts_as_its_original_does(tmp_path):
    # *has* → *have* is Number=Plur and Person=1 at once (one row, `also`, §4.1); so is the
    # variant's *holds* → *hold*: the variant is decided over all the relation's features too.
    from tests.mine.test_pairs_fold import DOG_HAS, I_HAVE, PRESENT, THEY_HAVE

    holds = (
        "1 The the DET Definite=Def|PronType=Art 2 det",
        "2 cat cat NOUN Number=Sing 3 nsubj",
        f"3 holds hold VERB {PRESENT}|Number=Sing|Person=3 0 root",
        "4 sticks stick NOUN Number=Plur 3 obj",
    )
    i_hold = ("1 I I PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
              f"2 hold hold VERB {PRESENT}|Number=Sing|Person=1 0 root")  # fmt: skip
    they_hold = ("1 They they PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
                 f"2 hold hold VERB {PRESENT}|Number=Plur|Person=3 0 root")  # fmt: skip
    blocks = (DOG_HAS, I_HAVE, THEY_HAVE, holds, i_hold, they_hold)
    write_treebank(tmp_path / "ud", "English", "en", blocks)
    options = Options(ud_dir=tmp_path / "ud", out=tmp_path / "corpus",
                      unimorph_dirs=[tmp_path / "no-unimorph"], progress=False, nonce=2)  # fmt: skip
    mine_languages(options)
    pairs = pl.read_parquet(tmp_path / "corpus" / "en" / "pairs.parquet")
    verb = pairs.filter((pl.col("sent_id") == "s1") & (pl.col("type") == "subject-verb"))
    rows = verb.select("variant", "feature", "bad_value", "good_form", "bad_form", "also").rows()
    assert sorted(rows) == [
        ("nonce-1", "Number", "Plur", "holds", "hold", ["Person=1"]),
        ("nonce-2", "Number", "Plur", "holds", "hold", ["Person=1"]),
        ("original", "Number", "Plur", "has", "have", ["Person=1"]),
    ]
