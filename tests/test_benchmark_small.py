"""The benchmark interval in small tables (issue 35, item 4, second interval kind): a
metric that needs all k draws right, resampled over fewer than 32 questions, lay below
the truth far more often than its level (bench/bench_small_benchmark.py), so its interval
is marked '!' with that reason; other metrics and larger tables are not."""

from __future__ import annotations

import numpy as np
import pytest

from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.report.data.tables import BENCHMARK_FEW, legend
from tests.report_support import LegendReport


def _counts(q: int, n: int = 16) -> np.ndarray:
    """q questions whose counts spread over 0..n, so every metric varies across them."""
    return np.round(np.linspace(0, n, q)).astype(int)


@pytest.mark.parametrize(
    ("metric", "marked_below_32"),
    [
        ("G-Pass@8_1.0", True),  # needs all 8 right
        ("mG-Pass@8", True),  # its top term needs all 8 right
        ("G-Pass@2_1.0", True),
        ("G-Pass@8_0.875", False),  # ⌈0.875 · 8⌉ = 7 of 8
        ("G-Pass@8_0.5", False),
        ("G-Pass@1_1.0", False),  # one draw: the mean accuracy, not skewed
        ("pass@8", False),
    ],
)
def test_the_mark_goes_by_the_metric_and_the_number_of_questions(metric, marked_below_32):
    for q, small in ((8, True), (31, True), (32, False), (40, False)):
        est = stats.summarize(16, _counts(q), [metric], n_boot=200)[metric]
        want = "unreliable" if small and marked_below_32 else "ok"
        assert est.ci == want, (metric, q, est.ci)
        assert est.ci_low <= est.value <= est.ci_high  # the bounds are still given


def test_flat_and_off_keep_their_own_status():
    # every question right in every sample: nothing to resample, whatever the size
    est = stats.summarize(16, np.full(8, 16), ["G-Pass@8_1.0"], n_boot=200)["G-Pass@8_1.0"]
    assert est.ci == "no width"
    off = stats.summarize(16, _counts(8), ["G-Pass@8_1.0"], n_boot=0)["G-Pass@8_1.0"]
    assert off.ci == "off"


def test_compare_marks_a_difference_over_few_shared_questions():
    for q, want in ((8, "unreliable"), (32, "ok")):
        c_a = _counts(q)
        c_b = np.roll(c_a, 3)
        diff = stats.compare(16, c_a, 16, c_b, ["G-Pass@8_1.0", "G-Pass@8_0.5"], n_boot=200)
        assert diff["G-Pass@8_1.0"].ci == want
        assert diff["G-Pass@8_0.5"].ci == "ok"


def _legend_text(interval: str) -> str:
    return " ".join(" ".join([t, *items]) for t, items in legend(LegendReport(interval)))  # type: ignore[arg-type]


def test_the_legend_gives_the_reason_where_the_benchmark_interval_is_shown():
    assert "fewer than 32 questions" in BENCHMARK_FEW
    assert BENCHMARK_FEW in _legend_text("benchmark")
    assert BENCHMARK_FEW in _legend_text("both")
    assert BENCHMARK_FEW not in _legend_text("rerun")


def test_no_width_note_is_true_where_no_count_is_zero_or_n():
    """pass@16 with 40–47 of 48 right: every question's value is 1 for any count above 32,
    so the rerun interval has no width although no question is all-right or all-wrong;
    the note must not claim that every question was (release 0.4's did)."""
    from gpassk_oc.report.data.tables import no_width_note

    c = np.tile(np.arange(40, 48), 3)
    est = stats.summarize(48, c, ["pass@16"], n_boot=200)["pass@16"]
    assert est.rerun == "no width" and not np.any((c == 0) | (c == 48))
    note = no_width_note("rerun")
    assert "the same for every count a rerun would plausibly give it" in note
    assert "pass@k where fewer than k samples were wrong" in note


def test_a_narrow_interval_is_not_printed_as_zero_width():
    """An interval of width 0.004 points around 0 printed [0.0, 0.0]: it now gets the
    decimals that show it; equal bounds and ordinary intervals keep one decimal."""
    from gpassk_oc.report.data.tables import interval_text

    assert interval_text(0.0, 0.00004, "posterior") == "[0.000, 0.004]*"
    assert interval_text(0.99996, 1.0, "unreliable") == "[99.996, 100.000]!"
    assert interval_text(0.1, 0.2, "ok") == "[10.0, 20.0]"
    assert interval_text(0.5, 0.5, "ok") == "[50.0, 50.0]"
