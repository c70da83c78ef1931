"""The controls page runs as written (mine with --nonce 3, score a causal model and the frequency
baseline) and its polars code gives what a plain loop over the rows gives."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.docs import DOCS, run_page
from tests.paths import MODELS

PAGE = "evaluating/controls.md"


def test_controls_recipe_runs_and_its_numbers_are_those_of_a_plain_loop(tmp_path):
    if not (MODELS / "tiny-fr-ud-gpt2").is_dir():
        pytest.skip("shared tiny-fr-ud-gpt2 not present")
    scope = run_page(DOCS / PAGE, tmp_path).namespace
    rows = scope["rows"]
    assert {"original", "nonce-1", "nonce-2", "nonce-3"} <= set(rows["variant"])
    right: dict = defaultdict(list)
    wrong_way: dict = defaultdict(list)
    for model, variant, frequency, is_right in rows.select(
        "model", "variant", "frequency", "right"
    ).iter_rows():
        right[(model, "original" if variant == "original" else "nonce")].append(is_right)
        if frequency == "incongruent":
            wrong_way[model].append(is_right)
    for model, variant, accuracy, n in scope["by_variant"].iter_rows():
        assert n == len(right[(model, variant)])
        assert accuracy == pytest.approx(sum(right[(model, variant)]) / n)
    incongruent = {model: accuracy for model, accuracy, _ in scope["incongruent"].iter_rows()}
    assert incongruent["frequency-baseline"] == 0.0
    for model, accuracy in incongruent.items():
        assert accuracy == pytest.approx(sum(wrong_way[model]) / len(wrong_way[model]))
