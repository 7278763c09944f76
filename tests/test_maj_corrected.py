"""maj@k corrected for class-level verdict error (gpassk_oc.core.uncertainty.corrected_majority).

The oracle enumerates which class (if any) holds the gold, each with its chance from the
class rates, and scores each case by brute force over every k-subset of the samples with
exact Fractions — never through gpassk_oc.core.metrics.majority_vote."""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from gpassk_oc.core.uncertainty.corrected_majority import (
    ClassAudit,
    class_rates,
    correct_maj,
    corrected_maj_value,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_verdict_error as bench  # noqa: E402


def _vote_share(samples: list[int | None], gold: int | None, k: int) -> Fraction:
    """maj@k by enumeration: over every k-subset, the gold class's share of the win
    (1/(m+1) when tied with m others at the top, 0 without a vote or when beaten)."""
    total, ways = Fraction(0), 0
    for pick in itertools.combinations(range(len(samples)), k):
        ways += 1
        counts: dict[int, int] = {}
        for i in pick:
            if samples[i] is not None:
                counts[samples[i]] = counts.get(samples[i], 0) + 1
        if gold is None or counts.get(gold, 0) == 0:
            continue
        top = max(counts.values())
        if counts[gold] == top:
            total += Fraction(1, sum(v == top for v in counts.values()))
    return total / ways


def _oracle(sizes, graded, channels, abstain, rates, k) -> Fraction:
    samples: list[int | None] = [j for j, s in enumerate(sizes) for _ in range(s)]
    samples += [None] * abstain
    chance = [
        1 - Fraction(rates[ch][0]) if g else Fraction(rates[ch][1])
        for g, ch in zip(graded, channels)
    ]
    # the expected vote of the gold class: each class is the gold with its chance
    return sum((p * _vote_share(samples, j, k) for j, p in enumerate(chance)), Fraction(0))


RATES = [
    (Fraction(0), Fraction(0)),
    (Fraction(1, 5), Fraction(1, 10)),
    (Fraction(1, 20), Fraction(1, 3)),
]

CASES = [
    ((3, 2), (True, False), (1, 1), 0),
    ((2, 2, 1), (True, False, False), (1, 2, 2), 1),
    ((1, 2, 2), (False, False, False), (2, 1, 2), 0),  # no class graded correct
    ((2, 1, 1, 1), (True, False, False, False), (2, 2, 2, 2), 1),
    ((4,), (True,), (1,), 2),
    ((2, 3), (True, False), (0, 0), 1),  # unaudited: the raw maj@k
]


@pytest.mark.parametrize(("sizes", "graded", "channels", "abstain"), CASES)
def test_corrected_maj_matches_enumeration(sizes, graded, channels, abstain) -> None:
    question = (tuple(zip(sizes, graded, channels)), abstain)
    n = sum(sizes) + abstain
    for k in range(1, n + 1):
        got = corrected_maj_value(question, RATES, k, fractions=True)
        assert got == _oracle(sizes, graded, channels, abstain, RATES, k), k
        assert math.isclose(float(corrected_maj_value(question, RATES, k)), float(got))
    assert math.isnan(corrected_maj_value(question, RATES, n + 1))


def test_zero_rates_give_the_raw_maj_exactly() -> None:
    question = (((3, True, 0), (2, False, 0), (1, False, 0)), 1)
    raw = _vote_share([0, 0, 0, 1, 1, 2, None], 0, 4)
    assert corrected_maj_value(question, [(0, 0)], 4, fractions=True) == raw
    got = correct_maj([question] * 5, [(0.0, 0.0)], 4, n_boot=200)
    assert got.value == float(raw) and got.ci_low == got.ci_high == float(raw)


def test_class_rates_are_shares_weighted_by_the_chance_to_win() -> None:
    correct = ((1.0, False),) * 30 + ((0.5, True),) * 6 + ((0.0, True),) * 4
    wrong = ((0.2, False),) * 18 + ((0.6, True),) * 2
    points, draws = class_rates([ClassAudit("judge", correct, wrong)], 4000, seed=1)
    e1, e0 = 3 / 33, 1.2 / 4.8  # weighted: 6·0.5 of 30 + 3; 2·0.6 of 18·0.2 + 1.2
    assert points["judge"] == pytest.approx((e1, e0))
    assert draws["judge"].shape == (4000, 2)
    # effective size: where a plain share has the ratio's linearised variance
    var = 40 / 39 * (30 * e1**2 + 6 * 0.25 * (1 - e1) ** 2) / 33**2
    m = e1 * (1 - e1) / var
    assert draws["judge"][:, 0].mean() == pytest.approx((m * e1 + 0.5) / (m + 1), abs=0.004)
    clean = ((1.0, False),) * 20 + ((0.5, False),) * 10  # no error found: Kish's size
    _, draws = class_rates([ClassAudit("cache", clean, clean)], 4000, seed=2)
    kish = 25**2 / (20 + 10 * 0.25)
    assert draws["cache"][:, 0].mean() == pytest.approx(0.5 / (kish + 1), abs=0.003)
    points, draws = class_rates(
        [ClassAudit("rule", (), ((1.0, False),) * 23 + ((1.0, True),) * 2)], 50
    )
    assert points["rule"] == (0.0, 2 / 25) and not draws["rule"][:, 0].any()
    with pytest.raises(ValueError, match="rule"):
        class_rates(
            [
                ClassAudit(
                    "rule",
                    ((1.0, True),) * 12 + ((1.0, False),) * 8,
                    ((1.0, True),) * 10 + ((1.0, False),) * 10,
                )
            ],
            10,
        )


def test_class_error_bias_is_corrected_in_simulation() -> None:
    """bench/bench_verdict_error.py's maj@k cell at a fixed seed with few reruns: a
    checker that misses the gold class 20% of the time pulls maj@5 down by about 9
    points; corrected with class rates from audits of 300 classes the mean error is a
    small part of that, and the benchmark intervals hold the population truth."""
    raw, corrected, coverage = bench.maj_cell(6, seed=3, q=800)
    assert raw < -7  # the class-level error really biases maj@5
    assert abs(corrected) < 0.2 * abs(raw)
    assert coverage >= 4 / 6
