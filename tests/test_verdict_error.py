"""Verdict-error correction (gpassk_oc.core.uncertainty): the channel and the posterior over
true counts against brute-force enumeration with exact Fractions, the zero-error case
against the raw estimate (exact equality), and the rates' arithmetic from its definition."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from gpassk_oc.core.uncertainty.corrected_estimates import correct
from gpassk_oc.core.uncertainty.difficulty_model import Difficulty
from gpassk_oc.core.uncertainty.metric_intervals import summarize
from gpassk_oc.core.uncertainty.verdict_channel import channel_matrix, true_count_posterior
from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit, parse_verdict_error


def _beta_int(a: int, b: int) -> Fraction:
    """B(a, b) for positive integers: (a−1)!(b−1)!/(a+b−1)!."""
    return Fraction(math.factorial(a - 1) * math.factorial(b - 1), math.factorial(a + b - 1))


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_channel_matches_enumeration(n: int) -> None:
    fp, fn = Fraction(1, 10), Fraction(1, 5)
    k = channel_matrix(n, float(fp), float(fn))
    for t in range(n + 1):
        truth = [1] * t + [0] * (n - t)
        want = [Fraction(0)] * (n + 1)
        for v in itertools.product((0, 1), repeat=n):
            p = Fraction(1)
            for y, x in zip(truth, v):
                p *= ((1 - fn) if x else fn) if y else (fp if x else 1 - fp)
            want[sum(v)] += p
        assert np.allclose(k[:, t], [float(w) for w in want], rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    ("sources", "observed"),
    [((0, 0, 0), (2,)), ((0, 0, 1, 1), (1, 2)), ((0, 1, 1, 0, 1), (0, 3)), ((1, 1), (0, 0))],
)
def test_posterior_matches_enumeration(sources: tuple[int, ...], observed: tuple[int, ...]) -> None:
    """P(t | c_s per source) by enumerating every true and observed verdict vector, with
    p ~ Beta(2, 3) integrated exactly (the Beta function of integers is rational)."""
    rates = [(Fraction(1, 20), Fraction(1, 8)), (Fraction(1, 5), Fraction(1, 10))]
    a, b = 2, 3
    n = len(sources)
    counts = tuple(observed) if len(observed) == 2 else (observed[0], 0)
    want = [Fraction(0)] * (n + 1)
    for y in itertools.product((0, 1), repeat=n):
        t = sum(y)
        prior = _beta_int(a + t, b + n - t) / _beta_int(a, b)
        for v in itertools.product((0, 1), repeat=n):
            if tuple(sum(x for x, s in zip(v, sources) if s == k) for k in (0, 1)) != counts:
                continue
            p = prior
            for yi, vi, s in zip(y, v, sources):
                fp, fn = rates[s]
                p *= ((1 - fn) if vi else fn) if yi else (fp if vi else 1 - fp)
            want[t] += p
    total = sum(want)
    question = tuple((sources.count(k), counts[k]) for k in (0, 1))
    got = true_count_posterior(
        question, [(float(x), float(y)) for x, y in rates], Difficulty(a, b, "test")
    )
    assert np.allclose(got, [float(w / total) for w in want], rtol=0, atol=1e-12)


def test_zero_error_is_the_raw_estimate_exactly() -> None:
    rng = np.random.default_rng(3)
    n, c = 12, rng.binomial(12, rng.beta(0.6, 0.6, size=40))
    metrics = ["G-Pass@4_0.5", "G-Pass@4_1.0", "mG-Pass@4", "pass@4", "pass@1"]
    raw = summarize(n, c, metrics, n_boot=0)
    got = correct([((n, int(x)),) for x in c], [(0.0, 0.0)], metrics, n_boot=0)
    for key in metrics:
        assert got[key].value == raw[key].value  # exact, not approximately


def test_known_rates_remove_most_of_the_bias() -> None:
    """Simulated: fn = 5% on G-Pass@8_1.0 — raw is far off, corrected close to the truth."""
    rng = np.random.default_rng(11)
    n, q, fp, fn = 16, 3000, 0.01, 0.05
    p = rng.beta(0.6, 0.6, size=q)
    t = rng.binomial(n, p)
    c = rng.binomial(t, 1 - fn) + rng.binomial(n - t, fp)
    key = "G-Pass@8_1.0"
    truth = summarize(n, t, [key], n_boot=0)[key].value
    raw = summarize(n, c, [key], n_boot=0)[key].value
    got = correct([((n, int(x)),) for x in c], [(fp, fn)], [key], n_boot=200)[key]
    assert abs(raw - truth) > 0.03
    assert abs(got.value - truth) < 0.01
    assert got.rerun_low <= got.value <= got.rerun_high
    assert got.ci_low <= got.value <= got.ci_high


def test_rates_from_exact_shares() -> None:
    """A source with 900 truly correct and 100 truly wrong samples, fp = 0.1, fn = 0.02:
    it says 'correct' 882 + 10 times; the shares e1, e0 of that population give back
    exactly fp and fn."""
    n1, n0 = 882 + 10, 18 + 90
    audit = SourceAudit("judge", n1, n0, 0, 0, 0, 0)
    fp, fn = audit.rates_of(np.array(10 / n1), np.array(18 / n0))
    assert float(fp) == pytest.approx(0.1, abs=1e-12)
    assert float(fn) == pytest.approx(0.02, abs=1e-12)


@pytest.mark.parametrize(
    ("spec", "phrase"),
    [
        ("fp=0.6,fn=0.5", ">= 1"),
        ("fp=-0.1,fn=0.1", "[0, 1)"),
        ("fp=1,fn=0", "[0, 1)"),
        ("fp=0.1", "fn="),
        ("fp=0.1,fn=x", "not a number"),
        ("fp=0.1,fn=0.1,bogus=1", "fp=RATE"),
    ],
)
def test_bad_verdict_error(spec: str, phrase: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        parse_verdict_error([spec])
    assert phrase in str(info.value) and "\n" not in str(info.value)


def test_verdict_error_by_source() -> None:
    got = parse_verdict_error(["fp=0.01,fn=0.02,by=judge", "fp=0,fn=0.005,by=rule"])
    assert got == {"judge": (0.01, 0.02), "rule": (0.0, 0.005)}


def test_rank_intervals_simple_cases() -> None:
    """Far-apart rows get their exact ranks; identical rows span every rank; a row's
    interval always holds its point rank (tied rows share the better one)."""
    from gpassk_oc.core.uncertainty.rank_intervals import point_ranks, rank_intervals

    rng = np.random.default_rng(0)
    apart = np.array([0.1, 0.5, 0.9])
    draws = apart + 0.001 * rng.standard_normal((2000, 3))
    assert rank_intervals(apart, draws) == [(3, 3), (2, 2), (1, 1)]
    same = np.full(4, 0.5)
    spans = rank_intervals(same, same + 0.01 * rng.standard_normal((2000, 4)))
    assert spans == [(1, 4)] * 4
    assert point_ranks([0.2, 0.7, 0.7, np.nan]).tolist()[:3] == [3.0, 1.0, 1.0]
