"""The class audit's rate draws (maj@k's correction) are stratified as the sample audit's
are: one draw in each of R equal slices of the posterior's probability, so the quantiles
an interval takes over the draws hold the posterior's own (1 ± level)/2 points.

The posterior is written out here from the ratio estimator's definition (equal weights:
effective size n − 1 when the audit finds errors, Kish's n when it finds none), not
taken from the code; its CDF comes from scipy.stats.beta. Plain draws put one draw in
each slice with chance R!/R^R (about 1e-42 at R = 100), so this fails on plain draws.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

from gpassk_oc.core.uncertainty.corrected_majority import ClassAudit, class_rates

R = 100
LEVEL = 0.95


def _labelled(n: int, errors: int) -> tuple[tuple[float, bool], ...]:
    return ((1.0, True),) * errors + ((1.0, False),) * (n - errors)


def _posterior(n: int, errors: int) -> tuple[float, float]:
    """Jeffreys at the effective size: the ratio's variance with weights 1 is
    n/(n − 1) · Σ(y − R)²/n² = R(1 − R)/(n − 1), so m = n − 1 (errors found), or
    (Σw)²/Σw² = n (none found, variance 0); x = m·R."""
    rate = errors / n
    m = n - 1 if 0 < errors < n else n
    return m * rate + 0.5, m * (1 - rate) + 0.5


@pytest.mark.parametrize("seed", [0, 7])
def test_class_audit_draws_one_per_slice(seed: int) -> None:
    sides = ((40, 3), (30, 0))  # graded correct: 3 of 40 not gold; graded wrong: none gold
    audit = ClassAudit("judge", _labelled(*sides[0]), _labelled(*sides[1]))
    _, draws = class_rates([audit], R, seed)
    tail = (1 - LEVEL) / 2
    for j, (n, errors) in enumerate(sides):
        a, b = _posterior(n, errors)
        u = beta.cdf(draws["judge"][:, j], a, b)
        # each slice [i/R, (i + 1)/R) of the posterior's probability holds one draw
        assert sorted(np.floor(u * R).astype(int)) == list(range(R))
        # so the draws' equal-tailed quantiles sit within a slice of the law's points
        low, high = np.quantile(u, [tail, 1 - tail])
        assert abs(low - tail) <= 1 / R and abs(high - (1 - tail)) <= 1 / R


def test_class_audit_sides_drawn_independently_of_order() -> None:
    """The two sides' slices come in independent random orders (a Latin hypercube), not
    paired slice by slice: the draws' ranks on the two sides are not the same."""
    audit = ClassAudit("judge", _labelled(40, 3), _labelled(30, 4))
    _, draws = class_rates([audit], R, 3)
    ranks = np.argsort(np.argsort(draws["judge"], axis=0), axis=0)
    assert not np.array_equal(ranks[:, 0], ranks[:, 1])
