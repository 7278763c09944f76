"""Tests for gpassk_oc.core.metrics.gpass_exact against independent oracles (tests/oracles.py).

Expected values come from enumeration, exact Fractions, OpenCompass's own functions or
published numbers — never from the code under test."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from metrics_support import OC_THRESHOLDS, PROPS, ROOT
from oracles import (
    exact_g,
    exact_g_tau,
    exact_mg_documented,
    exact_mg_integral,
    exact_pass,
    threshold_m,
)

from gpassk_oc.core.metrics import gpass_exact as metrics
from gpassk_oc.core.metrics.gpass_exact import (
    DEFAULT_THRESHOLDS,
    g_pass_at_k,
    g_pass_table,
    mg_pass_at_k,
    pass_at_k,
)


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
        "import gpassk_oc.core.metrics.gpass_exact\n"
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
