"""Per-count metric tables and the rerun variance for *known* success rates (pure core).

``metric_per_c`` is a metric's per-question estimate for every count c = 0..n. For a
question whose true success rate p is known (simulations, the demo's truth, planning),
a rerun draws ``c' ~ Binomial(n, p)`` and the estimate's variance is
``Σ pmf(c')·f(c')² − (Σ pmf(c')·f(c'))²`` exactly; the SE of a mean over Q questions is
``sqrt(Σ_q Var_q) / Q``. Observed runs do not know p: they use :mod:`.rerun_variance`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec, parse_metric

__all__ = [
    "estimator_spec",
    "log_binomial_coefficients",
    "metric_per_c",
    "rerun_se",
    "rerun_variance",
    "se_from_variance",
]


def estimator_spec(spec: str | MetricSpec) -> MetricSpec:
    """The spec whose per-count estimator a metric uses: avg@n is c/n, i.e. pass@1 (its n
    says how many samples it averages, not a subset size, so k = 1 for every rule that
    depends on k: definedness, n ≥ 2k, kernels). maj@k is refused (ValueError): a vote
    needs the answer classes, which (n, c) do not hold."""
    spec = parse_metric(spec)
    if spec.definition.needs_votes:
        raise ValueError(
            f"{spec.key} needs per-sample votes: see gpassk_oc.core.metrics.majority_vote"
        )
    return spec.estimator


@lru_cache(maxsize=256)
def log_binomial_coefficients(n: int) -> np.ndarray:
    """log C(n, j) for j = 0..n (shape (n+1,), read-only: cached per n), via lgamma (exact
    ints would overflow)."""
    out = np.array(
        [math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) for j in range(n + 1)]
    )
    out.setflags(write=False)
    return out


def metric_per_c(spec: str | MetricSpec, n: int) -> np.ndarray | None:
    """Values of the metric for c = 0..n (shape (n+1,), read-only: cached per (spec, n),
    as a report asks for the same table once per row and split), or None when k > n."""
    return _metric_per_c(estimator_spec(spec), int(n))


@lru_cache(maxsize=1024)
def _metric_per_c(spec: MetricSpec, n: int) -> np.ndarray | None:
    out = _metric_table(spec, n)
    if out is not None:
        out.setflags(write=False)
    return out


def _metric_table(spec: MetricSpec, n: int) -> np.ndarray | None:
    return spec.per_c(n)  # the definition's per-question function of (n, c)


def _binomial_pmf(n: int, p: np.ndarray) -> np.ndarray:
    """(len(p) × (n+1)) Binomial(n, p) pmf, in log space (no scipy: its import costs ~1 s)."""
    j = np.arange(n + 1)
    log_comb = log_binomial_coefficients(n)
    p = np.asarray(p, dtype=float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        # 0·log 0 = 0 so that p ∈ {0, 1} put all mass on c' = 0 or c' = n
        log_p = np.where(j == 0, 0.0, j * np.log(p))
        log_q = np.where(j == n, 0.0, (n - j) * np.log1p(-p))
    return np.exp(log_comb + log_p + log_q)


def rerun_variance(n: np.ndarray, p: np.ndarray, specs: Sequence[MetricSpec]) -> np.ndarray:
    """(len(n) × M) variance of a question's estimator f(c') when its samples are redrawn,
    c' ~ Binomial(n, p) (fresh i.i.d. samples, hence binomial, not hypergeometric).
    NaN where the metric is undefined (k > n)."""
    n = np.asarray(n, dtype=np.int64)
    p = np.asarray(p, dtype=float)
    out = np.full((len(n), len(specs)), np.nan)
    for n_value in np.unique(n):
        rows = np.flatnonzero(n == n_value)
        tables = {j: metric_per_c(s, int(n_value)) for j, s in enumerate(specs)}
        cols = {j: f for j, f in tables.items() if f is not None}
        if not cols:
            continue
        f = np.stack(list(cols.values()), axis=1)  # (n+1) × M'
        pmf = _binomial_pmf(int(n_value), p[rows])  # rows × (n+1)
        mean = pmf @ f
        where = np.ix_(rows, np.array(list(cols), dtype=np.int64))
        out[where] = np.maximum(pmf @ (f * f) - mean * mean, 0.0)
    return out


def se_from_variance(weight: np.ndarray, var: np.ndarray) -> np.ndarray:
    """sqrt(Σ_q Var_q) / Q over the questions where the metric is defined."""
    valid = ~np.isnan(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(weight @ np.where(valid, var, 0.0)) / (weight @ valid)


def rerun_se(
    n: int | Sequence[int] | np.ndarray,
    p: Sequence[float] | np.ndarray,
    metrics: Iterable[str | MetricSpec],
) -> dict[str, float]:
    """Rerun standard error of each metric's mean for questions with *known* success
    rates *p* (for simulations and planning: how many samples n make the SE small?)."""
    specs = [parse_metric(m) for m in metrics]
    p = np.asarray(p, dtype=float).ravel()
    n = np.broadcast_to(np.asarray(n, dtype=np.int64), p.shape)
    se = se_from_variance(np.ones(len(p), dtype=np.int64), rerun_variance(n, p, specs))
    return {s.key: float(v) for s, v in zip(specs, se)}
