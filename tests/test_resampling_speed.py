"""The grid-size shortcuts of the bootstrap and the rank intervals (issue 25) against
brute-force oracles: quantiles by partition equal ``np.quantile``; the shared
question-level resamples are multinomial counts of Q per resample; a batch of cells gets
the intervals of one call per cell; the rank shares equal the draw-by-draw count."""

from __future__ import annotations

import numpy as np
import pytest

from gpassk_oc.core.uncertainty import bootstrap as resampling
from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.core.uncertainty.rank_intervals import _share_not_above


def test_partition_quantiles_equal_numpy_quantile():
    rng = np.random.default_rng(3)
    for trial in range(100):
        b, m = int(rng.integers(1, 60)), int(rng.integers(1, 5))
        x = rng.random((b, m)) if trial % 3 else rng.integers(0, 4, (b, m)) / 3
        x[rng.random((b, m)) < 0.2] = np.nan
        lo, hi = rng.random(m) * 0.5, 0.5 + rng.random(m) * 0.5
        low, high = resampling._percentiles(x, 0.95, lo, hi)
        for j in range(m):
            col = x[:, j][~np.isnan(x[:, j])]
            if col.size:
                assert [low[j], high[j]] == list(np.quantile(col, [lo[j], hi[j]]))
            else:
                assert np.isnan(low[j]) and np.isnan(high[j])


def test_question_counts_are_resamples_of_q_questions():
    counts = resampling.question_counts(7, 20_000, 11)
    assert counts.shape == (20_000, 7) and not counts.flags.writeable
    assert (counts.sum(axis=1) == 7).all() and (counts >= 0).all()
    # Multinomial(7, 1/7 each): mean 1, variance 6/7, covariance -1/7 (closed forms)
    assert counts.mean(axis=0) == pytest.approx(np.ones(7), abs=0.03)
    assert counts.var(axis=0) == pytest.approx(np.full(7, 6 / 7), abs=0.04)
    assert np.cov(counts[:, 0], counts[:, 1])[0, 1] == pytest.approx(-1 / 7, abs=0.03)
    assert resampling.question_counts(7, 20_000, 11) is counts  # one draw shared


def test_a_batch_of_cells_gets_the_intervals_of_one_call_per_cell():
    rng = np.random.default_rng(8)
    cells = [(16, rng.integers(0, 17, size=q)) for q in (40, 40, 25, 40)]
    keys = ["G-Pass@8_0.5", "mG-Pass@8", "pass@1"]
    batch = stats.summarize_many(cells, keys, n_boot=2000, seed=4)
    for (n, c), got in zip(cells, batch):
        alone = stats.summarize(n, c, keys, n_boot=2000, seed=4)
        for key in keys:
            assert got[key].value == alone[key].value  # points: exact, the same code
            assert got[key].ci_low == pytest.approx(alone[key].ci_low, abs=1e-9)
            assert got[key].ci_high == pytest.approx(alone[key].ci_high, abs=1e-9)
            assert got[key].rerun_low == alone[key].rerun_low


def test_rank_shares_equal_the_draw_by_draw_count():
    rng = np.random.default_rng(5)
    for trial in range(40):
        b, r = int(rng.integers(0, 40)), int(rng.integers(1, 20))
        d = np.round(rng.random((b, r)) * 4, 1) + (rng.random(r) * 3 if trial % 2 else 0)
        if trial % 5 == 0 and b:
            d[rng.random((b, r)) < 0.1] = np.nan
        got = _share_not_above(d)
        for i in range(r):
            for j in range(r):
                if b == 0:
                    assert np.isnan(got[i, j])
                    continue
                lower = sum(d[k, j] < d[k, i] for k in range(b))
                tied = sum(d[k, j] == d[k, i] for k in range(b))
                assert got[i, j] == (lower + 0.5 * tied) / b


@pytest.mark.parametrize("shape", ["normal", "skewed", "ties"])
def test_long_column_quantiles_equal_numpy_quantile(shape):
    """Long columns, extreme and middle tails, skewed values and ties: the same numbers
    as np.quantile."""
    rng = np.random.default_rng(12)
    b, m = 3000, 12
    x = {
        "normal": rng.standard_normal((b, m)),
        "skewed": rng.exponential(size=(b, m)) ** 3,
        "ties": rng.integers(0, 30, (b, m)) / 29,
    }[shape]
    lo = np.concatenate([[0.0, 1e-4, 0.5], rng.random(m - 3) * 0.1])
    hi = np.concatenate([[1.0, 1 - 1e-4, 0.5], 0.9 + rng.random(m - 3) * 0.1])
    low, high = resampling._percentiles(x, 0.95, lo, hi)
    for j in range(m):
        assert [low[j], high[j]] == list(np.quantile(x[:, j], [lo[j], hi[j]])), j


@pytest.mark.parametrize("shape", ["normal", "skewed", "ties", "sorted"])
def test_tail_quantiles_of_many_columns_equal_numpy_quantile(shape):
    """Many long columns at once, tails near 0 and 1, central probabilities and ties:
    np.quantile's numbers, to the bit."""
    from gpassk_oc.core.uncertainty.tail_quantiles import column_quantiles

    rng = np.random.default_rng(21)
    r, b = 30, 4000
    x = {
        "normal": rng.standard_normal((r, b)),
        "skewed": rng.exponential(size=(r, b)) ** 3,
        "ties": rng.integers(0, 5, (r, b)) / 4,
        "sorted": np.sort(rng.random((r, b)), axis=1),
    }[shape]
    lo, hi = rng.random(r) * 0.08, 1 - rng.random(r) * 0.08
    lo[:3], hi[:3] = [0.0, 0.4, 1e-5], [1.0, 0.6, 1 - 1e-5]
    low, high = column_quantiles(x, lo, hi)
    for j in range(r):
        assert [low[j], high[j]] == list(np.quantile(x[j], [lo[j], hi[j]])), j


def test_blocks_on_threads_give_the_one_thread_numbers(monkeypatch):
    """Many blocks of columns spread over threads give bit for bit what the same blocks
    give one after another (each block writes only its own columns; BLAS on one thread
    either way)."""
    from gpassk_oc.core.uncertainty import block_threads
    from gpassk_oc.core.uncertainty import bootstrap as boot

    rng = np.random.default_rng(8)
    values = np.round(rng.random((40, 37)), 2)
    values[rng.random(values.shape) < 0.05] = np.nan
    point = np.nanmean(values, axis=0)
    monkeypatch.setattr(boot, "_BLOCK_ENTRIES", 500 * 3)  # 3 columns per block: 13 blocks
    monkeypatch.setattr(block_threads, "worker_count", lambda tasks: 4)
    threaded = boot.bootstrap_questions(values, point, n_boot=500, level=0.95, seed=3)
    monkeypatch.setattr(block_threads, "worker_count", lambda tasks: 1)
    serial = boot.bootstrap_questions(values, point, n_boot=500, level=0.95, seed=3)
    assert np.isfinite(threaded[0]).sum() > 30
    for a, b in zip(threaded, serial):
        np.testing.assert_array_equal(a, b)
