"""The model check's bootstrap (gpassk_oc.core.uncertainty.corrected_grid) at the cost a
research grid can pay: simulated tables found by integer codes, and a sequential p-value
(Besag & Clifford 1991) that stops at the STOP_AT-th simulated table gaining as much as the
counts. What must not change: the rejection (p < 0.01) is the one all 200 tables give, and
the p-value stays valid (under the model, P(p ≤ α) ≤ α up to noise)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import gpassk_oc.core.uncertainty.corrected_grid as cg
from gpassk_oc.core.uncertainty.corrected_estimates import MISFIT_LEVEL, _atoms
from gpassk_oc.core.uncertainty.difficulty_model import Difficulty
from gpassk_oc.core.uncertainty.verdict_channel import fit_prior

FP, FN = 0.02, 0.08


def _observed(rng: np.random.Generator, p: np.ndarray, n: int) -> np.ndarray:
    t = rng.binomial(n, p)
    return rng.binomial(t, 1 - FN) + rng.binomial(n - t, FP)


def _check(c: np.ndarray, n: int, **kw) -> tuple[float, float]:
    atoms, weight, _ = _atoms([((n, int(x)),) for x in c])
    prior = fit_prior(atoms, weight, [(FP, FN)])
    return cg.model_check(atoms, weight, [(FP, FN)], prior, **kw)


def _two_channel_questions(rng: np.random.Generator, q: int) -> list:
    sizes = zip(rng.choice([8, 16], q).tolist(), rng.choice([0, 4, 48], q).tolist())
    return [((a, int(rng.integers(0, a + 1))), (b, int(rng.integers(0, b + 1)))) for a, b in sizes]


def test_tables_keep_every_questions_sizes_and_count_each_question_once() -> None:
    """Two channels of different sizes: per simulated table, the questions of each size
    pair are the observed ones', no count exceeds its size, and each channel's mean count
    is n·(fp + (1 − fp − fn)·E p) (E p = a / (a + b))."""
    rng = np.random.default_rng(0)
    questions = _two_channel_questions(rng, 60)
    atoms, weight, _ = _atoms(questions)
    beta, rates = Difficulty(0.7, 0.9, "test"), [(0.01, 0.05), (0.03, 0.1)]
    table, counts = cg._simulated_tables(atoms, weight, rates, beta, 400, rng)
    want = Counter(tuple(n for n, _ in q) for q in questions)
    for row in counts:
        got: Counter = Counter()
        for atom, k in zip(table, row):
            got[tuple(n for n, _ in atom)] += int(k)
        assert got == want
    assert all(0 <= c <= n for atom in table for n, c in atom)
    mean_p = 0.7 / 1.6
    for s, (fp, fn) in enumerate(rates):
        n_total = sum(q[s][0] for q in questions)
        expected = n_total * (fp + (1 - fp - fn) * mean_p)
        got_mean = (counts @ np.array([a[s][1] for a in table])).mean()
        assert got_mean == pytest.approx(expected, rel=0.03)


def test_integer_codes_and_the_row_wise_fallback_draw_the_same_tables(monkeypatch) -> None:
    rng = np.random.default_rng(1)
    atoms, weight, _ = _atoms(_two_channel_questions(rng, 60))
    args = (atoms, weight, [(0.01, 0.05), (0.03, 0.1)], Difficulty(0.7, 0.9, "test"), 30)
    fast = cg._simulated_tables(*args, np.random.default_rng(4))
    monkeypatch.setattr(cg.math, "prod", lambda _: 2**63)  # radices too large for int64
    rows = cg._simulated_tables(*args, np.random.default_rng(4))

    def as_dicts(tables: tuple) -> list[dict]:
        return [{a: k for a, k in zip(tables[0], row) if k} for row in tables[1]]

    assert as_dicts(fast) == as_dicts(rows)


def test_a_rejection_is_what_all_200_tables_give(monkeypatch) -> None:
    """A strong model's counts (not Beta-shaped): fewer than STOP_AT tables reach the
    observed gain, so the sequential test fits all 200 and p is (1 + g) / 201 — the same
    as with no stopping rule at all."""
    rng = np.random.default_rng(11)
    p = np.where(rng.random(280) < 0.7, rng.uniform(0.95, 1.0, 280), rng.uniform(0, 0.6, 280))
    c = _observed(rng, p, 48)
    stat, seq_p = _check(c, 48)
    monkeypatch.setattr(cg, "STOP_AT", 10**6)
    full_stat, full_p = _check(c, 48)
    assert (stat, seq_p) == (full_stat, full_p)
    assert seq_p < MISFIT_LEVEL


def test_sequential_p_is_valid_where_the_model_holds() -> None:
    """Counts drawn from a Beta through the channel: the sequential p takes the values
    STOP_AT / l (l ≤ 200 tables drawn) or (1 + g) / 201, and P(p ≤ 0.2) stays near or
    below 0.2 (the Beta is fitted, not refitted per table: the test is conservative).
    60 checks; a p stuck at 0 or the full-bootstrap formula's would fail the first part."""
    rng = np.random.default_rng(5)
    ps = []
    for _ in range(60):
        ps.append(_check(_observed(rng, rng.beta(0.6, 0.6, 100), 16), 16)[1])
    allowed = {cg.STOP_AT / l for l in range(cg.STOP_AT, 201)} | {
        (1 + g) / 201 for g in range(cg.STOP_AT)
    }
    assert all(min(abs(p - a) for a in allowed) < 1e-12 for p in ps)
    assert any(p > (cg.STOP_AT + 1) / 201 for p in ps)  # some stopped early
    small = sum(p <= 0.2 for p in ps)
    assert small <= 0.2 * 60 + 2 * np.sqrt(60 * 0.2 * 0.8)


def _sim_gains(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The likelihoods and counts of 100 tables drawn from a fitted Beta model."""
    rng = np.random.default_rng(seed)
    c = _observed(rng, rng.beta(0.6, 0.6, 200), 48)
    atoms, weight, _ = _atoms([((48, int(x)),) for x in c])
    prior = fit_prior(atoms, weight, [(FP, FN)])
    table, counts = cg._simulated_tables(atoms, weight, [(FP, FN)], prior, 100, rng)
    like, beta_like = cg._likelihoods(table, [(FP, FN)], prior)
    return like, beta_like, counts


def test_a_threshold_stops_fits_early_but_leaves_each_gain_on_its_side(monkeypatch) -> None:
    """With a threshold, each table's gain ends on the side of it that the fit run out
    gives — for thresholds below, inside and above the gains — and far thresholds cost
    far fewer EM steps."""
    import gpassk_oc.core.uncertainty.grid_prior as gp

    like, beta_like, counts = _sim_gains(7)
    full = cg._statistics(like, beta_like, counts)
    steps = {"n": 0}
    em = gp._em

    def counting(*args):
        steps["n"] += 1
        return em(*args)

    monkeypatch.setattr(gp, "_em", counting)
    for q in (0.0, 0.1, 0.5, 0.9, 1.0):
        threshold = float(np.quantile(full, q)) + (-1.0 if q == 0 else 1.0 if q == 1 else 0.0)
        steps["n"] = 0
        got = cg._statistics(like, beta_like, counts, threshold=threshold)
        assert np.array_equal(got >= threshold, full >= threshold), q
        if q in (0.0, 1.0):
            assert steps["n"] < 0.5 * 3 * gp.MAX_ITER


def test_the_bound_on_the_gain_holds_against_a_fit_run_far_longer(monkeypatch) -> None:
    """Jensen's bound used to stop early: the gain at any weights plus
    2 Q log max_g Σ_a share_a L_ag / f_a is at least the gain of a fit run 20× longer."""
    import gpassk_oc.core.uncertainty.grid_prior as gp

    like, beta_like, counts = _sim_gains(8)
    counts = counts[:20]
    monkeypatch.setattr(gp, "MAX_ITER", 20 * gp.MAX_ITER)
    best = cg._statistics(like, beta_like, counts)
    unit = like / like.max(axis=1, keepdims=True)
    share = counts / counts.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    for _ in range(3):
        pi = rng.dirichlet(np.ones(like.shape[1]), size=len(counts))
        mix = pi @ unit.T
        gain = 2 * (
            counts * np.log(np.where(counts > 0, mix * like.max(axis=1) / beta_like, 1))
        ).sum(axis=1)
        d = (np.where(share > 0, share / mix, 0.0) @ unit).max(axis=1)
        assert np.all(gain + 2 * counts.sum(axis=1) * np.log(d) >= best - 1e-6)
        assert np.all(gain <= best + 1e-6)
