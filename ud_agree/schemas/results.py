"""Arrow schema of the evaluator's per-item results (DESIGN.md §3, §5, §6), declared once."""

from __future__ import annotations

from typing import Literal, get_args

import pyarrow as pa

from .corpus import RELATION_KEY, TYPES, described

# One result row per item: a relation with one masked role (class-average: `masked`), or one
# minimal pair of a relation (pair reading: `varied`, feature, bad value and variant tell its
# pairs apart).
ITEM_KEY = (*RELATION_KEY, "masked", "varied", "feature", "bad_value", "variant")
READINGS = ("class-average", "pair")

# §5.1's ingredients of a pair's sentence: name, type, what it is.
INGREDIENT_FIELDS = (
    ("lp_sum", pa.float64(), "the summed score (log-probability or PLL)"),
    (
        "lp_native",
        pa.float64(),
        "the sentence as its tokenizer encodes it, every token after the first (minicons; null: "
        "not run, ask --rules minicons)",
    ),
    ("n_tokens", pa.int32(), "tokens scored"),
    ("n_chars", pa.int32(), "characters of the span scored (the sentence; --pll word: the word)"),
    ("n_bytes", pa.int32(), "UTF-8 bytes of the span scored"),
    ("lp_word", pa.float64(), "the sum over the varied word's tokens"),
    (
        "lp_unigram",
        pa.float64(),
        "Σ log (c + 1) / (N + V) over its scored tokens, c the model's tokens counted over the "
        "language's sentences (null: a suite)",
    ),
)
# §5.1's scoring rules, listed here once: the `Rule` of the options, the table of
# evaluate/readings/scoring_rules.py, the `right_<rule>` columns and the summaries' `ties_<rule>`.
Rule = Literal["sum", "minicons", "mean", "chars", "bytes", "word", "slor"]
RULE_NAMES: tuple[Rule, ...] = get_args(Rule)
# Columns of results written before `minicons` replaced `no_bos` (§5.1): read, then left out.
RETIRED_COLUMNS = ("lp_first_good", "lp_first_bad", "right_no_bos")

RESULTS = pa.schema(
    [
        described("lang", pa.string(), "language of the corpus (`fr`)"),
        described("treebank", pa.string(), "treebank name (`GSD`)"),
        described("sent_id", pa.string(), "sentence id; with lang, treebank: the sentence key"),
        described("type", pa.string(), "agreement type: " + ", ".join(TYPES)),
        described("target_id", pa.int32(), "CoNLL-U ID of the target"),
        described("controller_id", pa.int32(), "CoNLL-U ID of the controller"),
        described(
            "masked",
            pa.string(),
            "class-average: the role masked, controller or target (null in the pair reading)",
        ),
        described(
            "varied",
            pa.string(),
            "pair: the role of the word re-inflected, target or controller (null in class-average)",
        ),
        described("form", pa.string(), "the masked or varied word's form"),
        described("lemma", pa.string(), "its lemma"),
        described("upos", pa.string(), "its UPOS"),
        described("agreeing", pa.list_(pa.string()), "the relation's agreeing features, sorted"),
        described("distance", pa.int32(), "|ID(target) − ID(controller)| in syntactic words"),
        described(
            "distance_tokens",
            pa.int32(),
            "the same distance in model tokens (null without a tokenizer)",
        ),
        described("distractors", pa.int32(), "nouns anywhere that the target must not agree with"),
        described("attractors", pa.int32(), "distractors between target and controller"),
        described("order", pa.string(), "target-first or controller-first"),
        described("in_mwt", pa.bool_(), "the masked word lies in a multiword token"),
        described("n_correct", pa.int32(), "class-average: number of correct candidates"),
        described("n_incorrect", pa.int32(), "class-average: number of incorrect candidates"),
        described(
            "p_correct", pa.float64(), "class-average: mean probability of the correct candidates"
        ),
        described(
            "p_incorrect",
            pa.float64(),
            "class-average: mean probability of the incorrect candidates",
        ),
        described(
            "logit_correct", pa.float64(), "class-average: mean logit of the correct candidates"
        ),
        described(
            "logit_incorrect", pa.float64(), "class-average: mean logit of the incorrect candidates"
        ),
        described(
            "right", pa.bool_(), "the verdict: p_correct > p_incorrect, or score_good > score_bad"
        ),
        described(
            "right_logit",
            pa.bool_(),
            "class-average: logit_correct > logit_incorrect (the reference code's verdict)",
        ),
        described(
            "model",
            pa.string(),
            "model name, or `frequency-baseline` (`… (<model> vocabulary)` with --vocab-of)",
        ),
        described("match", pa.string(), "class-average: agreement or exact"),
        described("case", pa.string(), "class-average: fold or exact"),
        described(
            "method",
            pa.string(),
            "context, no-context, frequency (class-average); causal, pll-word, pll-sentence, frequency (pair)",
        ),
        described("reading", pa.string(), "class-average or pair; suite: a peer's suite"),
        described(
            "value",
            pa.string(),
            "the masked or varied word's values of the agreeing features, `Gender=Fem|Number=Plur`",
        ),
        described("feature", pa.string(), "pair: the feature changed"),
        described(
            "variant",
            pa.string(),
            "pair: original, or nonce-1 … nonce-K (the sentence's content words replaced)",
        ),
        described("bad_value", pa.string(), "pair: its value in the bad sentence"),
        described("good_form", pa.string(), "pair: the varied word as written"),
        described("bad_form", pa.string(), "pair: the form replacing it"),
        described(
            "score_good",
            pa.float64(),
            "pair: score of the sentence as written (log-probability, PLL or count)",
        ),
        described("score_bad", pa.float64(), "pair: score of the bad sentence"),
        # §5.1: every rule's ingredients, for the good and the bad sentence, and its decision.
        *(
            described(f"{name}_{side}", kind, f"pair: {meaning}, {side} sentence")
            for name, kind, meaning in INGREDIENT_FIELDS
            for side in ("good", "bad")
        ),
        *(
            described(f"right_{rule}", pa.bool_(), f"pair: the `{rule}` rule's decision")
            for rule in RULE_NAMES
        ),
        described("rule", pa.string(), "pair: the rule that decided `right` (--rule)"),
        described(
            "good_count",
            pa.int64(),
            "pair: lexicon count of the good form (for its lemma, upos and bundle; case-folded)",
        ),
        described("bad_count", pa.int64(), "pair: lexicon count of the bad form"),
        described(
            "frequency",
            pa.string(),
            "congruent (the frequency heuristic is right on this item), incongruent or tie",
        ),
        # §7: a peer's suite scored by `python -m evaluate.suite` (its own columns, sentences and
        # metadata included: load_suite_results).
        described("suite", pa.string(), "suite: the suite file's name (`simple_agrmt`)"),
        described(
            "pair_id",
            pa.string(),
            "suite: the pair's line in its file (Parquet: row); SyntaxGym: the item number",
        ),
        described(
            "condition",
            pa.string(),
            "suite: BLiMP UID, CLAMS file, MultiBLiMP phenomenon or --condition; SyntaxGym: the "
            "prediction, `0: (2;%mismatch%) > (2;%match%)`",
        ),
        described(
            "source",
            pa.string(),
            "where the pair or item comes from: the corpus's language (`fr`), or the suite's "
            "name (`simple_agrmt`)",
        ),
    ]
)
