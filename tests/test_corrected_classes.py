"""G-Pass@k corrected by answer class (issue 35, clustered errors): the expectations are
derived independently, by enumerating every truth assignment of a tiny question's classes
with exact fractions and hypergeometric G-Pass values from math.comb."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from gpassk_oc.core.uncertainty.corrected_classes import (
    class_count_posterior,
    correct_by_class,
    corrected_class_value,
)
from gpassk_oc.core.uncertainty.metric_intervals import summarize


def _g_pass(n: int, c: int, k: int, tau: Fraction) -> Fraction:
    """P(at least ⌈τk⌉ correct among k of n drawn without replacement), exact."""
    need = max(1, math.ceil(tau * k))
    top = sum(math.comb(c, j) * math.comb(n - c, k - j) for j in range(need, k + 1))
    return Fraction(top, math.comb(n, k))


def _mg_pass(n: int, c: int, k: int) -> Fraction:
    """mG-Pass@k for even k: (2/k) Σ_{m = k/2+1..k} P(at least m correct among k)."""
    return Fraction(2, k) * sum(_g_pass(n, c, k, Fraction(m, k)) for m in range(k // 2 + 1, k + 1))


def _metric(key: str, n: int, c: int) -> Fraction:
    if key.startswith("mG"):
        return _mg_pass(n, c, int(key.split("@")[1]))
    k, tau = key.split("@")[1].split("_")
    return _g_pass(n, c, int(k), Fraction(tau))


def _brute(question, rates, key: str) -> Fraction:
    """Σ over every assignment (class truly correct or not) of P(assignment) · f(T)."""
    classes, abstain = question
    n = sum(s for s, _, _ in classes) + abstain
    total = Fraction(0)
    for truth in itertools.product((False, True), repeat=len(classes)):
        prob, t = Fraction(1), 0
        for (size, graded, channel), right in zip(classes, truth):
            e1, e0 = (Fraction(x) for x in rates[channel])
            pi = 1 - e1 if graded else e0
            prob *= pi if right else 1 - pi
            t += size * right
        total += prob * _metric(key, n, t)
    return total


RATES = [
    (Fraction(0), Fraction(0)),
    (Fraction(1, 5), Fraction(1, 10)),
    (Fraction(1, 20), Fraction(1, 4)),
]
TINY = (((3, True, 1), (2, False, 1), (1, False, 2)), 1)  # n = 7, graded count 3
KEYS = ["G-Pass@4_0.5", "G-Pass@4_1.0", "mG-Pass@4", "G-Pass@2_1.0"]


@pytest.mark.parametrize("key", KEYS)
def test_value_is_the_expectation_over_class_truths(key: str) -> None:
    got = corrected_class_value(TINY, [tuple(float(x) for x in r) for r in RATES], key)
    assert got == pytest.approx(float(_brute(TINY, RATES, key)), abs=1e-12)


def test_posterior_puts_mass_only_on_sums_of_class_sizes() -> None:
    pmf = class_count_posterior(TINY, np.array([[[0, 0], [0.2, 0.1], [0.05, 0.25]]]))[0]
    # sizes 3, 2, 1: reachable totals are the subset sums 0..6, never 7 (the abstention)
    assert pmf[7] == 0
    # P(T = 0) = e1 · (1 − e0) · (1 − e0'): the graded-correct class wrong, no other gold
    assert pmf[0] == pytest.approx(0.2 * 0.9 * 0.75)
    assert pmf.sum() == pytest.approx(1.0)


def test_zero_rates_give_the_raw_mean_exactly() -> None:
    questions = [
        (((5, True, 0), (3, False, 0)), 0),
        (((8, False, 0),), 0),
        (((2, True, 0), (4, False, 0), (1, False, 0)), 1),
    ]
    got = correct_by_class(questions, [(0.0, 0.0)], ["G-Pass@4_1.0", "mG-Pass@4"], n_boot=0)
    raw = summarize(8, np.array([5, 0, 2]), ["G-Pass@4_1.0", "mG-Pass@4"], n_boot=0)
    for key in raw:
        assert got[key].value == raw[key].value


def test_mean_over_questions_and_intervals_hold_it() -> None:
    rng = np.random.default_rng(3)
    questions = []
    for _ in range(40):
        sizes = rng.multinomial(8, [0.5, 0.3, 0.2])
        graded = [True, False, False] if sizes[0] else [False, False, False]
        questions.append((tuple((int(s), g, 1) for s, g in zip(sizes, graded) if s), 0))
    rates = [(0.0, 0.0), (0.1, 0.05)]
    draws = np.stack(
        [np.zeros((50, 2)), np.column_stack([rng.beta(10, 90, 50), rng.beta(5, 95, 50)])], axis=1
    )
    got = correct_by_class(questions, rates, KEYS[:3], rate_draws=draws, n_boot=400)
    exact_rates = [(Fraction(0), Fraction(0)), (Fraction(1, 10), Fraction(1, 20))]
    for key in KEYS[:3]:
        want = sum(_brute(q, exact_rates, key) for q in questions) / len(questions)
        c = got[key]
        assert c.value == pytest.approx(float(want), abs=1e-12)
        assert c.rerun_low < c.value < c.rerun_high
        assert c.ci_low < c.value < c.ci_high


def test_vote_metrics_are_left_to_the_class_vote_correction() -> None:
    got = correct_by_class([(((3, True, 0),), 1)] * 3, [(0.0, 0.0)], ["maj@2"], n_boot=0)
    assert got["maj@2"].status == "not corrected"
    assert math.isnan(got["maj@2"].value)


def test_rates_outside_the_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="class channel 1"):
        correct_by_class([TINY] * 2, [(0.0, 0.0), (0.6, 0.5)], ["G-Pass@4_1.0"], n_boot=0)
