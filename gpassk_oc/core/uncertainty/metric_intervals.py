"""Uncertainty for G-Pass@k tables: the two named intervals, paired comparison (pure core:
numpy, and scipy.special for t quantiles; never imports OpenCompass).

Every value carries two intervals, because a reader asks one of two questions:

* **rerun** — "if I sampled this model again on these questions, how much would the
  number move?" Questions fixed, sampling noise only: the point ± t × the rerun SE built
  from an *unbiased* per-question variance estimate (:mod:`.rerun_variance`, :mod:`.interval_kinds`).
  Where a question has n < 2k no unbiased estimate exists; its variance is then the
  posterior expectation under a Beta fitted to the questions (:mod:`.difficulty_model`;
  the grid prior of :mod:`.grid_prior` for metrics flat at both ends, :class:`.atoms.
  Fallback`), and the interval is marked ``rerun='posterior'``.
* **benchmark** — "how would the model do on new questions like these?" Questions are a
  sample too: a BCa bootstrap over questions (``ci_low``/``ci_high``).

A question's value depends only on its ``(n, c)``, so questions collapse into *atoms*
(distinct (n, c) with multiplicities); the bootstrap over atoms is in :mod:`.bootstrap`.

Interval rules (every table and summary): a percentile interval that misses the point
estimate (possible when the resample distribution is skewed) is widened to reach it, so a
CI never excludes its own estimate; when every question has the same value of a metric
(e.g. all 0 on a handful of questions) resampling questions cannot produce a width, and the
interval is left out (NaN, ``ci='no width'``) instead of being shown as ``[v, v]``; likewise
a rerun interval when every question was right in all or in none of its samples
(``rerun='no width'``: the counts cannot say how far a rerun would move the value).

Where a question's unbiased variance is 0 or n < 4k, a fitted prior's posterior variance
stands in or is combined (:meth:`.atoms.Atoms.variances`); the marks: :func:`.interval_kinds.marked`.

Metric values are fractions in [0, 1]; the report layer converts to percent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec, parse_metric
from gpassk_oc.core.uncertainty.atoms import DEFAULT_FALLBACK, Atoms, Fallback, atoms_of, priors_of
from gpassk_oc.core.uncertainty.bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    _bca_tails,
    _bootstrap_means,
    _contain,
    _percentiles,
    bca_p_value,
    bootstrap,
    bootstrap_questions,
    ci_status,
    joint_sampler_fits,
    no_spread,
    resample_counts,
)
from gpassk_oc.core.uncertainty.interval_kinds import (
    SHOWN,
    WIDE_RATIO,
    _rerun_finish,
    _rerun_sums,
    marked,
    p_held_to_interval,
    rerun_df,
    rerun_interval,
    t_two_sided_p,
)
from gpassk_oc.core.uncertainty.known_rates import metric_per_c, rerun_se, rerun_variance

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
    "point_means",
    "rerun_interval",
    "rerun_se",
    "rerun_variance",
    "resample_counts",
    "sampling_se",
    "summarize",
    "summarize_many",
]

#: the interval kinds, in the order the outputs list them
INTERVAL_KINDS = ("rerun", "benchmark")


# MetricSpec and parse_metric (metric-name module), metric_per_c / rerun_variance /
# rerun_se (known p, known_rates) are re-exported: every statistic takes metrics by key.


# --------------------------------------------------------------------------- rerun
def sampling_se(atoms: Atoms, specs: Sequence[MetricSpec]) -> np.ndarray:
    """Rerun standard error of each metric's mean, ``sqrt(Σ_q V_q) / Q`` from the unbiased
    per-question variance estimates; NaN where some question has n < 2k (the posterior
    variances :func:`summarize` uses there need a prior fitted to the questions)."""
    return rerun_interval(atoms.weight, atoms.values(specs), atoms.variances(specs))[2]


# --------------------------------------------------------------------------- high level
@dataclass(frozen=True)
class Estimate:
    """A metric's mean over questions (fraction) with its two intervals: *benchmark*
    (``ci_low``/``ci_high``, status ``ci``) and *rerun* (``rerun_low``/``rerun_high``,
    status ``rerun``; ``sampling_se`` is its standard error)."""

    value: float
    ci_low: float
    ci_high: float
    sampling_se: float  # rerun SE (NaN when the rerun interval is not given)
    n_questions: int  # questions for which the metric is defined (k <= n)
    ci: str = "ok"  # ci_status: ok, unreliable; bounds NaN: off, undefined, no width
    rerun_low: float = float("nan")
    rerun_high: float = float("nan")
    # 'ok', 'posterior'/'wide'/'unreliable' (see marked), 'undefined', 'n < 2k', 'no width'
    rerun: str = "off"

    def interval(self, kind: str) -> tuple[float, float, str]:
        """``(low, high, status)`` of the interval *kind* (one of INTERVAL_KINDS)."""
        if kind == "rerun":
            return self.rerun_low, self.rerun_high, self.rerun
        if kind == "benchmark":
            return self.ci_low, self.ci_high, self.ci
        raise ValueError(f"interval kind must be one of {INTERVAL_KINDS}, got {kind!r}")


def _specs(metrics: Iterable[str | MetricSpec]) -> list[MetricSpec]:
    return [parse_metric(m) for m in metrics]


def point_means(
    n: int | Sequence[int] | np.ndarray,
    c: Sequence[int] | np.ndarray,
    metrics: Iterable[str | MetricSpec],
) -> dict[str, float]:
    """Every metric's mean over the questions where it is defined (NaN where none is):
    :func:`summarize`'s values without any interval, for callers that need only those."""
    specs = _specs(metrics)
    atoms = atoms_of(n, c)
    values = atoms.values(specs)
    valid = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (atoms.weight @ np.where(valid, values, 0.0)) / (atoms.weight @ valid)
    return {spec.key: float(m) for spec, m in zip(specs, means)}


def summarize(
    n: int | Sequence[int] | np.ndarray,
    c: Sequence[int] | np.ndarray,
    metrics: Iterable[str | MetricSpec],
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> dict[str, Estimate]:
    """Every metric's mean with its benchmark and rerun intervals, keyed by metric key.

    Metrics undefined for every question (k > n) are returned with NaN values.
    """
    return summarize_many([(n, c)], metrics, n_boot=n_boot, level=level, seed=seed)[0]


Cell = tuple["int | Sequence[int] | np.ndarray", "Sequence[int] | np.ndarray"]


def summarize_many(
    cells: Sequence[Cell],
    metrics: Iterable[str | MetricSpec],
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
    fallback: Fallback = DEFAULT_FALLBACK,
) -> list[dict[str, Estimate]]:
    """:func:`summarize` of every ``(n, c)`` cell, in order; the same numbers as one call
    per cell (up to rounding in the last bit), much faster for many cells: the benchmark
    interval's resamples depend only on (Q, resamples, seed) (:func:`.bootstrap.
    question_counts`), so cells with the same number of questions share one draw and
    one matrix product per block of columns. *fallback*: how variances the counts cannot
    give are made (:class:`.atoms.Fallback`; the benches measure the alternatives)."""
    specs = _specs(metrics)
    atoms = [atoms_of(n, c) for n, c in cells]
    values = [a.values(specs) for a in atoms]
    bounds = _benchmark_bounds(atoms, values, n_boot, level, seed)
    priors = priors_of(atoms, specs, fallback.prior)
    # 'posterior' marks an interval some of whose variances came from the fitted Beta
    shorts = [a.fallback(specs) & (p is not None) for a, p in zip(atoms, priors)]
    used = [a.cell_variances(a.variances(specs, p, fallback)) for a, p in zip(atoms, priors)]
    wides = [a.wide(specs, u, fallback) & s for a, u, s in zip(atoms, used, shorts)]
    sums = [_rerun_sums(a.weight, v, u) for a, v, u in zip(atoms, values, used)]
    if not sums:
        return []
    # every cell's rerun intervals side by side: one t-quantile call for the grid
    low, high, se, status = _rerun_finish(
        tuple(np.concatenate(parts) for parts in zip(*sums)),  # type: ignore[arg-type]
        level=level,
        clip=True,
    )
    m = len(specs)
    return [
        _estimates(
            specs,
            a,
            v,
            b,
            (low[i * m : i * m + m], high[i * m : i * m + m], se[i * m : i * m + m]),
            marked(status[i * m : i * m + m], sh, w, a.support(specs, used=u, fallback=fallback)),
            n_boot,
        )
        for i, (a, v, b, sh, w, u) in enumerate(zip(atoms, values, bounds, shorts, wides, used))
    ]


Bounds = tuple[np.ndarray, np.ndarray, np.ndarray]


def _benchmark_bounds(
    atoms: Sequence[Atoms], values: Sequence[np.ndarray], n_boot: int, level: float, seed: int
) -> list[Bounds]:
    """Per cell ``(point, low, high)`` of the benchmark interval (:func:`bootstrap`'s)."""
    out: list[Bounds | None] = [None] * len(atoms)
    groups: dict[int, list[int]] = {}
    for i, a in enumerate(atoms):
        q = int(a.weight.sum())
        if n_boot <= 0:  # the point only: no resamples, so no interval to compute
            point = _bootstrap_means(a.weight, values[i], 0, seed)[0]
            out[i] = (point, np.full_like(point, np.nan), np.full_like(point, np.nan))
        elif joint_sampler_fits(q, n_boot):
            groups.setdefault(q, []).append(i)
        else:  # no resamples, or too many questions to hold their counts: on atoms
            out[i] = bootstrap(a.weight, values[i], n_boot=n_boot, level=level, seed=seed)
    for members in groups.values():
        points = [_bootstrap_means(atoms[i].weight, values[i], 0, seed)[0] for i in members]
        low, high = bootstrap_questions(
            np.hstack([values[i][atoms[i].inverse] for i in members]),
            np.concatenate(points),
            n_boot=n_boot,
            level=level,
            seed=seed,
        )
        at = 0
        for i, point in zip(members, points):
            cols = slice(at, at + len(point))
            flat = no_spread(atoms[i].weight, values[i])
            out[i] = (point, *_contain(point, low[cols], high[cols], flat))
            at += len(point)
    return [b for b in out if b is not None]


def _estimates(
    specs: Sequence[MetricSpec],
    atoms: Atoms,
    values: np.ndarray,
    bounds: Bounds,
    rerun: Bounds,
    rerun_status: list[str],
    n_boot: int,
) -> dict[str, Estimate]:
    """One cell's estimates: its benchmark *bounds* ``(point, low, high)`` and its rerun
    interval ``(low, high, se)`` with statuses."""
    point, low, high = (x.tolist() for x in bounds)
    r_low, r_high, se = (x.tolist() for x in rerun)
    defined = (atoms.weight @ ~np.isnan(values)).tolist()
    flat = no_spread(atoms.weight, values).tolist()
    return {
        s.key: Estimate(
            point[j],
            low[j],
            high[j],
            se[j],
            int(defined[j]),
            ci_status(n_boot, int(defined[j]), bool(flat[j]), s),
            r_low[j],
            r_high[j],
            rerun_status[j],
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
    sampling_se: float  # rerun SE of the difference, independent reruns of A and B
    p_value: float  # benchmark kind: two-sided p for diff == 0 from inverting the BCa interval
    n_questions: int
    ci: str = "ok"  # as Estimate.ci
    rerun_low: float = float("nan")
    rerun_high: float = float("nan")
    rerun_p: float = float("nan")  # rerun kind: two-sided t-test p for diff == 0
    rerun: str = "off"  # as Estimate.rerun
    # the runs whose counts give the rerun interval its width ("A and B", "A", "B" or "":
    # a run right in all or in none of every question's samples adds no rerun variance)
    rests_on: str = "A and B"


def _moves(atoms: Atoms) -> bool:
    """Whether some question of *atoms* was right in some but not all of its samples."""
    return bool(np.any((atoms.c > 0) & (atoms.c < atoms.n)))


@dataclass(frozen=True)
class _Paired:
    """Two runs on the same questions as distinct (atom of A, atom of B) pairs, with the
    pairs' weights and per-metric values; a question counts only where the metric is
    defined for both runs (``both``; elsewhere the values are NaN)."""

    atoms_a: Any
    atoms_b: Any
    pairs: np.ndarray
    weight: np.ndarray
    va: np.ndarray
    vb: np.ndarray
    both: np.ndarray

    @classmethod
    def of(cls, n_a: Any, c_a: Any, n_b: Any, c_b: Any, specs: list[MetricSpec]) -> _Paired:
        c_a = np.asarray(c_a).ravel()
        c_b = np.asarray(c_b).ravel()
        if c_a.shape != c_b.shape:
            raise ValueError(
                f"paired comparison needs the same questions: {c_a.size} vs {c_b.size}"
            )
        atoms_a, atoms_b = atoms_of(n_a, c_a), atoms_of(n_b, c_b)
        pairs, _, weight = np.unique(
            np.stack([atoms_a.inverse, atoms_b.inverse], axis=1),
            axis=0,
            return_inverse=True,
            return_counts=True,
        )
        va = atoms_a.values(specs)[pairs[:, 0]]
        vb = atoms_b.values(specs)[pairs[:, 1]]
        both = ~(np.isnan(va) | np.isnan(vb))
        va, vb = np.where(both, va, np.nan), np.where(both, vb, np.nan)
        return cls(atoms_a, atoms_b, pairs, weight, va, vb, both)

    def _variances(self, specs: list[MetricSpec], prior_a: Any, prior_b: Any) -> np.ndarray:
        """Per pair, A's plus B's per-question rerun variances under the two priors; a run
        right in all or in none of the samples of every question adds none, as in its own
        report (:meth:`.atoms.Atoms.cell_variances`): its counts cannot say how far a rerun
        would move it, so the interval rests on the other run (:attr:`Difference.rests_on`),
        or has no width when both are so (a prior fitted to such counts, a point mass at 0
        and 1, used to give ``[+100.0, +100.0]``)."""
        a, b = self.atoms_a, self.atoms_b
        return (
            a.cell_variances(a.variances(specs, prior_a))[self.pairs[:, 0]]
            + b.cell_variances(b.variances(specs, prior_b))[self.pairs[:, 1]]
        )

    def rests_on(self) -> str:
        """The runs ("A", "B", "A and B" or "") whose counts give the rerun interval its
        width: those with some question right in some but not all of its samples."""
        moving = [s for s, x in (("A", self.atoms_a), ("B", self.atoms_b)) if _moves(x)]
        return " and ".join(moving)

    def rerun_kind(
        self, specs: list[MetricSpec], diff_values: np.ndarray, point: np.ndarray, level: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], np.ndarray]:
        """Rerun interval, SE, status and t-test p of the difference: reruns of A and B
        are independent, so the variances add per question."""
        a, b, weight = self.atoms_a, self.atoms_b, self.weight
        short_a, short_b = a.fallback(specs), b.fallback(specs)
        prior_a = a.prior() if short_a.any() else None
        prior_b = b.prior() if short_b.any() else None
        short_a, short_b = short_a & (prior_a is not None), short_b & (prior_b is not None)
        var = self._variances(specs, prior_a, prior_b)
        r_low, r_high, se, r_status = rerun_interval(
            weight, diff_values, var, level=level, clip=False
        )
        judged = a.judged(specs) & b.judged(specs) & (DEFAULT_FALLBACK.ends != "grid")  # Atoms.wide
        wide = np.zeros(len(specs), dtype=bool)
        if judged.any():
            grids = [(x.prior("grid") or p) if p else p for x, p in ((a, prior_a), (b, prior_b))]
            free = self._variances(specs, *grids)
            total, ref = (weight @ np.where(self.both, np.nan_to_num(x), 0.0) for x in (var, free))
            wide = (total > WIDE_RATIO * ref) & judged
        moved = a.varies(specs)[self.pairs[:, 0]] | b.varies(specs)[self.pairs[:, 1]]
        support = a.support(specs, b.support(specs, weight @ (moved & self.both)))
        guess = Atoms.mostly_guessed(weight, var, self._variances(specs, None, None), self.both)
        support = np.where(guess & a.judged(specs) & b.judged(specs), 0, support)  # Atoms.guessed
        r_status = marked(r_status, short_a | short_b, wide, support)
        v = np.where(self.both & ~np.isnan(var), var, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            r_p = t_two_sided_p(point / se, rerun_df(weight @ v, weight @ (v * v)))
        return r_low, r_high, se, r_status, r_p


def _benchmark_p(
    weight: np.ndarray,
    diff_values: np.ndarray,
    resampled: tuple[np.ndarray, np.ndarray],
    interval: tuple[np.ndarray, np.ndarray, np.ndarray],
    level: float,
) -> np.ndarray:
    """Two-sided p of the benchmark kind, read off the same BCa intervals (*resampled*:
    the point and the resample means): p < 1 − level exactly when the *interval* (low,
    high, no width) at that level leaves 0 out (a p from another construction, e.g. a
    re-centred bootstrap, can disagree with the interval printed beside it). NaN where
    the interval has no width and A − B ≠ 0: every resample gives the point, so p would
    be 1 / (resamples + 1), set by the resample count, beside no interval (where every
    difference is 0, p = 1 says what the counts do: no sign of one)."""
    point, means = resampled
    low, high, flat = interval
    p = p_held_to_interval(bca_p_value(weight, diff_values, point, means), low, high, level)
    return np.where(flat & (point != 0), np.nan, p)


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
    """A − B on the same questions, with both interval kinds.

    Benchmark kind: paired bootstrap — questions are resampled *jointly* (question q of A
    is question q of B), which removes the between-question variance the two share.
    Rerun kind: A and B are resampled independently on fixed questions, so per question
    the unbiased variance estimates add; t interval and t-test p as in
    :func:`rerun_interval`.

    The caller aligns the questions; lengths must match. Atoms here are distinct
    (atom of A, atom of B) pairs, so the same counts-matrix product applies.
    """
    specs = _specs(metrics)
    paired = _Paired.of(n_a, c_a, n_b, c_b, specs)
    weight, both, va, vb = paired.weight, paired.both, paired.va, paired.vb
    diff_values = va - vb
    point, means = _bootstrap_means(weight, diff_values, n_boot, seed)
    flat = no_spread(weight, diff_values)
    q_both = weight @ both
    tails = _bca_tails(weight, diff_values, point, means, level)
    low, high = _contain(point, *_percentiles(means, level, *tails), flat)
    p_value = _benchmark_p(weight, diff_values, (point, means), (low, high, flat), level)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_a = (weight @ np.where(both, va, 0.0)) / (weight @ both)
        mean_b = (weight @ np.where(both, vb, 0.0)) / (weight @ both)
    r_low, r_high, se, r_status, r_p = paired.rerun_kind(specs, diff_values, point, level)
    r_p = p_held_to_interval(r_p, r_low, r_high, level)
    rests_on = paired.rests_on()
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
            ci_status(n_boot, int(q_both[j]), bool(flat[j]), s),
            float(r_low[j]),
            float(r_high[j]),
            float(r_p[j]) if r_status[j] in SHOWN else float("nan"),
            r_status[j],
            rests_on,
        )
        for j, s in enumerate(specs)
    }
