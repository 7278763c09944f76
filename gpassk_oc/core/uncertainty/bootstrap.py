"""The benchmark interval's machinery: bootstrap over questions, on atoms (pure core).

A question's value depends only on its ``(n, c)``, so the questions collapse into at most
``Σ(n+1)`` *atoms* with multiplicities ``w``. A bootstrap resample is a vector of counts
over atoms (multinomial with probabilities ``w/Q``), and the resampled means for every
metric at once are ``counts @ values / counts @ valid`` — a ``(B × A) @ (A × M)`` matrix
product. The interval is read from the resampled means with BCa percentiles (see
:mod:`.interval_kinds` for why). Re-exported by :mod:`.metric_intervals`, the public entry point.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from gpassk_oc.core.metrics.gpass_exact import threshold_count
from gpassk_oc.core.metrics.registry import G_PASS, MG_PASS, MetricSpec
from gpassk_oc.core.uncertainty.block_threads import in_parallel
from gpassk_oc.core.uncertainty.tail_quantiles import column_quantiles, order_quantiles

__all__ = [
    "MIN_BENCHMARK_QUESTIONS",
    "bca_p_value",
    "benchmark_unreliable",
    "bootstrap",
    "bootstrap_questions",
    "ci_status",
    "joint_sampler_fits",
    "no_spread",
    "question_counts",
    "resample_counts",
]

DEFAULT_RESAMPLES = 10_000
DEFAULT_LEVEL = 0.95
#: the question-level sampler (:func:`question_counts`) holds resamples × questions counts;
#: above this many (64 MB; its cache keeps up to 4 such draws) a cell is resampled on its
#: atoms instead (:func:`bootstrap`)
JOINT_MAX_ENTRIES = 2**23
#: resample means computed per block of columns: resamples × this ≤ 2**22 floats (32 MB)
_BLOCK_ENTRIES = 2**22
#: a benchmark interval of a metric that needs all k ≥ 2 draws right (G-Pass@k_1.0,
#: mG-Pass@k) resting on fewer questions than this is marked '!': a few questions often
#: hold none of the population's questions solved in every draw, resampling them cannot
#: show what is missing, and the interval lies below the truth (bench/
#: bench_small_benchmark.py; in the band from 32 questions, bench/bench_ci_coverage.py)
MIN_BENCHMARK_QUESTIONS = 32


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


def joint_sampler_fits(questions: int, n_boot: int) -> bool:
    """Whether :func:`question_counts` may hold *n_boot* × *questions* counts."""
    return questions * n_boot <= JOINT_MAX_ENTRIES


@lru_cache(maxsize=4)
def question_counts(questions: int, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot × questions) counts, read-only: row b says how often each question (by
    position) appears in bootstrap resample b — Multinomial(Q, 1/Q each), drawn as Q
    uniform indices per resample and counted.

    It depends only on (Q, resamples, seed), so every cell of Q questions shares it (one
    draw for a whole grid instead of one per cell; cells whose questions are in the same
    order are resampled jointly, question by question). Summed over the questions of an
    atom it is exactly the atoms' Multinomial(Q, w/Q) of :func:`resample_counts`."""
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, questions))
    chunk = max(1, 2**21 // max(questions, 1))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        idx = rng.integers(0, questions, size=(b, questions))
        idx += (np.arange(b) * questions)[:, None]
        out[start : start + b] = np.bincount(idx.ravel(), minlength=b * questions).reshape(
            b, questions
        )
    out.setflags(write=False)
    return out


def bootstrap_questions(
    values: np.ndarray, point: np.ndarray, *, n_boot: int, level: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """BCa percentile bounds ``(low, high)`` of the mean of each column of *values*
    (Q × C per-question values, NaN = skip) whose point means are *point*, from the shared
    question-level resamples (:func:`question_counts`; needs :func:`joint_sampler_fits`).
    Many cells' columns side by side cost one matrix product per block of columns.
    Not yet :func:`_contain`-ed."""
    q, m = values.shape
    counts = question_counts(q, n_boot, seed)
    ones = np.ones(q, dtype=np.int64)
    valid = ~np.isnan(values)
    filled = np.where(valid, values, 0.0)
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    step = max(1, _BLOCK_ENTRIES // max(n_boot, 1))

    def block(cols: slice) -> None:
        # computed as (columns × resamples) so that each column's resample means are
        # contiguous for the quantiles; ``.T`` hands the usual (resamples × columns) on
        means = filled[:, cols].T @ counts.T
        with np.errstate(invalid="ignore", divide="ignore"):
            if valid[:, cols].all():
                means /= q  # every resample has Q questions
            else:
                means /= valid[:, cols].T.astype(float) @ counts.T
        tails = _bca_tails(ones, values[:, cols], point[cols], means.T, level)
        low[cols], high[cols] = _percentiles(means.T, level, *tails)

    in_parallel(block, [slice(s, min(m, s + step)) for s in range(0, m, step)])
    return low, high


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


def _percentiles(
    means: np.ndarray,
    level: float,
    lower: np.ndarray | None = None,
    upper: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the resample means' quantiles at *lower*/*upper* (per-column tail
    probabilities; the plain percentile interval's α/2 and 1 − α/2 when None).

    The same numbers as ``np.quantile`` (linear interpolation) over the column's non-NaN
    entries, without sorting the columns (:mod:`.tail_quantiles`)."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    b, m = means.shape
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    if b == 0:
        return low, high
    alpha = (1 - level) / 2
    lower = np.full(m, alpha) if lower is None else np.asarray(lower, dtype=float)
    upper = np.full(m, 1 - alpha) if upper is None else np.asarray(upper, dtype=float)
    columns = np.ascontiguousarray(means.T)
    missing = np.isnan(columns).any(axis=1)
    usable = np.isfinite(lower) & np.isfinite(upper)
    whole = np.flatnonzero(usable & ~missing)
    if whole.size:  # the common case: every resample has a mean, done as one block
        block = columns if whole.size == m else columns[whole]
        low[whole], high[whole] = column_quantiles(block, lower[whole], upper[whole])
    for j in np.flatnonzero(usable & missing):
        column = columns[j][~np.isnan(columns[j])]
        if column.size:
            low[j], high[j] = order_quantiles(column, lower[j], upper[j])
    return low, high


def _bca_tails(
    weight: np.ndarray, values: np.ndarray, point: np.ndarray, means: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """BCa tail probabilities per column (:mod:`.interval_kinds`): bias correction z0 from the
    share of resample means below the point, acceleration from the jackknife — leaving
    out one question of atom i gives the mean ``(S − v_i)/(Q − 1)``, so it costs O(A)."""
    from scipy.special import ndtr, ndtri

    z0, accel, small = _bca_constants(weight, values, point, means)
    alpha = (1 - level) / 2
    if means.shape[0] == 0:
        return np.full(len(point), alpha), np.full(len(point), 1 - alpha)
    tails = []
    for z in (ndtri((1 - level) / 2), ndtri((1 + level) / 2)):
        tails.append(ndtr(z0 + (z0 + z) / (1 - accel * (z0 + z))))
    return np.where(small, alpha, tails[0]), np.where(small, 1 - alpha, tails[1])


def bca_p_value(
    weight: np.ndarray, values: np.ndarray, point: np.ndarray, means: np.ndarray
) -> np.ndarray:
    """Two-sided p-value of "mean = 0" per column, read off the same BCa intervals as the
    benchmark interval: the smallest 1 − level at which that interval excludes 0. So
    p < 1 − level exactly when the level's interval leaves 0 out (up to the resolution of
    the resamples). Where 0 sits at bootstrap share s, the BCa map
    ``s = Φ(z0 + (z0 + z)/(1 − a(z0 + z)))`` is solved for z, and p = 2·min(Φ(z), 1 − Φ(z))."""
    from scipy.special import ndtr, ndtri

    if means.shape[0] == 0:
        return np.full(len(point), np.nan)
    z0, accel, small = _bca_constants(weight, values, point, means)
    z0, accel = np.where(small, 0.0, z0), np.where(small, 0.0, accel)
    present = ~np.isnan(means)
    count = np.maximum(present.sum(axis=0), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = ((means < 0) + 0.5 * (means == 0)).sum(axis=0) / count
        w = ndtri(np.clip(share, 1 / (2 * count), 1 - 1 / (2 * count))) - z0
        denom = 1 + accel * w
        z = np.where(denom > 0, w / denom, np.sign(w) * np.inf) - z0
        tail = ndtr(z)
    return np.clip(2 * np.minimum(tail, 1 - tail), 0.0, 1.0)


def _bca_constants(
    weight: np.ndarray, values: np.ndarray, point: np.ndarray, means: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(z0, acceleration, too few questions for a jackknife) per column."""
    from scipy.special import ndtri

    valid = ~np.isnan(values)
    q = weight @ valid
    filled = np.where(valid, values, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        jack = (q * point - filled) / (q - 1)  # A × M
        centre = (weight @ np.where(valid, jack, 0.0)) / q
        u = np.where(valid, centre - jack, 0.0)
        spread = (weight @ (u * u)) ** 1.5
        accel = np.where(spread > 0, (weight @ u**3) / (6 * spread), 0.0)
    small = q < 3  # too few questions for a jackknife: plain percentiles
    if means.shape[0] == 0:
        return np.zeros(len(point)), accel, small
    below, count = _share_below(means, point)
    z0 = ndtri(np.clip(below, 1 / (2 * count), 1 - 1 / (2 * count)))
    return z0, accel, small


def _share_below(means: np.ndarray, point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column: the share of (non-NaN) resample means below *point*, ties counting
    half, and how many there are (at least 1)."""
    b = means.shape[0]
    count = np.full(means.shape[1], b)
    if np.isnan(means).any():
        count = np.count_nonzero(~np.isnan(means), axis=0)
    count = np.maximum(count, 1)
    with np.errstate(invalid="ignore"):
        less = np.count_nonzero(means < point, axis=0)
        tied = np.count_nonzero(means == point, axis=0)
    return (less + 0.5 * tied) / count, count


def bootstrap(
    weight: np.ndarray,
    values: np.ndarray,
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BCa bootstrap interval of the mean of each column of *values* (A × M, NaN = skip):
    the *benchmark* interval.

    Returns ``(point, low, high)`` arrays of length M. The mean over valid questions is
    ``counts @ values / counts @ valid`` per resample, so NaN entries (metric undefined
    for that question) are left out consistently in the point estimate and the resamples.
    The percentiles are bias-corrected and accelerated (BCa, :mod:`.interval_kinds`).
    """
    weight = np.asarray(weight, dtype=np.int64)
    values = np.asarray(values, dtype=float).reshape(len(weight), -1)
    point, means = _bootstrap_means(weight, values, n_boot, seed)
    low, high = _percentiles(means, level, *_bca_tails(weight, values, point, means, level))
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


def ci_status(n_boot: int, defined: int, flat: bool, spec: MetricSpec | None = None) -> str:
    """Why an interval is what it is: 'ok', 'off' (no resamples asked for), 'undefined'
    (the metric has no value: k > n everywhere), 'no width' (see :func:`no_spread`) or
    'unreliable': *defined* (its questions) too few for *spec*'s bootstrap
    (:func:`benchmark_unreliable`)."""
    if not defined:
        return "undefined"
    if n_boot <= 0:
        return "off"
    if flat:
        return "no width"
    few = spec is not None and benchmark_unreliable(spec, int(defined))
    return "unreliable" if few else "ok"


def benchmark_unreliable(spec: MetricSpec, questions: int) -> bool:
    """True where a benchmark interval of *spec* over *questions* questions is marked '!'
    (:data:`MIN_BENCHMARK_QUESTIONS`): mG-Pass@k, or G-Pass@k_τ that needs all k draws
    right, at k ≥ 2."""
    if spec.k < 2 or questions >= MIN_BENCHMARK_QUESTIONS:
        return False
    if spec.definition is MG_PASS:
        return True
    return (
        spec.definition is G_PASS
        and spec.tau is not None
        and (threshold_count(spec.k, spec.tau) == spec.k)
    )
