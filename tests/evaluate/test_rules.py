"""Scoring rules side by side (DESIGN §5.1): each rule's decision on sentences whose token scores are
known, oracles through the pair reading, `minicons` against a plain loop, and the BOS conventions
of three model families (BOS added by the tokenizer, EOS only, neither)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

import numpy as np
import polars as pl
import pytest
from ud_agree.evaluate.backends.api import TokenScores
from ud_agree.evaluate.options import Options, Rule, UsageError
from ud_agree.evaluate.readings.scoring_rules import (
    RULES,
    TokenUnigram,
    differing_span,
    ingredients,
    rule_columns,
    rule_values,
    token_unigram,
    unigram_logprobs,
)

from tests.paths import MODELS
from ud_agree.schemas.results import RESULTS, RULE_NAMES


def test_the_rules_are_declared_once_in_the_schema_order():
    assert get_args(Rule) == RULES == RULE_NAMES
    for rule in RULES:
        assert f"right_{rule}" in RESULTS.names


def sides(good: TokenScores, bad: TokenScores, texts, words, unigram=None):
    columns = ingredients([good, bad], texts, words)
    if unigram is not None:  # the unigram sums given as they are
        columns["lp_unigram"] = unigram
    return ({k: v[:1] for k, v in columns.items()}, {k: v[1:] for k, v in columns.items()})


def test_each_rule_decides_by_its_own_value():
    # Good: 4 tokens, -8 in all, 20 characters and bytes; bad: 2 tokens, -6, 10 characters but
    # 16 bytes (é is two).
    good_text, bad_text = "aaaa bbbb cccc ddddd", "éééééé fff"
    good = TokenScores([(0, 4), (5, 9), (10, 14), (15, 20)], np.array([-2.0] * 4), np.ones(3) * -2)
    bad = TokenScores([(0, 6), (7, 10)], np.array([-1.0, -5.0]), np.array([-5.0]))
    g, b = sides(good, bad, [good_text, bad_text], [(5, 9), (7, 10)], np.array([-10.0, -1.0]))
    right = {k: v[0] for k, v in rule_columns(g, b).items() if k.startswith("right_")}
    assert right == {
        "right_sum": False,  # -8 < -6
        "right_minicons": False,  # native sums: -6 < -5
        "right_mean": True,  # -2 > -3
        "right_chars": True,  # -8/20 = -0.4 > -6/10
        "right_bytes": False,  # -8/20 < -6/16
        "right_word": True,  # -2 (bbbb) > -5 (fffff)
        "right_slor": True,  # (-8 + 10) / 4 = 0.5 > (-6 + 1) / 2
    }


def test_a_tie_is_not_right_and_a_missing_ingredient_decides_nothing():
    same = TokenScores([(0, 1)], np.array([-1.0]))  # lp_native not run: null
    g, b = sides(same, same, ["a", "a"], [None, None])
    columns = rule_columns(g, b)
    assert columns["right_sum"].to_list() == [False]
    assert columns["right_minicons"].to_list() == [None]
    assert columns["lp_native_good"].to_list() == [None]
    assert columns["right_word"].to_list() == [None] and columns["right_slor"].to_list() == [None]


def test_an_unknown_rule_is_refused_not_read_as_another():
    g, _ = sides(TokenScores([(0, 1)], np.array([-1.0])), TokenScores([], np.zeros(0)), ["a", ""],
                 [None, None])  # fmt: skip
    assert rule_values(g, "sum").tolist() == [-1.0]
    with pytest.raises(ValueError, match="unknown scoring rule 'median'"):
        rule_values(g, "median")
    with pytest.raises(ValueError, match="unknown scoring rule 'no_bos'"):
        rule_values(g, "no_bos")


class CharTokenizer:
    """Every character a token, its id its position in `VOCAB` (a tokenizer one can count by eye)."""

    VOCAB = "abcé "

    def __len__(self) -> int:
        return len(self.VOCAB)

    def __call__(self, texts, add_special_tokens=True):
        return {"input_ids": [[self.VOCAB.index(c) for c in t] for t in texts]}


def test_the_token_unigram_counts_the_models_own_tokens_over_the_sentences():
    unigram = token_unigram(CharTokenizer(), ["abba", "cab"], batch=1)
    assert unigram.counts.tolist() == [3, 3, 1, 0, 0] and unigram.total == 7
    scored = TokenScores([(0, 1), (1, 2)], np.array([-1.0, -2.0]), ids=np.array([1, 3]))
    (value,) = unigram_logprobs([scored], unigram)
    n, v = 7, 5  # tokens counted, vocabulary size
    assert value == pytest.approx(math.log((3 + 1) / (n + v)) + math.log((0 + 1) / (n + v)))
    assert np.isnan(unigram_logprobs([scored], None)).all()  # a suite: no corpus
    assert np.isnan(unigram_logprobs([TokenScores([], np.zeros(0))], unigram)).all()  # no ids


def test_under_word_pll_every_ingredient_is_the_words():
    # "Les chats dorment ." with the verb scored alone: 2 tokens (ids 1 and 2), -3 in all.
    text = "Les chats dorment ."
    verb = (10, 17)
    scored = TokenScores([(10, 14), (14, 17)], np.array([-1.0, -2.0]), ids=np.array([1, 2]))
    unigram = TokenUnigram(np.array([5, 4, 1, 0]), 10)
    columns = ingredients([scored], [text], [verb], unigram, covered=[verb])
    assert columns["n_tokens"].tolist() == [2]
    assert columns["n_chars"].tolist() == [7] and columns["n_bytes"].tolist() == [7]
    expected = math.log(5 / 14) + math.log(2 / 14)  # (c + 1) / (N + V), N = 10, V = 4
    assert columns["lp_unigram"][0] == pytest.approx(expected)
    whole = ingredients([scored], [text], [verb], unigram)
    assert whole["n_chars"].tolist() == [len(text)]  # a sentence score: the sentence's


def test_a_peers_pair_names_the_words_that_differ():
    assert differing_span("The cats sleep.", "The cats sleeps.") == ((9, 15), (9, 16))
    assert differing_span("These dog barks.", "This dog barks.") == ((0, 5), (0, 4))


# -- through the pair reading ------------------------------------------------------------------


@dataclass
class TokenOracle:
    """Every token of a good sentence -1, of any other -3 (reversed: the other way round)."""

    good: set[str]
    reverse: bool = False
    name: str = "token-oracle"
    method: str = "causal"
    tokenizer: None = None
    forwards: int = 0
    seen: list[str] = field(default_factory=list)

    def token_scores(self, texts, words=None) -> list[TokenScores]:
        out = []
        for text in texts:
            spans = [(m.start(), m.end()) for m in __import__("re").finditer(r"\S+", text)]
            value = -1.0 if (text in self.good) != self.reverse else -3.0
            values = np.full(len(spans), value)
            out.append(TokenScores(spans, values, values))
        return out

    def facts(self) -> dict:
        return {"stub": "token-oracle"}


@pytest.fixture(scope="module")
def sample_pairs(tmp_path_factory):
    from ud_agree.mine.plan import Options as MineOptions
    from ud_agree.mine.run import mine_languages

    from tests.paths import SAMPLE

    out = tmp_path_factory.mktemp("corpus")
    mine_languages(MineOptions(ud_dir=SAMPLE / "ud", out=out, langs=["fr"],
                               unimorph_dirs=[SAMPLE / "unimorph"], progress=False))  # fmt: skip
    return out


def run_pairs(corpus: Path, out: Path, scorer, rule: str = "sum") -> pl.DataFrame:
    from ud_agree.evaluate.run import evaluate

    options = Options(lang="fr", corpus=str(corpus), model="oracle", reading="pair",
                      out=str(out), progress=False, rule=rule)  # fmt: skip
    outcome = evaluate(options, scorer=scorer)
    return pl.read_parquet(outcome.out_dir / "results-*.parquet")


def test_an_oracle_is_right_by_every_length_rule_and_a_reversed_one_wrong(sample_pairs, tmp_path):
    pairs = pl.read_parquet(sample_pairs / "fr" / "pairs.parquet")
    good = set(pairs["sentence_good"])
    right = run_pairs(sample_pairs, tmp_path / "a", TokenOracle(good))
    wrong = run_pairs(sample_pairs, tmp_path / "b", TokenOracle(good, reverse=True))
    for rule in ("sum", "minicons", "mean", "chars", "bytes", "word"):
        assert right[f"right_{rule}"].all(), rule
        assert not wrong[f"right_{rule}"].any(), rule
    assert right.height == pairs.height and (right["rule"] == "sum").all()


def test_the_headline_rule_is_the_one_asked_for_and_its_run_keeps_its_own_folder(
    sample_pairs, tmp_path
):
    from ud_agree.evaluate.options import out_dir

    scorer = TokenOracle(
        set(pl.read_parquet(sample_pairs / "fr" / "pairs.parquet")["sentence_good"])
    )
    rows = run_pairs(sample_pairs, tmp_path / "w", scorer, rule="word")
    assert (rows["right"] == rows["right_word"]).all() and (rows["rule"] == "word").all()
    # A run under another headline rule never replaces the default run's rows.
    folders = {rule: out_dir(Options(lang="fr", model="m", reading="pair", rule=rule)).name
               for rule in ("sum", "chars")}  # fmt: skip
    assert folders == {"sum": "m__pll-word", "chars": "m__pll-word__rule-chars"}
    with pytest.raises(UsageError, match="pair reading"):
        Options(lang="fr", rule="chars")
    with pytest.raises(UsageError, match="--rule"):
        Options(lang="fr", reading="pair", rule="median")


# -- real tokenizers and random models: BOS conventions and `minicons` --------------------------

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def random_causal(folder: Path, tokenizer) -> Path:
    """A tiny random GPT-2 body for any tokenizer (its special tokens as given)."""
    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_embd=32, n_layer=2, n_head=2,
                                     n_positions=128, bos_token_id=tokenizer.bos_token_id,
                                     eos_token_id=tokenizer.eos_token_id)  # fmt: skip
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def lm(folder: Path, **kwargs):
    from ud_agree.evaluate.backends.causal import CausalLM
    from ud_agree.evaluate.backends.models import CAUSAL, load_model

    return CausalLM(load_model(str(folder), "cpu", kind=CAUSAL), **kwargs)


def loop_token_logprobs(model, ids: list[int]) -> np.ndarray:
    """log P(token i | tokens before it) for i ≥ 1, one sentence, from model(ids).logits."""
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double()
    return logits[:-1].log_softmax(-1)[torch.arange(len(ids) - 1), torch.tensor(ids[1:])].numpy()


TEXTS = ["Les chats dorment.", "Le chat dort.", "Il parle du chat avec elle."]


def needs(name: str) -> None:
    if not (MODELS / name).is_dir():
        pytest.skip(f"shared {name} not present")


def minicons_loop(model, tokenizer, text: str) -> float:
    """minicons' `sequence_score` by hand: the tokenizer's default encoding, every token after the
    first given those before it, summed."""
    return float(loop_token_logprobs(model, tokenizer(text)["input_ids"]).sum())


def test_minicons_is_the_sentence_without_bos_in_the_context(tmp_path):
    needs("tiny-fr-ud-gpt2")
    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "tiny-fr-ud-gpt2")
    folder = random_causal(tmp_path / "m", tokenizer)
    texts = [*TEXTS, "Les chats du voisin dorment.", "Les chats du voisin dort."]
    loop = [minicons_loop(lm(folder).model, tokenizer, t) for t in texts]
    for kwargs in ({"batch_size": 1}, {"batch_size": 7}, {"share_prefixes": False}):
        scorer = lm(folder, native=True, **kwargs)
        assert scorer.facts()["lp_native"].startswith("a forward")
        for order in (texts, texts[::-1]):
            columns = ingredients(scorer.token_scores(order), order, [None] * len(order))
            expected = loop if order is texts else loop[::-1]
            np.testing.assert_allclose(columns["lp_native"], expected, rtol=1e-5, atol=1e-4)
            # BOS stays in `sum`'s context: the two differ.
            assert (np.abs(columns["lp_sum"] - columns["lp_native"]) > 1e-3).all()
    # Not asked for: null, and the manifest says why.
    scorer = lm(folder)
    assert all(s.native is None for s in scorer.token_scores(TEXTS))
    assert "not run" in scorer.facts()["lp_native"]


def test_an_unknown_bos_convention_is_refused_only_where_minicons_is_asked(tmp_path):
    needs("tiny-fr-ud-bert")
    from ud_agree.evaluate.options import UsageError

    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "tiny-fr-ud-bert")
    folder = random_causal(tmp_path / "m", tokenizer)  # a causal body on [CLS] … [SEP]
    with pytest.raises(UsageError, match=r"adds \['\[CLS\]', '\[SEP\]'\] around a sentence"):
        lm(folder, native=True)
    # `--rule sum` (or a class-average run) never needs lp_native: the model loads and scores,
    # its sums equal a one-sentence-at-a-time loop, and lp_native is null with the reason said.
    scorer = lm(folder)
    assert "adds ['[CLS]', '[SEP]']" in scorer.facts()["lp_native"]
    found = scorer.token_scores(TEXTS)
    assert all(s.native is None for s in found)
    first = [] if scorer.bos is None else [scorer.bos]
    plain = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in TEXTS]
    loop = [loop_token_logprobs(scorer.model, [*first, *ids]).sum() for ids in plain]
    np.testing.assert_allclose([s.logprobs.sum() for s in found], loop, rtol=1e-5, atol=1e-4)


def test_a_tokenizer_that_adds_bos_itself_never_gets_two(tmp_path):
    needs("mistral-v0.3-tokenizer")
    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "mistral-v0.3-tokenizer")
    assert tokenizer("Le chat")["input_ids"][0] == tokenizer.bos_token_id  # it adds BOS itself
    config = transformers.MistralConfig(vocab_size=len(tokenizer), hidden_size=32,
                                        intermediate_size=64, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2,
                                        bos_token_id=tokenizer.bos_token_id,
                                        eos_token_id=tokenizer.eos_token_id)  # fmt: skip
    torch.manual_seed(0)
    transformers.MistralForCausalLM(config).save_pretrained(tmp_path / "m")
    tokenizer.save_pretrained(tmp_path / "m")
    scorer = lm(tmp_path / "m")
    ids, _ = scorer.encode(TEXTS)
    for text, sequence in zip(TEXTS, ids, strict=True):
        assert sequence == tokenizer(text)["input_ids"]  # one BOS, the tokenizer's own
        assert sequence.count(tokenizer.bos_token_id) == 1
    assert scorer.facts()["bos_token"] == "<s>" and scorer.facts()["bos_scored_first_token"]
    loop = loop_token_logprobs(scorer.model, ids[0])
    assert scorer.token_scores(TEXTS[:1])[0].logprobs.sum() == pytest.approx(loop.sum(), abs=1e-4)
    # minicons keeps the tokenizer's BOS: lp_native is lp_sum, at no cost and without being asked.
    before = scorer.tokens_run
    scored = scorer.token_scores(TEXTS)
    # Each sequence run once, no forward without BOS (a last token predicts nothing: not run).
    assert scorer.tokens_run - before == sum(len(s) - 1 for s in ids)
    for text, s in zip(TEXTS, scored, strict=True):
        assert s.native is s.logprobs
        assert s.native.sum() == pytest.approx(
            minicons_loop(scorer.model, tokenizer, text), abs=1e-4
        )


def test_a_model_with_eos_but_no_bos_conditions_on_eos(tmp_path):
    needs("tiny-fr-ud-gpt2")
    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "tiny-fr-ud-gpt2")
    tokenizer.bos_token = None  # as Qwen's: an EOS, no BOS
    assert tokenizer.bos_token_id is None and tokenizer.eos_token_id is not None
    scorer = lm(random_causal(tmp_path / "m", tokenizer))
    ids, _ = scorer.encode(TEXTS)
    assert all(sequence[0] == tokenizer.eos_token_id for sequence in ids)
    assert scorer.facts()["bos_token"] == tokenizer.eos_token
    assert all(s.native is None for s in scorer.token_scores(TEXTS))  # EOS is no BOS to minicons
    asked = lm(tmp_path / "m", native=True).token_scores(TEXTS)
    for text, s in zip(TEXTS, asked, strict=True):
        assert s.native.sum() == pytest.approx(
            minicons_loop(scorer.model, tokenizer, text), abs=1e-4
        )


def test_a_model_with_neither_leaves_its_first_token_unscored(tmp_path):
    needs("tiny-fr-ud-gpt2")
    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "tiny-fr-ud-gpt2")
    tokenizer.bos_token = None
    tokenizer.eos_token = None
    scorer = lm(random_causal(tmp_path / "m", tokenizer))
    assert scorer.facts()["bos_token"] is None
    assert scorer.facts()["bos_scored_first_token"] is False
    scored = scorer.token_scores(TEXTS)
    columns = ingredients(scored, TEXTS, [None] * len(TEXTS))
    np.testing.assert_array_equal(columns["lp_native"], columns["lp_sum"])  # nothing given BOS
    for i, text in enumerate(TEXTS):
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        assert columns["n_tokens"][i] == len(ids) - 1
        assert columns["lp_sum"][i] == pytest.approx(
            loop_token_logprobs(scorer.model, ids).sum(), abs=1e-4
        )


@pytest.mark.parametrize("trust", [False, True])
def test_trust_remote_code_reaches_every_from_pretrained(tmp_path, monkeypatch, trust):
    needs("tiny-fr-ud-gpt2")
    from ud_agree.evaluate.backends import load_scorer

    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "tiny-fr-ud-gpt2")
    folder = random_causal(tmp_path / "m", tokenizer)
    seen: list[tuple[str, object]] = []
    for auto in ("AutoConfig", "AutoTokenizer", "AutoModelForCausalLM"):
        cls = getattr(transformers, auto)
        original = cls.from_pretrained

        def recording(*args, _original=original, _name=auto, **kwargs):
            seen.append((_name, kwargs.get("trust_remote_code")))
            return _original(*args, **kwargs)

        monkeypatch.setattr(cls, "from_pretrained", recording)
    load_scorer(str(folder), device="cpu", trust_remote_code=trust)
    assert {name for name, _ in seen} == {"AutoConfig", "AutoTokenizer", "AutoModelForCausalLM"}
    assert all(value is trust for _, value in seen)


def test_leading_space_scores_a_space_and_each_sentence_as_a_hand_loop(tmp_path):
    needs("tiny-fr-ud-gpt2")
    from ud_agree.evaluate.readings.pair_scores import pair_scores

    tokenizer = transformers.AutoTokenizer.from_pretrained(MODELS / "tiny-fr-ud-gpt2")
    scorer = lm(random_causal(tmp_path / "m", tokenizer))
    pairs = pl.DataFrame({"sentence_good": ["Les chats dorment.", "Le chat dort."],
                          "sentence_bad": ["Les chats dort.", "Le chat dorment."]})  # fmt: skip
    plain = pairs.with_columns(*pair_scores(scorer, pairs).values())
    spaced = pairs.with_columns(
        *pair_scores(scorer, pairs, rule="chars", leading_space=True).values()
    )
    bos = tokenizer.bos_token_id
    for side in ("good", "bad"):
        for text, value, n_chars, word in zip(
            pairs[f"sentence_{side}"], spaced[f"score_{side}"], spaced[f"n_chars_{side}"],
            spaced[f"lp_word_{side}"], strict=True,
        ):  # fmt: skip
            ids = tokenizer(" " + text, add_special_tokens=False, return_offsets_mapping=True)
            loop = loop_token_logprobs(scorer.model, [bos, *ids["input_ids"]])
            assert value == pytest.approx(loop.sum(), abs=1e-4)
            assert n_chars == len(text) + 1
            # The verb's tokens in " " + text: the span moved with the text.
            start = text.rindex(" ") + 1
            inside = [k for k, (a, b) in enumerate(ids["offset_mapping"]) if b > start + 1]
            assert word == pytest.approx(loop[inside].sum(), abs=1e-4)
    assert (spaced["score_good"] - plain["score_good"]).abs().min() > 1e-4  # other texts
    assert (spaced["right"] == spaced["right_chars"]).all()


def test_the_pair_options_belong_to_the_pair_reading_and_keep_their_own_folder():
    from ud_agree.evaluate.options import out_dir

    spaced = Options(lang="fr", model="m", reading="pair", leading_space=True, rules=["minicons"])
    assert out_dir(spaced).name == "m__pll-word__leading-space"
    assert spaced.rules == ("minicons",) and spaced.runs_native
    assert spaced.as_record()["rules"] == ["minicons"]
    assert not Options(lang="fr", reading="pair").runs_native
    assert Options(lang="fr", reading="pair", rule="minicons").runs_native
    for wrong in ({"leading_space": True}, {"rules": ("minicons",)}):
        with pytest.raises(UsageError, match="pair reading"):
            Options(lang="fr", **wrong)
    with pytest.raises(UsageError, match="--rules 'no_bos'"):
        Options(lang="fr", reading="pair", rules=("no_bos",))


def test_the_rules_and_their_ingredients_are_listed_once_in_the_schema():
    import ud_agree.evaluate.options as options
    import ud_agree.evaluate.readings.scoring_rules as rules

    import ud_agree.schemas.results as schema

    assert options.Rule is schema.Rule and rules.RULES is schema.RULE_NAMES
    assert tuple(name for name, _, _ in schema.INGREDIENT_FIELDS) == rules.INGREDIENTS
