"""bench/bench_ranks_and_pairs.py at a fixed seed with few tables: it runs, the marginal
rank intervals hold the true rank in most rows yet are narrower than 0.3.0's Bonferroni
ones (which the bench computes with its own copy of the old rule), and the reliability
table counts every pair once per kind."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_ranks_and_pairs as bench  # noqa: E402


def test_rank_cell_is_narrower_than_before_and_still_covers() -> None:
    got = bench.rank_cell(10, bench.SPACING["moderate"], 6, seed=4, n_draws=1000)
    for kind in bench.KINDS:
        coverage, _, width = got[(kind, "now")]
        before_coverage, _, before_width = got[(kind, "before")]
        assert coverage >= 0.8 and before_coverage >= coverage
        assert width < before_width - 1  # rows 0.6 SE apart: several ranks narrower


def test_reliability_table_counts_each_pair_once() -> None:
    table = bench.pair_cell(30, seed=2, n_boot=200)
    for kind in bench.KINDS:
        assert table[kind][:, 0].sum() == 30
