"""Tests for gpassk_oc.core.scoring.metrics against independent oracles (tests/oracles.py).

Expected values come from enumeration, exact Fractions, OpenCompass's own functions or
published numbers — never from the code under test.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import (
    brute_force_distribution,
    exact_g,
    exact_g_tau,
    exact_mg_documented,
    exact_mg_integral,
    exact_pass,
    load_opencompass_g_pass,
    threshold_m,
)

from gpassk_oc.core.scoring import metrics
from gpassk_oc.core.scoring.metrics import (
    DEFAULT_THRESHOLDS,
    EXACT_N_MAX,
    g_pass_at_k,
    g_pass_table,
    mg_pass_at_k,
    pass_at_k,
)
from gpassk_oc.log import logger

ROOT = Path(__file__).resolve().parents[1]

# (value handed to the code, literal the oracle reads with Fraction): floats, a str
# fraction and ints, including thresholds whose binary float is not the decimal.
AWKWARD_TAUS = [
    (0, "0"),
    (0.1, "0.1"),
    ("1/3", "1/3"),
    (0.25, "0.25"),
    (0.5, "0.5"),
    (0.55, "0.55"),
    (0.75, "0.75"),
    (0.999, "0.999"),
    (1, "1"),
]
OC_THRESHOLDS = [0.0, 0.25, 0.5, 0.75, 1.0]  # as OpenCompass lists them (key format too)

PROPS = settings(
    max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.fixture(scope="module")
def oc():
    return load_opencompass_g_pass()


@pytest.fixture
def fresh_odd_k_warnings():
    """The odd-k warning fires once per process; forget earlier calls for this test."""
    metrics._warned_odd_k.clear()
    yield
    metrics._warned_odd_k.clear()


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


# ----------------------------------------------------------------- properties
@st.composite
def questions(draw, n_max=300):
    n = draw(st.integers(1, n_max))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


taus = st.fractions(min_value=0, max_value=1, max_denominator=1000)


@PROPS
@given(questions(), taus)
def test_matches_exact_oracle_for_any_rational_tau(q, tau):
    n, c, k = q
    assert g_pass_at_k(n, c, k, tau) == float(exact_g_tau(n, c, k, tau))


@PROPS
@given(questions(), taus)
def test_monotone_non_decreasing_in_c(q, tau):
    n, c, k = q
    if c == n:
        c -= 1
    assert g_pass_at_k(n, c, k, tau) <= g_pass_at_k(n, c + 1, k, tau)
    assert pass_at_k(n, c, k) <= pass_at_k(n, c + 1, k)
    assert mg_pass_at_k(n, c, k, mode="integral") <= mg_pass_at_k(n, c + 1, k, mode="integral")


@PROPS
@given(questions(), taus, taus)
def test_monotone_non_increasing_in_tau(q, t1, t2):
    n, c, k = q
    lo, hi = sorted((t1, t2))
    assert g_pass_at_k(n, c, k, lo) >= g_pass_at_k(n, c, k, hi)


@PROPS
@given(questions())
def test_tau_endpoints(q):
    n, c, k = q
    assert g_pass_at_k(n, c, k, 0) == pass_at_k(n, c, k) == float(exact_pass(n, c, k))
    assert g_pass_at_k(n, c, k, 1) == float(Fraction(math.comb(c, k), math.comb(n, k)))


@PROPS
@given(questions(), taus)
def test_values_in_unit_interval(q, tau):
    n, c, k = q
    values = [g_pass_at_k(n, c, k, tau), pass_at_k(n, c, k), mg_pass_at_k(n, c, k, mode="integral")]
    values.append(mg_pass_at_k(n, c, k))
    assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in values), values


# ----------------------------------------------------------------- vectorisation and table
def test_array_counts_match_scalar_calls_and_keep_shape():
    rng = np.random.default_rng(3)
    n = 48
    counts = rng.integers(0, n + 1, size=(3, 5))
    for k in (4, 16):
        for tau in (0, "1/3", 0.55, 1.0):
            out = g_pass_at_k(n, counts, k, tau)
            assert isinstance(out, np.ndarray) and out.shape == counts.shape
            assert out.tolist() == [[g_pass_at_k(n, int(c), k, tau) for c in row] for row in counts]
        for mode in ("documented", "integral"):
            out = mg_pass_at_k(n, counts, k, mode=mode)
            assert out.shape == counts.shape
            assert out.tolist() == [
                [mg_pass_at_k(n, int(c), k, mode=mode) for c in row] for row in counts
            ]
        out = pass_at_k(n, counts, k)
        assert out.shape == counts.shape
        assert out.tolist() == [[pass_at_k(n, int(c), k) for c in row] for row in counts]
    as_list = g_pass_at_k(n, [0, 24, 48], 8, 0.5)
    assert as_list.shape == (3,)
    assert isinstance(g_pass_at_k(n, np.int64(24), 8, 0.5), float)


def test_g_pass_table_keys_values_means_and_percent():
    rng = np.random.default_rng(11)
    n, ks = 48, (4, 8, 16)
    counts = rng.integers(0, n + 1, size=1000)
    table = g_pass_table(n, counts, ks=ks)
    # exactly the keys OpenCompass writes, in its order: per k, the thresholds, then mG
    expected_keys = [
        key for k in ks for key in [f"G-Pass@{k}_{t}" for t in OC_THRESHOLDS] + [f"mG-Pass@{k}"]
    ]
    assert list(table.means) == expected_keys
    assert list(table.per_question) == expected_keys
    for k in ks:
        for tau in OC_THRESHOLDS:
            key = f"G-Pass@{k}_{tau}"
            column = table.per_question[key]
            assert column.shape == counts.shape
            scalar = [float(exact_g_tau(n, int(c), k, Fraction(str(tau)))) for c in counts[:50]]
            assert column[:50].tolist() == scalar
            assert math.isclose(
                table.means[key], float(np.mean(column)), rel_tol=1e-12, abs_tol=1e-15
            )
            by_scalar = math.fsum(g_pass_at_k(n, int(c), k, tau) for c in counts) / counts.size
            assert math.isclose(table.means[key], by_scalar, rel_tol=1e-12, abs_tol=1e-15)
        key = f"mG-Pass@{k}"
        assert table.per_question[key][:50].tolist() == [
            float(exact_mg_documented(n, int(c), k)) for c in counts[:50]
        ]
        assert math.isclose(
            table.means[key], float(np.mean(table.per_question[key])), rel_tol=1e-12
        )
    assert table.percent() == {key: 100.0 * value for key, value in table.means.items()}
    assert set(table.percent()) == set(expected_keys)


def test_g_pass_table_integral_mode_and_custom_thresholds():
    table = g_pass_table(40, [10, 20, 39], ks=[5], thresholds=["1/3", 0.55], mg_mode="integral")
    assert list(table.means) == ["G-Pass@5_0.3333333333333333", "G-Pass@5_0.55", "mG-Pass@5"]
    assert table.per_question["mG-Pass@5"].tolist() == [
        float(exact_mg_integral(40, c, 5)) for c in (10, 20, 39)
    ]
    assert table.per_question["G-Pass@5_0.55"].tolist() == [
        float(exact_g(40, c, 5, 3)) for c in (10, 20, 39)
    ]


# ----------------------------------------------------------------- validation
def _table(**kw):
    args = dict(n=16, c=[1, 2], ks=[4], thresholds=DEFAULT_THRESHOLDS)
    args.update(kw)
    return g_pass_table(**args)


INVALID = [
    ("k > n", lambda: g_pass_at_k(4, 1, 5, 0.5), "k"),
    ("k < 1", lambda: g_pass_at_k(4, 1, 0, 0.5), "k"),
    ("k negative", lambda: pass_at_k(4, 1, -2), "k"),
    ("k bool", lambda: g_pass_at_k(4, 1, True, 0.5), "k"),
    ("k float", lambda: g_pass_at_k(4, 1, 2.0, 0.5), "k"),
    ("c < 0", lambda: g_pass_at_k(4, -1, 2, 0.5), "c"),
    ("c > n", lambda: g_pass_at_k(4, 5, 2, 0.5), "c"),
    ("c > n in array", lambda: g_pass_at_k(4, np.array([1, 5]), 2, 0.5), "c"),
    ("c < 0 in list", lambda: mg_pass_at_k(4, [0, -1], 2), "c"),
    ("c bool", lambda: g_pass_at_k(4, True, 2, 0.5), "c"),
    ("c bool array", lambda: g_pass_at_k(4, np.array([True, False]), 2, 0.5), "c"),
    ("c non-integral float", lambda: g_pass_at_k(4, 2.5, 2, 0.5), "c"),
    ("c non-integral in array", lambda: pass_at_k(4, np.array([1.0, 2.5]), 2), "c"),
    ("c nan", lambda: g_pass_at_k(4, float("nan"), 2, 0.5), "c"),
    ("c string", lambda: g_pass_at_k(4, "2", 2, 0.5), "c"),
    ("n = 0", lambda: g_pass_at_k(0, 0, 1, 0.5), "n"),
    ("n < 0", lambda: pass_at_k(-3, 0, 1), "n"),
    ("n bool", lambda: g_pass_at_k(True, 0, 1, 0.5), "n"),
    ("n float", lambda: g_pass_at_k(16.0, 3, 4, 0.5), "n"),
    ("tau < 0", lambda: g_pass_at_k(8, 3, 4, -0.1), "tau"),
    ("tau > 1", lambda: g_pass_at_k(8, 3, 4, 1.5), "tau"),
    ("tau str > 1", lambda: g_pass_at_k(8, 3, 4, "3/2"), "tau"),
    ("tau int > 1", lambda: g_pass_at_k(8, 3, 4, 2), "tau"),
    ("tau bad string", lambda: g_pass_at_k(8, 3, 4, "abc"), "tau"),
    ("tau empty string", lambda: g_pass_at_k(8, 3, 4, ""), "tau"),
    ("tau zero denominator", lambda: g_pass_at_k(8, 3, 4, "1/0"), "tau"),
    ("tau percent string", lambda: g_pass_at_k(8, 3, 4, "50%"), "tau"),
    ("tau nan string", lambda: g_pass_at_k(8, 3, 4, "nan"), "tau"),
    ("tau nan float", lambda: g_pass_at_k(8, 3, 4, float("nan")), "tau"),
    ("tau inf float", lambda: g_pass_at_k(8, 3, 4, float("inf")), "tau"),
    ("tau None", lambda: g_pass_at_k(8, 3, 4, None), "tau"),
    ("tau bool", lambda: g_pass_at_k(8, 3, 4, True), "tau"),
    ("threshold_count bad tau", lambda: metrics.threshold_count(4, "x"), "tau"),
    ("table threshold > 1", lambda: _table(thresholds=[0.5, 1.5]), "thresholds"),
    ("table threshold string", lambda: _table(thresholds=["half"]), "thresholds"),
    ("table threshold bool", lambda: _table(thresholds=[False]), "thresholds"),
    ("table k > n", lambda: _table(ks=[4, 17]), "k"),
    ("table no k", lambda: _table(ks=[]), "ks"),
    ("table c > n", lambda: _table(c=[3, 17]), "c"),
    ("table c non-integral", lambda: _table(c=[3.5]), "c"),
    ("table no questions", lambda: _table(c=[]), "c"),
    ("table n = 0", lambda: _table(n=0), "n"),
    ("mg mode", lambda: mg_pass_at_k(8, 3, 4, mode="area"), "mode"),
    ("table mg mode", lambda: _table(mg_mode="area"), "mg_mode"),
]


@pytest.mark.parametrize(
    "call,name", [case[1:] for case in INVALID], ids=[case[0] for case in INVALID]
)
def test_invalid_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError) as info:
        call()
    assert re.search(rf"(?<![\w@-]){re.escape(name)}(?!\w)", str(info.value)), str(info.value)


# ----------------------------------------------------------------- stability at large n
@pytest.mark.timeout(15)
def test_stable_and_accurate_at_n_10000(fresh_odd_k_warnings):
    n = 10_000
    cs = np.array([0, 1, 5000, 9999, 10_000])
    for k in (16, 100):
        rows = {str(tau): g_pass_at_k(n, cs, k, tau) for tau in ("0", "1/4", "1/2", "3/4", "1")}
        rows["pass"] = pass_at_k(n, cs, k)
        for mode in ("documented", "integral"):
            rows[mode] = mg_pass_at_k(n, cs, k, mode=mode)
        for name, values in rows.items():
            assert values.shape == cs.shape
            assert np.all(np.isfinite(values)) and np.all((values >= 0) & (values <= 1)), name
            assert np.all(np.diff(values) >= 0), (k, name, values)  # monotone in c
        # scalar calls go through a different path; they must agree with the arrays
        for i, c in enumerate(cs):
            assert g_pass_at_k(n, int(c), k, 0.5) == pytest.approx(rows["1/2"][i], abs=1e-15)
        assert rows["pass"][0] == 0.0 and rows["pass"][-1] == 1.0
        assert rows["1"][0] == 0.0 and rows["1"][-1] == 1.0
    # a few points against the exact rational
    for c, k, m in [(5000, 100, 50), (5000, 100, 75), (9999, 16, 16), (1, 100, 1), (5000, 16, 12)]:
        tau = Fraction(m, k)
        assert abs(g_pass_at_k(n, c, k, tau) - float(exact_g(n, c, k, m))) <= 1e-9
    assert abs(mg_pass_at_k(n, 5000, 16) - float(exact_mg_documented(n, 5000, 16))) <= 1e-9
    assert (
        abs(mg_pass_at_k(n, 7000, 100, mode="integral") - float(exact_mg_integral(n, 7000, 100)))
        <= 1e-9
    )


def test_table_and_arrays_above_exact_limit_map_each_question_to_its_row():
    # above EXACT_N_MAX rows are built per distinct count; repeated and unsorted counts
    # must still land on their own question
    n = 2000
    counts = np.array([1000, 0, 3, 2000, 3, 1999, 1000, 777])
    table = g_pass_table(n, counts, ks=[16, 5], thresholds=["1/2", 1], mg_mode="integral")
    for k in (16, 5):
        for literal, key in (("1/2", f"G-Pass@{k}_0.5"), ("1", f"G-Pass@{k}_1.0")):
            m = threshold_m(k, literal)
            expected = [float(exact_g(n, int(c), k, m)) for c in counts]
            assert np.allclose(table.per_question[key], expected, rtol=0, atol=1e-12)
            assert np.allclose(g_pass_at_k(n, counts, k, literal), expected, rtol=0, atol=1e-12)
            assert math.isclose(
                table.means[key], math.fsum(expected) / len(expected), abs_tol=1e-12
            )
        expected_mg = [float(exact_mg_integral(n, int(c), k)) for c in counts]
        assert np.allclose(table.per_question[f"mG-Pass@{k}"], expected_mg, rtol=0, atol=1e-12)
        assert np.allclose(
            mg_pass_at_k(n, counts.reshape(2, 4), k, mode="integral"),
            np.reshape(expected_mg, (2, 4)),
            rtol=0,
            atol=1e-12,
        )


# ----------------------------------------------------------------- import hygiene
def test_import_is_light_and_does_not_import_opencompass():
    code = (
        "import json, sys, time\n"
        "t = time.perf_counter()\n"
        "import gpassk_oc.core.scoring.metrics\n"
        "dt = time.perf_counter() - t\n"
        "oc = sorted(m for m in sys.modules if m.split('.')[0] == 'opencompass')\n"
        "print(json.dumps({'seconds': dt, 'opencompass': oc}))\n"
    )
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        ),
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["opencompass"] == []
    assert report["seconds"] < 3.0, report
