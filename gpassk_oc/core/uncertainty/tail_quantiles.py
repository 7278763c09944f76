"""Quantiles of many bootstrap columns at once, in their tails (pure core: numpy).

A BCa interval needs, per column of B resample means, the order statistics next to two
tail probabilities (~2.5 % and ~97.5 %). Partitioning every column at them costs O(B) per
column in one Python call each, which dominated the report's time on a grid (21,600
columns of 10,000). Here a whole block of columns is done with a handful of array
operations: a cheap threshold per column from a strided subsample bounds the tail, the
values beyond it (a few per cent of the column) are gathered and sorted, and the order
statistics are read off the sorted tail. Whenever the threshold does not hold enough
values (or holds too many: ties), that column falls back to an exact partition, so the
numbers are always ``np.quantile``'s (linear method), to the bit.
"""

from __future__ import annotations

import numpy as np

__all__ = ["column_quantiles", "order_quantiles"]

#: the subsample that picks each column's tail threshold takes every _STRIDE-th value
_STRIDE = 16
#: a tail sort is used while the tail needs at most this share of a column
_MAX_TAIL_SHARE = 0.2


def order_quantiles(column: np.ndarray, lower: float, upper: float) -> tuple[float, float]:
    """``np.quantile(column, [lower, upper])`` (its default linear method) by partition."""
    last = column.size - 1
    h = np.array([lower, upper]) * last
    f = np.floor(h).astype(np.int64)
    c = np.minimum(f + 1, last)
    part = np.partition(column, np.unique(np.concatenate([f, c])))
    out = _lerp(part[f], part[c], h - f)
    return float(out[0]), float(out[1])


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """numpy's quantile interpolation: from the nearer end, so that t = 0 and t = 1 give
    the order statistic exactly."""
    return np.where(t >= 0.5, b - (b - a) * (1 - t), a + (b - a) * t)


def column_quantiles(
    rows: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per row of *rows* (R × B, no NaN, B ≥ 1): ``np.quantile(row, [lower, upper])``
    with per-row probabilities, exactly (see the module docstring)."""
    r, b = rows.shape
    last = b - 1
    h = np.stack([lower, upper], axis=1) * last  # R × 2
    f = np.floor(h).astype(np.int64)
    c = np.minimum(f + 1, last)
    a_val, b_val = np.empty((r, 2)), np.empty((r, 2))
    todo = np.ones(r, dtype=bool)
    if b >= 8 * _STRIDE:
        low_tail = (c[:, 0] + 1 <= _MAX_TAIL_SHARE * b) & (b - f[:, 1] <= _MAX_TAIL_SHARE * b)
        sel = np.flatnonzero(low_tail)
        if sel.size:
            block = rows[sel] if sel.size < r else rows
            lo, ok_lo = _tail_stats(block, np.stack([f[sel, 0], c[sel, 0]], 1), top=False)
            hi, ok_hi = _tail_stats(block, np.stack([f[sel, 1], c[sel, 1]], 1), top=True)
            ok = ok_lo & ok_hi
            done = sel[ok]
            a_val[done] = np.stack([lo[ok, 0], hi[ok, 0]], 1)
            b_val[done] = np.stack([lo[ok, 1], hi[ok, 1]], 1)
            todo[done] = False
    for i in np.flatnonzero(todo):
        kth = np.unique(np.concatenate([f[i], c[i]]))
        part = np.partition(rows[i], kth)
        a_val[i], b_val[i] = part[f[i]], part[c[i]]
    out = _lerp(a_val, b_val, h - f)
    return out[:, 0], out[:, 1]


def _tail_stats(rows: np.ndarray, idx: np.ndarray, *, top: bool) -> tuple[np.ndarray, np.ndarray]:
    """Order statistics ``sorted(row)[idx[r]]`` (R × K) of each row, all in its lower
    (*top* False) or upper tail, and per row whether they could be read off the tail
    (False: the caller partitions that row instead)."""
    r, b = rows.shape
    need = (idx.max(axis=1) + 1) if not top else (b - idx.min(axis=1))  # values in the tail
    sub = np.sort(rows[:, ::_STRIDE], axis=1)
    m = sub.shape[1]
    # the subsample's order statistic at ~1.5× the tail's share, plus a margin, lies beyond
    # the tail's last needed value in all but rare rows (those are checked and redone)
    k = np.minimum(m - 1, np.ceil(need * m / b * 1.5).astype(np.int64) + 8)
    kk = k if not top else m - 1 - k
    threshold = np.take_along_axis(sub, kk[:, None], axis=1)[:, 0]
    mask = rows <= threshold[:, None] if not top else rows >= threshold[:, None]
    count = np.count_nonzero(mask, axis=1)
    ok = (count >= need) & (count <= 3 * need + 32 * _STRIDE)  # ties can make it too long
    if not ok.all():
        mask &= ok[:, None]
        count = np.where(ok, count, 0)
    width = max(int(count.max()), 1)
    padded = np.full((r, width), np.inf if not top else -np.inf)
    starts = np.cumsum(count) - count
    pos = np.arange(int(count.sum())) - np.repeat(starts, count)
    padded[np.repeat(np.arange(r), count), pos] = rows[mask]
    padded.sort(axis=1)
    # bottom: padding (+inf) sorts last, order statistic j is at j; top: padding (−inf)
    # sorts first, the tail's count values end the row, so statistic j is at width − b + j
    at = idx if not top else idx - b + width
    at = np.where(ok[:, None], at, 0)
    return np.take_along_axis(padded, at, axis=1), ok
