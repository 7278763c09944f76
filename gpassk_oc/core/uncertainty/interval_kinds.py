"""How the two interval kinds are made: the rerun interval (:func:`rerun_interval`) and its
quantiles (pure core).

**Rerun interval** (questions fixed, samples redrawn): the mean over Q questions of the
per-question estimates ``f(c_q)``, ± a t quantile × ``SE = sqrt(Σ_q V_q) / Q``, where
``V_q`` is the unbiased variance estimate of :mod:`.rerun_variance`. ``Σ V`` is itself noisy
when a few questions carry most of the variance (few questions, or τ = 1 where only
questions with p near 1 vary), so the quantile is Student's t with Satterthwaite-type
degrees of freedom ``ν = 2 (Σ σ²)² / Σ 2σ⁴`` with ``σ⁴`` estimated by ``V²/3`` (the
relation ``E[V²] = 3σ⁴`` of a one-df normal variance term), i.e. ``ν = 3 (Σ V)² / Σ V²``.
That is a heuristic — V is not χ²₁ — so it is checked by simulation: on Beta(0.6, 0.6)
difficulties it covers 0.94–0.96 for 95% from Q = 32, n = 8 (``bench/bench_ci_coverage.py``;
the plain normal interval covers 0.92–0.93 there, ``ν = (Σ V)² / Σ V²`` 0.985). Where a question's V is 0 or missing
(n < 2k), or n < 4k, the fitted Beta's posterior variance (the grid prior's for metrics
flat at both ends, :meth:`.atoms.Atoms.ends_grid`) stands in or is combined with it
(:meth:`.atoms.Atoms.variances`); no interval (NaN) when that cannot be fitted or when
``Σ V ≤ 0`` (a rerun interval of width 0 would claim certainty the counts do not give).
An interval whose questions include fewer than :data:`MIN_VARYING` that vary is still
given, marked ``unreliable`` (:func:`mark_unreliable`), as is one whose variance is
mostly the fitted prior's (:data:`GUESSED_SHARE`), and one of a metric that needs all
k draws right where n < 2k (:meth:`.atoms.Atoms.unchecked`: its width is the fitted
prior's guess near p = 1, which the counts cannot check); one whose fallback variances sum to
more than :data:`WIDE_RATIO` times what a shape-free prior gives is marked ``wide`` (only
with ``Fallback(ends="prior")``: by default those metrics take the shape-free prior's).

**Benchmark interval** (questions resampled too): the bootstrap over questions, read
with BCa (bias-corrected and accelerated) percentiles, implemented in
:func:`.metric_intervals.bootstrap` over atoms. Per-question values of high-τ metrics are very
skewed (most questions 0, a few near 1), and a mean of 32 of them is skewed too: the
plain percentile interval then covers ~0.92 at Q = 32, Student t ~0.93, bootstrap-t
~0.975 (too wide), BCa ~0.945 (``bench/bench_ci_coverage.py``). Below 3 questions no
jackknife exists and the plain percentiles are used.
"""

from __future__ import annotations

import numpy as np

from gpassk_oc.core.uncertainty.bootstrap import DEFAULT_LEVEL

__all__ = [
    "GUESSED_SHARE",
    "MIN_VARYING",
    "SHOWN",
    "WIDE_RATIO",
    "mark_unreliable",
    "marked",
    "p_held_to_interval",
    "rerun_df",
    "rerun_interval",
    "t_quantile",
    "t_two_sided_p",
]

#: a rerun interval resting on fewer questions whose value a rerun can move (count strictly
#: between the estimator's flat ends) is marked 'unreliable': its Σ V is then a sum of at
#: most 3 noisy terms, and neither the t quantile nor the posterior fallback makes it hold
#: its level (steady G-Pass@4_1.0, n = 8, 8 questions of which ≤ 3 vary: coverage 0.81 and
#: 0.90 at 95%; bench/bench_small_tables.py shows the share of reruns flagged per cell)
MIN_VARYING = 4
#: a rerun interval of a metric flat at both ends (G-Pass@k_τ with 2 ≤ ⌈τk⌉ < k) at
#: n ≥ 2k more than this share of whose summed variance is the fitted prior's posterior
#: variance, not the unbiased V(c) (it stands in where a count lies at a flat end, V(c) = 0,
#: and is added to V(c) at 2k ≤ n < 4k) is marked 'unreliable' as well: its width is then
#: the fitted difficulty model's guess, which the counts cannot check. Such a metric's
#: variance near p = 0 or 1 is a rare-event probability that the prior's estimate of p
#: moves many-fold, so these intervals covered 1.000 in some steady tables and 0.6 in
#: others (:meth:`.atoms.Atoms.guessed`; bench/bench_small_tables.py, which chose 0.75:
#: below it (0.7) the cells inside the [0.93, 0.97] band were marked in more than 10% of
#: their reruns on average)
GUESSED_SHARE = 0.75
#: a 'posterior' rerun interval whose variances sum to more than this many times what the
#: same rule gives with the shape-free grid prior (:mod:`.grid_prior`) fitted to the same
#: counts is marked 'wide': the Beta's shape, not the samples, sets its width. Why 2: an
#: interval covers 0.97 (the top of the [0.93, 0.97] goal at 95%) when its variance is
#: (z₀.₉₈₅ / z₀.₉₇₅)² = 1.23 times the true one; the grid prior's variance is at worst
#: about 0.6 times the true one for the metrics judged (its worst τ = 0.5 cell as the
#: fallback covers 0.870: (z₀.₉₃₅ / z₀.₉₇₅)² = 0.60; docs/intervals-and-planning.md), so a
#: Beta variance above 1.23 / 0.60 ≈ 2 times the grid's is above 1.23 times the truth:
#: wider than the goal allows, on the counts alone (:meth:`.atoms.Atoms.wide`)
WIDE_RATIO = 2.0
#: rerun statuses whose interval has bounds ('unreliable', 'wide': shown, with a warning)
SHOWN = ("ok", "posterior", "wide", "unreliable")


def marked(
    status: list[str], fallback: np.ndarray, wide: np.ndarray, varying: np.ndarray
) -> list[str]:
    """Rerun statuses with their marks: 'posterior' where some question's variance came
    from the fitted prior (*fallback*, per column), 'wide' where that prior's shape sets
    the width (*wide*: :meth:`.atoms.Atoms.wide`), then :func:`mark_unreliable`."""
    status = [
        ("wide" if wide[j] else "posterior") if s == "ok" and fallback[j] else s
        for j, s in enumerate(status)
    ]
    return mark_unreliable(status, varying)


def mark_unreliable(status: list[str], varying: np.ndarray) -> list[str]:
    """'unreliable' for an interval with bounds whose questions include fewer than
    :data:`MIN_VARYING` that vary (*varying*: per column, questions strictly between the
    flat ends, from :meth:`.atoms.Atoms.support`, which gives 0 where the interval rests
    on the fitted prior's guess alone: :meth:`.atoms.Atoms.unchecked`)."""
    return [
        "unreliable" if s in SHOWN and varying[j] < MIN_VARYING else s for j, s in enumerate(status)
    ]


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


def rerun_df(var_sum: np.ndarray, var_sq_sum: np.ndarray) -> np.ndarray:
    """ν = 3 (Σ V)² / Σ V², at least 1 (see module docstring)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.maximum(3 * var_sum**2 / var_sq_sum, 1.0)


def p_held_to_interval(
    p: np.ndarray, low: np.ndarray, high: np.ndarray, level: float
) -> np.ndarray:
    """*p* held to the interval [low, high] printed beside it: at least ``1 − level``
    where the interval holds or touches 0, below it where it leaves 0 out. Both come from
    one construction, so this moves only p-values at the resamples' resolution, and a
    bound exactly at 0 (a resampled mean can be exactly 0): that interval touches 0."""
    alpha = 1 - level
    inside = (low <= 0) & (high >= 0)
    outside = (low > 0) | (high < 0)
    p = np.where(inside & (p < alpha), alpha, p)
    return np.where(outside & (p >= alpha), np.nextafter(alpha, 0.0), p)


def rerun_interval(
    weight: np.ndarray,
    values: np.ndarray,
    variances: np.ndarray,
    *,
    level: float = DEFAULT_LEVEL,
    clip: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The *rerun* interval of the mean of each column of *values* (A × M, NaN = metric
    undefined), from per-question unbiased variance estimates *variances* (A × M, NaN
    where none exists). Works for any metric that supplies both arrays.

    Returns ``(low, high, se, status)``: status per column is 'ok', 'undefined', 'n < 2k'
    (some question where the metric is defined has no variance estimate) or 'no width'
    (Σ V ≤ 0). With *clip*, bounds are clipped to [0, 1] (where a metric's truth lies);
    pass ``clip=False`` for differences.
    """
    return _rerun_finish(_rerun_sums(weight, values, variances), level=level, clip=clip)


#: per column: (questions where defined, some lacks a variance, Σ V, Σ V², point)
RerunSums = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _rerun_sums(weight: np.ndarray, values: np.ndarray, variances: np.ndarray) -> RerunSums:
    """The per-column sums :func:`rerun_interval` is computed from; cells' sums side by
    side (``np.hstack``) finish in one call, as t quantiles cost per call."""
    weight = np.asarray(weight, dtype=np.int64)
    values = np.asarray(values, dtype=float).reshape(len(weight), -1)
    variances = np.asarray(variances, dtype=float).reshape(values.shape)
    defined = ~np.isnan(values)
    q = weight @ defined
    missing = weight @ (defined & np.isnan(variances)) > 0
    v = np.where(defined & ~np.isnan(variances), variances, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        point = (weight @ np.where(defined, values, 0.0)) / q
    return q, missing, weight @ v, weight @ (v * v), point


def _rerun_finish(
    sums: RerunSums, *, level: float, clip: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """:func:`rerun_interval` from its :func:`_rerun_sums`."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    q, missing, var_sum, sq_sum, point = sums
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.maximum(var_sum, 0.0)) / q
        half = t_quantile(level, rerun_df(var_sum, sq_sum)) * se
    status = [
        "undefined" if not q_j else "n < 2k" if m_j else "ok" if v_j > 0 else "no width"
        for q_j, m_j, v_j in zip(q.tolist(), missing.tolist(), var_sum.tolist())
    ]
    ok = np.array([s == "ok" for s in status], dtype=bool)
    low, high = point - half, point + half
    if clip:
        low, high = np.maximum(low, 0.0), np.minimum(high, 1.0)
    se = np.where(ok | (np.array(status) == "no width"), se, np.nan)
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan), se, status
