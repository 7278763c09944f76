"""Rank intervals for a leaderboard, and P(A > B), under both interval kinds (pure core).

Rank of row i: ``1 + #{rows with a strictly higher value}`` (tied rows share the better
rank). Draws of every row's mean come from the interval kind's model:

* **rerun** — questions fixed, each row rerun independently: ``mean_i + se_i · Z_i``;
* **benchmark** — new questions: one bootstrap over the union of the rows' questions,
  resampled *jointly*, so rows that answered the same questions are paired by question
  (a row's mean uses only its own questions).

Row i's interval is ``[1 + #{j declared above i}, N − #{j declared below i}]``, a
*marginal* interval: it holds row i's true rank in about a *level* share of tables (the
docs' "Rank intervals" section says why a leaderboard's rank column asks this question,
and not the joint one: all rows at once). It is wrong only when more rows are declared
above (below) i than truly are, so the declarations are calibrated to that event:

1. rows the Bonferroni percentile test separates from row i (one-sided share of draws
   below ``(1 − level)/(2(N − 1))``: 0.3.0's rule) are declared outright;
2. each other row j is declared where ``|d_j| / sd_j > c`` (``d_j = mean_j − mean_i``,
   sd_j its spread over the draws); c is the smallest value with which that rule, applied
   to each draw as if it were the data, keeps row i's rank in a *level* share of draws —
   in a world whose true differences are the observed ones shrunk by
   ``1 − mean sd² / mean d²`` (their noise removed, empirical-Bayes style: taken at face
   value, observed differences are wider apart than true ones and c comes out too small).
   c is calibrated on the 48 rows nearest to row i and the first 1,000 draws (enough for
   a 95% quantile; at grid size these order statistics are the table's cost).

Simulated leaderboards (bench/bench_ranks_and_pairs.py) put the marginal coverage in
[0.93, 0.97] where rows are close and near 1 (with the exact rank) where they are far
apart; rows whose true values are exactly equal are covered less often (about 0.85).
Every interval contains the point rank; rows with equal points are never separated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gpassk_oc.core.uncertainty.block_threads import in_parallel
from gpassk_oc.core.uncertainty.bootstrap import DEFAULT_LEVEL, resample_counts

__all__ = [
    "benchmark_draws",
    "point_ranks",
    "rank_intervals",
    "rerun_draws",
]

_CHUNK = 1000


def point_ranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """1 + how many rows are strictly higher (NaN rows: NaN, and never counted)."""
    v = np.asarray(values, dtype=float)
    higher = (v[None, :] > v[:, None]).sum(axis=1)
    return np.where(np.isnan(v), np.nan, 1.0 + higher)


def rerun_draws(
    points: Sequence[float], se: Sequence[float], n_draws: int, seed: int = 0
) -> np.ndarray:
    """(n_draws × R) rerun draws: independent normals (a NaN se counts as 0)."""
    p = np.asarray(points, dtype=float)
    s = np.nan_to_num(np.asarray(se, dtype=float), nan=0.0)
    z = np.random.default_rng(seed).standard_normal((n_draws, len(p)))
    return p[None, :] + s[None, :] * z


def benchmark_draws(values: np.ndarray, n_boot: int, seed: int = 0) -> np.ndarray:
    """(n_boot × R) bootstrap means from per-question values (Q × R, NaN where a row has
    no value for the question), questions resampled jointly across rows."""
    values = np.asarray(values, dtype=float)
    valid = ~np.isnan(values)
    filled = np.where(valid, values, 0.0)
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, values.shape[1]))
    ones = np.ones(values.shape[0], dtype=np.int64)
    for start in range(0, n_boot, _CHUNK):
        b = min(_CHUNK, n_boot - start)
        counts = resample_counts(ones, b, rng).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + b] = (counts @ filled) / (counts @ valid)
    return out


#: threads take every _STRIDE-th row of the pair counts
_STRIDE = 8
#: rows (nearest first) and draws a row's critical value is calibrated on: its 95%
#: quantile needs no more draws than this, and at grid size the rows' order statistics
#: are the cost of the whole rank table
_CALIBRATE = 48
_CALIBRATE_DRAWS = 1000


def _share_not_above(draws: np.ndarray) -> np.ndarray:
    """S[i, j] = share of draws where row j is not above row i (ties count half); one row
    at a time, so memory stays B × R however many rows there are."""
    b, r = draws.shape
    out = np.empty((r, r))
    if b == 0:
        out.fill(np.nan)
        return out
    if np.isnan(draws).any():
        return _share_not_above_nan(draws)
    lo, hi = draws.min(axis=0), draws.max(axis=0)
    # only the order within each draw matters: compare small integer ranks (ties kept)
    # instead of floats, a quarter of the memory traffic per comparison
    cols = np.ascontiguousarray(_dense_ranks(draws).T)  # R × B: a row's draws contiguous
    # twice the count of draws with j below i plus those tied: N[i, j] + N[j, i] = 2B
    # (every draw has j below, tied with or above i), so only j > i is counted
    twice = np.empty((r, r), dtype=np.int64)
    np.fill_diagonal(twice, b)

    def pairs(i: int) -> None:  # row i against the rows after it; disjoint cells per i
        rest = slice(i + 1, r)
        # a row whose every draw lies strictly below (above) all of row i's draws is
        # lower in every draw or in none: only overlapping rows need counting, which
        # keeps far-apart rows of a large grid cheap
        twice[i, rest] = np.where(hi[rest] < lo[i], 2 * b, 0)
        near = i + 1 + np.flatnonzero(~((hi[rest] < lo[i]) | (lo[rest] > hi[i])))
        if near.size:
            rows = cols[near] if near.size < r - i - 1 else cols[rest]
            mine = cols[i]
            lt = (rows < mine).view(np.uint8).sum(axis=1, dtype=np.int64)
            le = (rows <= mine).view(np.uint8).sum(axis=1, dtype=np.int64)
            twice[i, near] = lt + le
        twice[rest, i] = 2 * b - twice[i, rest]

    # the rows' comparisons release the GIL: threads share them out (later rows have
    # fewer partners, so every thread takes every t-th row)
    def every_stride(first: int) -> None:
        for i in range(first, r - 1, _STRIDE):
            pairs(i)

    in_parallel(every_stride, range(_STRIDE))
    out[:] = twice / (2 * b)
    return out


def _share_not_above_nan(draws: np.ndarray) -> np.ndarray:
    """:func:`_share_not_above` where some draws are NaN (comparing false both ways, so the
    shares of a pair need not add to 1): every pair counted."""
    b, r = draws.shape
    cols = np.ascontiguousarray(draws.T)
    out = np.empty((r, r))
    for i in range(r):
        lt = (cols < cols[i]).view(np.uint8).sum(axis=1, dtype=np.int64)
        le = (cols <= cols[i]).view(np.uint8).sum(axis=1, dtype=np.int64)
        out[i] = (lt + le) / (2 * b)
    return out


def _dense_ranks(draws: np.ndarray) -> np.ndarray:
    """Per draw (row), each value's rank among that draw's values, equal values sharing
    one (0 = lowest); int16 while the rows fit, so ``<`` and ``==`` between two columns
    give what they give on the values."""
    b, r = draws.shape
    order = np.argsort(draws, axis=1, kind="stable")
    ordered = np.take_along_axis(draws, order, axis=1)
    dense = np.zeros((b, r), dtype=np.int16 if r < 2**15 else np.int64)
    np.cumsum(ordered[:, 1:] != ordered[:, :-1], axis=1, out=dense[:, 1:])
    out = np.empty_like(dense)
    np.put_along_axis(out, order, dense, axis=1)
    return out


def rank_intervals(
    points: Sequence[float], draws: np.ndarray, level: float = DEFAULT_LEVEL
) -> list[tuple[int, int] | None]:
    """Each row's rank interval (see the module docstring); None for a row without value."""
    p = np.asarray(points, dtype=float)
    ok = ~np.isnan(p)
    idx = np.flatnonzero(ok)
    out: list[tuple[int, int] | None] = [None] * len(p)
    if not idx.size:
        return out
    d = np.nan_to_num(draws[:, idx], nan=-np.inf)
    n = len(idx)
    tail = (1 - level) / (2 * max(n - 1, 1))
    below = _share_not_above(d)  # below[i, j]: share of draws with j not above i
    ranks = point_ranks(p[idx])
    sd = _pair_spread(d)
    # single precision: the draws' order statistics need no more, at half the traffic
    clean = np.where(np.isfinite(d), d, np.nan).astype(np.float32)

    def row(a: int) -> None:
        others = np.arange(n) != a
        # rows far apart, by the (stricter) Bonferroni percentile test: declared outright
        above = (below[a] < tail) & others
        under = (below[:, a] < tail) & others  # below[j, a]: row a not above row j
        near = np.flatnonzero(others & ~above & ~under)
        diff = p[idx][near] - p[idx][a]
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.where(diff == 0, 0.0, diff / sd[a, near])  # ±inf: draws that never move
        # c from the _CALIBRATE rows nearest in t: a row further away can only matter
        # where more than that many rows are within c of this one, a rank no table tells
        few = np.argsort(np.abs(t), kind="stable")[:_CALIBRATE]
        drawn = clean[:_CALIBRATE_DRAWS, near[few]] - clean[:_CALIBRATE_DRAWS, [a]]
        crit = _critical(diff[few], drawn, sd[a, near[few]], level)
        lo = 1 + int(above.sum()) + int((t > crit).sum())
        hi = n - int(under.sum()) - int((t < -crit).sum())
        r = int(ranks[a])
        out[idx[a]] = (min(lo, r), max(hi, r))

    # rows are independent and numpy's partition releases the GIL: threads share them
    def every_stride(first: int) -> None:
        for a in range(first, n, _STRIDE):
            row(a)

    in_parallel(every_stride, range(_STRIDE))
    return out


def _critical(diff: np.ndarray, drawn: np.ndarray, sd: np.ndarray, level: float) -> float:
    """c for rows whose point differences from this row are *diff* (m), *drawn* their
    draws (B × m, NaN where a draw has no value) and *sd* the draws' spread: the smallest
    value with which declaring the rows with ``|diff| / sd > c``, done in each draw, holds
    this row's rank in the draws' world in a *level* share of draws (module docstring)."""
    m = len(diff)
    if not m:
        return 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        world = _spread_kept(diff, sd) * diff
        shift, scale = (diff - world).astype(np.float32), sd.astype(np.float32)
        t_star = np.nan_to_num((drawn - shift) / scale, nan=0.0)
    r = int((world > 0).sum())  # rows truly above in the draws' world
    # a draw's interval holds rank r + 1 while at most r rows are declared above and at
    # most m − r below: c must reach the (r + 1)-th largest t* and the r-th smallest −t*
    # (none needed where that many rows do not exist); two order statistics per draw
    kth = [k for k in (m - 1 - r, m - r) if 0 <= k < m]
    part = np.partition(t_star, kth, axis=1)
    need = np.zeros(len(t_star))
    if r < m:
        need = np.maximum(need, part[:, m - 1 - r])
    if r > 0:
        need = np.maximum(need, -part[:, m - r])
    return float(np.quantile(need, level, method="higher")) if len(need) else 0.0


def _pair_spread(draws: np.ndarray) -> np.ndarray:
    """sd[i, j]: the spread over the draws of row j's mean minus row i's (NaN draws, as
    a row's mean without questions in a resample, are left out of that pair)."""
    finite = np.isfinite(draws)
    if finite.all():  # one matrix product for every pair
        centred = draws - draws.mean(axis=0)
        cov = centred.T @ centred / len(draws)
        var = np.diag(cov)
        return np.sqrt(np.maximum(var[:, None] + var[None, :] - 2 * cov, 0.0))
    clean = np.where(finite, draws, np.nan)
    with np.errstate(invalid="ignore"):
        return np.stack([np.nanstd(clean - clean[:, [i]], axis=0) for i in range(draws.shape[1])])


def _spread_kept(diff: np.ndarray, sd: np.ndarray) -> float:
    """The factor shrinking observed differences toward the true ones: the share of their
    mean square that is not noise, ``1 − mean sd² / mean diff²`` (0 when noise explains it
    all: the rows are then taken as tied, the worst case for the interval)."""
    square = float(np.mean(diff * diff))
    noise = float(np.mean(np.where(np.isfinite(sd), sd * sd, 0.0)))
    return max(0.0, 1.0 - noise / square) if square > 0 else 0.0
