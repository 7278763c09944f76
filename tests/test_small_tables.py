"""Rerun intervals in small tables and at n = 2k (issue 35, item 4): no interval without a
width while a rerun can move the value, the fitted-difficulty fallback where the unbiased
variance is 0 or too noisy, and a [no width] legend that says what is true."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate
from scipy import stats as sps

from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.core.uncertainty.atoms import atoms_of
from tests.report_support import LegendReport, quick_bench, quick_table

ROOT = Path(__file__).resolve().parents[1]
# the demo's steady model at T = 0.5: p = 0.97 and 0.03 pulled 7.5% of the way to 0.5
EASY, HARD = 0.97 + 0.075 * (0.5 - 0.97), 0.03 + 0.075 * (0.5 - 0.03)


def _gpass(c: int, n: int, k: int, m: int) -> Fraction:
    """G-Pass@k with ≥ m of k: the share of k-subsets of n samples (c correct) with ≥ m
    correct, by counting subsets (independent of the package's tables)."""
    hits = sum(math.comb(c, i) * math.comb(n - c, k - i) for i in range(m, k + 1))
    return Fraction(hits, math.comb(n, k))


def _truth(p: float, k: int, m: int) -> float:
    """P(X ≥ m), X ~ Binomial(k, p): the metric's value at rate p."""
    return sum(math.comb(k, i) * p**i * (1 - p) ** (k - i) for i in range(m, k + 1))


def test_demo_steady_cell_has_a_width_and_covers():
    """The demo's steady T=0.5 row, G-Pass@8_0.5 over its 32 questions at n = 16 = 2k:
    release 0.3 printed '37.5 [no width]' in ~70% of reruns (rerun coverage 0.31). Every
    rerun whose counts are not all 0 or n now gets a width, and the interval covers the
    truth (closed form) at least at its level (conservatively: 15 of 16 cannot tell
    p = 0.93 from p = 0.8)."""
    p = np.array(([EASY] * 3 + [HARD] * 5) * 4)
    truth = float(np.mean([_truth(x, 8, 4) for x in p]))
    rng = np.random.default_rng(3)
    runs, covered = 150, 0
    for _ in range(runs):
        c = rng.binomial(16, p)
        est = stats.summarize(16, c, ["G-Pass@8_0.5"], n_boot=0)["G-Pass@8_0.5"]
        extreme = bool(np.all((c == 0) | (c == 16)))
        # posterior variances, and 'unreliable' where fewer than 4 questions vary
        assert est.rerun == ("no width" if extreme else "unreliable")
        assert (
            est.rerun == "no width"
            or atoms_of(16, c).fallback([stats.parse_metric("G-Pass@8_0.5")]).all()
        )
        if not extreme:
            assert est.rerun_low < est.rerun_high and est.sampling_se > 0
        covered += est.rerun_low <= truth <= est.rerun_high
    assert covered / runs >= 0.93


def test_zero_unbiased_variances_get_the_fitted_fallback_and_say_so():
    """Counts whose unbiased variances are all 0 for G-Pass@8_0.5 at n = 16 (each c ≤ 3
    or ≥ 12: every 8-subset has the same verdict) yet not all 0 or n: release 0.3 said
    'no width'; now the posterior variances give a width, marked 'unreliable' (no question
    lies strictly between the flat ends, so no count says how far a rerun moves it)."""
    c = [16, 15, 13, 0, 1, 2, 3, 0] * 2
    n, key = 16, "G-Pass@8_0.5"
    # brute force: f(c) is 0 or 1 at each of these counts, so V(c) = f² − f² = 0
    assert all(_gpass(x, n, 8, 4) in (0, 1) for x in c)
    est = stats.summarize(n, c, [key], n_boot=0)[key]
    assert est.rerun == "unreliable" and est.sampling_se > 0
    assert est.rerun_low < est.value < est.rerun_high


def _posterior_variance(c: int, n: int, k: int, m: int, a: float, b: float) -> float:
    """E[Var(f(c') | p) | c] by quadrature over p ~ Beta(a + c, b + n − c), f by counting."""
    f = np.array([float(_gpass(x, n, k, m)) for x in range(n + 1)])

    def var_at(p: float) -> float:
        w = sps.binom.pmf(np.arange(n + 1), n, p)
        return float(w @ f**2 - (w @ f) ** 2)

    post = sps.beta(a + c, b + n - c)
    return integrate.quad(lambda p: var_at(p) * post.pdf(p), 0, 1, limit=200)[0]


def _unbiased(c: int, n: int, k: int, m: int) -> float:
    """The unbiased V(c) at n = 2k: f(c)² − B_c, with B_c = P(two disjoint k-subsets of
    the 2k samples both pass) by counting (the U-statistic of g(p)²)."""
    both = sum(
        math.comb(c, i) * math.comb(n - c, k - i) * float(_gpass(c - i, n - k, k, m))
        for i in range(m, k + 1)
        if 0 <= c - i <= n - k
    )
    return float(_gpass(c, n, k, m)) ** 2 - both / math.comb(n, k)


@pytest.mark.parametrize("copies", [1, 7])
def test_fallback_values_at_n_2k_by_quadrature(copies):
    """At n = 2k = 16 a question's variance is the posterior one where its unbiased V is
    0 (c = 16); elsewhere max(V, posterior) in a table of 8 questions and their mean in
    one of 56 (≥ 50); both sides by independent computation (subset counting and
    numerical integration over the fitted Beta)."""
    n, k, m, key = 16, 8, 8, "G-Pass@8_1.0"
    c = np.array([16, 15, 12, 9, 4, 16, 14, 7] * copies)
    atoms = atoms_of(n, c)
    prior = atoms.prior()
    assert prior is not None
    spec = stats.parse_metric(key)
    got = atoms.variances([spec], prior)[:, 0]
    for ci, v in zip(atoms.c.tolist(), got.tolist()):
        post = _posterior_variance(ci, n, k, m, prior.a, prior.b)
        unbiased = _unbiased(ci, n, k, m)
        combined = max(unbiased, post) if len(c) < 50 else (unbiased + post) / 2
        expected = post if unbiased == 0 else combined
        assert v == pytest.approx(expected, rel=1e-6, abs=1e-12), ci
    # the unbiased estimate alone is still what the no-prior call gives (exact rationals)
    plain = atoms.variances([spec])[:, 0]
    assert plain.tolist() == pytest.approx([_unbiased(x, n, k, m) for x in atoms.c.tolist()])


def test_pass_at_1_keeps_its_textbook_variance():
    """k = 1 (c/n) is not touched: a question at c = 0 or n keeps its unbiased 0, and the
    SE is √(Σ c(n−c)/(n²(n−1))) / Q exactly."""
    c = [0, 8, 3, 8, 5, 2, 6]  # 4 vary: an interval of status 'ok'
    est = stats.summarize(8, c, ["pass@1"], n_boot=0)["pass@1"]
    expected = math.sqrt(sum(x * (8 - x) / (64 * 7) for x in c)) / len(c)
    assert est.rerun == "ok" and est.sampling_se == pytest.approx(expected, rel=1e-12)


def test_all_extreme_counts_say_no_width_and_the_legend_is_true():
    """Every question right in all or none of its samples: the counts cannot say how far a
    rerun would move the value, so no interval — and the legend says exactly that
    (release 0.3's 'no question varies' was false: the value does move in a rerun)."""
    from gpassk_oc.report.data.tables import no_width_note

    est = stats.summarize(16, [16, 0, 16, 0, 0], ["G-Pass@8_1.0"], n_boot=0)["G-Pass@8_1.0"]
    assert est.rerun == "no width" and math.isnan(est.rerun_low)
    note = no_width_note("rerun")
    assert "all or in none of its samples" in note and "no question varies" not in note
    both = no_width_note("both")
    assert both.count("rerun:") == 1 and "resampling questions" in both


def test_report_legend_names_the_fallback(tmp_path):
    """The report's interval note explains '*' for the n = 2k fallback and [no width]
    truthfully (the text the demo's leaderboard prints too)."""
    from gpassk_oc.report.data.tables import legend

    note = " ".join(" ".join([t, *items]) for t, items in legend(LegendReport(n_boot=0)))  # type: ignore[arg-type]
    assert "unbiased estimate is 0" in note and "n < 4k" in note
    assert "no question varies" not in note


def test_bench_quick_writes_its_table(tmp_path):
    out = tmp_path / "table.md"
    proc = quick_bench("bench_small_tables.py", out)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith("RESULT prior=beta near=combine ends=grid cells=6 ")
    assert sum(line.startswith("goal ") for line in lines) == 5
    assert any(line in ("goals met", "goals NOT met") for line in lines)
    table = out.read_text(encoding="utf-8")
    # the goals and RESULT line are in the table too, in the section the docs include
    assert "<!-- --8<-- [start:result] -->" in table and "RESULT prior=beta" in table
    assert table.startswith("<!-- generated by bench/bench_small_tables.py")
    assert "| steady T=0.5 | G-Pass@8_0.5 | 16 |" in table
    # the marking: steady G-Pass@8_0.5 at n = 2k has every count at a flat end, so every
    # rerun's interval is marked '!' (share 1.00, none '+', no unflagged rerun to cover)
    assert "| steady T=0.5 | G-Pass@8_0.5 | 16 |  |  |  | 1.00 / 0.00 / — |" in table


def _cell(cover: float, kept: int, cover_kept: float) -> dict:
    return {"cover": cover, "kept": kept, "cover_kept": cover_kept, "!": 0.0, "+": 0.0}


def test_bench_cell_goal_reads_the_unmarked_reruns():
    """A cell outside the band meets its goal exactly when the reruns printed without a
    mark (or '[no width]') cover within the band as far as their number can tell: their
    exact 95% binomial interval reaches [0.93, 0.97]. Bounds in the comments are the
    closed forms at 0 and m of m (1 − 0.025^(1/m), 0.025^(1/m)) and Beta quantiles."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from bench_small_tables import cell_goal

    se = math.sqrt(0.95 * 0.05 / 400)  # 0.0109: the band is [0.908, 0.992]
    assert cell_goal(_cell(0.95, 400, 0.95), se) == (True, "in band")
    # marks fall on the bad reruns: 291 of the 304 unmarked cover ([0.928, 0.978])
    assert cell_goal(_cell(0.87, 304, 291 / 304), se) == (True, "under")
    # the unmarked reruns themselves miss: 264 of 304 ([0.826, 0.904])
    assert cell_goal(_cell(0.85, 304, 264 / 304), se) == (False, "under")
    # too wide where unmarked: 176 of 176 cover ([0.979, 1])
    assert cell_goal(_cell(0.998, 176, 1.0), se) == (False, "over")
    # every rerun marked (or without a width): nothing unmarked to hold to the band
    assert cell_goal(_cell(0.80, 0, math.nan), se) == (True, "under")
    # 4 unmarked reruns that all miss: [0, 0.602]; one that misses says little: [0, 0.975]
    assert cell_goal(_cell(0.81, 4, 0.0), se) == (False, "under")
    assert cell_goal(_cell(0.81, 1, 0.0), se) == (True, "under")
    # 170 of 172 ([0.959, 0.999]) still reaches 0.97; 172 of 172 ([0.979, 1]) does not
    assert cell_goal(_cell(0.995, 172, 170 / 172), se)[0]
    assert not cell_goal(_cell(0.995, 172, 1.0), se)[0]


def test_small_benchmark_bench_quick_writes_its_table(tmp_path):
    table = quick_table("bench_small_benchmark.py", tmp_path, "RESULT cells=2 ")
    # the two quick cells' coverages are shares of 60 runs
    row = next(line for line in table.splitlines() if line.startswith("| 16 | G-Pass@8_1.0 |"))
    shares = [float(cell.split()[0].strip("*")) for cell in row.split("|")[3:] if cell.strip()]
    assert len(shares) == 2 and all(abs(60 * s - round(60 * s)) < 0.06 for s in shares)
