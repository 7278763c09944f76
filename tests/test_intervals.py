"""The two named intervals: the unbiased rerun variance (exact against Fractions), its
coverage and the benchmark interval's by simulated reruns (fixed seeds, fewer runs and a
wider tolerance than bench/bench_ci_coverage.py), and the paired rerun test."""

from __future__ import annotations

import importlib.util
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from oracles import exact_g_tau, exact_mg_documented, exact_pass

from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.core.uncertainty.difficulty_model import (
    Difficulty,
    posterior_variance_per_c,
    posterior_variance_table,
)
from gpassk_oc.core.uncertainty.rerun_variance import unbiased_variance_per_c


def _oracle(key: str, n: int, c: int) -> Fraction:
    spec = stats.parse_metric(key)
    if spec.kind == "G":
        return exact_g_tau(n, c, spec.k, spec.tau)
    if spec.kind == "mG":
        return exact_mg_documented(n, c, spec.k)
    return exact_pass(n, c, spec.k)


@pytest.mark.parametrize(
    "key,n",
    [("G-Pass@4_1.0", 8), ("G-Pass@3_0.5", 7), ("mG-Pass@4", 9), ("pass@2", 5), ("pass@1", 2)],
)
def test_unbiased_variance_is_exactly_unbiased(key, n):
    """E[V(c)] over c ~ Binomial(n, p) equals Var f(c), computed from brute-force metric
    values in exact rationals, at several rational p."""
    f = [_oracle(key, n, c) for c in range(n + 1)]
    v = unbiased_variance_per_c(key, n)
    assert v is not None and len(v) == n + 1
    for p in (Fraction(1, 10), Fraction(1, 3), Fraction(4, 5), Fraction(1, 2)):
        pmf = [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
        mean = sum(w * x for w, x in zip(pmf, f))
        var = sum(w * x * x for w, x in zip(pmf, f)) - mean**2
        expected = float(var)
        got = sum(float(w) * float(x) for w, x in zip(pmf, v))
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-15), (key, n, p)


def test_no_unbiased_variance_below_2k():
    assert unbiased_variance_per_c("G-Pass@4_1.0", 7) is None
    assert unbiased_variance_per_c("G-Pass@4_1.0", 8) is not None


def test_posterior_variance_matches_numerical_integration():
    """E[Var(f(c') | p) | c] for p | c ~ Beta(a + c, b + n − c), by quadrature over p of
    the exact binomial variance (Fractions per p would be slow; quad is independent)."""
    from scipy.integrate import quad
    from scipy.stats import beta as beta_dist

    n, key = 6, "G-Pass@4_0.75"
    f = np.array([float(_oracle(key, n, c)) for c in range(n + 1)])
    prior = Difficulty(0.7, 1.3, "test")
    got = posterior_variance_per_c(key, n, prior)

    def var_at(p: float) -> float:
        pmf = np.array([math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)])
        return float(pmf @ (f * f) - (pmf @ f) ** 2)

    for c in range(n + 1):
        post = beta_dist(prior.a + c, prior.b + n - c)
        expected = quad(lambda p, post=post: var_at(p) * post.pdf(p), 0, 1, epsabs=1e-12)[0]
        assert got[c] == pytest.approx(expected, rel=1e-6, abs=1e-10), c
    assert (got > 0).all()  # c = 0 and c = n too, unlike the plug-in p = c/n


def test_posterior_variance_table_is_every_spec_by_quadrature():
    """The batched table (specs whose square kernels differ in length side by side) has,
    in every column, the posterior expected variance computed by quadrature."""
    from scipy.integrate import quad
    from scipy.stats import beta as beta_dist

    n, prior = 7, Difficulty(1.4, 0.6, "test")
    keys = ["G-Pass@4_0.75", "pass@3", "mG-Pass@4", "G-Pass@5_1.0"]
    got = posterior_variance_table(keys, n, prior)
    assert got.shape == (n + 1, len(keys))
    for j, key in enumerate(keys):
        f = np.array([float(_oracle(key, n, c)) for c in range(n + 1)])

        def var_at(p: float, f=f) -> float:
            pmf = np.array([math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)])
            return float(pmf @ (f * f) - (pmf @ f) ** 2)

        for c in range(n + 1):
            post = beta_dist(prior.a + c, prior.b + n - c)
            expected = quad(lambda p, post=post: var_at(p) * post.pdf(p), 0, 1, epsabs=1e-12)[0]
            assert got[c, j] == pytest.approx(expected, rel=1e-6, abs=1e-10), (key, c)


def _bench():
    path = Path(__file__).resolve().parents[1] / "bench" / "bench_ci_coverage.py"
    spec = importlib.util.spec_from_file_location("bench_ci_coverage", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_population_truth_matches_monte_carlo():
    bench = _bench()
    p = np.random.default_rng(3).beta(0.6, 0.6, 400_000)
    for metric in ("G-Pass@8_1.0", "mG-Pass@16"):
        assert bench.population_truth(metric) == pytest.approx(
            bench.g_of_p(metric, p).mean(), abs=3e-3
        )


@pytest.mark.parametrize(
    "q,n,metric,top",
    [
        (32, 8, "G-Pass@4_1.0", 0.997),
        (32, 16, "G-Pass@8_1.0", 0.997),
        (32, 8, "G-Pass@8_1.0", 0.985),
    ],
)
def test_both_intervals_cover_at_small_n_and_few_questions(q, n, metric, top):
    """The bench's hardest cells, 300 simulated runs (MC SE ≈ 0.013): 95% intervals. The
    last cell has n = k < 2k: its rerun interval uses posterior variances. The first two
    have n = 2k in a table of 32 questions, where each question's variance is the larger
    of the unbiased and the posterior one (issue 35: the unbiased one alone left the
    demo's rows at 0.73-0.91): conservative by design, up to ~0.99 on these questions."""
    cov = _bench().simulate_cell(q, n, metric, runs=300, seed=7, resamples=1000)
    assert 0.91 <= cov.rerun <= top, cov
    assert 0.90 <= cov.benchmark <= 0.985, cov
    assert cov.rerun_width < cov.benchmark_width  # fixed questions: a narrower question


def test_paired_rerun_test_holds_its_level_and_covers():
    """A and B with the same success rates: the rerun p-value rejects at 5% about 5% of
    the time, and the rerun interval of A − B covers the true difference 0."""
    rng = np.random.default_rng(12)
    n, q, trials = 16, 60, 300
    p = rng.beta(0.6, 0.6, q)  # fixed questions
    reject = cover = 0
    for _ in range(trials):
        d = stats.compare(n, rng.binomial(n, p), n, rng.binomial(n, p), ["G-Pass@8_0.5"], n_boot=0)
        d = d["G-Pass@8_0.5"]
        # n = 16 = 2k: unbiased variances combined with the fitted ones ('posterior')
        assert d.rerun == "posterior" and 0 <= d.rerun_p <= 1
        reject += d.rerun_p < 0.05
        cover += d.rerun_low <= 0 <= d.rerun_high
    assert 0.02 <= reject / trials <= 0.09
    assert cover == trials - reject  # the t interval and the t-test agree


def test_rerun_interval_rules():
    # identical per-question values do not make a rerun certain: V > 0 when 0 < c < n
    est = stats.summarize(16, [8] * 10, ["pass@1"], n_boot=0)["pass@1"]
    assert est.rerun == "ok" and est.rerun_low < 0.5 < est.rerun_high
    assert est.ci == "off"  # no resamples: no benchmark interval
    # bounds stay in [0, 1]
    edge = stats.summarize(16, [16] * 5 + [15], ["pass@1"], n_boot=0)["pass@1"]
    assert edge.rerun_high <= 1.0
    with pytest.raises(ValueError, match="interval kind"):
        est.interval("bayes")


def test_posterior_interval_on_questions_without_spread_matches_known_p():
    """40 questions all at p = 0.9, n = k = 16 (no unbiased variance: posterior). The
    counts show no extra-binomial spread, so the fitted Beta is a near point mass at the
    mean rate, and the posterior interval must be as wide as the known-p rerun interval
    (closed form: Var 1[c = 16] = p¹⁶(1 − p¹⁶)) and cover the truth p¹⁶ at about 95%.
    A Beta pulled to mean 1/2 gave a 100× narrower interval that never covered."""
    key, n, q, p = "G-Pass@16_1.0", 16, 40, 0.9
    truth = p**16
    expected_half = 1.959963984540054 * math.sqrt(truth * (1 - truth) / q)
    assert stats.rerun_se(n, [p] * q, [key])[key] * 1.959963984540054 == pytest.approx(
        expected_half, rel=1e-9
    )
    rng = np.random.default_rng(5)
    runs, cover = 200, 0
    for _ in range(runs):
        est = stats.summarize(n, rng.binomial(n, p, q), [key], n_boot=0)[key]
        # n < 2k for a metric that needs all k right: shown, marked (Atoms.unchecked)
        assert est.rerun == "unreliable"
        half = (est.rerun_high - est.rerun_low) / 2
        if 0 < est.rerun_low and est.rerun_high < 1:  # unclipped: the width is the SE's
            assert 0.7 * expected_half <= half <= 1.4 * expected_half, half
        cover += est.rerun_low <= truth <= est.rerun_high
    assert 0.90 <= cover / runs <= 0.99, cover


def test_avg_uses_pass_at_1_intervals():
    """avg@n is c/n (pass@1's estimator): k = 1 for the n ≥ 2k rule, so avg@8 on n = 8 has
    an unbiased rerun variance ('ok', not 'posterior') and the same bounds as pass@1."""
    rng = np.random.default_rng(2)
    c = rng.binomial(8, rng.beta(1, 1, 30))
    est = stats.summarize(8, c, ["avg@8", "pass@1"], n_boot=200)
    assert est["avg@8"] == est["pass@1"] and est["avg@8"].rerun == "ok"
    # rerun SE from the closed form: V(c) = f² − C(c,2)/C(n,2) with f = c/n
    v = [(ci / 8) ** 2 - Fraction(ci * (ci - 1), 8 * 7) for ci in c]
    assert est["avg@8"].sampling_se == pytest.approx(math.sqrt(sum(v)) / 30, rel=1e-12)
    c_b = rng.binomial(8, rng.beta(1, 1, 30))
    d = stats.compare(8, c, 8, c_b, ["avg@8", "pass@1"], n_boot=200)
    assert d["avg@8"] == d["pass@1"] and d["avg@8"].rerun == "ok"
