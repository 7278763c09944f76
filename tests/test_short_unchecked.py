"""Where k ≤ n < 2k a metric that needs all k draws right (G-Pass@k_1.0, mG-Pass@k) gets
its whole rerun width from the fitted difficulty model's guess of how far below 1 the
questions right in every sample lie (issue 35, item 4: the steady rows' cells covered
0.74–0.90 up to Q = 100, bench/bench_short_fallback.py). Such an interval is marked
'unreliable' ('!', with its reason in the legend), whatever the counts (none of them
tells a table where the guess holds from one where it does not); metrics flat at the top
(τ < 1, pass@k) and n ≥ 2k are not marked for it.

The premise is checked independently: for a steady-like table of known rates whose value
came out high, the true rerun SD of the table's mean (exact sums over each question's
count, Fractions for the per-count values) is well above the SE the fitted prior gives."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from report_support import DATASET, abbr, compare_rerun, questions, run_cli, write_run

from gpassk_oc.core.uncertainty.metric_intervals import summarize

N, K = 6, 4
KEY = "G-Pass@4_1.0"
HIGH, LOW = 0.935, 0.065  # the demo's steady row at T = 0.5: 12 of 32 questions near 1
RATES = [HIGH] * 12 + [LOW] * 20
# a rerun that came out high: 10 of the 12 near-1 questions right in all 6 samples
COUNTS = [6] * 10 + [5] * 2 + [0] * 14 + [1] * 6


def _value(c: int) -> Fraction:
    """G-Pass@4_1.0 of one question: the share of its 4-subsets of 6 samples all right."""
    return Fraction(math.comb(c, K), math.comb(N, K))


def _true_variance(p: float) -> float:
    """Var(f(C) | p), C ~ Binomial(6, p), by summing over c = 0..6."""
    pmf = [math.comb(N, c) * p**c * (1 - p) ** (N - c) for c in range(N + 1)]
    mean = sum(w * float(_value(c)) for c, w in enumerate(pmf))
    return sum(w * (float(_value(c)) - mean) ** 2 for c, w in enumerate(pmf))


def test_the_width_rests_on_a_guess_that_falls_short():
    true_sd = math.sqrt(sum(_true_variance(p) for p in RATES)) / len(RATES)
    est = summarize(N, COUNTS, [KEY], n_boot=0)[KEY]
    assert est.value == pytest.approx(float(sum(_value(c) for c in COUNTS)) / len(COUNTS))
    assert est.sampling_se < 0.9 * true_sd, (est.sampling_se, true_sd)
    assert est.rerun == "unreliable"  # 'posterior' before: shown as if it held its level
    assert est.rerun_low < est.value < est.rerun_high  # still shown


@pytest.mark.parametrize("metric", ["G-Pass@4_1.0", "mG-Pass@4"])
@pytest.mark.parametrize(
    "counts", [COUNTS, [5] * 10 + [4] * 6 + [1] * 16], ids=["some all right", "none all right"]
)
def test_metrics_that_need_all_k_right_are_marked(metric, counts):
    assert sum(0 < c < N for c in counts) >= 4  # not marked for 'fewer than 4 vary'
    assert summarize(N, counts, [metric], n_boot=0)[metric].rerun == "unreliable"


@pytest.mark.parametrize(
    ("n", "counts", "metric"),
    [
        (N, COUNTS, "G-Pass@4_0.5"),  # flat at the top: 3 of 4 right counts as 4 of 4
        (N, COUNTS, "G-Pass@4_0.75"),
        (N, COUNTS, "pass@4"),
        (8, [8] * 10 + [7] * 2 + [6] * 2 + [0] * 18, KEY),  # n = 2k: unbiased variances
    ],
)
def test_others_are_not_marked_for_it(n, counts, metric):
    varying = [c for c in counts if 0 < c < n]
    assert len(varying) >= 4  # so 'fewer than 4 vary' cannot mark them either
    status = summarize(n, counts, [metric], n_boot=0)[metric].rerun
    assert status in ("posterior", "ok"), (metric, status)


def test_the_report_says_why(tmp_path, capsys):
    cs = np.resize(COUNTS, len(questions())).tolist()  # every split holds a share of both
    write_run(tmp_path, abbr("m", "0-7"), DATASET, cs, N, qs=questions())
    code, out, err = run_cli(capsys, "report", tmp_path, "--k", "4", "--format", "markdown")
    assert code == 0, err
    assert "  - n < 2k for a metric that needs all k draws right" in out
    assert "the counts cannot check" in out


def test_compare_marks_the_difference_too(tmp_path, capsys):
    """A − B at n < 2k rests on both runs' fitted guesses: marked like each run's cell."""
    other = [6] * 8 + [5] * 4 + [0] * 12 + [1] * 8
    assert sum(0 < a < N or 0 < b < N for a, b in zip(COUNTS, other)) >= 4
    status, row, out = compare_rerun(capsys, tmp_path, COUNTS, other, N, KEY)
    assert status == "unreliable"
    assert "]!" in row and "  - n < 2k for a metric that needs all k draws right" in out
