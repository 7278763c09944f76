"""A rerun interval whose width is mostly the fitted model's guess says so (issue 35, item 4).

For G-Pass@k_τ with 2 ≤ ⌈τk⌉ < k, a question whose count lies at a flat end of the
estimator (every k-subset of its samples gives the same verdict) has an unbiased variance
of 0, and the fitted prior's posterior variance stands in. Where the prior's variances make
up more than GUESSED_SHARE of the summed variance (what stands in at the flat ends, and
what is added to V(c) at 2k ≤ n < 4k), the interval is marked 'unreliable' even
when 4 or more questions vary: the steady demo rows' G-Pass@8_0.5 at n = 16 covered 1.000
with such intervals (bench/bench_small_tables.py). Before this rule such a table with 4
varying questions was only 'posterior', in the report and in `compare`. Which questions
vary is found here by counting k-subsets; the share at the threshold by exact fractions.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
from report_support import DATASET, abbr, run_cli, write_run

from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.core.uncertainty.atoms import Atoms, atoms_of
from gpassk_oc.core.uncertainty.interval_kinds import GUESSED_SHARE, MIN_VARYING

N, K = 16, 8
HALF, ALL = "G-Pass@8_0.5", "G-Pass@8_1.0"
#: steady-like: 40 questions rarely right (0–3 of 16: every 8-subset has < 4 right), 4 that
#: vary (c = 4), 20 always right
STEADY = [0, 1, 1, 2, 2, 3, 3, 1, 2, 0] * 4 + [4] * 4 + [16] * 20
#: Beta-like: every count from 0 to 16 twice
SPREAD = list(range(N + 1)) * 2


def _g(c: int, tau: Fraction) -> Fraction:
    """G-Pass@8_τ of one question with c of 16 right: the share of 8-subsets with at
    least ⌈8τ⌉ right, by counting subsets."""
    need = math.ceil(K * tau)
    return sum(
        Fraction(math.comb(c, j) * math.comb(N - c, K - j), math.comb(N, K))
        for j in range(need, K + 1)
    )


def _varies(c: int, tau: Fraction) -> bool:
    return 0 < _g(c, tau) < 1


def test_the_share_threshold_by_hand():
    """Given per-question variances, the mark follows the share of their sum that is not
    the unbiased estimate: 28 flat-end questions at v each (unbiased 0) and 4 varying at
    1/100 each (unbiased 4/1000: the rest was added from the prior), by exact fractions."""
    weight = np.array([28, 4])
    unbiased = np.array([[0.0], [0.004]])
    for v in (Fraction(5, 10000), Fraction(1, 1000), Fraction(2, 1000), Fraction(2, 100)):
        total = 28 * v + 4 * Fraction(1, 100)
        share = (28 * v + 4 * (Fraction(1, 100) - Fraction(4, 1000))) / total
        used = np.array([[float(v)], [0.01]])
        got = Atoms.mostly_guessed(weight, used, unbiased)[0]
        assert bool(got) == (share > Fraction(GUESSED_SHARE)), (v, share)
    # v = 5/10000: share 0.70, v = 1/1000: 0.76 (> 0.75): the rule tells them apart
    assert not Atoms.mostly_guessed(weight, np.array([[0.0005], [0.01]]), unbiased)[0]
    assert Atoms.mostly_guessed(weight, np.array([[0.001], [0.01]]), unbiased)[0]
    # rows left out (a comparison's pairs where the metric is defined in A only) count 0
    rows = np.array([[True], [False]])
    assert Atoms.mostly_guessed(weight, np.array([[0.0005], [0.01]]), unbiased, rows)[0]


def test_the_unbiased_part_is_zero_at_the_flat_ends():
    """Atoms.guessed takes the unbiased V(c) from the counts: 0 where every 8-subset of a
    question's 16 samples gives the same verdict (c = 1 here). With the 4 varying
    questions at their own V(6), the mark follows the variance given to the 28 others."""
    cs = [1] * 28 + [6] * 4
    assert sum(_varies(c, Fraction(1, 2)) for c in cs) == 4 == MIN_VARYING
    atoms = atoms_of(N, cs)  # atoms ordered by c: c = 1 first, then c = 6
    spec = [stats.parse_metric(HALF)]
    v6 = atoms.variances(spec)[1, 0]  # the unbiased V(6), > 0: question 6 varies
    assert v6 > 0
    for v1 in (0.0, v6 / 28, 4 * v6 / 28, 3.1 * 4 * v6 / 28, 10 * v6):
        share = 28 * v1 / (28 * v1 + 4 * v6)  # all of the c = 1 questions' is guessed
        assert atoms.guessed(spec, np.array([[v1], [v6]]))[0] == (share > GUESSED_SHARE), v1


def test_a_metric_not_flat_at_both_ends_is_never_judged():
    """G-Pass@8_1.0 changes between 7 and 8 right draws: its fallback is the Beta's, and
    this rule does not judge it, whatever the share."""
    cs = [1] * 28 + [15] * 4
    spec = [stats.parse_metric(ALL)]
    assert _g(15, Fraction(1)) > 0 and _g(1, Fraction(1)) == 0
    assert not atoms_of(N, cs).guessed(spec, np.array([[1.0], [1e-6]]))[0]


def test_a_steady_table_with_four_varying_questions_is_marked():
    assert sum(_varies(c, Fraction(1, 2)) for c in STEADY) == MIN_VARYING  # not the old rule
    est = stats.summarize(N, STEADY, [HALF, ALL], n_boot=0)
    assert est[HALF].rerun == "unreliable"
    assert est[HALF].rerun_low < est[HALF].rerun_high  # still shown
    # G-Pass@8_1.0 varies on none of them (c = 16 is its top, c < 8 its bottom): it is
    # marked by the fewer-than-4 rule, as before
    assert sum(_varies(c, Fraction(1)) for c in STEADY) == 0
    assert est[ALL].rerun in ("unreliable", "no width")


def test_a_beta_like_table_is_not_marked():
    assert sum(_varies(c, Fraction(1, 2)) for c in SPREAD) == 16
    est = stats.summarize(N, SPREAD, [HALF, ALL], n_boot=0)
    assert est[HALF].rerun == "posterior" and est[ALL].rerun == "posterior"


def test_the_report_marks_it_and_says_why(tmp_path, capsys):
    qs = [("AMC", "en", i, f"[AMC/en] problem {i}: compute x.") for i in range(len(STEADY))]
    write_run(tmp_path, abbr("m", "0-7"), DATASET, STEADY, N, qs=qs)
    code, out, err = run_cli(capsys, "report", tmp_path, "--k", "8", "--format", "json")
    assert code == 0, err
    row = next(r for r in json.loads(out) if not r["greedy"])  # the overall table first
    assert row["metrics"][HALF]["rerun"]["status"] == "unreliable"
    code, out, err = run_cli(capsys, "report", tmp_path, "--k", "8")
    assert code == 0, err
    assert f"more than {GUESSED_SHARE:.0%} of its variance is the fitted difficulty" in out


def test_compare_marks_a_difference_of_two_such_tables():
    """A − B of two steady-like runs whose 4 varying questions are the same ones (so the
    fewer-than-4 rule does not mark it) and whose flat-end questions carry most of the
    summed variance: 'unreliable'; two Beta-like runs: not."""
    other = STEADY[:40][::-1] + STEADY[40:]  # the flat-end questions in another order
    moved = [
        _varies(a, Fraction(1, 2)) or _varies(b, Fraction(1, 2)) for a, b in zip(STEADY, other)
    ]
    assert sum(moved) == MIN_VARYING
    assert stats.compare(N, STEADY, N, other, [HALF], n_boot=0)[HALF].rerun == "unreliable"
    assert stats.compare(N, SPREAD, N, SPREAD[::-1], [HALF], n_boot=0)[HALF].rerun == "posterior"
