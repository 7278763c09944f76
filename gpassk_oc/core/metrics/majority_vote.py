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
subsets of the n samples, so it is an integer below 2^n. The polynomials in the draw
count are packed into Python integers (s = 2^bits, a field of *bits* > n per
coefficient, so no coefficient carries into the next): a product of two polynomials is
one integer product, exact at any n, and far fewer operations than array code on a
question's small polynomials. The 1/(m+1) weights are put on one integer scale (the lcm
of 1..r+1), so each value is one integer ratio, rounded once to a double
(``fractions=True`` returns the exact Fraction). maj@n is the plain vote: 1/(1+m) if the
correct class has the most votes (tied with m others), else 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np

from gpassk_oc.core.answers.arguments import ArgumentTypeError, integer_arg

__all__ = [
    "FLOAT_EXACT_N_MAX",
    "Profile",
    "judged_profile",
    "maj_at_k",
    "maj_curve",
    "maj_numerators",
    "maj_table",
    "profile",
]

#: above this many samples per question a count no longer fits a float64 exactly (the
#: packed-integer arithmetic is exact at any n; kept as part of the public API)
FLOAT_EXACT_N_MAX = 53

#: (correct-class size a, wrong-class sizes sorted descending, abstentions z)
Profile = tuple[int, tuple[int, ...], int]


def profile(votes: Sequence[int | None], correct_class: int | None) -> Profile:
    """A question's vote profile from per-sample class ids (None: no vote) and the id of
    the correct class (None: no sample is correct)."""
    sizes = Counter(votes)  # counted in C; None (no vote) is a key like the classes
    abstain = sizes.pop(None, 0)
    a = sizes.pop(correct_class, 0) if correct_class is not None else 0
    return a, tuple(sorted(sizes.values(), reverse=True)), abstain


def judged_profile(
    votes: Sequence[int | None], correct_class: int | None, verdicts: Sequence[bool | None]
) -> Profile | None:
    """:func:`profile` over the judged samples only (verdict not None: an unjudged sample
    counts neither for nor against), or None when no sample is judged. The one place a
    results file's votes become a profile (the evaluator and the report both call it)."""
    every = type(votes) is list and type(verdicts) is list and len(votes) <= len(verdicts)
    if every and None not in verdicts:  # every sample judged: no list to filter
        return profile(votes, correct_class) if votes else None
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


def _canonical(prof: Profile) -> tuple[int, tuple[int, ...], int]:
    """*prof* itself when it is already canonical — a tuple of plain ints, wrong sizes
    positive and descending, at least one sample: what the results file and the sidecar
    give, checked in a few comparisons; anything else through :func:`_check_profile`."""
    if type(prof) is tuple and len(prof) == 3:
        a, wrong, z = prof
        if (
            type(a) is int
            and type(z) is int
            and type(wrong) is tuple
            and a >= 0
            and z >= 0
            and (
                set(map(type, wrong)) == {int} and wrong == tuple(sorted(wrong, reverse=True))
                if wrong
                else a + z > 0
            )
            and (not wrong or wrong[-1] > 0)
        ):
            return prof
    return _check_profile(prof)


@lru_cache(maxsize=4096)
def _binomial_row(m: int, bits: int) -> int:
    """(1 + s)^m packed at s = 2^bits: coefficient C(m, i) in bits [i·bits, (i+1)·bits)."""
    return (1 + (1 << bits)) ** m


def _unpack(packed: int, count: int, step: int) -> list[int]:
    """The *count* fields of *step* bytes each of a packed integer, lowest first."""
    raw = packed.to_bytes(count * step, "little")
    if step == 8:
        return np.frombuffer(raw, dtype="<u8").tolist()
    if step < 8:  # widen each field to 8 bytes, then read them as numbers
        fields = np.zeros((count, 8), dtype=np.uint8)
        fields[:, :step] = np.frombuffer(raw, dtype=np.uint8).reshape(count, step)
        return fields.view("<u8").ravel().tolist()
    return [int.from_bytes(raw[k * step : (k + 1) * step], "little") for k in range(count)]


def _exact_numerators(a: int, wrong: tuple[int, ...], z: int) -> tuple[list[int], int]:
    """Integer numerators N[k] (k = 0..n) and the common scale L with
    maj@k = N[k] / (L · C(n, k)).

    Polynomials in the draw count s are packed into Python integers (s = 2^bits, one
    coefficient per *bits*-wide field), so a product of polynomials is one integer
    product; one integer per power of the tie variable. Every coefficient on the way
    counts subsets of the n samples (times at most L), so no field overflows into the next."""
    n = a + sum(wrong) + z
    width = len(wrong) + 1
    scale = math.lcm(*range(1, width + 1))
    if a == 0:  # the correct class never gets a vote
        return [0] * (n + 1), scale
    step = -(-(n + scale.bit_length() + 1) // 8)  # whole bytes per field
    bits = 8 * step
    others = n - a
    totals = [0] * width  # Σ_x C(a, x)·s^x·poly_x, per number m of tied classes
    top = wrong[0] if wrong else 0
    if a > top:  # x > every wrong class: nobody can tie or win, all of the others count
        low = (top + 1) * bits
        totals[0] = _binomial_row(others, bits) * (_binomial_row(a, bits) >> low << low)
    # x in (next smaller class size, size]: the same classes are tracked (b >= x) and the
    # same free pool holds the rest, so the pool's binomial multiplies the range's sum once
    sizes = sorted(set(wrong), reverse=True)
    for i, size in enumerate(sizes):
        first = sizes[i + 1] + 1 if i + 1 < len(sizes) else 1
        if first > min(a, size):  # the correct class cannot get that many votes
            continue
        tracked = [b for b in wrong if b >= size]
        # poly[m] (per x): ways to draw d of the tracked classes (coefficient of s^d)
        # with m of them at exactly x votes and none above; acc[m]: Σ_x C(a, x)·s^x·poly[m]
        acc = [0] * (len(tracked) + 1)
        for x in range(first, min(a, size) + 1):
            shift = x * bits
            mask = (1 << shift) - 1
            # poly[m] holds the coefficients from s^(m·x) on (the m tied classes' x votes
            # each): shifted once when added up, so the products stay short
            b = tracked[0]
            poly = [_binomial_row(b, bits) & mask, math.comb(b, x)]
            for b in tracked[1:]:
                below = _binomial_row(b, bits) & mask  # fewer than x votes
                ties = math.comb(b, x)  # exactly x: one more tied class
                new = [p * below for p in poly]
                new.append(0)
                for m, p in enumerate(poly):
                    new[m + 1] += p * ties
                poly = new
            ways = math.comb(a, x)
            for m, p in enumerate(poly):
                acc[m] += (p * ways) << (shift * (m + 1))
        pool = _binomial_row(others - sum(tracked), bits)
        for m, p in enumerate(acc):
            totals[m] += pool * p
    packed = sum((scale // (m + 1)) * t for m, t in enumerate(totals))
    return _unpack(packed, n + 1, step), scale


@lru_cache(maxsize=1 << 14)  # profiles repeat across questions, groups and runs
def _numerators(a: int, wrong: tuple[int, ...], z: int) -> tuple[tuple[int, ...], int]:
    """:func:`_exact_numerators`, kept for the exact (Fraction) curves."""
    nums, scale = _exact_numerators(a, wrong, z)
    return tuple(nums), scale


def maj_numerators(prof: Profile) -> tuple[tuple[int, ...], int]:
    """``(N, L)`` of one question: maj@k is exactly ``N[k] / (L · C(n, k))`` for k = 1..n
    (``N[0]`` unused). Integers, so a mean over many questions can be summed per
    denominator without one Fraction per question and k."""
    return _numerators(*_canonical(prof))


@lru_cache(maxsize=32768)
def _float_curve(a: int, wrong: tuple[int, ...], z: int) -> np.ndarray:
    """maj@k for k = 1..n as doubles, each the exact ratio rounded once (read-only; a
    profile seen again anywhere in the process, e.g. in another run of a grid, is a
    lookup)."""
    nums, scale = _exact_numerators(a, wrong, z)
    dens, exact = _denominators(len(nums) - 1, scale)
    if exact is not None:  # numerators <= denominators < 2^53: one IEEE division rounds once too
        out = np.array(nums[1:], dtype=np.float64) / exact
    else:  # int / int is correctly rounded: the exact rational, rounded once
        out = np.array([num / den for num, den in zip(nums[1:], dens)], dtype=np.float64)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1024)
def _denominators(n: int, scale: int) -> tuple[tuple[int, ...], np.ndarray | None]:
    """``L · C(n, k)`` for k = 1..n, and the same as doubles when all are below 2^53."""
    dens = tuple(scale * math.comb(n, k) for k in range(1, n + 1))
    if dens and max(dens) >= 2**53:
        return dens, None
    exact = np.array(dens, dtype=np.float64)
    exact.setflags(write=False)
    return dens, exact


def maj_curve(prof: Profile, fractions: bool = False) -> list[float] | list[Fraction]:
    """maj@k for k = 1..n of one question (index k−1), exact (see the module docstring)."""
    a, wrong, z = _canonical(prof)
    if not fractions:
        return _float_curve(a, wrong, z).tolist()
    nums, scale = _numerators(a, wrong, z)
    n = len(nums) - 1
    return [Fraction(nums[k], scale * math.comb(n, k)) for k in range(1, n + 1)]


def maj_at_k(prof: Profile, k: int, fractions: bool = False) -> float | Fraction:
    """maj@k of one question with vote profile *prof* ``(a, wrong sizes, abstentions)``."""
    a, wrong, z = _canonical(prof)
    n = a + sum(wrong) + z
    if not 1 <= integer_arg(k, "k") <= n:
        raise ValueError(f"k must be an integer in [1, n={n}], got {k!r}")
    if fractions:
        nums, scale = _numerators(a, wrong, z)
        return Fraction(nums[int(k)], scale * math.comb(n, int(k)))
    return float(_float_curve(a, wrong, z)[int(k) - 1])


def maj_table(profiles: Sequence[Profile], ks: Iterable[int]) -> np.ndarray:
    """(questions × ks) maj@k values; NaN where k exceeds the question's samples.

    Questions with the same profile share one computation, and each profile's curve
    covers every k and is kept for the process, so the cost is one pass per distinct
    profile — over a whole grid of runs, not per run."""
    ks = [int(k) for k in ks]
    if any(k < 1 for k in ks):
        raise ValueError(f"every k must be >= 1, got {ks}")
    row_of: dict[tuple[int, tuple[int, ...], int], int] = {}
    rows = [row_of.setdefault(_canonical(prof), len(row_of)) for prof in profiles]
    table = np.full((len(row_of), len(ks)), np.nan)
    by_n: dict[int, list[tuple[int, tuple[int, ...], int]]] = {}  # one matrix per length
    for prof in row_of:
        by_n.setdefault(prof[0] + sum(prof[1]) + prof[2], []).append(prof)
    for n, members in by_n.items():
        cols = [j for j, k in enumerate(ks) if k <= n]
        if cols:
            curves = np.stack([_float_curve(*prof) for prof in members])
            picked = curves[:, [ks[j] - 1 for j in cols]]
            table[np.ix_([row_of[prof] for prof in members], cols)] = picked
    return table[rows]
