"""Uncertainty for G-Pass@k tables: bootstrap CIs, sampling standard error, paired
comparison (pure core: numpy only, never imports OpenCompass; scipy only via the metric
core, for n > 1024).

Two kinds of uncertainty are reported, because they answer different questions:

* **Bootstrap CI over questions** (``bootstrap``): how much would the score move with a
  different draw of questions *and* samples from the same populations? Percentile
  bootstrap, questions resampled with replacement.
* **Sampling standard error** (``sampling_se``): how much would a rerun on the *same*
  questions move it? Each question's true success rate is taken as its observed
  ``c/n`` (plug-in), a rerun draws ``c' ~ Binomial(n, c/n)``, and the per-question
  estimator ``f(c')`` has variance ``Σ_c' pmf(c')·f(c')² − (Σ_c' pmf(c')·f(c'))²``; the
  score is a mean over Q questions so ``SE = sqrt(Σ_q Var_q) / Q``. The plug-in gives
  zero variance to questions with ``c = 0`` or ``c = n``, so it is a slight underestimate.

The vectorisation trick: a question's value depends only on its ``(n, c)``, so the
questions collapse into at most ``Σ(n+1)`` *atoms* with multiplicities ``w``. A
bootstrap resample is a vector of counts over atoms (multinomial with probabilities
``w/Q``), and the resampled means for every metric at once are
``counts @ values / counts @ valid`` — a ``(B × A) @ (A × M)`` matrix product.

Interval rules (every table and summary): a percentile interval that misses the point
estimate (possible when the resample distribution is skewed) is widened to reach it, so a
CI never excludes its own estimate; when every question has the same value of a metric
(e.g. all 0 on a handful of questions) resampling questions cannot produce a width, and the
interval is left out (NaN, ``ci='no width'``) instead of being shown as ``[v, v]``.

Metric values are fractions in [0, 1]; the report layer converts to percent.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from gpassk_oc.core.scoring.metric_names import MetricSpec, parse_metric
from gpassk_oc.core.scoring.metrics import g_pass_at_k, mg_pass_at_k, pass_at_k

__all__ = [
    "Atoms",
    "Difference",
    "Estimate",
    "MetricSpec",
    "atoms_of",
    "bootstrap",
    "ci_status",
    "compare",
    "metric_per_c",
    "no_spread",
    "parse_metric",
    "rerun_se",
    "rerun_variance",
    "resample_counts",
    "sampling_se",
    "summarize",
]

DEFAULT_RESAMPLES = 10_000
DEFAULT_LEVEL = 0.95


# --------------------------------------------------------------------------- metrics
# MetricSpec and parse_metric live in the metric-name module (one owner of the key format);
# they are re-exported here because every statistic takes metrics by spec or key.


def metric_per_c(spec: str | MetricSpec, n: int) -> np.ndarray | None:
    """Values of the metric for c = 0..n (shape (n+1,)), or None when k > n."""
    spec = parse_metric(spec)
    if spec.kind == "maj":  # a vote needs the answer classes, which (n, c) do not hold
        raise ValueError(f"{spec.key} needs per-sample votes: see gpassk_oc.core.scoring.majority")
    if n < 1:
        return None
    cs = np.arange(n + 1)
    if spec.kind == "avg":  # c/n over each question's judged samples, like pass@1
        return cs / n
    if spec.k > n:
        return None
    if spec.kind == "G":
        return np.asarray(g_pass_at_k(n, cs, spec.k, spec.tau), dtype=float)
    if spec.kind == "mG":
        return np.asarray(mg_pass_at_k(n, cs, spec.k), dtype=float)
    passk = np.asarray(pass_at_k(n, cs, spec.k), dtype=float)
    if spec.kind == "pass":
        return passk
    return passk - np.asarray(g_pass_at_k(n, cs, spec.k, 1), dtype=float)


# --------------------------------------------------------------------------- atoms
@dataclass(frozen=True)
class Atoms:
    """Distinct per-question (n, c) pairs, their multiplicities, and each question's atom."""

    n: np.ndarray  # (A,)
    c: np.ndarray  # (A,)
    weight: np.ndarray  # (A,) questions per atom
    inverse: np.ndarray  # (Q,) atom of each question

    def values(self, specs: Sequence[MetricSpec]) -> np.ndarray:
        """(A × M) per-atom metric values; NaN where the metric is undefined (k > n)."""
        out = np.full((len(self.n), len(specs)), np.nan)
        for n in np.unique(self.n):
            rows = np.flatnonzero(self.n == n)
            for j, spec in enumerate(specs):
                per_c = metric_per_c(spec, int(n))
                if per_c is not None:
                    out[rows, j] = per_c[self.c[rows]]
        return out


def atoms_of(n: int | Sequence[int] | np.ndarray, c: Sequence[int] | np.ndarray) -> Atoms:
    """Collapse questions into atoms. *n* is per question or one int for all."""
    c = np.asarray(c, dtype=np.int64).ravel()
    n = np.broadcast_to(np.asarray(n, dtype=np.int64), c.shape)
    if c.size == 0:
        raise ValueError("no questions")
    if np.any(n < 0) or np.any(c < 0) or np.any(c > n):
        raise ValueError("every question needs 0 <= c <= n")
    pairs, inverse, weight = np.unique(
        np.stack([n, c], axis=1), axis=0, return_inverse=True, return_counts=True
    )
    return Atoms(pairs[:, 0], pairs[:, 1], weight, inverse.ravel())


# --------------------------------------------------------------------------- bootstrap
def resample_counts(
    weight: np.ndarray, n_boot: int, rng: np.random.Generator, chunk: int = 2048
) -> np.ndarray:
    """(n_boot × A) counts: each row is how often each atom appears in a resample of
    Q = Σ weight questions drawn with replacement (Multinomial(Q, weight/Q)).

    Two exact samplers with different costs: conditional binomials cost O(B·A), index
    draws + bincount cost O(B·Q); pick the cheaper one (measured ~5× per-unit ratio).
    """
    weight = np.asarray(weight, dtype=np.int64)
    q, a = int(weight.sum()), len(weight)
    out = np.empty((n_boot, a), dtype=np.int64)
    if a * 5 < q:
        remaining = np.full(n_boot, q, dtype=np.int64)
        left = q
        for j in range(a - 1):
            # count of atom j given the draws not yet assigned: Binomial(rest, w_j / left)
            x = rng.binomial(remaining, min(1.0, weight[j] / left)) if left else 0
            out[:, j] = x
            remaining -= x
            left -= int(weight[j])
        out[:, a - 1] = remaining
        return out
    atom_of_question = np.repeat(np.arange(a), weight)
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        idx = atom_of_question[rng.integers(0, q, size=(b, q))]
        idx += (np.arange(b) * a)[:, None]
        out[start : start + b] = np.bincount(idx.ravel(), minlength=b * a).reshape(b, a)
    return out


def _bootstrap_means(
    weight: np.ndarray, values: np.ndarray, n_boot: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Point means (M,) and resampled means (n_boot × M); NaN entries are skipped."""
    valid = ~np.isnan(values)
    filled = np.where(valid, values, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        point = (weight @ filled) / (weight @ valid)
        if n_boot <= 0:
            return point, np.empty((0, values.shape[1]))
        counts = resample_counts(weight, n_boot, np.random.default_rng(seed)).astype(float)
        return point, (counts @ filled) / (counts @ valid)


def _percentiles(means: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    if means.shape[0] == 0:
        nan = np.full(means.shape[1], np.nan)
        return nan, nan.copy()
    alpha = (1 - level) / 2
    if np.isnan(means).any():  # a resample with no valid question for some metric
        with warnings.catch_warnings():  # all-NaN columns (metric never defined) stay NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = np.nanquantile(means, [alpha, 1 - alpha], axis=0)
    else:
        low, high = np.quantile(means, [alpha, 1 - alpha], axis=0)
    return low, high


def bootstrap(
    weight: np.ndarray,
    values: np.ndarray,
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile bootstrap of the mean of each column of *values* (A × M, NaN = skip).

    Returns ``(point, low, high)`` arrays of length M. The mean over valid questions is
    ``counts @ values / counts @ valid`` per resample, so NaN entries (metric undefined
    for that question) are left out consistently in the point estimate and the resamples.
    """
    weight = np.asarray(weight, dtype=np.int64)
    values = np.asarray(values, dtype=float).reshape(len(weight), -1)
    point, means = _bootstrap_means(weight, values, n_boot, seed)
    low, high = _percentiles(means, level)
    return (point,) + _contain(point, low, high, no_spread(weight, values))


def no_spread(weight: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per column of *values* (A × M): True when every question where the metric is defined
    has the same value — then every resample has the point as its mean, and resampling
    questions cannot give the interval a width."""
    values = np.asarray(values, dtype=float).reshape(len(weight), -1)
    present = (np.asarray(weight) > 0)[:, None] & ~np.isnan(values)
    with np.errstate(invalid="ignore"):
        hi = np.where(present, values, -np.inf).max(axis=0)
        lo = np.where(present, values, np.inf).min(axis=0)
    return present.any(axis=0) & (hi - lo <= 1e-12)


def _contain(
    point: np.ndarray, low: np.ndarray, high: np.ndarray, flat: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The CI rules: an interval always contains its point estimate (a percentile interval
    of a skewed resample distribution can miss it: it is widened to reach the point), and a
    column without spread gets no interval (NaN) instead of a zero-width one."""
    finite = np.isfinite(low) & np.isfinite(high) & np.isfinite(point)
    low = np.where(finite, np.minimum(low, point), np.nan)
    high = np.where(finite, np.maximum(high, point), np.nan)
    return np.where(flat, np.nan, low), np.where(flat, np.nan, high)


def ci_status(n_boot: int, defined: bool, flat: bool) -> str:
    """Why an interval is what it is: 'ok', 'off' (no resamples asked for), 'undefined'
    (the metric has no value: k > n everywhere) or 'no width' (see :func:`no_spread`)."""
    if not defined:
        return "undefined"
    if n_boot <= 0:
        return "off"
    return "no width" if flat else "ok"


# --------------------------------------------------------------------------- sampling SE
def _binomial_pmf(n: int, p: np.ndarray) -> np.ndarray:
    """(len(p) × (n+1)) Binomial(n, p) pmf, in log space (no scipy: its import costs ~1 s)."""
    j = np.arange(n + 1)
    log_comb = np.array(
        [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(n + 1)]
    )
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
        cols = [(j, metric_per_c(s, int(n_value))) for j, s in enumerate(specs)]
        cols = [(j, f) for j, f in cols if f is not None]
        if not cols:
            continue
        f = np.stack([f for _, f in cols], axis=1)  # (n+1) × M'
        pmf = _binomial_pmf(int(n_value), p[rows])  # rows × (n+1)
        mean = pmf @ f
        out[np.ix_(rows, [j for j, _ in cols])] = np.maximum(pmf @ (f * f) - mean * mean, 0.0)
    return out


def _se_from_variance(weight: np.ndarray, var: np.ndarray) -> np.ndarray:
    """sqrt(Σ_q Var_q) / Q over the questions where the metric is defined."""
    valid = ~np.isnan(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(weight @ np.where(valid, var, 0.0)) / (weight @ valid)


def sampling_se(atoms: Atoms, specs: Sequence[MetricSpec]) -> np.ndarray:
    """Rerun standard error of each metric's mean, with the plug-in rate p = c/n per
    question (see module docstring; zero for questions with c = 0 or c = n)."""
    return _se_from_variance(
        atoms.weight, rerun_variance(atoms.n, atoms.c / np.maximum(atoms.n, 1), specs)
    )


def rerun_se(
    n: int | Sequence[int] | np.ndarray,
    p: Sequence[float] | np.ndarray,
    metrics: Iterable[str | MetricSpec],
) -> dict[str, float]:
    """Rerun standard error of each metric's mean for questions with *known* success
    rates *p* (for simulations and planning: how many samples n make the SE small?)."""
    specs = _specs(metrics)
    p = np.asarray(p, dtype=float).ravel()
    n = np.broadcast_to(np.asarray(n, dtype=np.int64), p.shape)
    se = _se_from_variance(np.ones(len(p), dtype=np.int64), rerun_variance(n, p, specs))
    return {s.key: float(v) for s, v in zip(specs, se)}


# --------------------------------------------------------------------------- high level
@dataclass(frozen=True)
class Estimate:
    """A metric's mean over questions (fraction) with its bootstrap CI and rerun SE."""

    value: float
    ci_low: float
    ci_high: float
    sampling_se: float
    n_questions: int  # questions for which the metric is defined (k <= n)
    ci: str = "ok"  # see ci_status: 'ok', 'off', 'undefined', 'no width' (CI bounds NaN)


def _specs(metrics: Iterable[str | MetricSpec]) -> list[MetricSpec]:
    return [parse_metric(m) for m in metrics]


def summarize(
    n: int | Sequence[int] | np.ndarray,
    c: Sequence[int] | np.ndarray,
    metrics: Iterable[str | MetricSpec],
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> dict[str, Estimate]:
    """Every metric's mean, percentile-bootstrap CI and sampling SE, keyed by metric key.

    Metrics undefined for every question (k > n) are returned with NaN values.
    """
    specs = _specs(metrics)
    atoms = atoms_of(n, c)
    values = atoms.values(specs)
    point, low, high = bootstrap(atoms.weight, values, n_boot=n_boot, level=level, seed=seed)
    se = sampling_se(atoms, specs)
    defined = atoms.weight @ ~np.isnan(values)
    flat = no_spread(atoms.weight, values)
    return {
        s.key: Estimate(
            float(point[j]),
            float(low[j]),
            float(high[j]),
            float(se[j]),
            int(defined[j]),
            ci_status(n_boot, bool(defined[j]), bool(flat[j])),
        )
        for j, s in enumerate(specs)
    }


@dataclass(frozen=True)
class Difference:
    """Paired difference A − B over the same questions (fractions)."""

    a: float
    b: float
    diff: float
    ci_low: float
    ci_high: float
    sampling_se: float  # of the difference, independent reruns of A and B
    p_value: float  # two-sided bootstrap p-value for diff == 0 (resolution 1/B)
    n_questions: int
    ci: str = "ok"  # as Estimate.ci


def compare(
    n_a: int | Sequence[int] | np.ndarray,
    c_a: Sequence[int] | np.ndarray,
    n_b: int | Sequence[int] | np.ndarray,
    c_b: Sequence[int] | np.ndarray,
    metrics: Iterable[str | MetricSpec],
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> dict[str, Difference]:
    """Paired bootstrap of A − B: questions are resampled *jointly* (question q of A is
    question q of B), which removes between-question variance from the difference.

    The caller aligns the questions; lengths must match. Atoms here are distinct
    (atom of A, atom of B) pairs, so the same counts-matrix product applies.
    """
    specs = _specs(metrics)
    c_a = np.asarray(c_a).ravel()
    c_b = np.asarray(c_b).ravel()
    if c_a.shape != c_b.shape:
        raise ValueError(f"paired comparison needs the same questions: {c_a.size} vs {c_b.size}")
    atoms_a, atoms_b = atoms_of(n_a, c_a), atoms_of(n_b, c_b)
    pairs, inverse, weight = np.unique(
        np.stack([atoms_a.inverse, atoms_b.inverse], axis=1),
        axis=0,
        return_inverse=True,
        return_counts=True,
    )
    va = atoms_a.values(specs)[pairs[:, 0]]
    vb = atoms_b.values(specs)[pairs[:, 1]]
    # a question counts only where the metric is defined for both runs
    both = ~(np.isnan(va) | np.isnan(vb))
    va, vb = np.where(both, va, np.nan), np.where(both, vb, np.nan)
    diff_values = va - vb
    point, means = _bootstrap_means(weight, diff_values, n_boot, seed)
    flat = no_spread(weight, diff_values)
    low, high = _contain(point, *_percentiles(means, level), flat)
    with np.errstate(invalid="ignore", divide="ignore"):
        # two-sided p: how often the resampled difference, re-centred on 0 (H0), is at
        # least as far from 0 as the observed one
        if n_boot > 0:
            p_value = np.mean(np.abs(means - point) >= np.abs(point) - 1e-12, axis=0)
        else:
            p_value = np.full(len(specs), np.nan)
        mean_a = (weight @ np.where(both, va, 0.0)) / (weight @ both)
        mean_b = (weight @ np.where(both, vb, 0.0)) / (weight @ both)
    # reruns of A and B are independent, so the variances add per question
    var_a = rerun_variance(atoms_a.n, atoms_a.c / np.maximum(atoms_a.n, 1), specs)[pairs[:, 0]]
    var_b = rerun_variance(atoms_b.n, atoms_b.c / np.maximum(atoms_b.n, 1), specs)[pairs[:, 1]]
    se = _se_from_variance(weight, np.where(both, var_a + var_b, np.nan))
    q_both = weight @ both
    return {
        s.key: Difference(
            float(mean_a[j]),
            float(mean_b[j]),
            float(point[j]),
            float(low[j]),
            float(high[j]),
            float(se[j]),
            float(p_value[j]),
            int(q_both[j]),
            ci_status(n_boot, bool(q_both[j]), bool(flat[j])),
        )
        for j, s in enumerate(specs)
    }
