"""maj@k corrected for class-level verdict error (gpassk_oc.core.uncertainty.classes).

The oracle enumerates which class (if any) holds the gold, each with its chance from the
class rates, and scores each case by brute force over every k-subset of the samples with
exact Fractions — never through gpassk_oc.core.scoring.majority."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from gpassk_oc.core.scoring.majority import maj_at_k, profile
from gpassk_oc.core.uncertainty.classes import (
    ClassAudit,
    class_rates,
    correct_maj,
    corrected_maj_value,
)


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
    m = 33**2 / (30 + 6 * 0.25)  # Kish effective size of the graded-correct weights
    assert draws["judge"][:, 0].mean() == pytest.approx((m * e1 + 0.5) / (m + 1), abs=0.005)
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


def _simulate(rng: np.random.Generator, q: int, miss: float, accept: float):
    """Questions with a known gold class: each sample is correct with its question's p,
    wrong samples spread over three wrong answers. The checker grades the gold class
    wrong with chance *miss*; then, or when no sample is correct, it grades one wrong
    class correct with chance *accept*. Returns (graded questions, true maj@5 per
    question, class truths for an audit)."""
    out, truth, labelled = [], [], []
    for _ in range(q):
        p = rng.beta(0.6, 0.6)
        n = 12
        t = rng.binomial(n, p)
        wrong = rng.multinomial(n - t, [0.6, 0.3, 0.1])
        sizes = [s for s in [t, *wrong] if s > 0]
        gold = 0 if t > 0 else None
        graded = [j == gold for j in range(len(sizes))]
        if gold is not None and rng.random() < miss:
            graded[gold] = False
        if not any(graded) and len(sizes) > (gold is not None) and rng.random() < accept:
            pool = [j for j in range(len(sizes)) if j != gold]
            graded[pool[rng.integers(len(pool))]] = True
        out.append((tuple((s, g, 1) for s, g in zip(sizes, graded)), 0))
        samples = [j for j, s in enumerate(sizes) for _ in range(s)]
        truth.append(float(_vote_share_fast(samples, gold, 5, rng)))
        profile_of = [
            (sizes[j], tuple(s for i, s in enumerate(sizes) if i != j), 0)
            for j in range(len(sizes))
        ]
        labelled += [(g, j == gold, _win(profile_of[j])) for j, g in enumerate(graded)]
    return out, truth, labelled


def _vote_share_fast(samples, gold, k, rng) -> float:
    return 0.0 if gold is None else _win(profile(samples, gold), k)


def _win(prof, k: int = 5) -> float:
    """The class's chance to win (a known-true helper: maj@k is tested on its own in
    tests/test_majority.py against enumeration)."""
    return float(maj_at_k(prof, k))


def _run(seed: int) -> tuple[float, float, bool]:
    """(truth − raw, corrected − truth, interval holds the truth) of one simulated run
    with class rates from a stratified audit of 150 + 150 classes."""
    rng = np.random.default_rng(seed)
    questions, truth, labelled = _simulate(rng, 800, miss=0.2, accept=0.3)
    true_mean = float(np.mean(truth))
    raw = correct_maj(questions, [(0.0, 0.0), (0.0, 0.0)], 5, n_boot=0).value
    strata = [[x for x in labelled if x[0] == graded] for graded in (True, False)]
    picked = [[s[i] for i in rng.choice(len(s), 150, replace=False)] for s in strata]
    audit = ClassAudit(
        "judge",
        tuple((w, not gold) for _, gold, w in picked[0]),
        tuple((w, gold) for _, gold, w in picked[1]),
    )
    points, draws = class_rates([audit], 100, seed=seed)
    fixed = correct_maj(
        questions,
        [(0.0, 0.0), points["judge"]],
        5,
        rate_draws=np.stack([np.zeros_like(draws["judge"]), draws["judge"]], axis=1),
        n_boot=800,
        seed=seed,
    )
    assert math.isnan(fixed.rerun_low)  # as the raw maj@k: no rerun interval
    return true_mean - raw, fixed.value - true_mean, fixed.ci_low <= true_mean <= fixed.ci_high


def test_class_error_bias_is_corrected_in_simulation() -> None:
    """A checker that grades the gold class wrong 20% of the time (and then lets a wrong
    class through 30% of the time) pulls maj@5 down by about 9 points. Corrected with
    class rates from audits of 300 classes, the mean error over 5 runs is a small part
    of that, and the benchmark intervals hold the truth."""
    runs = [_run(seed) for seed in range(1, 6)]
    raw_bias = float(np.mean([r[0] for r in runs]))
    assert raw_bias > 0.07  # the class-level error really biases maj@5
    assert abs(float(np.mean([r[1] for r in runs]))) < 0.2 * raw_bias
    assert sum(r[2] for r in runs) >= 4
