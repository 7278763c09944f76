"""Unbiased rerun variance of a question's metric from its own counts (pure core).

A rerun keeps the questions and draws fresh samples: question q's count is
``c ~ Binomial(n, p_q)`` and its metric estimate is

    f(c) = Σ_i β_i · C(c, i) C(n−c, k−i) / C(n, k),

where ``β_i`` is the metric on k draws with i correct (``1[i ≥ m]`` for G-Pass@k_τ,
``1[i ≥ 1]`` for pass@k, a step sum for mG-Pass@k). Its mean is the degree-k polynomial
``g(p) = Σ_i β_i C(k, i) p^i (1−p)^{k−i}`` and its variance is ``E[f²] − g(p)²``.

``f(c)²`` estimates ``E[f²]`` without bias (it *is* f²). ``g(p)²`` is a degree-2k
polynomial whose Bernstein coefficients are ``B_j = Σ_{i+i'=j} β_i β_i' C(k,i) C(k,i') /
C(2k, j)`` (two disjoint draws of k), and ``E[C(c,j) C(n−c,2k−j)] / C(n,2k) = C(2k,j)
p^j (1−p)^{2k−j}`` — the U-statistic over disjoint pairs of k-subsets. Hence

    V(c) = f(c)² − Σ_j B_j · C(c, j) C(n−c, 2k−j) / C(n, 2k)

has ``E[V(c)] = Var f(c)`` exactly, for every p, whenever ``n ≥ 2k``. With ``n < 2k`` no
unbiased estimator of ``g(p)²`` exists (an unbiased estimator from Binomial(n, p) counts
is a polynomial of degree ≤ n), so none of the variance does: callers must then say that
no calibrated rerun interval exists instead of guessing one.

Unlike the plug-in variance at p̂ = c/n (zero for c = 0 or c = n, and biased low for
high-τ metrics at small n), V is unbiased, so the SE of a mean over Q questions,
``sqrt(Σ_q V(c_q)) / Q``, is calibrated down to n = 2k (a single V may be negative; only
the sum is used). Everything is computed in exact rationals (cached per metric and n)
and rounded once to a double.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.uncertainty.known_rates import estimator_spec, metric_per_c

__all__ = ["kernel", "square_kernel", "unbiased_variance_per_c"]


@lru_cache(maxsize=256)
def kernel(spec: str | MetricSpec) -> tuple[Fraction, ...]:
    """β_0..β_k: the metric on exactly k draws with i correct, as exact rationals (k of
    :func:`.known_rates.estimator_spec`: avg@n is pass@1's c/n, so its kernel is (0, 1)).

    It is the per-count table at n = k, so the metric dispatch lives only in
    :func:`.known_rates.metric_per_c`. That table is a rational with denominator dividing
    k (mG's weights are integers over k; every other kind is 0 or 1), so the nearest such
    rational to the double is the exact value; a mismatch would be a new metric kind and
    fails loudly.
    """
    spec = estimator_spec(spec)
    floats = metric_per_c(spec, spec.k)
    if floats is None:  # k ≤ n = k, so the metric does not exist at its k
        raise ValueError(f"{spec.key}: {spec.undefined}")
    out = tuple(Fraction(float(x)).limit_denominator(2 * spec.k) for x in floats)
    if any(abs(float(b) - float(x)) > 1e-12 for b, x in zip(out, floats)):
        raise ValueError(f"{spec.key}: kernel values are not rationals over k")
    return out


@lru_cache(maxsize=256)
def square_kernel(spec: str | MetricSpec) -> tuple[Fraction, ...]:
    """B_0..B_2k: Bernstein coefficients of g(p)² (see the module docstring)."""
    beta = kernel(spec)
    k = len(beta) - 1
    out = [Fraction(0)] * (2 * k + 1)
    for i, bi in enumerate(beta):
        if bi == 0:
            continue
        for i2, bi2 in enumerate(beta):
            if bi2:
                out[i + i2] += bi * bi2 * math.comb(k, i) * math.comb(k, i2)
    return tuple(b / math.comb(2 * k, j) for j, b in enumerate(out))


def _hyper_mean(coef: tuple[Fraction, ...], n: int, c: int) -> Fraction:
    """Σ_j coef_j · C(c, j) C(n−c, d−j) / C(n, d) with d = len(coef) − 1."""
    d = len(coef) - 1
    lo, hi = max(0, d - (n - c)), min(c, d)
    total = sum(
        (coef[j] * math.comb(c, j) * math.comb(n - c, d - j) for j in range(lo, hi + 1)),
        Fraction(0),
    )
    return total / math.comb(n, d)


@lru_cache(maxsize=1024)
def _per_c(spec: MetricSpec, n: int) -> tuple[float, ...] | None:
    if n < 2 * spec.k or spec.undefined is not None:
        return None
    beta, square = kernel(spec), square_kernel(spec)
    out = []
    for c in range(n + 1):
        f = _hyper_mean(beta, n, c)
        out.append(float(f * f - _hyper_mean(square, n, c)))
    return tuple(out)


def unbiased_variance_per_c(spec: str | MetricSpec, n: int) -> np.ndarray | None:
    """V(c) for c = 0..n (shape (n+1,)): unbiased for the rerun variance of the metric's
    per-question estimate; None when n < 2k (no unbiased estimator exists) or the metric
    does not exist at its k."""
    values = _per_c(estimator_spec(spec), int(n))
    return None if values is None else np.array(values)
