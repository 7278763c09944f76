"""Estimates corrected for verdict error, with intervals that carry the rates' uncertainty.

Per question the posterior over the true count t (:mod:`.verdict_channel`) turns the per-count
estimator f (the one the raw table uses) into the corrected per-question value
``h(c) = E[f(t) | c]``; the corrected mean is the average of h over questions. Only the
distinct observed count tuples are computed (atoms), so the cost does not grow with the
number of questions. Without error (every rate 0) the posterior is a point mass and
``h(c) = f(c)`` exactly.

Intervals, both kinds of :mod:`gpassk_oc.core.uncertainty.metric_intervals`:

* **rerun** (these questions): the posterior mean squared error of h around each
  question's true value g(p), ``E[(g(p) − h(c))² | c]``, summed over questions, plus the
  spread of the corrected mean over draws of the rates from their posterior: the
  quantiles of ``mean(rates drawn) + SE · Z`` (a normal interval when the rates are known).
* **benchmark** (new questions): the bootstrap over questions of the per-question values
  at the point rates, each resample shifted by how far one draw of the rates moves the
  corrected mean; BCa percentiles as the raw benchmark interval
  (:mod:`gpassk_oc.core.uncertainty.interval_kinds`), their tails from the point-rate resamples.

maj@k needs to know which answer class is the gold, which the sample-level rates do not
determine (the classes are built from the verdicts, and errors within a class go
together; docs/verdict-error-and-ranks.md): it is not corrected here (NaN) but with class
rates from an audit by class (:mod:`.corrected_majority`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec, parse_metric
from gpassk_oc.core.uncertainty.bootstrap import DEFAULT_LEVEL, _bca_tails, resample_counts
from gpassk_oc.core.uncertainty.corrected_grid import model_check
from gpassk_oc.core.uncertainty.difficulty_model import Difficulty, _posterior_pmf
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.prior_influence import (
    AtomTerms,
    PriorInfluence,
    atom_terms,
    prior_influence,
    scores,
    stack_terms,
)
from gpassk_oc.core.uncertainty.rerun_variance import kernel, square_kernel
from gpassk_oc.core.uncertainty.verdict_channel import (
    Question,
    check_rates,
    draw_posteriors,
    fit_prior,
    true_count_posterior,
)

__all__ = ["Corrected", "corrected_values", "correct"]

Rates = Sequence[tuple[float, float]]


@dataclass(frozen=True)
class Corrected:
    """A metric corrected for verdict error (fractions); NaN bounds when not available."""

    value: float
    rerun_low: float
    rerun_high: float
    ci_low: float
    ci_high: float
    status: str = "ok"  # 'ok', 'not corrected' (maj@k), 'undefined' (k > n everywhere)
    #: 2 Δ log L of the shape-free grid prior over the fitted Beta through the channel and
    #: its parametric-bootstrap p-value (NaN: not checked — no error rates, or a given
    #: prior); :func:`.corrected_grid.model_check`
    misfit: float = math.nan
    misfit_p: float = math.nan

    @property
    def model_rejected(self) -> bool:
        """The counts reject the model the correction assumes (:data:`MISFIT_LEVEL`)."""
        return self.misfit_p < MISFIT_LEVEL


def _atoms(questions: Sequence[Question]) -> tuple[list[Question], np.ndarray, np.ndarray]:
    """Distinct questions in sorted order (for one channel: by n, then c, as
    :func:`~.atoms.atoms_of` orders them), their counts and each question's atom. The same
    order makes the same sums: with zero error rates a mean is then the raw one to the bit
    (in first-seen order the products add in another order, which moves the last bit on
    some CPUs' BLAS kernels)."""
    distinct = sorted({tuple(q) for q in questions})
    index = {q: i for i, q in enumerate(distinct)}
    inverse = np.array([index[tuple(q)] for q in questions], dtype=np.int64)
    weight = np.bincount(inverse, minlength=len(index))
    return distinct, weight, inverse


def _total_n(q: Question) -> int:
    return sum(n for n, _ in q)


def corrected_values(
    atoms: Sequence[Question], rates: Rates, prior: Difficulty, specs: Sequence[MetricSpec]
) -> tuple[np.ndarray, np.ndarray]:
    """Per atom and metric: ``h = E[f(t) | c]`` and the posterior MSE ``E[(g(p) − h)² | c]``
    (A × M each; NaN where k > n or the metric is maj@k)."""
    table = _atom_table(atoms, rates, prior, specs)
    return table.values, table.mse


class _Table(NamedTuple):
    """Per atom and metric (A × M): h, the posterior MSE of h around g(p), the posterior
    bias ``E[g(p) | c] − h`` (h estimates the samples' f(t), not g(p)); and the atoms'
    :class:`~.prior_influence.AtomTerms`."""

    values: np.ndarray
    mse: np.ndarray
    bias: np.ndarray
    terms: AtomTerms


def _atom_table(
    atoms: Sequence[Question], rates: Rates, prior: Difficulty, specs: Sequence[MetricSpec]
) -> _Table:
    """:func:`corrected_values` with the posterior bias and the prior's terms, the atoms
    grouped by their total n."""
    values = np.full((len(atoms), len(specs)), np.nan)
    mse, bias = np.full_like(values, np.nan), np.full_like(values, np.nan)
    by_n: dict[int, list[int]] = {}
    for i, q in enumerate(atoms):
        by_n.setdefault(_total_n(q), []).append(i)
    parts = []
    for n, rows in by_n.items():
        f, g1, g2 = _moment_tables(n, prior, specs)
        posts = np.stack([true_count_posterior(atoms[i], rates, prior) for i in rows])
        h = posts @ f
        first = posts @ g1
        values[rows], bias[rows] = h, first - h
        mse[rows] = np.maximum(posts @ g2 - 2 * h * first + h * h, 0.0)
        parts.append(atom_terms(posts, f, prior))
    order = np.array([i for rows in by_n.values() for i in rows], dtype=np.int64)
    return _Table(values, mse, bias, stack_terms(parts, order))


def _draw_tables(
    atoms: Sequence[Question],
    weight: np.ndarray,
    rate_draws: np.ndarray,
    prior: Difficulty,
    specs: Sequence[MetricSpec],
    influence: PriorInfluence | None,
) -> np.ndarray:
    """R × A × M: h under each draw of the rates, all draws at once per group of atoms
    with the same samples per channel, each shifted by the prior's refit under that draw
    (one Newton step; none when the prior was given)."""
    out = np.full((len(rate_draws), len(atoms), len(specs)), np.nan)
    score = np.zeros((len(rate_draws), len(atoms), 2))
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, q in enumerate(atoms):
        groups.setdefault(tuple(n for n, _ in q), []).append(i)
    for sizes, rows in groups.items():
        posts = draw_posteriors([atoms[i] for i in rows], rate_draws, prior)
        out[:, rows] = posts @ _moment_tables(sum(sizes), prior, specs)[0]
        score[:, rows] = scores(posts, prior)
    if influence is not None:
        out += influence.refit_shift(weight, score)[:, None, :]
    return out


def _moment_tables(
    n: int, prior: Difficulty, specs: Sequence[MetricSpec]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _moment_tables_cached(n, prior.a, prior.b, tuple(specs))


@lru_cache(maxsize=64)
def _moment_tables_cached(
    n: int, a: float, b: float, specs: tuple[MetricSpec, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """((n+1) × M) tables over the true count t: f(t), E[g(p) | t], E[g(p)² | t] with
    p | t ~ Beta(a + t, b + n − t) (NaN columns where undefined)."""
    f = np.full((n + 1, len(specs)), np.nan)
    g1, g2 = f.copy(), f.copy()
    for j, spec in enumerate(specs):
        per_t = metric_per_c(spec, n) if spec.definition.correctable else None
        if per_t is None:
            continue
        f[:, j] = per_t
        k1 = np.array([float(x) for x in kernel(spec)])
        k2 = np.array([float(x) for x in square_kernel(spec)])
        # row t: Bin(k, p) and Bin(2k, p) under p | t ~ Beta(a + t, b + n − t)
        g1[:, j] = _posterior_pmf(n, len(k1) - 1, a, b) @ k1
        g2[:, j] = _posterior_pmf(n, len(k2) - 1, a, b) @ k2
    return f, g1, g2


def _mean(weight: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The weighted mean over atoms (axis −2: A × M, or R × A × M for a stack of draws)
    where each metric is defined."""
    valid = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weight @ np.where(valid, values, 0.0)) / (weight @ valid)


#: the p-value of :func:`.corrected_grid.model_check` below which the counts reject the
#: correction's model (a Beta prior, independent errors) and every value is flagged
MISFIT_LEVEL = 0.01


def correct(
    questions: Sequence[Question],
    rates: Rates,
    metrics: Sequence[str | MetricSpec],
    *,
    rate_draws: np.ndarray | None = None,
    prior: Difficulty | None = None,
    level: float = DEFAULT_LEVEL,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Corrected]:
    """Every metric's corrected mean over *questions* with both intervals.

    *rates* are the point rates ``(fp, fn)`` per channel (the order of each question's
    tuples); *rate_draws* (R × S × 2) are draws from the rates' posterior (None: the rates
    are known exactly). *prior* defaults to the Beta fitted through the channel; a fitted
    one is checked against the shape-free grid prior (:attr:`Corrected.model_rejected`)."""
    specs = [parse_metric(m) for m in metrics]
    for s, (fp, fn) in enumerate(rates):
        check_rates(fp, fn, f"channel {s}")
    atoms, weight, _ = _atoms(questions)
    fitted = prior is None
    if prior is None:
        prior = fit_prior(atoms, weight, rates)
    out = _correct_posterior(
        atoms, weight, rates, specs, rate_draws, prior, fitted, level, n_boot, seed
    )
    if fitted and any(fp or fn for fp, fn in rates):
        stat, p_value = model_check(atoms, weight, rates, prior, seed=seed)
        out = {k: replace(v, misfit=stat, misfit_p=p_value) for k, v in out.items()}
    return out


def _correct_posterior(
    atoms: Sequence[Question],
    weight: np.ndarray,
    rates: Rates,
    specs: Sequence[MetricSpec],
    rate_draws: np.ndarray | None,
    prior: Difficulty,
    fitted: bool,
    level: float,
    n_boot: int,
    seed: int,
) -> dict[str, Corrected]:
    """:func:`correct` through the posterior over each question's true count under the
    difficulty prior *prior* (*fitted*: to these counts, so its own error counts too)."""
    values, mse, bias, terms = _atom_table(atoms, rates, prior, specs)
    point = _mean(weight, values)
    valid = ~np.isnan(values)
    q = weight @ valid
    # the fitted prior is an estimate too: its error moves every question's value at once
    influence = prior_influence(weight, terms, valid) if fitted else None
    spread = np.zeros_like(values)
    if influence is not None:
        spread = influence.increments(weight, terms, valid)
    draws: list[np.ndarray] = []
    if rate_draws is not None and len(rate_draws):
        draws = list(_draw_tables(atoms, weight, np.asarray(rate_draws), prior, specs, influence))
    with np.errstate(invalid="ignore", divide="ignore"):
        # per question: the posterior error at this prior, E[(g − h)²] = Var + bias², and
        # the prior's error (h moves by `spread`), which goes with the bias: (spread − bias)²
        err2 = mse + spread * (spread - 2 * bias)
        se = np.sqrt((weight @ np.where(valid, err2, 0.0)) / q**2)
    means = list(_mean(weight, np.array(draws))) if draws else []
    r_low, r_high = _rerun_bounds(point, se, means, level, seed)
    b_low, b_high = _bootstrap(weight, values + spread, draws, point, level, n_boot, seed)
    # a value plus its influence can leave [0, 1], where every corrected metric lies
    b_low, b_high = np.clip(b_low, 0, 1), np.clip(b_high, 0, 1)
    return _results(specs, q, point, (r_low, r_high), (b_low, b_high))


def _results(
    specs: Sequence[MetricSpec],
    q: np.ndarray,
    point: np.ndarray,
    rerun: tuple[np.ndarray, np.ndarray],
    bench: tuple[np.ndarray, np.ndarray],
) -> dict[str, Corrected]:
    (r_low, r_high), (b_low, b_high) = rerun, bench
    out = {}
    for j, spec in enumerate(specs):
        status = (
            "not corrected" if not spec.definition.correctable else "ok" if q[j] else "undefined"
        )
        out[spec.key] = Corrected(
            float(point[j]),
            float(r_low[j]),
            float(r_high[j]),
            float(b_low[j]),
            float(b_high[j]),
            status,
        )
    return out


def _rerun_bounds(
    point: np.ndarray, se: np.ndarray, means: list[np.ndarray], level: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """The rerun interval: normal around *point* when the rates are known; else the
    quantiles of the mixture ``mean_r + se · Z`` over the rate draws, so that a skewed rate
    posterior (few errors found in an audit) gives a skewed interval."""
    from scipy.special import ndtri

    if len(means) < 2:
        z = float(ndtri(0.5 + level / 2))
        return np.clip(point - z * se, 0, 1), np.clip(point + z * se, 0, 1)
    per_draw = max(1, 4000 // len(means))
    centres = np.repeat(np.array(means), per_draw, axis=0)  # (R·per_draw) × M
    noise = np.random.default_rng(seed).standard_normal(centres.shape) * se
    mix = centres + noise
    alpha = (1 - level) / 2
    low, high = np.nanquantile(mix, alpha, axis=0), np.nanquantile(mix, 1 - alpha, axis=0)
    low, high = np.minimum(low, point), np.maximum(high, point)
    return np.clip(low, 0, 1), np.clip(high, 0, 1)


def _bootstrap(
    weight: np.ndarray,
    values: np.ndarray,
    draws: list[np.ndarray],
    point: np.ndarray,
    level: float,
    n_boot: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark interval: resampled means at the point rates, each shifted by how far
    one draw of the rates moves the corrected mean (resample b, draw b mod R); BCa tails
    from the point-rate resamples alone, so that the rate draws' own skew is not read as
    the estimator's bias."""
    m = values.shape[1]
    if n_boot <= 0:
        return np.full(m, np.nan), np.full(m, np.nan)
    counts = resample_counts(weight, n_boot, np.random.default_rng(seed)).astype(float)
    valid = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (counts @ np.where(valid, values, 0.0)) / (counts @ valid)
    lower, upper = _bca_tails(weight, values, point, means, level)
    if draws:
        shifts = _mean(weight, np.array(draws)) - point  # R × M
        means = means + shifts[np.arange(n_boot) % len(draws)]
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    for j in range(m):
        col = means[:, j][~np.isnan(means[:, j])]
        if col.size and np.isfinite(point[j]) and np.isfinite(lower[j]) and np.isfinite(upper[j]):
            low[j], high[j] = np.quantile(col, [lower[j], upper[j]])
            low[j], high[j] = min(low[j], point[j]), max(high[j], point[j])
    return low, high
