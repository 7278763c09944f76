"""Exact G-Pass@k, mG-Pass@k and pass@k — the pure core (never imports OpenCompass).

Definitions (n samples per question, c of them correct, k drawn without replacement,
X ~ Hypergeometric(n, c, k)):

* ``G-Pass@k_τ = P(X >= m)`` with ``m = max(ceil(τ·k), 1)``; τ is taken *exactly*
  (a float is read as its shortest decimal string, so ``0.55`` means 11/20, not the
  binary approximation that makes ``ceil(100 * 0.55)`` equal 56).
* ``mG-Pass@k`` (``mode="documented"``) ``= (2/k) · Σ_{i=ceil(k/2)+1..k} G-Pass@k_{i/k}``,
  the closed form used by the paper, OpenCompass and lighteval.
* ``mG-Pass@k`` (``mode="integral"``) ``= 2 ∫_{1/2}^{1} G-Pass@k_τ dτ`` exactly. For even k
  the two agree; for odd k the documented form omits the half step on
  ``((k-1)/2k, (k+1)/2k]`` that lies above τ = 1/2, so it is smaller.
* ``pass@k = 1 - C(n-c, k) / C(n, k)`` (the unbiased estimator) ``= G-Pass@k_0``.

Every value is computed from integer binomial sums and a single correctly rounded
integer division, so it equals the exact rational value rounded to a double. Above
``EXACT_N_MAX`` samples the tails come from ``scipy.stats.hypergeom`` instead (stable,
no overflow), because exact integers grow with n.

Only n + 1 values of c exist, so the batch API builds one tail table per (n, k) —
O(n·k) — and then indexes it per question — O(#questions). Above ``EXACT_N_MAX`` scipy
costs ~30 µs per value, so only the rows for the counts actually present are computed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

import numpy as np

from gpassk_oc.core.answers.arguments import ArgumentTypeError, integer_arg
from gpassk_oc.core.metrics import metric_keys as metric_names
from gpassk_oc.log import logger

__all__ = [
    "DEFAULT_THRESHOLDS",
    "EXACT_N_MAX",
    "GPassTable",
    "as_fraction",
    "g_pass_at_k",
    "g_pass_table",
    "g_pass_key",
    "mg_pass_key",
    "mg_pass_at_k",
    "pass_at_k",
    "threshold_count",
]

Threshold = float | str | Fraction | int | Decimal
Counts = int | np.integer | Sequence[int] | np.ndarray

#: The thresholds OpenCompass reports (and the order it reports them in).
DEFAULT_THRESHOLDS: tuple[Fraction, ...] = metric_names.ALL_TAUS
#: Up to this many samples per question every value is exact; above it, scipy.
EXACT_N_MAX = 1024
MG_MODES = ("documented", "integral")

_warned_odd_k: set[int] = set()


# --------------------------------------------------------------------------- validation
def _check_int(value: object, name: str) -> int:
    return integer_arg(value, name)  # ArgumentTypeError (a TypeError) names the argument


def _check_n_k(n: object, k: object) -> tuple[int, int]:
    n = _check_int(n, "n")
    k = _check_int(k, "k")
    if n <= 0:
        raise ValueError(f"n must be >= 1 (samples per question), got n={n}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got k={k}")
    if k > n:
        raise ValueError(f"k must be <= n, got k={k} > n={n}")
    return n, k


def _check_c(c: Counts, n: int) -> tuple[np.ndarray, bool]:
    """Return (c as int64 array, whether the input was a scalar)."""
    if isinstance(c, bool):
        raise ValueError(f"c must be an integer count, got {c!r}")
    scalar = np.ndim(c) == 0
    arr = np.asarray(c)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"c must hold integer counts, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError("c must hold integer counts, got non-integral values")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() > n):
        bad = arr[(arr < 0) | (arr > n)].flat[0]
        raise ValueError(f"c must lie in [0, n={n}], got c={int(bad)}")
    return arr, scalar


def as_fraction(tau: Threshold, name: str = "tau") -> Fraction:
    """Read a threshold exactly: float → shortest decimal string → Fraction.

    ``str`` (``"0.55"``, ``"11/20"``), ``Fraction``, ``Decimal`` and ints are accepted.
    Raises ValueError naming *name* when the value is not a number in [0, 1].
    """
    if isinstance(tau, bool) or not isinstance(
        tau, (Fraction, int, np.integer, float, np.floating, Decimal, str)
    ):
        raise ArgumentTypeError(f"{name} must be a number in [0, 1], got {tau!r}")
    try:
        if isinstance(tau, Fraction):
            frac = tau
        elif isinstance(tau, (int, np.integer)):
            frac = Fraction(int(tau))
        elif isinstance(tau, (float, np.floating)):
            if not math.isfinite(tau):
                raise ValueError
            if isinstance(tau, float):  # Python float and np.float64
                frac = Fraction(repr(float(tau)))
            else:  # float32/float16: shortest string at *their* precision, not float64's
                frac = Fraction(np.format_float_positional(tau, unique=True))
        elif isinstance(tau, Decimal):
            frac = Fraction(tau)
        elif isinstance(tau, str):
            frac = Fraction(tau.strip())
        else:
            raise ValueError
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"{name} must be a number in [0, 1], got {tau!r}") from None
    if not 0 <= frac <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {tau!r}")
    return frac


def threshold_count(k: int, tau: Threshold) -> int:
    """m = max(ceil(τ·k), 1): how many of the k draws must be correct."""
    frac, k = as_fraction(tau), _check_int(k, "k")
    return max(-((-frac.numerator * k) // frac.denominator), 1)


def g_pass_key(k: int, tau: Threshold) -> str:
    """``G-Pass@{k}_{τ}`` (spelled by :mod:`gpassk_oc.core.metrics.metric_keys`)."""
    return metric_names.g_pass_key(k, as_fraction(tau))


def mg_pass_key(k: int) -> str:
    """``mG-Pass@{k}`` (spelled by :mod:`gpassk_oc.core.metrics.metric_keys`)."""
    return metric_names.mg_pass_key(k)


# --------------------------------------------------------------------------- tail tables
@lru_cache(maxsize=4096)
def _exact_tail_row(n: int, k: int, c: int) -> tuple[tuple[int, ...], int]:
    """Integer tails T[m] = Σ_{j>=m} C(c,j)·C(n-c,k-j) for m = 0..k+1, and C(n,k)."""
    lo, hi = max(0, k - (n - c)), min(c, k)
    terms = [0] * (k + 2)
    term = math.comb(c, lo) * math.comb(n - c, k - lo)
    for j in range(lo, hi + 1):
        terms[j] = term
        # ratio t(j+1)/t(j) = (c-j)(k-j) / ((j+1)(n-c-k+j+1)); the division is exact
        if j < hi:
            term = term * (c - j) * (k - j) // ((j + 1) * (n - c - k + j + 1))
    tails = [0] * (k + 2)
    acc = 0
    for m in range(k, -1, -1):
        acc += terms[m]
        tails[m] = acc
    return tuple(tails), math.comb(n, k)


def _scipy_tail_rows(n: int, k: int, cs: np.ndarray) -> np.ndarray:
    from scipy.stats import hypergeom

    m = np.arange(k + 2)
    rows = hypergeom.sf(m[None, :] - 1, n, cs[:, None], k)
    return np.clip(np.nan_to_num(rows, nan=0.0), 0.0, 1.0)


def _mg_weights(k: int, mode: str) -> list[int]:
    """Integer weights W[m] with mG = Σ W[m]·G(m) / k  (G(m) = P(X >= m)).

    2∫_{1/2}^{1} G(ceil(τk)) dτ: the step m covers τ ∈ ((m-1)/k, m/k], of which
    min(2, max(0, 2m-k))/(2k) lies above 1/2. The documented form keeps only the full
    steps m >= ceil(k/2)+1.
    """
    if mode not in MG_MODES:
        raise ValueError(f"mode must be one of {MG_MODES}, got {mode!r}")
    if mode == "integral":
        return [0] + [min(2, max(0, 2 * m - k)) for m in range(1, k + 1)]
    first = -(-k // 2) + 1
    return [2 if m >= first else 0 for m in range(k + 1)]


def _warn_odd_k(k: int, mode: str) -> None:
    if mode == "documented" and k % 2 == 1 and k not in _warned_odd_k:
        _warned_odd_k.add(k)
        # the text holds braces: pass it as an argument so loguru does not format it
        logger.warning(
            "{}",
            f"mG-Pass@{k} with odd k: the documented closed form "
            "(2/k)·Σ_{i=ceil(k/2)+1}^k drops the half step just above τ=0.5, so it "
            "is below 2∫_0.5^1 G-Pass dτ; pass mode='integral' for the exact area",
        )


@dataclass(frozen=True)
class _KTable:
    """Per-(n, k) values for every c in 0..n."""

    tails: np.ndarray  # (n+1, k+2) float: [c, m] = P(X >= m)
    mg: dict[str, np.ndarray]  # mode -> (n+1,) mG-Pass


@lru_cache(maxsize=256)
def _k_table(n: int, k: int) -> _KTable:
    """Exact rows for every c in 0..n (n <= EXACT_N_MAX only)."""
    tails = np.empty((n + 1, k + 2))
    mg = {mode: np.empty(n + 1) for mode in MG_MODES}
    weights = {mode: _mg_weights(k, mode) for mode in MG_MODES}
    for c in range(n + 1):
        row, total = _exact_tail_row(n, k, c)
        tails[c] = [t / total for t in row]  # int / int is correctly rounded
        for mode, w in weights.items():
            mg[mode][c] = sum(wm * t for wm, t in zip(w, row)) / (k * total)
    tails.setflags(write=False)
    for arr in mg.values():
        arr.setflags(write=False)
    return _KTable(tails, mg)


def _float_table(n: int, k: int, cs: np.ndarray) -> tuple[_KTable, np.ndarray]:
    """scipy rows for the distinct counts in *cs* only (n > EXACT_N_MAX), and where each
    entry of *cs* sits among them. A full 0..n table would cost (n+1)·(k+2) scipy calls."""
    uniq, index = np.unique(cs, return_inverse=True)
    tails = _scipy_tail_rows(n, k, uniq)
    mg = {
        mode: tails @ np.asarray(_mg_weights(k, mode) + [0], dtype=float) / k for mode in MG_MODES
    }
    return _KTable(tails, mg), index.reshape(np.shape(cs))


def _row_value(n: int, k: int, c: int, m: int) -> float:
    if n <= EXACT_N_MAX:
        row, total = _exact_tail_row(n, k, c)
        return row[m] / total
    return float(_scipy_tail_rows(n, k, np.array([c]))[0, m])


def _lookup(n: int, k: int, c: Counts, pick) -> float | np.ndarray:
    arr, scalar = _check_c(c, n)
    if scalar:
        return pick(None, int(arr))
    if n > EXACT_N_MAX:
        return pick(*_float_table(n, k, arr))
    return pick(_k_table(n, k), arr)


# --------------------------------------------------------------------------- public API
def g_pass_at_k(n: int, c: Counts, k: int, tau: Threshold) -> float | np.ndarray:
    """G-Pass@k_τ = P(X >= max(ceil(τ·k), 1)), X ~ Hypergeometric(n, c, k).

    *c* may be an int (returns float) or an integer array (returns an array of the
    same shape, one value per question).
    """
    n, k = _check_n_k(n, k)
    m = threshold_count(k, tau)

    def pick(table, cs):
        return _row_value(n, k, cs, m) if table is None else table.tails[cs, m]

    return _lookup(n, k, c, pick)


def mg_pass_at_k(n: int, c: Counts, k: int, mode: str = "documented") -> float | np.ndarray:
    """mG-Pass@k; ``mode`` is "documented" (paper/OpenCompass) or "integral" (exact area).

    See the module docstring for why they differ for odd k; the documented form warns
    once per odd k.
    """
    n, k = _check_n_k(n, k)
    weights = _mg_weights(k, mode)
    _warn_odd_k(k, mode)

    def pick(table, cs):
        if table is None:
            if n <= EXACT_N_MAX:
                row, total = _exact_tail_row(n, k, cs)
                return sum(w * t for w, t in zip(weights, row)) / (k * total)
            return float(_float_table(n, k, np.array([cs]))[0].mg[mode][0])
        return table.mg[mode][cs]

    return _lookup(n, k, c, pick)


def pass_at_k(n: int, c: Counts, k: int) -> float | np.ndarray:
    """Unbiased pass@k = 1 - C(n-c, k)/C(n, k), exact for every n (integer binomials)."""
    n, k = _check_n_k(n, k)
    total = math.comb(n, k)

    def one(ci: int) -> float:
        return (total - math.comb(n - ci, k)) / total

    arr, scalar = _check_c(c, n)
    if scalar:
        return one(int(arr))
    per_c = np.array([one(ci) for ci in range(n + 1)])
    return per_c[arr]


@dataclass
class GPassTable:
    """Every G-Pass@k_τ and mG-Pass@k for a set of questions (values in [0, 1]).

    ``per_question[key]`` is an array aligned with the input counts; ``means[key]`` is
    its mean. Keys are named as OpenCompass names them: ``G-Pass@16_0.5``, ``mG-Pass@16``.
    """

    n: int
    ks: tuple[int, ...]
    thresholds: tuple[Fraction, ...]
    mg_mode: str
    per_question: dict[str, np.ndarray] = field(repr=False)
    means: dict[str, float]

    def percent(self) -> dict[str, float]:
        """Means ×100, as OpenCompass reports them."""
        return {key: 100.0 * value for key, value in self.means.items()}


def g_pass_table(
    n: int,
    c: Counts,
    ks: Iterable[int] = (4, 8, 16),
    thresholds: Iterable[Threshold] = DEFAULT_THRESHOLDS,
    mg_mode: str = "documented",
) -> GPassTable:
    """Compute G-Pass@k_τ for every k × τ, and mG-Pass@k, for all questions at once.

    Cost: one O(n·k) table per k (cached), then O(#questions) indexing per metric; the
    means come from a histogram of c, so they cost O(n) each. Above EXACT_N_MAX only the
    rows for the distinct counts present are computed (uncached).
    """
    ks = tuple(dict.fromkeys(_check_n_k(n, k)[1] for k in ks))
    if not ks:
        raise ValueError("ks must name at least one k")
    taus = tuple(dict.fromkeys(as_fraction(t, "thresholds") for t in thresholds))
    if mg_mode not in MG_MODES:
        raise ValueError(f"mg_mode must be one of {MG_MODES}, got {mg_mode!r}")
    cs, _ = _check_c(np.atleast_1d(np.asarray(c)), n)
    cs = cs.ravel()
    if cs.size == 0:
        raise ValueError("c must hold at least one question's count")
    per_question: dict[str, np.ndarray] = {}
    means: dict[str, float] = {}
    for k in ks:
        table, index = _float_table(n, k, cs) if n > EXACT_N_MAX else (_k_table(n, k), cs)
        histogram = np.bincount(index, minlength=len(table.tails)) / cs.size
        for tau in taus:
            column = table.tails[:, threshold_count(k, tau)]
            key = g_pass_key(k, tau)
            per_question[key] = column[index]
            means[key] = float(histogram @ column)
        _warn_odd_k(k, mg_mode)
        key = mg_pass_key(k)
        per_question[key] = table.mg[mg_mode][index]
        means[key] = float(histogram @ table.mg[mg_mode])
    return GPassTable(n, ks, taus, mg_mode, per_question, means)
