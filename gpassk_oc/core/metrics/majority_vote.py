"""maj@k, exact: the chance that the correct answer wins a vote among k samples (pure core).

A question's n samples fall into *vote classes* (answers the checker finds equivalent,
:mod:`gpassk_oc.core.judging.voting`): one correct class of ``a`` samples (every sample
graded correct), wrong classes of sizes ``b_1..b_r``, and ``z`` samples that vote for
nothing (no answer found, truncated). k samples are drawn without replacement; the class
with the most votes wins; a tie between the correct class and m other classes counts
1/(m+1); if the correct class gets no vote (in particular when every draw abstains) the
score is 0. maj@k is the expected score::

    maj@k = Σ_{x=1..a} C(a, x) · W_x(k − x) / C(n, k)

where ``W_x(d)`` counts, over the ways of drawing d samples from the other n − a, each
draw weighted 1/(1+m) when m wrong classes get exactly x votes, and 0 when one gets more.
For a given x only the wrong classes with ``b ≥ x`` can tie or beat the correct class;
the smaller ones join the abstentions as one free pool (Vandermonde: its draw counts are
``C(pool, y)``). ``W_x`` is the product of one polynomial per competing class (in the
number drawn, with a second variable counting the classes tied at x), so one pass over
x gives maj@k for *every* k at once: a question costs the same for 1 or 48 values of k.

Exactness: every polynomial coefficient, and every partial sum formed on the way, counts
subsets of the n samples, so it is an integer below 2^n. While n ≤ 53 that is below 2^53
and float64 holds it exactly (the products go through BLAS, ~10× faster than int64
matrix products); above, the same code runs on Python integers (numpy object arrays:
exact, slower). The 1/(m+1) weights are put on one integer scale (the lcm of
1..r+1), so each value is one integer ratio, rounded once to a double (``fractions=True``
returns the exact Fraction). maj@n is the plain vote: 1/(1+m) if the correct class has
the most votes (tied with m others), else 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np

from gpassk_oc.core.arguments import ArgumentTypeError, integer_arg

__all__ = [
    "FLOAT_EXACT_N_MAX",
    "Profile",
    "judged_profile",
    "maj_at_k",
    "maj_curve",
    "maj_table",
    "profile",
]

#: up to this many samples per question the counts are exact in float64; above, Python ints
FLOAT_EXACT_N_MAX = 53

#: (correct-class size a, wrong-class sizes sorted descending, abstentions z)
Profile = tuple[int, tuple[int, ...], int]


def profile(votes: Sequence[int | None], correct_class: int | None) -> Profile:
    """A question's vote profile from per-sample class ids (None: no vote) and the id of
    the correct class (None: no sample is correct)."""
    sizes: dict[int, int] = {}
    abstain = 0
    for v in votes:
        if v is None:
            abstain += 1
        else:
            sizes[v] = sizes.get(v, 0) + 1
    a = sizes.pop(correct_class, 0) if correct_class is not None else 0
    return a, tuple(sorted(sizes.values(), reverse=True)), abstain


def judged_profile(
    votes: Sequence[int | None], correct_class: int | None, verdicts: Sequence[bool | None]
) -> Profile | None:
    """:func:`profile` over the judged samples only (verdict not None: an unjudged sample
    counts neither for nor against), or None when no sample is judged. The one place a
    results file's votes become a profile (the evaluator and the report both call it)."""
    judged = [v for v, verdict in zip(votes, verdicts) if verdict is not None]
    return profile(judged, correct_class) if judged else None


def _check_profile(prof: Profile) -> tuple[int, tuple[int, ...], int]:
    try:
        a, wrong, z = prof
        a, z = integer_arg(a, "prof[0]"), integer_arg(z, "prof[2]")
        wrong = tuple(integer_arg(b, "prof[1] entry") for b in wrong)
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"prof must be a vote profile (a, (wrong class sizes...), z) of integers, got {prof!r}"
        ) from None
    wrong = tuple(sorted((int(b) for b in wrong if int(b) > 0), reverse=True))
    if int(a) < 0 or int(z) < 0 or any(b < 0 for b in prof[1]):
        raise ValueError(f"vote profile counts must be >= 0, got {prof!r}")
    if int(a) + sum(wrong) + int(z) < 1:
        raise ValueError(f"a vote profile needs at least one sample, got {prof!r}")
    return int(a), wrong, int(z)


@lru_cache(maxsize=64)
def _pascal(size: int, dtype: type | str) -> np.ndarray:
    """[s, t] = C(s, t) for s, t < size (0 for t > s)."""
    out = np.array([[math.comb(r, t) for t in range(size)] for r in range(size)], dtype=dtype)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4096)
def _band(b: int, x: int, size: int, dtype: type | str) -> np.ndarray:
    """(size × size) matrix adding a class of b samples that gets fewer than x votes:
    entry [i, j] = C(b, i − j) for 0 <= i − j < x (a convolution along the draw count)."""
    out = np.zeros((size, size), dtype=dtype)
    for y in range(min(x, size)):
        idx = np.arange(size - y)
        out[idx + y, idx] = math.comb(b, y)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=65536)
def _numerators(a: int, wrong: tuple[int, ...], z: int) -> tuple[tuple[int, ...], int]:
    """Integer numerators N[k] (k = 0..n) and the common scale L with
    maj@k = N[k] / (L · C(n, k))."""
    n = a + sum(wrong) + z
    others = n - a
    # T[k, m] = Σ_x C(a, x)·poly_x[k − x, m] counts k-subsets (<= C(n, k) <= 2^n)
    dtype: type | str = np.float64 if n <= FLOAT_EXACT_N_MAX else object
    width = len(wrong) + 1
    table = np.zeros((n + 1, width), dtype=dtype)
    pascal = _pascal(n + 1, dtype)
    base = pascal[others, : others + 1]
    for x in range(1, a + 1):
        tracked = [b for b in wrong if b >= x]
        ways = math.comb(a, x)
        if not tracked:  # nobody can reach x votes: every draw of the others counts fully
            table[x : x + others + 1, 0] += ways * base[: n + 1 - x]
            continue
        free = others - sum(tracked)
        # poly[d, m]: ways to draw d of the others with m tracked classes at exactly x votes
        poly = np.zeros((others + 1, len(tracked) + 1), dtype=dtype)
        poly[:, 0] = pascal[free, : others + 1]
        for b in tracked:
            # fewer votes than the correct class (for x = 1: none, the identity)
            new = poly.copy() if x == 1 else _band(b, x, others + 1, dtype) @ poly
            if x <= others:  # exactly x votes: a tie, one more tied class
                new[x:, 1:] += math.comb(b, x) * poly[: others + 1 - x, :-1]
            poly = new
        rows = min(others + 1, n + 1 - x)
        table[x : x + rows, : poly.shape[1]] += ways * poly[:rows]
    scale = math.lcm(*range(1, width + 1))
    weights = np.array([scale // (m + 1) for m in range(width)], dtype=object)
    # float64 entries are exact integers here (< 2^53): through int64 to Python ints
    exact = table.astype(np.int64).astype(object) if dtype is np.float64 else table
    return tuple(int(v) for v in exact @ weights), scale


def maj_curve(prof: Profile, fractions: bool = False) -> list[float] | list[Fraction]:
    """maj@k for k = 1..n of one question (index k−1), exact (see the module docstring)."""
    a, wrong, z = _check_profile(prof)
    n = a + sum(wrong) + z
    nums, scale = _numerators(a, wrong, z)
    if fractions:
        return [Fraction(nums[k], scale * math.comb(n, k)) for k in range(1, n + 1)]
    # int / int is correctly rounded: the exact rational, rounded once
    return [nums[k] / (scale * math.comb(n, k)) for k in range(1, n + 1)]


def maj_at_k(prof: Profile, k: int, fractions: bool = False) -> float | Fraction:
    """maj@k of one question with vote profile *prof* ``(a, wrong sizes, abstentions)``."""
    a, wrong, z = _check_profile(prof)
    n = a + sum(wrong) + z
    if not 1 <= integer_arg(k, "k") <= n:
        raise ValueError(f"k must be an integer in [1, n={n}], got {k!r}")
    return maj_curve(prof, fractions)[int(k) - 1]


def maj_table(profiles: Sequence[Profile], ks: Iterable[int]) -> np.ndarray:
    """(questions × ks) maj@k values; NaN where k exceeds the question's samples.

    Questions with the same profile share one computation, and each profile's curve
    covers every k, so the cost is one pass per distinct profile."""
    ks = [int(k) for k in ks]
    if any(k < 1 for k in ks):
        raise ValueError(f"every k must be >= 1, got {ks}")
    out = np.full((len(profiles), len(ks)), np.nan)
    rows: dict[Profile, list[int]] = {}
    for i, prof in enumerate(profiles):
        rows.setdefault(_check_profile(prof), []).append(i)
    for prof, members in rows.items():
        curve = maj_curve(prof)
        values = [curve[k - 1] if k <= len(curve) else np.nan for k in ks]
        out[members] = values
    return out
