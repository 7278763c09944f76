"""Independent oracles for the G-Pass@k tests.

Nothing here imports gpassk_oc: every expected value is rebuilt from the definitions
with exact integers and Fractions, so a test fails if the code under test is wrong
rather than agreeing with itself.
"""

from __future__ import annotations

import importlib.util
import math
from fractions import Fraction
from itertools import combinations
from pathlib import Path


def threshold_m(k: int, tau: str) -> int:
    """m = max(ceil(τ·k), 1) with τ given as its literal decimal/fraction string."""
    return max(math.ceil(Fraction(tau) * k), 1)


def brute_force_distribution(n: int, c: int, k: int) -> list[int]:
    """counts[j] = number of k-subsets with exactly j correct (one enumeration, all m)."""
    counts = [0] * (k + 1)
    for subset in combinations(range(n), k):
        counts[sum(1 for i in subset if i < c)] += 1
    return counts


def exact_g(n: int, c: int, k: int, m: int) -> Fraction:
    """Σ_{j>=m} C(c,j)·C(n-c,k-j) / C(n,k) with math.comb (0 outside the support)."""
    # one common denominator: summing the integer numerators is the same Fraction sum
    return Fraction(
        sum(math.comb(c, j) * math.comb(n - c, k - j) for j in range(m, k + 1)), math.comb(n, k)
    )


def exact_g_tau(n: int, c: int, k: int, tau: Fraction) -> Fraction:
    return exact_g(n, c, k, max(math.ceil(tau * k), 1))


def exact_pass(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def exact_mg_documented(n: int, c: int, k: int) -> Fraction:
    """(2/k) Σ_{i=ceil(k/2)+1}^{k} G-Pass@k_{i/k}, literally as the paper writes it."""
    first = math.ceil(Fraction(k, 2)) + 1
    return Fraction(2, k) * sum(
        (exact_g_tau(n, c, k, Fraction(i, k)) for i in range(first, k + 1)), Fraction(0)
    )


def exact_mg_integral(n: int, c: int, k: int) -> Fraction:
    """2 ∫_{1/2}^{1} G-Pass@k_τ dτ by exact piecewise integration.

    τ ↦ G-Pass@k_τ only changes where τ·k crosses an integer, so it is constant on each
    open interval between consecutive breakpoints; evaluate it at the midpoint.
    """
    cuts = sorted(
        {Fraction(1, 2), Fraction(1)}
        | {Fraction(j, k) for j in range(k + 1) if Fraction(1, 2) < Fraction(j, k) < 1}
    )
    area = sum(
        ((b - a) * exact_g_tau(n, c, k, (a + b) / 2) for a, b in zip(cuts, cuts[1:])), Fraction(0)
    )
    return 2 * area


def load_opencompass_g_pass():
    """OpenCompass's own compute_{g,mg,}pass_at_k, from the installed package.

    Imported by file because `import opencompass.openicl...` drags in ~4,600 modules
    (≈6 s); the file itself only needs opencompass.registry and .utils.logging.
    Falls back to the ordinary import if the file moved.
    """
    spec = importlib.util.find_spec("opencompass")
    path = Path(spec.submodule_search_locations[0]) / "openicl/icl_evaluator/icl_base_evaluator.py"
    if path.is_file():
        file_spec = importlib.util.spec_from_file_location("_oc_icl_base_evaluator", path)
        module = importlib.util.module_from_spec(file_spec)
        file_spec.loader.exec_module(module)
    else:  # pragma: no cover - layout change in a future OpenCompass
        from opencompass.openicl.icl_evaluator import icl_base_evaluator as module
    return module


def brute_maj(labels: list[int | None], k: int) -> Fraction:
    """Average over all k-subsets of the score of the correct class (label 0)."""
    total, count = Fraction(0), 0
    for subset in combinations(range(len(labels)), k):
        count += 1
        votes: dict[int, int] = {}
        for i in subset:
            if labels[i] is not None:
                votes[labels[i]] = votes.get(labels[i], 0) + 1
        mine = votes.get(0, 0)
        if mine == 0 or mine < max(votes.values()):
            continue
        total += Fraction(1, sum(1 for v in votes.values() if v == mine))
    return total / count
