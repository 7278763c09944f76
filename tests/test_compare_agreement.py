"""compare's benchmark interval and benchmark p-value agree (issue 25: it printed the
interval [+0.0, +27.6] beside p = 0.070): the p-value is the smallest 1 − level whose
interval leaves 0 out, so "p < 1 − level" and "0 outside the interval" are one fact."""

from __future__ import annotations

import numpy as np
import pytest

from gpassk_oc.core.uncertainty.metric_intervals import compare

METRICS = ["G-Pass@4_1.0", "G-Pass@4_0.5", "pass@4", "mG-Pass@4", "pass@1"]


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_p_below_alpha_exactly_when_the_interval_excludes_zero(level):
    rng = np.random.default_rng(7)
    checked = agree = 0
    for trial in range(40):
        q, n = int(rng.integers(8, 40)), 8
        p_a = rng.beta(2, 2, q)
        p_b = np.clip(p_a + rng.normal(0.04 * (trial % 5 - 2), 0.15, q), 0, 1)
        c_a, c_b = rng.binomial(n, p_a), rng.binomial(n, p_b)
        result = compare(n, c_a, n, c_b, METRICS, n_boot=4000, level=level, seed=trial)
        for d in result.values():
            if d.ci != "ok" or abs(d.p_value - (1 - level)) < 0.004:
                continue  # on the boundary, resolution decides; nothing to test
            checked += 1
            outside = not (d.ci_low <= 0 <= d.ci_high)
            agree += outside == (d.p_value < 1 - level)
    assert checked > 100
    assert agree == checked


def test_the_p_value_is_two_sided_and_large_when_there_is_no_difference():
    rng = np.random.default_rng(1)
    c = rng.integers(0, 9, 30)
    (d,) = compare(8, c, 8, c, ["pass@1"], n_boot=2000).values()
    assert d.diff == 0 and d.p_value == 1.0
    flipped = compare(8, c, 8, np.clip(c - 2, 0, 8), ["pass@1"], n_boot=2000)["pass@1"]
    mirrored = compare(8, np.clip(c - 2, 0, 8), 8, c, ["pass@1"], n_boot=2000)["pass@1"]
    assert flipped.p_value == pytest.approx(mirrored.p_value, abs=0.01)
    assert flipped.p_value < 0.01
