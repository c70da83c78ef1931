"""What the sampler and the scorer share: the sheets' columns, the verdict words, the error."""

from __future__ import annotations

from ud_agree.errors import UserError

RULE_SEPARATOR = "+"  # a pair with several derived values: `implicit-person+transparent-token`
MARK_OPEN, MARK_CLOSE = "[[", "]]"
KEY = "key.csv"
README = "README.txt"
# Item ids start with a letter, so that no spreadsheet reads one as a number (`0123e456`).
ITEM_PREFIX = "p"
# Where a technical column sits: after what a judge reads and fills.
TECHNICAL = ("item", "lang", "type", "rule", "treebank", "sent_id", "target_id", "controller_id")
SHEET_COLUMNS = (
    *("verdict", "reason", "sentence_good", "sentence_bad"),
    *("feature", "good_form", "bad_form", "good_value", "bad_value", "also"),
    *TECHNICAL,
    "varied",
)
# A blind sheet names no sentence good or bad (`choice` is the letter of the bad one), and none
# of what would tell: the other contrasts of the bad sentence (`also`), where the pair comes from
# (the treebank's sentence is the good one); the key keeps those.
BLIND_COLUMNS = (
    *("choice", "verdict", "reason", "sentence_a", "sentence_b"),
    *("feature", "form_a", "form_b", "value_a", "value_b"),
    *TECHNICAL[:4],
)
# `sheet`: the file an item was written to (keys written before it have none, nor the rest).
KEY_COLUMNS = ("item", "lang", "type", "rule", "bad", "sheet", *TECHNICAL[4:], "varied")
KEY_REQUIRED = KEY_COLUMNS[:5]
SHEET_REQUIRED = ("item", "lang", "type", "rule", "verdict", "reason")
CHOICES = ("a", "b", "neither")
# What each verdict means, for the judges' instructions (docs/validity.md has examples).
MEANINGS = {
    "valid": "the bad sentence is ungrammatical, and only because the marked word no longer "
    "agrees in the named feature",
    "grammatical-bad": "the bad sentence is grammatical after all",
    "wrong-feature": "ungrammatical, but another feature of the marked word changed too",
    "broken-surface": "the bad sentence would not be written that way in any case "
    "(spelling, elision, contraction)",
    "not-agreement": "the words do not agree here at all, so the contrast tests nothing",
    "unsure": "you cannot tell",
}


class ValidateError(UserError):
    """A corpus, sheet or key that cannot be sampled or scored."""
