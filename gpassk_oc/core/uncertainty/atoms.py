"""Questions collapsed into *atoms* (pure core: numpy).

A question's metric values and rerun variances depend only on its ``(n, c)``, so the
questions of a cell collapse into distinct ``(n, c)`` pairs with multiplicities. Per n, a
metric set's values and unbiased variances for every c are one cached table
(:func:`_tables`): a report asks for the same tables for each of thousands of cells, and a
cell's per-atom arrays are then rows picked from them. Re-exported by
:mod:`.metric_intervals`, the public entry point.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.uncertainty.difficulty_model import (
    Difficulty,
    fit_beta,
    posterior_variance_table,
)
from gpassk_oc.core.uncertainty.grid_prior import (
    GridPrior,
    fit_error,
    fit_grid,
    fit_grid_many,
    grid_posterior_variance_table,
)
from gpassk_oc.core.uncertainty.interval_kinds import GUESSED_SHARE, WIDE_RATIO
from gpassk_oc.core.uncertainty.known_rates import estimator_spec, metric_per_c
from gpassk_oc.core.uncertainty.rerun_variance import kernel, unbiased_variance_per_c

__all__ = ["DEFAULT_FALLBACK", "Atoms", "Fallback", "atoms_of", "priors_of"]


#: below this many times k samples per question (n ≥ 2k) the unbiased variance rests on
#: fewer than NEAR_2K/2 disjoint pairs of k-subsets (at n = 2k on one: V(c) = f(c)² − B_c):
#: too noisy on its own, and it is small exactly when the estimate is (a high-τ question
#: that missed its rare all-correct draws), so the t interval under-covers. There a
#: question's variance is combined with the posterior one: the larger of the two in
#: tables of fewer than SMALL_TABLE questions (where a few questions carry the sum), their
#: mean in larger ones (where the larger alone over-covers); bench/bench_small_tables.py
#: and bench/bench_ci_coverage.py measure both choices
NEAR_2K = 4
SMALL_TABLE = 50


@dataclass(frozen=True)
class Fallback:
    """How the rerun interval's fallback variance is made; the report uses
    :data:`DEFAULT_FALLBACK`, bench/bench_small_tables.py measures the others.

    *prior*: the difficulty prior :meth:`Atoms.prior` fits, "beta" (:func:`.difficulty_model.
    fit_beta`) or "grid" (the NPMLE of :mod:`.grid_prior`). The grid fits bimodal
    difficulties (the steady rows' G-Pass@k_0.5 no longer over-covers) but is too discrete
    for Beta-like ones in tables of 8–48 questions (τ = 1 cells fall to 0.87–0.93), so the
    Beta stays. *near*: where 2k ≤ n < NEAR_2K·k, "combine" V(c) with the posterior
    variance (the rule above) or use the "posterior" one alone (more cells below).
    *short*: where k ≤ n < 2k every variance is a prior's, and nothing in the counts checks
    the Beta's shape; "larger" takes, per metric, whichever of the Beta and the grid prior
    fitted to the same counts gives the larger summed variance (two fits the counts
    cannot tell apart: the wider is the honest one), "prior" the *prior* alone.
    *ends*: for a metric flat at both ends (:func:`_flat_at_ends`: G-Pass@k_τ with
    2 ≤ ⌈τk⌉ < k) where n ≥ 2k, "grid" takes the grid prior's posterior variances whatever
    *prior* says (:meth:`Atoms.ends_grid`), "prior" the *prior*'s."""

    prior: Literal["beta", "grid"] = "beta"
    near: Literal["combine", "posterior"] = "combine"
    short: Literal["larger", "prior"] = "larger"
    ends: Literal["grid", "prior"] = "grid"


DEFAULT_FALLBACK = Fallback()


#: a difficulty prior the fallback accepts: the fitted grid (the report's) or a Beta
Prior = GridPrior | Difficulty


def _posterior_table(specs: Sequence[MetricSpec], n: int, prior: Prior) -> np.ndarray:
    """(n+1) × len(specs): E[Var(f(C') | p) | c] under *prior*, for c = 0..n."""
    if isinstance(prior, GridPrior):
        return grid_posterior_variance_table(specs, n, prior)
    return posterior_variance_table(specs, n, prior)


@dataclass(frozen=True)
class _Tables:
    """One metric set at one n: (n+1) × M tables, read-only."""

    values: np.ndarray  # metric value per c; NaN where undefined (k > n)
    unbiased: np.ndarray  # unbiased rerun variance per c; NaN where none (n < 2k)
    short: np.ndarray  # (M,) k ≤ n < 2k: a posterior variance is needed
    near: np.ndarray  # (M,) 2k ≤ n < NEAR_2K·k (k ≥ 2): the unbiased estimate is too noisy alone
    flat_ends: np.ndarray  # (M,) k ≥ 2: a V(c) of 0 gets the posterior variance instead


@lru_cache(maxsize=256)
def _tables(specs: tuple[MetricSpec, ...], n: int) -> _Tables:
    values = np.full((n + 1, len(specs)), np.nan)
    unbiased = np.full((n + 1, len(specs)), np.nan)
    short = np.zeros(len(specs), dtype=bool)
    near = np.zeros(len(specs), dtype=bool)
    flat_ends = np.zeros(len(specs), dtype=bool)
    for j, spec in enumerate(specs):
        per_c = metric_per_c(spec, n)
        if per_c is not None:
            values[:, j] = per_c
        k = estimator_spec(spec).k
        short[j] = k <= n < 2 * k
        # k = 1 (pass@1, avg@n: c/n) keeps the textbook unbiased variance everywhere
        flat_ends[j] = k >= 2
        near[j] = k >= 2 and 2 * k <= n < NEAR_2K * k
        if k <= n:
            var = unbiased_variance_per_c(spec, n)
            if var is not None:
                unbiased[:, j] = var
    for table in (values, unbiased, short, near, flat_ends):
        table.setflags(write=False)
    return _Tables(values, unbiased, short, near, flat_ends)


@dataclass(frozen=True)
class Atoms:
    """Distinct per-question (n, c) pairs, their multiplicities, and each question's atom."""

    n: np.ndarray  # (A,)
    c: np.ndarray  # (A,)
    weight: np.ndarray  # (A,) questions per atom
    inverse: np.ndarray  # (Q,) atom of each question

    def _by_n(self, specs: Sequence[MetricSpec]) -> list[tuple[slice | np.ndarray, _Tables]]:
        """(rows of the atoms with that n, that n's tables) per distinct n."""
        key = tuple(specs)
        if not len(self.n):
            return []
        if (self.n == self.n[0]).all():  # one n for every question: the usual
            return [(slice(None), _tables(key, int(self.n[0])))]
        return [(np.flatnonzero(self.n == n), _tables(key, int(n))) for n in np.unique(self.n)]

    def values(self, specs: Sequence[MetricSpec]) -> np.ndarray:
        """(A × M) per-atom metric values; NaN where the metric is undefined (k > n)."""
        out = np.empty((len(self.n), len(specs)))
        for rows, tables in self._by_n(specs):
            out[rows] = tables.values[self.c[rows]]
        return out

    def variances(
        self,
        specs: Sequence[MetricSpec],
        prior: Prior | None = None,
        fallback: Fallback = DEFAULT_FALLBACK,
    ) -> np.ndarray:
        """(A × M) per-question rerun-variance estimates: unbiased V(c) (:mod:`.rerun_variance`)
        where n ≥ 2k; NaN where the metric is undefined. With a *prior* (the grid prior
        fitted to the questions, :meth:`prior`, or a Beta), the posterior expectation
        ``E[Var(f(C') | p) | c]`` (:func:`_posterior_table`) stands in where V says nothing: where k ≤ n < 2k (no
        unbiased estimate exists; NaN without a prior) and, for k ≥ 2, where V(c) = 0 (c at
        a flat end of the estimator, e.g. all correct: a rerun can still move it); where
        2k ≤ n < NEAR_2K·k (k ≥ 2) the two are combined (see :data:`NEAR_2K`; or the
        posterior one alone, as *fallback* says)."""
        out = np.empty((len(self.n), len(specs)))
        for rows, tables in self._by_n(specs):
            c = self.c[rows]
            part = tables.unbiased[c]
            zero = tables.flat_ends & (part == 0).any(axis=0)
            cols = np.flatnonzero(tables.short | tables.near | zero)
            if prior is not None and cols.size:
                n = int(self.n[rows][0])
                post = self._posterior_rows([specs[j] for j in cols], rows, n, prior, fallback)
                short = tables.short[cols]
                if fallback.short == "larger" and short.any() and not isinstance(prior, GridPrior):
                    post = self._larger_short(post, short, rows, n, [specs[j] for j in cols])
                sub = part[:, cols]
                near = tables.near[cols]
                part = part.copy()
                flat = tables.flat_ends[cols] & (sub == 0)
                small = self.weight.sum() < SMALL_TABLE
                both = np.fmax(sub, post) if small else (sub + post) / 2
                if fallback.near == "posterior":
                    both = post
                part[:, cols] = np.where(np.isnan(sub) | flat, post, np.where(near, both, sub))
            out[rows] = part
        return out

    def _posterior_rows(
        self, specs: list, rows: slice | np.ndarray, n: int, prior: Prior, fallback: Fallback
    ) -> np.ndarray:
        """(rows × specs) posterior variances of these rows' atoms at this n: *prior*'s,
        or the grid prior's for the columns :meth:`ends_grid` gives it."""
        grid = self.ends_grid(specs, fallback) if not isinstance(prior, GridPrior) else None
        if grid is None:
            return _posterior_table(specs, n, prior)[self.c[rows]]
        on, grid_prior = grid
        post = np.empty((len(self.c[rows]), len(specs)))
        for mask, fit in ((on, grid_prior), (~on, prior)):
            if mask.any():
                idx = np.flatnonzero(mask)
                post[:, idx] = _posterior_table([specs[j] for j in idx], n, fit)[self.c[rows]]
        return post

    def ends_grid(
        self, specs: Sequence[MetricSpec], fallback: Fallback = DEFAULT_FALLBACK
    ) -> tuple[np.ndarray, GridPrior] | None:
        """(columns, the grid prior) where *fallback*.ends gives a metric the grid prior's
        posterior variance: metrics flat at both ends (:func:`_flat_at_ends`) with every
        question at n ≥ 2k; None where none is, or the grid prior cannot be fitted.

        Why: the fitted Beta is one smooth shape; for bimodal difficulties (the demo's
        steady rows: p ≈ 0.07 or 0.93) its posterior keeps mass near p = ½, where such a
        metric has all its variance, and overstates its summed rerun variance 3–50×
        (bench/bench_small_tables.py's diagnosis; coverage 1.000 up to Q = 100). The grid
        prior (the NPMLE) takes the difficulties' shape from the counts; its one flaw, mass
        at exactly 0 and 1 instead of near them, costs such a metric little, as its
        variance vanishes to second order there (and G-Pass@k_1.0 keeps the Beta)."""
        if fallback.ends != "grid":
            return None
        on = self.judged(specs)
        grid = self.prior("grid") if on.any() else None
        return (on, grid) if isinstance(grid, GridPrior) else None

    def _larger_short(
        self, post: np.ndarray, short: np.ndarray, rows: slice | np.ndarray, n: int, specs: list
    ) -> np.ndarray:
        """*post* (the Beta's posterior variances of these rows, one column per spec), with
        each *short* column (n < 2k) replaced by the grid prior's where those sum to more
        (Fallback.short); the grid's table is made for the short columns only."""
        grid = self.prior("grid")
        if grid is None:
            return post
        idx = np.flatnonzero(short)
        other = _posterior_table([specs[j] for j in idx], n, grid)[self.c[rows]]
        weight = self.weight[rows]
        larger = weight @ np.nan_to_num(other) > weight @ np.nan_to_num(post[:, idx])
        post = post.copy()
        post[:, idx] = np.where(larger, other, post[:, idx])
        return post

    def cell_variances(self, var: np.ndarray) -> np.ndarray:
        """*var* (:meth:`variances` of these atoms as one table), all 0 (so 'no width')
        where every question was right in all or in none of its samples: a rerun moves
        such a value only if some rate lies strictly between 0 and 1, and these counts
        cannot say by how much (a prior fitted to them is a point mass at 0 and 1)."""
        if np.all((self.c == 0) | (self.c == self.n)):
            return np.where(np.isnan(var), var, 0.0)
        return var

    def wide(
        self, specs: Sequence[MetricSpec], used: np.ndarray, fallback: Fallback = DEFAULT_FALLBACK
    ) -> np.ndarray:
        """(M,) True where the variances *used* (:meth:`cell_variances` with the fitted
        Beta) sum to more than :data:`.interval_kinds.WIDE_RATIO` times what the same rule
        gives with the shape-free grid prior fitted to the same counts: the Beta's shape,
        not the samples, then sets the width (the interval is marked 'wide'). Only for a
        metric that one sample's verdict cannot move at either end (:func:`_flat_at_ends`)
        and where every question has n ≥ 2k: elsewhere the grid prior (a few spikes, some
        at exactly 0 or 1) understates the variance too much to judge the Beta by."""
        out = np.zeros(len(specs), dtype=bool)
        # only the judged metrics that took a fallback variance can differ from the grid's,
        # and none does where they take the grid prior's own (Fallback.ends)
        judged = self.judged(specs) & (fallback.ends != "grid")
        cols = np.flatnonzero(judged & self.fallback(specs))
        grid = self.prior("grid") if fallback.prior == "beta" and cols.size else None
        if grid is None:
            return out
        free = self.cell_variances(self.variances([specs[j] for j in cols], grid, fallback))
        total, ref = (self.weight @ np.nan_to_num(v, nan=0.0) for v in (used[:, cols], free))
        out[cols] = total > WIDE_RATIO * ref
        return out

    def judged(self, specs: Sequence[MetricSpec]) -> np.ndarray:
        """(M,) where :meth:`wide` may mark: metrics flat at both ends, n ≥ 2k."""
        ends = np.array([_flat_at_ends(spec) for spec in specs], dtype=bool)
        return ends & ~self.short(specs)

    def fallback(self, specs: Sequence[MetricSpec]) -> np.ndarray:
        """(M,) True where some question's rerun variance comes from (or is combined with)
        the fitted prior when :meth:`variances` is given one: n < 2k, n near 2k, or an
        unbiased estimate of exactly 0 (k ≥ 2)."""
        out = np.zeros(len(specs), dtype=bool)
        for rows, tables in self._by_n(specs):
            zero = tables.flat_ends & (tables.unbiased[self.c[rows]] == 0).any(axis=0)
            out |= tables.short | tables.near | zero
        return out

    def varies(self, specs: Sequence[MetricSpec]) -> np.ndarray:
        """(A × M) True where the atom's value is strictly between the estimator's flat
        ends (its smallest and largest value over c = 0..n; for G-Pass@k_τ: some but not
        all k-subsets pass): questions whose count says how far a rerun moves them. A rerun
        interval's Σ V rests on these (:data:`.interval_kinds.MIN_VARYING`). Where n < 2k
        every variance is the fitted prior's (at n = k each value is 0 or 1), so there a
        question varies when its samples are not all alike (0 < c < n)."""
        out = np.zeros((len(self.n), len(specs)), dtype=bool)
        for rows, tables in self._by_n(specs):
            nan = np.isnan(tables.values)  # undefined metric: no value, none varies
            low = np.where(nan, np.inf, tables.values).min(axis=0)
            high = np.where(nan, -np.inf, tables.values).max(axis=0)
            v = tables.values[self.c[rows]]
            c = self.c[rows][:, None]
            mixed = tables.short & (c > 0) & (c < self.n[rows][:, None])
            out[rows] = (v > low + 1e-12) & (v < high - 1e-12) | mixed
        return out

    def support(
        self,
        specs: Sequence[MetricSpec],
        count: np.ndarray | None = None,
        used: np.ndarray | None = None,
        fallback: Fallback = DEFAULT_FALLBACK,
    ) -> np.ndarray:
        """(M,) questions a rerun interval's Σ V rests on, compared with
        :data:`.interval_kinds.MIN_VARYING` to mark it 'unreliable': those that vary
        (:meth:`varies`; or *count*, e.g. a paired difference's), but 0 where
        :meth:`unchecked` says the interval rests on the fitted prior's guess alone, or,
        given the variances *used* (A × M) under *fallback*, where :meth:`guessed` says
        it rests mostly on it."""
        count = self.weight @ self.varies(specs) if count is None else count
        guessed = self.guessed(specs, used, fallback) if used is not None else False
        return np.where(self.unchecked(specs) | guessed, 0, count)

    def guessed(
        self, specs: Sequence[MetricSpec], used: np.ndarray, fallback: Fallback = DEFAULT_FALLBACK
    ) -> np.ndarray:
        """(M,) True for a metric flat at both ends where every question has n ≥ 2k
        (:meth:`judged`), under the report's rule (*fallback*'s ``ends`` "grid", the Beta
        elsewhere; the other rules the benches measure keep their own marks), where more
        than :data:`.interval_kinds.GUESSED_SHARE` of the variances *used* (A × M,
        :meth:`cell_variances`) is the fitted prior's, not the unbiased V(c): where V(c) = 0
        (a count at a flat end) and what is added to V(c) at 2k ≤ n < 4k."""
        ours = fallback.ends == "grid" and fallback.prior == "beta"
        guess = self.mostly_guessed(self.weight, used, self.variances(specs))
        return ours & self.judged(specs) & guess

    @staticmethod
    def mostly_guessed(
        weight: np.ndarray, used: np.ndarray, unbiased: np.ndarray, rows: np.ndarray | bool = True
    ) -> np.ndarray:
        """(M,) True where ``Σ weight·(used − unbiased) > GUESSED_SHARE · Σ weight·used``
        over the *rows* (questions, or a comparison's question pairs; rows × M arrays,
        NaN counts as 0): :meth:`guessed`'s test."""
        used, unbiased = (np.where(rows, np.nan_to_num(x, nan=0.0), 0.0) for x in (used, unbiased))
        total = weight @ used
        return (weight @ (used - unbiased) > GUESSED_SHARE * total) & (total > 0)

    def unchecked(self, specs: Sequence[MetricSpec]) -> np.ndarray:
        """(M,) True where some question has k ≤ n < 2k and the metric is not flat at the
        top (:func:`_flat_at_top`: G-Pass@k_1.0, mG-Pass@k): its rerun variance is then
        the fitted prior's guess of how far below 1 the rates of the questions often right
        lie, and that guess sets the width. Such a metric's variance falls steeply as p
        nears 1, so a table whose value came out high gets a narrow interval (estimate and
        variance move against each other), by how much the fitted shape decides, and the
        counts cannot check it (at n = k, c = n says only that p^k is large). Measured in
        bench/bench_short_fallback.py: bimodal difficulties under-cover up to Q = 100,
        Beta-like ones do not, and no statistic of the counts tried told them apart."""
        out = np.zeros(len(specs), dtype=bool)
        top = np.array([not _flat_at_top(spec) for spec in specs], dtype=bool)
        for _, tables in self._by_n(specs):
            out |= tables.short & top
        return out

    def short(self, specs: Sequence[MetricSpec]) -> np.ndarray:
        """(M,) True where some question has k ≤ n < 2k (no unbiased rerun variance; k of
        the estimator, so avg@n counts as pass@1)."""
        out = np.zeros(len(specs), dtype=bool)
        for _, tables in self._by_n(specs):
            out |= tables.short
        return out

    def prior(self, kind: str = DEFAULT_FALLBACK.prior) -> Prior | None:
        """The difficulty prior fitted to these questions' counts (empirical Bayes), of
        *kind* (:attr:`Fallback.prior`), or None when it cannot be fitted (fewer than 2
        questions, or some question has n < 2)."""
        return _PRIORS.get(_prior_key(self, kind))


@lru_cache(maxsize=256)  # asked per table, twice (Atoms.ends_grid, Atoms.wide)
def _flat_at_ends(spec: MetricSpec) -> bool:
    """True where the metric on k draws is the same with 0 and 1 correct and with k − 1
    and k (β_0 = β_1, β_{k−1} = β_k: G-Pass@k_τ with 2 ≤ ⌈τk⌉ < k): its rerun variance
    then vanishes to second order at p = 0 and 1, so a prior's mass at exactly 0 or 1
    instead of near it changes little. For G-Pass@k_1.0 (and mG-Pass@k, pass@k) it
    vanishes to first order only, and the grid prior, which puts an all-correct
    question's rate at exactly 1, gives it too little variance to judge the Beta by."""
    try:
        beta = kernel(spec)
    except ValueError:  # undefined at its k
        return False
    return len(beta) > 2 and beta[0] == beta[1] and beta[-2] == beta[-1]


@lru_cache(maxsize=256)
def _flat_at_top(spec: MetricSpec) -> bool:
    """True where the metric on k draws is the same with k − 1 and k correct (β_{k−1} =
    β_k: G-Pass@k_τ with ⌈τk⌉ < k, pass@k); False where it needs all k right."""
    try:
        beta = kernel(spec)
    except ValueError:  # undefined at its k
        return True
    return len(beta) < 2 or beta[-2] == beta[-1]


class _PriorCache:
    """The priors fitted to a report's tables, by (questions' n, c, weight bytes, kind),
    least recently used out first: a report asks for the same questions once per metric
    set, and for each table twice (the variances, then the 'wide' check), a table after
    every other table of the report; it holds a 240-run grid's tables (a grid prior is
    1.6 kB). :func:`prefit_grid_priors` fills it for many tables at once."""

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self.priors: OrderedDict[tuple[bytes, bytes, bytes, str], Prior | None] = OrderedDict()

    def get(self, key: tuple[bytes, bytes, bytes, str]) -> Prior | None:
        if key in self.priors:
            self.priors.move_to_end(key)
            return self.priors[key]
        n, c, weight = (np.frombuffer(part, dtype=np.int64) for part in key[:3])
        fit = fit_grid if key[3] == "grid" else fit_beta
        try:
            prior: Prior | None = fit(n, c, "the run's questions", weight=weight)
        except ValueError:
            prior = None
        self.put(key, prior)
        return prior

    def put(self, key: tuple[bytes, bytes, bytes, str], prior: Prior | None) -> None:
        self.priors[key] = prior
        self.priors.move_to_end(key)
        while len(self.priors) > self.size:
            self.priors.popitem(last=False)


_PRIORS = _PriorCache()


def _prior_key(atoms: Atoms, kind: str) -> tuple[bytes, bytes, bytes, str]:
    n, c, weight = (
        np.ascontiguousarray(x, dtype=np.int64).tobytes() for x in (atoms.n, atoms.c, atoms.weight)
    )
    return n, c, weight, kind


def priors_of(
    tables: Sequence[Atoms], specs: Sequence[MetricSpec], kind: str = DEFAULT_FALLBACK.prior
) -> list[Prior | None]:
    """Per table, :meth:`Atoms.prior` of *kind* where some variance of *specs* needs a
    fallback (:meth:`Atoms.fallback`), else None. The grid priors those tables will ask
    for (the fallback's own; else for a fallback metric flat at both ends, Fallback.ends
    and the 'wide' check, or at n < 2k, the larger-of-two rule) are fitted first, all in
    one EM (:func:`.grid_prior.fit_grid_many`): a report's hundreds of tables in a
    fraction of the time one fit at a time takes; no other table pays for one."""
    used = [atoms.fallback(specs) for atoms in tables]
    need = [mask.any() for mask in used]
    todo: dict[tuple[bytes, bytes, bytes, str], Atoms] = {}
    for atoms, mask in zip(tables, used):
        grid_asked = mask & (atoms.short(specs) | atoms.judged(specs) | (kind == "grid"))
        if not grid_asked.any():
            continue
        key = _prior_key(atoms, "grid")
        if key not in _PRIORS.priors:
            todo[key] = atoms
    fit = [key for key, atoms in todo.items() if fit_error(atoms.n, atoms.weight) is None]
    for key in todo.keys() - set(fit):
        _PRIORS.put(key, None)
    batch = [(todo[key].n, todo[key].c, todo[key].weight) for key in fit]
    for key, prior in zip(fit, fit_grid_many(batch, "the run's questions")):
        _PRIORS.put(key, prior)
    return [atoms.prior(kind) if wanted else None for atoms, wanted in zip(tables, need)]


def atoms_of(n: int | Sequence[int] | np.ndarray, c: Sequence[int] | np.ndarray) -> Atoms:
    """Collapse questions into atoms (ordered by n, then c). *n* is per question or one
    int for all."""
    c = np.asarray(c, dtype=np.int64).ravel()
    n = np.broadcast_to(np.asarray(n, dtype=np.int64), c.shape)
    if c.size == 0:
        raise ValueError("no questions")
    if np.any(n < 0) or np.any(c < 0) or np.any(c > n):
        raise ValueError("every question needs 0 <= c <= n")
    # one integer key per (n, c), ordered as the pairs are (by n, then c): counting keys
    # is what np.unique(axis=0) does, at a fraction of its cost
    span = int(n.max()) + 1
    key = n * span + c
    if span * span <= 4 * c.size + 2**16:
        counts = np.bincount(key, minlength=1)
        present = np.flatnonzero(counts)
        slot = np.cumsum(counts > 0) - 1
        keys, weight, inverse = present, counts[present], slot[key]
    else:
        keys, inverse, weight = np.unique(key, return_inverse=True, return_counts=True)
    return Atoms(keys // span, keys % span, weight, inverse.ravel())
