"""Stub sentence scorers with known scores, and small suite files in each peer layout, for tests."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from ud_agree.evaluate.backends.api import TokenScores

BITS = math.log(2)  # a token with log-probability -k·ln 2 has a surprisal of k bits


class OracleScorer:
    """Prefers the sentences it is told are good (reversed: prefers every other sentence).

    Each whitespace token (its leading space included, as GPT-2's `Ġword`) has a surprisal of 1
    bit in a good sentence and 3 bits in any other, so a good sentence outscores a bad one of
    fewer than three times its tokens (every pair here).
    """

    method = "causal"
    tokenizer = None  # no tokenizer: the TokenScorer protocol allows None
    forwards = 0

    def __init__(self, good: Iterable[str], reverse: bool = False, name: str = "oracle"):
        self.good, self.reverse, self.name = set(good), reverse, name
        self.calls: list[list[str]] = []

    def preferred(self, text: str) -> bool:
        return (text in self.good) != self.reverse

    def token_scores(self, texts: Sequence[str], words=None) -> list[TokenScores]:
        # Causal, as the protocol says: words never restrict a causal score.
        self.calls.append(list(texts))
        out = []
        for text in texts:
            spans = [m.span() for m in re.finditer(r"\s*\S+", text)]
            bits = 1.0 if self.preferred(text) else 3.0
            out.append(TokenScores(spans, np.full(len(spans), -bits * BITS)))
        return out

    def facts(self) -> dict:
        return {"stub": "oracle", "reverse": self.reverse}


class HashScorer:
    """A scorer with arbitrary but fixed scores: a hash of each whitespace token (tests compare
    loops)."""

    method = "causal"
    name = "hash"
    tokenizer = None
    forwards = 0

    def token_scores(self, texts: Sequence[str], words=None) -> list[TokenScores]:
        out = []
        for text in texts:
            spans = [m.span() for m in re.finditer(r"\s*\S+", text)]
            out.append(TokenScores(spans, np.array([score_of(text[a:b]) for a, b in spans])))
        return out

    def facts(self) -> dict:
        return {"stub": "hash"}


def sentence_score_of(text: str) -> float:
    """HashScorer's score of a whole text: the sum of its whitespace tokens' (leading space kept)."""
    return sum(score_of(m.group()) for m in re.finditer(r"\s*\S+", text))


def score_of(text: str) -> float:
    """A fixed pseudo-random log-probability in (-20, 0] for a text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return -20.0 * int.from_bytes(digest[:4], "big") / 2**32


def factory(scorer):
    """A scorer factory with load_scorer's signature that always returns `scorer`."""
    return lambda model, **kwargs: scorer


# --- Suites of our own, one per layout: (file name, text, its grammatical sentences). -------------

CLAMS = (
    "True\tles auteurs sont vieux\n"
    "False\tles auteurs est vieux\n"
    "False\tle auteur sont vieux\n"  # two words differ from its True line
    "True\tle pilote parle\n"
    "False\tle pilote parlent\n"
)
CLAMS_GOOD = ("les auteurs sont vieux", "le pilote parle")

BLIMP_ROWS = [
    {
        "sentence_good": "The cats sleep.",
        "sentence_bad": "The cats sleeps.",
        "field": "morphology",
        "linguistics_term": "subject_verb_agreement",
        "UID": "regular_plural_subject_verb_agreement_1",
        "simple_LM_method": True,
        "pairID": "0",
    },
    {
        "sentence_good": "This dog barks.",
        "sentence_bad": "These dog barks.",
        "field": "morphology",
        "linguistics_term": "determiner_noun_agreement",
        "UID": "determiner_noun_agreement_1",
        "simple_LM_method": True,
        "pairID": "1",
    },
]
BLIMP = "".join(json.dumps(row) + "\n" for row in BLIMP_ROWS)

# MultiBLiMP's TSV as pandas writes it: an unnamed index column, a quoted field.
MULTIBLIMP = (
    "\tsen\twrong_sen\tprefix\tphenomenon\tlang\tgrammatical_feature\tungrammatical_feature\n"
    "0\tDie Kinder spielen.\tDie Kinder spielt.\tDie Kinder\tSV-#\tdeu\tPL\tSG\n"
    '1\t"Er sagt: ""Ich gehe."""\t"Er sagt: ""Ich gehen."""\tEr sagt: \t'
    "SV-P\tdeu\t1\t3\n"
    "2\tWir lachen.\tWir lacht.\tWir\tSV-P\tdeu\t1\t3\n"
)
MULTIBLIMP_GOOD = ("Die Kinder spielen.", 'Er sagt: "Ich gehe."', "Wir lachen.")

TABLE = "id,good sentence,bad sentence,kind\n1,she walks,she walk,sv\n2,they walk,they walks,sv\n"
TABLE_GOOD = ("she walks", "they walk")

SYNTAXGYM_SUITE = {
    "meta": {"name": "number_agreement", "metric": "sum"},
    "region_meta": {"1": "Subject", "2": "Verb", "3": "Continuation"},
    "predictions": [
        {"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"},
        {"type": "formula", "formula": "(*;%mismatch%) > (*;%match%)"},
    ],
    "items": [
        {
            "item_number": number,
            "conditions": [
                {
                    "condition_name": "match",
                    "regions": [
                        {"region_number": 1, "content": subject},
                        {"region_number": 2, "content": good},
                        {"region_number": 3, "content": "the guitar"},
                    ],
                },
                {
                    "condition_name": "mismatch",
                    "regions": [
                        {"region_number": 1, "content": subject},
                        {"region_number": 2, "content": bad},
                        {"region_number": 3, "content": "the guitar"},
                    ],
                },
            ],
        }
        for number, subject, good, bad in (
            (1, "The woman", "plays", "play"),
            (2, "The women", "play", "plays"),
        )
    ],
}
SYNTAXGYM = json.dumps(SYNTAXGYM_SUITE, indent=2)
SYNTAXGYM_GOOD = ("The woman plays the guitar", "The women play the guitar")

# (file name, text, grammatical sentences, extra options)
SUITES = {
    "clams": ("simple_agrmt.txt", CLAMS, CLAMS_GOOD, {}),
    "blimp": ("regular_agreement.jsonl", BLIMP, [r["sentence_good"] for r in BLIMP_ROWS], {}),
    "multiblimp": ("deu.tsv", MULTIBLIMP, MULTIBLIMP_GOOD, {}),
    "syntaxgym": ("number_agreement.json", SYNTAXGYM, SYNTAXGYM_GOOD, {}),
    "table": ("mine.csv", TABLE, TABLE_GOOD, {"good": "good sentence", "bad": "bad sentence"}),
}


def write(folder: Path, name: str, text: str) -> Path:
    """A suite file with this text (UTF-8)."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
