"""Tests for gpassk_oc.core.metrics.gpass_exact against independent oracles (tests/oracles.py).

Expected values come from enumeration, exact Fractions, OpenCompass's own functions or
published numbers — never from the code under test."""

from __future__ import annotations

import math
import random
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
import pytest
from metrics_support import AWKWARD_TAUS, OC_THRESHOLDS
from oracles import (
    brute_force_distribution,
    exact_g,
    exact_mg_documented,
    exact_mg_integral,
    exact_pass,
    threshold_m,
)

from gpassk_oc.core.metrics import gpass_exact as metrics
from gpassk_oc.core.metrics.gpass_exact import (
    EXACT_N_MAX,
    g_pass_at_k,
    g_pass_table,
    mg_pass_at_k,
    pass_at_k,
)
from gpassk_oc.log import logger


# ----------------------------------------------------------------- brute force, n <= 10
@pytest.mark.parametrize("n", range(1, 11))
def test_matches_enumeration_of_all_k_subsets(n):
    for k in range(1, n + 1):
        total = math.comb(n, k)
        dists = [brute_force_distribution(n, c, k) for c in range(n + 1)]
        assert all(sum(dist) == total for dist in dists)
        for tau, literal in AWKWARD_TAUS:
            m = threshold_m(k, literal)
            expected = [float(Fraction(sum(dist[m:]), total)) for dist in dists]
            # exact rational, correctly rounded: equality, not closeness
            assert [g_pass_at_k(n, c, k, tau) for c in range(n + 1)] == expected, (k, tau)
            # the table path (array of every c) must agree with the same enumeration
            assert g_pass_at_k(n, np.arange(n + 1), k, tau).tolist() == expected, (k, tau)


def test_threshold_count_is_exact_rational_ceiling():
    # float τ·k would give ceil(100*0.55) = 56 and ceil(10*0.7) = 8
    assert metrics.threshold_count(100, 0.55) == 55 == threshold_m(100, "0.55")
    assert metrics.threshold_count(10, 0.7) == 7
    assert metrics.threshold_count(3, "1/3") == 1
    assert metrics.threshold_count(16, 0) == 1  # m is at least 1
    for k in range(1, 40):
        for _, literal in AWKWARD_TAUS:
            assert metrics.threshold_count(k, literal) == threshold_m(k, literal)


def test_numpy_float_thresholds_are_read_at_their_own_precision():
    # np.float32(0.55) widened to float64 is 0.550000011920929 -> m = 56 at k = 100;
    # its shortest float32 string is "0.55", like a Python float's
    for tau in (np.float32(0.55), np.float16(0.55), np.float64(0.55)):
        assert metrics.threshold_count(100, tau) == 55, type(tau)
        assert g_pass_at_k(200, 110, 100, tau) == float(exact_g(200, 110, 100, 55))
    assert metrics.threshold_count(10, np.float32(0.7)) == 7
    table = g_pass_table(16, [8], ks=[4], thresholds=np.array([0.25, 0.5], dtype=np.float32))
    assert list(table.means) == ["G-Pass@4_0.25", "G-Pass@4_0.5", "mG-Pass@4"]


# ----------------------------------------------------------------- exact fractions, n <= 512
def _exact_cases():
    rng = random.Random(20241217)
    literals = [lit for _, lit in AWKWARD_TAUS]
    cases = []
    for _ in range(250):
        n = rng.randint(1, 512)
        cases.append((n, rng.randint(0, n), rng.randint(1, n), rng.choice(literals)))
    for k in (512, 511, 400, 256, 100):  # largest n, large k
        for c in (0, 1, 255, 256, 300, 511, 512):
            for literal in ("0", "0.25", "0.5", "0.55", "0.999", "1"):
                cases.append((512, c, k, literal))
    return cases


def test_exact_fraction_oracle_grid_up_to_n512():
    worst = 0.0
    for n, c, k, literal in _exact_cases():
        exact = float(exact_g(n, c, k, threshold_m(k, literal)))
        ours = g_pass_at_k(n, c, k, literal)
        worst = max(worst, abs(ours - exact))
        assert n <= EXACT_N_MAX
        assert ours == exact, (n, c, k, literal)  # correctly rounded
    assert worst <= 1e-12


def test_exact_fraction_oracle_vectorised_n512():
    cs = np.arange(513)
    for k, literal in ((512, "1"), (511, "0.999"), (300, "0.55"), (17, "0.5"), (17, "1/3")):
        m = threshold_m(k, literal)
        expected = np.array([float(exact_g(512, c, k, m)) for c in range(513)])
        assert np.array_equal(g_pass_at_k(512, cs, k, literal), expected), (k, literal)


def test_just_above_exact_limit_uses_a_close_approximation():
    # n > EXACT_N_MAX switches method; it must still be within 1e-12 of the exact value
    n = EXACT_N_MAX + 1
    for c, k, literal in [
        (n // 2, 600, "0.5"),
        (1, 1000, "0"),
        (n - 3, 64, "1"),
        (700, 32, "0.75"),
    ]:
        exact = float(exact_g(n, c, k, threshold_m(k, literal)))
        assert abs(g_pass_at_k(n, c, k, literal) - exact) <= 1e-12


def test_pass_at_k_matches_oracle():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 600)
        c, k = rng.randint(0, n), rng.randint(1, n)
        assert pass_at_k(n, c, k) == float(exact_pass(n, c, k)), (n, c, k)


# ----------------------------------------------------------------- mG-Pass@k
@pytest.mark.parametrize(
    "n,ks",
    [(8, range(1, 9)), (16, range(1, 17)), (48, (2, 4, 5, 8, 16, 47, 48)), (129, (3, 64, 65))],
)
def test_mg_pass_both_modes_match_oracles(n, ks, fresh_odd_k_warnings):
    for k in ks:
        for c in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            documented = float(exact_mg_documented(n, c, k))
            integral = float(exact_mg_integral(n, c, k))
            assert mg_pass_at_k(n, c, k) == documented, (n, c, k)
            assert mg_pass_at_k(n, c, k, mode="documented") == documented
            assert mg_pass_at_k(n, c, k, mode="integral") == integral, (n, c, k)
            if k % 2 == 0:
                assert documented == integral  # the closed form is the integral
        cs = np.arange(n + 1)
        assert mg_pass_at_k(n, cs, k, mode="integral").tolist() == [
            float(exact_mg_integral(n, c, k)) for c in range(n + 1)
        ]


def test_mg_odd_k_documented_is_below_the_integral():
    documented = mg_pass_at_k(48, 30, 5)
    integral = mg_pass_at_k(48, 30, 5, mode="integral")
    assert round(documented, 3) == 0.182 and round(integral, 3) == 0.329
    assert documented == float(exact_mg_documented(48, 30, 5))
    assert integral == float(exact_mg_integral(48, 30, 5))


@contextmanager
def logged_warnings():
    """Messages the package logger writes at WARNING or above while the block runs."""
    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(message.record["message"]), level="WARNING")
    try:
        yield lines
    finally:
        logger.remove(sink)


def test_mg_odd_k_warns_once(fresh_odd_k_warnings):
    with logged_warnings() as caught:
        mg_pass_at_k(48, 30, 5)
        mg_pass_at_k(48, 12, 5)
        mg_pass_at_k(48, np.array([1, 2]), 5)
        g_pass_table(48, [3, 4], ks=[5])
        mg_pass_at_k(48, 30, 5, mode="integral")  # the exact area needs no warning
        mg_pass_at_k(48, 30, 4)  # even k: both forms agree
        g_pass_table(48, [3], ks=[4, 8], mg_mode="documented")
    assert len(caught) == 1, caught
    assert caught[0].startswith("mG-Pass@5 with odd k") and "integral" in caught[0]
    with logged_warnings() as caught:
        mg_pass_at_k(48, 30, 7)  # another odd k warns for itself
    assert len(caught) == 1 and caught[0].startswith("mG-Pass@7 with odd k")


# ----------------------------------------------------------------- published numbers
METRIC_CARD_PREDICTIONS = [
    "a",
    "b",
    "a",
    "a",
    "b",
    "a",
    "b",
    "c",
    "a",
    "c",
    "b",
    "a",
    "a",
    "b",
    "a",
    "b",
]


METRIC_CARD_OUTPUT = {
    "G-Pass@4_0.25": 0.9615384615384616,
    "G-Pass@4_0.5": 0.7153846153846154,
    "G-Pass@4_0.75": 0.2846153846153846,
    "G-Pass@4_1.0": 0.038461538461538464,
    "G-Pass@8_0.25": 0.9949494949494949,
    "G-Pass@8_0.5": 0.6903651903651904,
    "G-Pass@8_0.75": 0.06596736596736597,
    "G-Pass@8_1.0": 7.77000777000777e-05,
    "mG-Pass@4": 0.16153846153846152,
    "mG-Pass@8": 0.09518259518259518,
}


def test_metric_card_worked_example():
    n = len(METRIC_CARD_PREDICTIONS)
    c = sum(p == "a" for p in METRIC_CARD_PREDICTIONS)
    assert (n, c) == (16, 8)
    table = g_pass_table(n, [c], ks=[4, 8], thresholds=[0.25, 0.5, 0.75, 1.0])
    assert set(table.means) == set(METRIC_CARD_OUTPUT)
    for key, published in METRIC_CARD_OUTPUT.items():
        assert abs(table.means[key] - published) <= 1e-12, key
        k, _, tau = key.split("@")[1].partition("_")
        scalar = g_pass_at_k(n, c, int(k), tau) if tau else mg_pass_at_k(n, c, int(k))
        assert abs(scalar - published) <= 1e-12, key


def test_k100_tau055_exact_vs_opencompass_float_ceiling(oc):
    # k·τ = 55 exactly; OpenCompass's float ceil(100*0.55) gives 56 and drops P(X = 55)
    ours = g_pass_at_k(200, 110, 100, 0.55)
    assert ours == float(exact_g(200, 110, 100, 55))
    assert abs(ours - 0.5565) < 5e-5
    theirs = float(oc.compute_g_pass_at_k(200, 110, 100, 0.55))
    assert abs(theirs - float(exact_g(200, 110, 100, 56))) <= 1e-9
    assert abs(theirs - 0.4435) < 5e-5


def test_agrees_with_opencompass_where_float_rounding_is_harmless(oc):
    worst = 0.0
    for n in (1, 2, 3, 5, 8, 13, 16, 31, 48, 64):
        for k in sorted({1, 2, 3, 4, 8, 16, n // 2, n} & set(range(1, n + 1))):
            for c in sorted({0, 1, 2, n // 4, n // 2, (3 * n) // 4, n - 1, n} & set(range(n + 1))):
                for tau in OC_THRESHOLDS:
                    theirs = float(oc.compute_g_pass_at_k(n=n, c=c, k=k, t=tau))
                    worst = max(worst, abs(g_pass_at_k(n, c, k, tau) - theirs))
                worst = max(worst, abs(pass_at_k(n, c, k) - float(oc.compute_pass_at_k(n, c, k))))
                ours_mg = mg_pass_at_k(n, c, k)
                worst = max(worst, abs(ours_mg - float(oc.compute_mg_pass_at_k(n, c, k))))
    assert worst <= 1e-9
