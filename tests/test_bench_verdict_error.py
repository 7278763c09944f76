"""bench/bench_verdict_error.py's simulation at a fixed seed with few reruns: the corrected
estimate removes the verdict-error bias, its intervals and the rank intervals cover. The
bounds are loose enough for the few reruns (binomial noise of a coverage over 20–30 reruns
is ~5 points) yet fail for a correction that does nothing or intervals that ignore the
rates' uncertainty."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_verdict_error as bench  # noqa: E402


def test_corrected_bias_is_small_where_raw_is_far_off() -> None:
    raw, corrected = bench.bias_cell(30, seed=5, fn=0.05)
    assert raw < -5  # the checker's rejections pull G-Pass@16_1.0 down by ~7 points
    assert abs(corrected) < 0.8


@pytest.mark.parametrize("audit_size", [200, 1000])
def test_corrected_intervals_cover_with_estimated_rates(audit_size: int) -> None:
    rerun, benchmark = bench.coverage_cell(audit_size, 24, seed=11, n_boot=600, draws=60)
    assert rerun >= 0.8 and benchmark >= 0.8


def test_rank_intervals_hold_the_true_rank() -> None:
    rerun, benchmark = bench.rank_cell(20, seed=3, n_draws=1500)
    assert rerun >= 0.93 and benchmark >= 0.93
