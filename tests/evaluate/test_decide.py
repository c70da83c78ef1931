"""Correct / incorrect candidates (DESIGN.md §1.5) and the decision rule, ties included."""

from __future__ import annotations

import numpy as np
from ud_agree.evaluate.readings.class_decisions import classify, decide, split_key

E = frozenset()


def b(number=(), gender=(), case=(), person=(), definite=()):
    """A bundle from value tuples, one per feature of F."""
    values = (number, gender, case, person, definite)
    return tuple(frozenset(v) for v in values)


def test_agreement_match_compares_only_the_agreeing_features():
    masked = b(["Plur"], ["Fem"])
    key = split_key("NOUN", masked, ["Number"], "agreement")
    assert classify(frozenset({b(["Plur"], ["Masc"])}), key, "agreement") == 1
    assert classify(frozenset({b(["Sing"], ["Fem"])}), key, "agreement") == -1
    # No Number at all: neither correct nor incorrect.
    assert classify(frozenset({b([], ["Fem"])}), key, "agreement") == 0


def test_values_are_compared_as_sets():
    key = split_key("NOUN", b(["Plur"]), ["Number"], "agreement")
    # Syncretic "pays" (Sing,Plur) does not equal {Plur}: it has a value, so it is incorrect.
    assert classify(frozenset({b(["Plur", "Sing"])}), key, "agreement") == -1
    # A second bundle that matches makes the form correct (syncretism kept per bundle).
    assert classify(frozenset({b(["Sing"]), b(["Plur"])}), key, "agreement") == 1


def test_incorrect_needs_a_value_for_every_agreeing_feature_in_one_bundle():
    key = split_key("DET", b(["Sing"], ["Masc"]), ["Gender", "Number"], "agreement")
    assert classify(frozenset({b(["Plur"], [])}), key, "agreement") == 0  # "les": no gender
    assert classify(frozenset({b(["Sing"], ["Fem"])}), key, "agreement") == -1
    assert classify(frozenset({b(["Sing"], ["Masc"], ["Nom"])}), key, "agreement") == 1


def test_exact_match_compares_every_feature_of_f_with_empty_as_a_value():
    key = split_key("DET", b(["Plur"]), ["Number"], "exact")
    assert classify(frozenset({b(["Plur"])}), key, "exact") == 1
    assert classify(frozenset({b(["Plur"], ["Fem"])}), key, "exact") == -1
    assert classify(frozenset({b([], [])}), key, "exact") == -1


def test_split_keys_of_items_differing_outside_compared_features_are_equal():
    a = split_key("NOUN", b(["Plur"], ["Fem"]), ["Number"], "agreement")
    c = split_key("NOUN", b(["Plur"], ["Masc"]), ["Number"], "agreement")
    assert a == c
    assert split_key("NOUN", b(["Plur"], ["Fem"]), ["Number"], "exact") != split_key(
        "NOUN", b(["Plur"], ["Masc"]), ["Number"], "exact"
    )


def test_decision_is_mean_probability_of_correct_above_incorrect_and_a_tie_is_not_right():
    prob = np.array([[0.3, 0.3, 0.62, 0.02], [0.25, 0.25, 0.25, 0.25], [0.1, 0.1, 0.4, 0.4]])
    logit = np.log(prob) + 3.0
    correct = np.array([[1, 1, 0, 0]] * 3, dtype=bool)
    incorrect = ~correct
    d = decide(prob, logit, correct, incorrect)
    np.testing.assert_allclose(d.p_correct, [0.3, 0.25, 0.1])
    np.testing.assert_allclose(d.p_incorrect, [0.32, 0.25, 0.4])
    assert d.right.tolist() == [False, False, False]  # 0.25 vs 0.25 is a tie
    # Mean logits can decide otherwise: 0.62/0.02 has the higher mean, the lower mean log.
    assert d.right_logit.tolist() == [True, False, False]


def test_torch_and_numpy_decisions_agree():
    import torch

    rng = np.random.default_rng(0)
    prob = rng.dirichlet(np.ones(20), size=5)
    logit = np.log(prob)
    correct = rng.random((5, 20)) < 0.4
    incorrect = ~correct & (rng.random((5, 20)) < 0.8)
    a = decide(prob, logit, correct, incorrect)
    t = decide(
        torch.from_numpy(prob),
        torch.from_numpy(logit),
        torch.from_numpy(correct),
        torch.from_numpy(incorrect),
    )
    np.testing.assert_allclose(a.p_correct, t.p_correct)
    np.testing.assert_allclose(a.logit_incorrect, t.logit_incorrect)
    assert (a.right == t.right).all()


def test_non_finite_decisions_are_found_and_left_out_alike_on_arrays_and_tensors():
    import torch
    from ud_agree.evaluate.readings.class_decisions import decide

    # NaN on a correct candidate (row 1) and on an incorrect one (row 2).
    prob = np.array([[0.5, 0.25, 0.25], [np.nan, 0.5, 0.5], [0.1, np.nan, 0.7]])
    logit = np.log(np.nan_to_num(prob, nan=0.5))
    correct = np.array([[True, False, False]] * 3)
    incorrect = ~correct
    on_arrays = decide(prob, logit, correct, incorrect)
    on_tensors = decide(
        torch.from_numpy(prob), torch.from_numpy(logit),
        torch.from_numpy(correct), torch.from_numpy(incorrect),
    )  # fmt: skip
    for decisions in (on_arrays, on_tensors):
        finite = decisions.finite()
        assert finite.tolist() == [True, False, False]
        kept = decisions.kept(finite)
        assert np.asarray(kept.p_correct).tolist() == [0.5]
        assert np.asarray(kept.right).tolist() == [True]
