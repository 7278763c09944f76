"""The rerun interval and the small-sample quantiles both interval kinds use (pure core).

**Rerun interval** (questions fixed, samples redrawn): the mean over Q questions of the
per-question estimates ``f(c_q)``, ± a t quantile × ``SE = sqrt(Σ_q V_q) / Q``, where
``V_q`` is the unbiased variance estimate of :mod:`.unbiased`. ``Σ V`` is itself noisy
when a few questions carry most of the variance (few questions, or τ = 1 where only
questions with p near 1 vary), so the quantile is Student's t with Satterthwaite-type
degrees of freedom ``ν = 3 (Σ V)² / Σ V²`` — the effective df of a sum of independent
one-df variance terms, each of whose square estimates ``σ⁴`` via ``E[V²] ≈ 3σ⁴``. On
Beta(0.6, 0.6) difficulties this covers at 0.94–0.96 for 95% from Q = 32, n = 8 (see
``bench/bench_ci_coverage.py``). No interval (NaN) when some question has ``n < 2k`` (no
unbiased variance exists) or when ``Σ V ≤ 0`` (no question shows any variation: a rerun
interval of width 0 would claim certainty it does not have).

**Benchmark interval** (questions resampled too): the percentile bootstrap over
questions, *expanded* for small Q (Hesterberg's expanded percentile): the quantiles are
taken at ``α' = 2 Φ(−sqrt(Q/(Q−1)) · t_{Q−1, 1−α/2})`` instead of α, which undoes the
bootstrap's ``(Q−1)/Q`` variance and its normal-tail shortfall — at Q = 32 the plain
percentile interval covers ~0.93, the expanded one ~0.94.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["expanded_alpha", "rerun_df", "t_quantile", "t_two_sided_p"]


def t_quantile(level: float, df: np.ndarray | float) -> np.ndarray:
    """Two-sided quantile of Student's t: P(|T_df| ≤ q) = level (normal for df = inf)."""
    from scipy.special import ndtri, stdtrit  # scipy.special only: cheap to import

    df = np.asarray(df, dtype=float)
    p = 0.5 + level / 2
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(df), ndtri(p), stdtrit(np.where(np.isinf(df), 1.0, df), p))


def t_two_sided_p(stat: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Two-sided p-value of a t statistic."""
    from scipy.special import stdtr

    return 2 * stdtr(df, -np.abs(stat))


def expanded_alpha(level: float, q: int) -> float:
    """The tail mass α' at which to read the bootstrap percentiles (see module docstring);
    α itself for Q < 2 (no t quantile exists) — the interval then has no width anyway."""
    alpha = 1 - level
    if q < 2:
        return alpha
    from scipy.special import ndtr

    return float(2 * ndtr(-math.sqrt(q / (q - 1)) * float(t_quantile(level, q - 1))))


def rerun_df(var_sum: np.ndarray, var_sq_sum: np.ndarray) -> np.ndarray:
    """ν = 3 (Σ V)² / Σ V², at least 1 (see module docstring)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.maximum(3 * var_sum**2 / var_sq_sum, 1.0)
