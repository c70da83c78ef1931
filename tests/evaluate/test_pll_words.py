"""`--pll sentence` words (DESIGN.md §5): peers' suites take the tokenizer's own words
(`word_ids()`, as minicons' `within_word_l2r`), the corpus's pairs their UD surface words; each
equals a plain one-sentence loop, with a tiny random BERT built from config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.readings.token_sums import sentence_scores

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ud_agree.evaluate.backends import load_scorer  # noqa: E402
from ud_agree.evaluate.options import Options  # noqa: E402
from ud_agree.evaluate.run import evaluate  # noqa: E402
from ud_agree.mine.plan import Options as MineOptions  # noqa: E402
from ud_agree.mine.run import mine_languages  # noqa: E402

from tests.evaluate.faults import record_fingerprint  # noqa: E402
from tests.paths import SAMPLE, TINY_BERT, needs_tiny_models  # noqa: E402
from ud_agree.surface import surface_text  # noqa: E402

pytestmark = needs_tiny_models

# Surface words (UD): `L'` and `homme` are two, `précédent` and its comma two.
SURFACE = [
    (["L'", "homme", "précédent", ",", "anticonstitutionnellement", ",", "est", "parti", "."],
     [False, True, False, True, False, True, True, False, False]),
    (["Les", "hippopotamidés", "dorment", "."], [True, True, False, False]),
]  # fmt: skip


@pytest.fixture(scope="module")
def random_bert(tmp_path_factory) -> Path:
    """A 2-layer BERT with random weights and tiny-fr-ud-bert's tokenizer."""
    folder = tmp_path_factory.mktemp("bert")
    tokenizer = transformers.AutoTokenizer.from_pretrained(TINY_BERT)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=128, initializer_range=0.5,
    )  # fmt: skip
    transformers.BertForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def loop_pll(folder: Path, text: str, words: list[tuple[int, int]] | None) -> float:
    """Sentence PLL one sentence at a time: a token's word is its `word_ids()` entry, or the
    surface word that holds its first character; each token is masked with its word's later ones."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForMaskedLM.from_pretrained(folder, dtype=torch.float32).eval()
    encoding = tokenizer(text, return_offsets_mapping=True)
    ids, offsets = encoding["input_ids"], encoding["offset_mapping"]
    if words is None:
        word_of = encoding.word_ids()
    else:
        word_of = [
            None if b == a else next(i for i, (lo, hi) in enumerate(words) if lo <= a < hi)
            for a, b in offsets
        ]
    total = 0.0
    for k, w in enumerate(word_of):
        if w is None:
            continue
        masked = list(ids)
        for j in range(k, len(ids)):
            if word_of[j] == w:
                masked[j] = tokenizer.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([masked])).logits[0, k].double()
        total += float(logits.log_softmax(-1)[ids[k]])
    return total


def test_suites_take_the_tokenizers_words_and_pairs_their_surface_words(random_bert):
    scorer = load_scorer(str(random_bert), pll="sentence", device="cpu", batch_size=3)
    texts, spans = zip(*(surface_text(w, s) for w, s in SURFACE), strict=True)
    tokenizer = transformers.AutoTokenizer.from_pretrained(random_bert)
    # The sentences hold words of several tokens, and words that the two definitions split apart.
    assert any(len(tokenizer.tokenize(w)) > 1 for words, _ in SURFACE for w in words)
    by_tokenizer = sentence_scores(scorer, list(texts))
    by_surface = sentence_scores(scorer, list(texts), words=list(spans))
    np.testing.assert_allclose(by_tokenizer, [loop_pll(random_bert, t, None) for t in texts],
                               atol=1e-4)  # fmt: skip
    np.testing.assert_allclose(
        by_surface, [loop_pll(random_bert, t, list(s)) for t, s in zip(texts, spans, strict=True)],
        atol=1e-4,
    )  # fmt: skip
    assert abs(by_tokenizer[0] - by_surface[0]) > 1e-3  # `L'` is two words of BERT, one of UD
    # Batch size and order do not matter.
    other = load_scorer(str(random_bert), pll="sentence", device="cpu", batch_size=64)
    np.testing.assert_allclose(sentence_scores(other, list(texts)[::-1])[::-1], by_tokenizer,
                               atol=1e-5)  # fmt: skip


def test_pair_reading_scores_sentences_over_their_surface_words(random_bert, tmp_path):
    corpus = tmp_path / "corpus"
    mine_languages(MineOptions(ud_dir=SAMPLE / "ud", out=corpus, unimorph_dirs=[SAMPLE / "unimorph"],
                               all_types=True, progress=False, langs=["fr"]))  # fmt: skip
    options = Options(lang="fr", corpus=str(corpus), model=str(random_bert), reading="pair",
                      pll="sentence", out=str(tmp_path / "out"), progress=False, device="cpu",
                      limit=6)  # fmt: skip
    results = pl.read_parquet(evaluate(options).out_dir / "results-*.parquet")
    assert set(results["method"]) == {"pll-sentence"} and results.height > 0
    sentences = pl.read_parquet(corpus / "fr" / "sentences.parquet")
    pairs = pl.read_parquet(corpus / "fr" / "pairs.parquet")
    key = ["sent_id", "target_id", "controller_id", "feature", "bad_form"]
    joined = (
        results.select(*key, "score_good", "score_bad")
        .join(pairs, on=key)
        .join(sentences.select("sent_id", "words", "space_after"), on="sent_id")
    )
    assert joined.height == results.height
    for row in joined.iter_rows(named=True):
        text, spans = surface_text(row["words"], row["space_after"])
        assert text == row["sentence_good"]
        assert row["score_good"] == pytest.approx(loop_pll(random_bert, text, spans), abs=1e-4)
        surface = next(i for i, (a, _) in enumerate(spans) if a == row["start"])
        bad, bad_spans = surface_text(row["words"], row["space_after"], {surface: row["bad_form"]})
        assert bad == row["sentence_bad"]
        assert row["score_bad"] == pytest.approx(loop_pll(random_bert, bad, bad_spans), abs=1e-4)


def test_pair_words_are_the_surface_words_of_original_and_nonce_sentences():
    from ud_agree.evaluate.tasks.corpus_pairs import pair_words

    words = ["Le", "chat", "noir", "dort", "."]
    space_after = [True, True, True, False, False]
    rows = [  # varied word "noir": original, and a nonce variant with chat → rat, dort → ronge
        ("Le chat noir dort.", "Le chat noirs dort.", 8, 12, 13),
        ("Le rat blanc ronge.", "Le rat blancs ronge.", 7, 12, 13),
        ("Le rat blanc ne ronge pas.", "Le rat blancs ne ronge pas.", 7, 12, 13),  # not its words
    ]
    pairs = pl.DataFrame(
        [(words, space_after, *row) for row in rows],
        schema=["words", "space_after", "sentence_good", "sentence_bad", "start", "end_good",
                "end_bad"],
        orient="row",
    )  # fmt: skip
    good, bad = pair_words(pairs)[:3], pair_words(pairs)[3:]
    assert good[0] == [(0, 2), (3, 7), (8, 12), (13, 17), (17, 18)]
    assert bad[0] == [(0, 2), (3, 7), (8, 13), (14, 18), (18, 19)]
    assert [pairs["sentence_bad"][1][a:b] for a, b in bad[1]] == [
        "Le",
        "rat",
        "blancs",
        "ronge",
        ".",
    ]
    assert good[2] is None and bad[2] is None  # the tokenizer's words then


def test_a_token_holding_the_varied_word_is_split_at_it_into_its_words():
    from ud_agree.evaluate.tasks.corpus_pairs import pair_words

    # *isn't* is *is* + *n't* (a transparent token, §4): the varied *is* is a word of its own
    # for the within-word rule, and *n't* is another, in the good and in the bad sentence.
    pairs = pl.DataFrame(
        [(["It", "isn't", "."], [True, False, False], "It isn't.", "It aren't.", 3, 5, 6)],
        schema=["words", "space_after", "sentence_good", "sentence_bad", "start", "end_good",
                "end_bad"],
        orient="row",
    )  # fmt: skip
    good, bad = pair_words(pairs)
    assert [pairs["sentence_good"][0][a:b] for a, b in good] == ["It", "is", "n't", "."]
    assert [pairs["sentence_bad"][0][a:b] for a, b in bad] == ["It", "are", "n't", "."]


def test_pairs_the_surface_words_cannot_serve_are_counted(random_bert, tmp_path):
    corpus = tmp_path / "corpus"
    mine_languages(MineOptions(ud_dir=SAMPLE / "ud", out=corpus, unimorph_dirs=[SAMPLE / "unimorph"],
                               all_types=True, progress=False, langs=["fr"]))  # fmt: skip
    pairs = pl.read_parquet(corpus / "fr" / "pairs.parquet")
    chosen = pairs["sent_id"][0]
    # That sentence's words, all glued, no longer spell it: its pairs take the tokenizer's words.
    path = corpus / "fr" / "sentences.parquet"
    sentences = pl.read_parquet(path)
    glued = pl.col("space_after").list.eval(pl.lit(False).repeat_by(pl.len()).explode())
    sentences.with_columns(
        pl.when(pl.col("sent_id") == chosen)
        .then(glued)
        .otherwise(pl.col("space_after"))
        .alias("space_after")
    ).write_parquet(path)
    record_fingerprint(path)  # a corpus that holds such a sentence, as mined
    options = Options(lang="fr", corpus=str(corpus), model=str(random_bert), reading="pair",
                      pll="sentence", out=str(tmp_path / "out"), progress=False, device="cpu")  # fmt: skip
    outcome = evaluate(options)
    results = pl.read_parquet(outcome.out_dir / "results-*.parquet")
    expected = results.filter(pl.col("sent_id") == chosen).height
    assert expected > 0
    assert outcome.manifest["counts"]["words_from_tokenizer"] == expected
    key = ["sent_id", "target_id", "controller_id", "feature", "bad_form"]
    scored = results.filter(pl.col("sent_id") == chosen).join(
        pairs.select(*key, "sentence_good"), on=key
    )
    for row in scored.iter_rows(named=True):
        good = loop_pll(random_bert, row["sentence_good"], None)
        assert row["score_good"] == pytest.approx(good, abs=1e-4)
