"""gpassk_oc.core.uncertainty.metric_intervals: expected values come from independent oracles (Fraction sums,
brute-force enumeration, scipy's binomial tail, plain simulation), never from the code
under test."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom

from gpassk_oc.core.uncertainty import metric_intervals as stats


# --------------------------------------------------------------------------- oracles
def oracle_g_pass(n: int, c: int, k: int, tau: Fraction) -> Fraction:
    """P(at least max(ceil(τk), 1) of k draws without replacement are correct)."""
    m = max(math.ceil(tau * k), 1)
    total = sum(
        Fraction(math.comb(c, j) * math.comb(n - c, k - j)) for j in range(m, min(c, k) + 1)
    )
    return total / math.comb(n, k)


def brute_g_pass(n: int, c: int, k: int, tau: Fraction) -> Fraction:
    """Enumerate every k-subset of n samples (first c correct)."""
    m = max(math.ceil(tau * k), 1)
    subsets = list(itertools.combinations(range(n), k))
    hits = sum(1 for s in subsets if sum(1 for i in s if i < c) >= m)
    return Fraction(hits, len(subsets))


def oracle_mg(n: int, c: int, k: int) -> Fraction:
    return Fraction(2, k) * sum(
        oracle_g_pass(n, c, k, Fraction(i, k)) for i in range(math.ceil(k / 2) + 1, k + 1)
    )


def oracle_pass(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def oracle_value(key: str, n: int, c: int) -> Fraction:
    if key.startswith("G-Pass@"):
        k, tau = key[len("G-Pass@") :].split("_")
        return oracle_g_pass(n, c, int(k), Fraction(tau))
    if key.startswith("mG-Pass@"):
        return oracle_mg(n, c, int(key.split("@")[1]))
    if key.startswith("pass@"):
        return oracle_pass(n, c, int(key.split("@")[1]))
    k = int(key.split("@")[1])
    return oracle_pass(n, c, k) - oracle_g_pass(n, c, k, Fraction(1))


def population_truth(p: np.ndarray, key: str) -> float:
    """E over questions of the metric's target: the estimators are unbiased for the
    binomial tails P(Binomial(k, p) >= m)."""
    if key.startswith("G-Pass@"):
        k, tau = key[len("G-Pass@") :].split("_")
        k = int(k)
        m = max(math.ceil(Fraction(tau) * k), 1)
        return float(np.mean(binom.sf(m - 1, k, p)))
    if key.startswith("mG-Pass@"):
        k = int(key.split("@")[1])
        return float(
            np.mean(sum(binom.sf(i - 1, k, p) for i in range(math.ceil(k / 2) + 1, k + 1)) * 2 / k)
        )
    k = int(key.split("@")[1])
    return float(np.mean(1 - (1 - p) ** k))


# --------------------------------------------------------------------------- point values
def test_brute_force_and_fraction_oracles_agree():
    # the two oracles are themselves independent; check them against each other first
    for c in range(9):
        for tau in (Fraction(0), Fraction(1, 2), Fraction(3, 4), Fraction(1)):
            assert brute_g_pass(8, c, 4, tau) == oracle_g_pass(8, c, 4, tau)


@pytest.mark.parametrize("n,ks", [(8, (2, 4)), (48, (4, 16))])
def test_summarize_point_values_match_oracle(n, ks):
    rng = np.random.default_rng(n)
    c = rng.integers(0, n + 1, size=37)
    keys = [f"G-Pass@{k}_{t}" for k in ks for t in ("0.0", "0.25", "0.5", "0.75", "1.0")]
    keys += [f"mG-Pass@{k}" for k in ks] + [f"pass@{k}" for k in ks] + [f"gap@{k}" for k in ks]
    keys += ["pass@1"]
    est = stats.summarize(n, c, keys, n_boot=200)
    oracle = brute_g_pass if n <= 10 else oracle_g_pass
    for key in keys:
        if key.startswith("G-Pass@"):
            k, tau = key[len("G-Pass@") :].split("_")
            expected = sum(oracle(n, int(ci), int(k), Fraction(tau)) for ci in c) / len(c)
        else:
            expected = sum(oracle_value(key, n, int(ci)) for ci in c) / len(c)
        assert est[key].value == pytest.approx(float(expected), abs=1e-12), key
        assert est[key].ci_low <= est[key].value <= est[key].ci_high
        assert est[key].n_questions == len(c)


def test_mixed_n_and_undefined_metrics_are_skipped_not_zeroed():
    # two questions with n=4 cannot carry @8 metrics; the mean is over the others
    n = np.array([16, 16, 16, 4, 4])
    c = np.array([3, 16, 9, 2, 4])
    est = stats.summarize(n, c, ["G-Pass@8_0.5", "pass@1"], n_boot=100)
    expected = sum(oracle_g_pass(16, ci, 8, Fraction(1, 2)) for ci in (3, 16, 9)) / 3
    assert est["G-Pass@8_0.5"].value == pytest.approx(float(expected), abs=1e-12)
    assert est["G-Pass@8_0.5"].n_questions == 3
    assert est["pass@1"].value == pytest.approx((3 / 16 + 1 + 9 / 16 + 2 / 4 + 1) / 5)
    only_small = stats.summarize(4, [1, 2], ["G-Pass@8_0.5"], n_boot=100)["G-Pass@8_0.5"]
    assert math.isnan(only_small.value) and only_small.n_questions == 0


def test_parse_metric_and_keys():
    assert stats.parse_metric("G-Pass@16_0.75").key == "G-Pass@16_0.75"
    assert stats.parse_metric("mG-Pass@8") == stats.MetricSpec("mG", 8)
    assert stats.MetricSpec("G", 12, Fraction(7, 12)).tau == Fraction(7, 12)
    with pytest.raises(ValueError, match="unknown metric"):
        stats.parse_metric("G-Pass16")
    assert stats.metric_per_c("G-Pass@16_0.5", 8) is None


def test_exact_fraction_grid_is_not_rounded_through_floats():
    # 7/12 as a float is 0.58333333333333337 > 7/12, whose ceil(τk) would be 8, not 7
    spec = stats.MetricSpec("G", 12, Fraction(7, 12))
    values = stats.metric_per_c(spec, 24)
    assert values[10] == pytest.approx(float(oracle_g_pass(24, 10, 12, Fraction(7, 12))), abs=1e-15)


# --------------------------------------------------------------------------- bootstrap
@pytest.mark.parametrize("a,q", [(5, 200), (40, 60)])  # conditional-binomial and index paths
def test_resample_counts_is_multinomial(a, q):
    rng = np.random.default_rng(1)
    weight = np.bincount(rng.integers(0, a, size=q), minlength=a)
    weight = weight[weight > 0]
    counts = stats.resample_counts(weight, 20_000, np.random.default_rng(2))
    assert (counts.sum(axis=1) == weight.sum()).all()
    p = weight / weight.sum()
    mean_sd = np.sqrt(weight.sum() * p * (1 - p) / 20_000)
    assert np.all(np.abs(counts.mean(axis=0) - weight) < 5 * mean_sd + 1e-9)
    var = counts.var(axis=0)
    np.testing.assert_allclose(var, weight.sum() * p * (1 - p), rtol=0.08, atol=1e-9)
    # multinomial counts are negatively correlated: cov = -Q p_i p_j
    cov01 = np.cov(counts[:, 0], counts[:, 1])[0, 1]
    assert cov01 == pytest.approx(-weight.sum() * p[0] * p[1], rel=0.15)


def test_bootstrap_spread_matches_the_standard_error_of_a_mean():
    rng = np.random.default_rng(3)
    c = rng.integers(0, 49, size=400)
    per_question = np.array([float(oracle_g_pass(48, int(ci), 16, Fraction(1, 2))) for ci in c])
    atoms = stats.atoms_of(48, c)
    values = atoms.values([stats.parse_metric("G-Pass@16_0.5")])
    _, low, high = stats.bootstrap(atoms.weight, values, n_boot=20_000, seed=5)
    se = per_question.std() / math.sqrt(len(c))  # plug-in SE of a mean
    assert (high[0] - low[0]) == pytest.approx(2 * 1.96 * se, rel=0.06)


def test_bootstrap_is_seeded_and_levels_nest():
    c = np.random.default_rng(4).integers(0, 17, size=50)
    a = stats.summarize(16, c, ["mG-Pass@8"], seed=7)["mG-Pass@8"]
    b = stats.summarize(16, c, ["mG-Pass@8"], seed=7)["mG-Pass@8"]
    other = stats.summarize(16, c, ["mG-Pass@8"], seed=8)["mG-Pass@8"]
    assert a == b and (a.ci_low, a.ci_high) != (other.ci_low, other.ci_high)
    wide = stats.summarize(16, c, ["mG-Pass@8"], seed=7, level=0.99)["mG-Pass@8"]
    narrow = stats.summarize(16, c, ["mG-Pass@8"], seed=7, level=0.8)["mG-Pass@8"]
    assert (
        wide.ci_low < a.ci_low < narrow.ci_low < a.value < narrow.ci_high < a.ci_high < wide.ci_high
    )
    flat = stats.summarize(16, [5] * 30, ["G-Pass@8_0.5"])["G-Pass@8_0.5"]
    # every question has the same value: resampling questions cannot give a width, so
    # no interval is claimed (not a zero-width one that would exclude any other truth)
    assert flat.ci == "no width" and math.isnan(flat.ci_low) and math.isnan(flat.ci_high)
    assert flat.value == pytest.approx(float(oracle_g_pass(16, 5, 8, Fraction(1, 2))))


def test_ci_coverage_by_simulation():
    """200 seeded datasets of 150 questions from one population: the 95% interval
    covers the population value 90–99% of the time, for every metric."""
    pool = np.random.default_rng(2024).beta(0.7, 0.7, size=5000)  # questions' true rates
    n = 16
    keys = ["G-Pass@8_0.5", "G-Pass@8_1.0", "mG-Pass@8", "pass@8", "pass@1"]
    truth = {key: population_truth(pool, key) for key in keys}
    truth["pass@1"] = float(pool.mean())
    covered = {key: 0 for key in keys}
    rng = np.random.default_rng(99)
    trials = 200
    for trial in range(trials):
        p = pool[rng.integers(0, len(pool), size=150)]
        c = rng.binomial(n, p)
        est = stats.summarize(
            n,
            c,
            keys,
            n_boot=4000,
            seed=trial,
        )
        for key in keys:
            covered[key] += est[key].ci_low <= truth[key] <= est[key].ci_high
    rates = {key: covered[key] / trials for key in keys}
    assert all(0.90 <= r <= 0.99 for r in rates.values()), rates


# --------------------------------------------------------------------------- rerun SE
def test_rerun_se_matches_simulated_reruns():
    rng = np.random.default_rng(11)
    n, q = 24, 60
    p = rng.beta(1, 1, size=q)
    keys = ["G-Pass@8_0.5", "G-Pass@8_1.0", "mG-Pass@8", "pass@1"]
    # per-c lookup tables from the Fraction oracle, then plain simulation of reruns
    tables = {
        key: np.array(
            [float(oracle_value(key, n, ci)) if key != "pass@1" else ci / n for ci in range(n + 1)]
        )
        for key in keys
    }
    reruns = rng.binomial(n, p, size=(4000, q))
    simulated = {key: tables[key][reruns].mean(axis=1).std() for key in keys}
    computed = stats.rerun_se(n, p, keys)
    for key in keys:
        assert computed[key] == pytest.approx(simulated[key], rel=0.08), key


def test_unbiased_sampling_se():
    # c = 0 and c = n: the unbiased variance estimate is 0, so no rerun interval is claimed
    est = stats.summarize(16, [0, 16, 0, 16], ["G-Pass@8_0.5"])["G-Pass@8_0.5"]
    assert est.sampling_se == 0 and est.rerun == "no width"
    # pass@1 = c/n: the textbook unbiased Var(c/n) estimate is p̂(1 − p̂)/(n − 1) = 1/60
    one = stats.summarize(16, [8], ["pass@1"])["pass@1"]
    assert one.sampling_se == pytest.approx((1 / 60) ** 0.5, rel=1e-12)
    # n < 2k: no unbiased variance exists; with questions to fit a Beta to, the posterior
    # variance is used and the interval says so; with one question nothing is given
    short = stats.summarize(12, [3, 9, 12], ["G-Pass@8_0.5"])["G-Pass@8_0.5"]
    assert short.rerun == "unreliable" and short.sampling_se > 0  # 3 questions: too few
    assert short.rerun_low < short.value < short.rerun_high
    alone = stats.summarize(12, [3], ["G-Pass@8_0.5"])["G-Pass@8_0.5"]
    assert alone.rerun == "n < 2k" and np.isnan(alone.sampling_se)
    assert np.isnan(alone.rerun_low) and np.isnan(alone.rerun_high)


# --------------------------------------------------------------------------- paired
def test_compare_identical_runs_is_exactly_zero():
    c = np.random.default_rng(5).integers(0, 17, size=40)
    d = stats.compare(16, c, 16, c, ["mG-Pass@8"])["mG-Pass@8"]
    # every per-question difference is 0: no spread, so no interval is claimed
    assert d.diff == 0 and d.a == d.b and d.ci == "no width"
    assert math.isnan(d.ci_low) and math.isnan(d.ci_high)


def test_paired_difference_values_and_tighter_than_unpaired():
    rng = np.random.default_rng(6)
    p = rng.beta(0.8, 0.8, size=150)
    c_a = rng.binomial(16, p)
    c_b = rng.binomial(16, np.clip(p - 0.05, 0, 1))  # B is slightly worse on the same questions
    d = stats.compare(16, c_a, 16, c_b, ["G-Pass@8_0.5", "pass@1"], seed=1)
    for key in ("G-Pass@8_0.5", "pass@1"):
        diff = (
            sum(
                oracle_value(key, 16, int(a)) - oracle_value(key, 16, int(b))
                for a, b in zip(c_a, c_b)
            )
            / len(c_a)
            if key != "pass@1"
            else (c_a - c_b).mean() / 16
        )
        assert d[key].diff == pytest.approx(float(diff), abs=1e-12)
        assert d[key].diff == pytest.approx(d[key].a - d[key].b, abs=1e-12)
    a = stats.summarize(16, c_a, ["G-Pass@8_0.5"])["G-Pass@8_0.5"]
    b = stats.summarize(16, c_b, ["G-Pass@8_0.5"])["G-Pass@8_0.5"]
    unpaired_width = math.hypot(a.ci_high - a.ci_low, b.ci_high - b.ci_low)
    assert d["G-Pass@8_0.5"].ci_high - d["G-Pass@8_0.5"].ci_low < 0.6 * unpaired_width
    assert 0 <= d["G-Pass@8_0.5"].p_value <= 1


def test_compare_rejects_misaligned_inputs():
    with pytest.raises(ValueError, match="same questions"):
        stats.compare(16, [1, 2, 3], 16, [1, 2], ["pass@1"])


# --------------------------------------------------------------------------- hygiene
def test_core_import_is_pure_and_fast():
    code = (
        "import sys, time; t = time.perf_counter(); import gpassk_oc.core.uncertainty.metric_intervals; "
        "d = time.perf_counter() - t; "
        "assert 'opencompass' not in sys.modules and 'scipy' not in sys.modules and "
        "'matplotlib' not in sys.modules, sorted(m for m in sys.modules if m.split('.')[0] "
        "in ('opencompass', 'scipy', 'matplotlib')); print(d)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 3.0  # generous: a loaded CI machine; the point is no heavy imports


def test_paired_ci_coverage_by_simulation():
    """Two models on the same questions (B's rate is A's shifted down): the paired 95%
    interval covers the population difference 90–99% of the time."""
    pool = np.random.default_rng(7).beta(0.8, 0.8, size=5000)
    pool_b = np.clip(pool - 0.1 * pool * (1 - pool) * 4, 0, 1)
    key = "G-Pass@8_0.75"
    truth = population_truth(pool, key) - population_truth(pool_b, key)
    rng = np.random.default_rng(8)
    covered = 0
    for trial in range(200):
        idx = rng.integers(0, len(pool), size=120)
        c_a, c_b = rng.binomial(16, pool[idx]), rng.binomial(16, pool_b[idx])
        d = stats.compare(16, c_a, 16, c_b, [key], n_boot=4000, seed=trial)[key]
        covered += d.ci_low <= truth <= d.ci_high
    assert 0.90 <= covered / 200 <= 0.99, covered / 200


def test_interval_always_contains_its_point_estimate():
    """With few resamples a percentile interval easily misses the mean it is about; the
    reported interval is widened to reach it (for summaries and paired differences)."""
    rng = np.random.default_rng(11)
    missed = 0
    for seed in range(30):
        c = rng.integers(0, 17, size=12)
        raw_point = float(
            np.mean([float(oracle_g_pass(16, int(ci), 8, Fraction(1, 2))) for ci in c])
        )
        atoms = stats.atoms_of(16, c)
        means = stats._bootstrap_means(
            atoms.weight, atoms.values([stats.parse_metric("G-Pass@8_0.5")]), 2, seed
        )[1]
        raw_low, raw_high = (float(x[0]) for x in stats._percentiles(means, 0.95))
        missed += not raw_low <= raw_point <= raw_high
        est = stats.summarize(16, c, ["G-Pass@8_0.5"], n_boot=2, seed=seed)["G-Pass@8_0.5"]
        assert est.value == pytest.approx(raw_point, abs=1e-12)
        assert est.ci_low <= est.value <= est.ci_high, seed
        d = stats.compare(
            16, c, 16, rng.integers(0, 17, size=12), ["G-Pass@8_0.5"], n_boot=2, seed=seed
        )["G-Pass@8_0.5"]
        assert d.ci_low <= d.diff <= d.ci_high, seed
    assert missed > 5  # the raw percentile interval does miss it: the rule is needed
