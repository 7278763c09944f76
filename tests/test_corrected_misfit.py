"""The verdict-error correction checks its own model (gpassk_oc.core.uncertainty.
corrected_grid): where the counts reject a Beta prior with independent errors, every
corrected value of the row is flagged ‡ — the correction can then be off by more than its
interval. Expected values come from closed forms (G-Pass@16_1.0 of a known p is p^16) and
from likelihoods computed here by numerical integration, not from the code under test."""

from __future__ import annotations

import json
import math

import numpy as np
from scipy import integrate
from scipy.stats import beta as beta_dist
from scipy.stats import binom

from gpassk_oc.core.uncertainty.corrected_estimates import MISFIT_LEVEL, _atoms, correct
from gpassk_oc.core.uncertainty.corrected_grid import model_check
from gpassk_oc.core.uncertainty.grid_prior import GRID
from gpassk_oc.core.uncertainty.verdict_channel import fit_prior
from tests.report_support import DATASET, abbr, run_cli, write_run

FP, FN, N, Q = 0.02, 0.08, 48, 280
KEY = "G-Pass@16_1.0"


def _strong(rng: np.random.Generator, q: int = Q) -> np.ndarray:
    """A strong model's rates: 70% of questions in [0.95, 1), the rest in [0, 0.6)."""
    return np.where(rng.random(q) < 0.7, rng.uniform(0.95, 1.0, q), rng.uniform(0, 0.6, q))


def _observed(rng: np.random.Generator, p: np.ndarray) -> np.ndarray:
    """Counts marked correct: each sample is right with chance p, then flipped (fn / fp)."""
    t = rng.binomial(N, p)
    return rng.binomial(t, 1 - FN) + rng.binomial(N - t, FP)


def _loglik_beta(c: np.ndarray, a: float, b: float) -> float:
    """Σ log ∫ Bin(c; N, fp + (1 − fp − fn) p) Beta(p; a, b) dp, by quadrature."""
    total = 0.0
    for x, w in zip(*np.unique(c, return_counts=True)):

        def f(p: float, x: int = int(x)) -> float:
            return binom.pmf(x, N, FP + (1 - FP - FN) * p) * beta_dist.pdf(p, a, b)

        value = sum(integrate.quad(f, lo, hi, limit=200)[0] for lo, hi in ((0, 0.5), (0.5, 1)))
        total += w * math.log(value)
    return total


def _loglik_points(c: np.ndarray, points: np.ndarray, weights: np.ndarray) -> float:
    like = binom.pmf(c[:, None], N, FP + (1 - FP - FN) * points[None, :]) @ weights
    return float(np.log(like).sum())


def test_statistic_lies_between_a_two_point_prior_and_the_saturated_fit() -> None:
    """2 Δ log L ≥ what the best two-point prior on the grid gains over the Beta (the grid
    NPMLE can do no worse), and ≤ what one free p per question gains (nothing can do better)."""
    rng = np.random.default_rng(3)
    c = _observed(rng, _strong(rng, 120))
    atoms, weight, _ = _atoms([((N, int(x)),) for x in c])
    prior = fit_prior(atoms, weight, [(FP, FN)])
    got, _ = model_check(atoms, weight, [(FP, FN)], prior)
    base = _loglik_beta(c, prior.a, prior.b)
    best_two = -math.inf
    coarse = GRID[::8]
    for i, lo in enumerate(coarse):
        for hi in coarse[i + 1 :]:
            for share in np.linspace(0.05, 0.95, 19):
                pts, ws = np.array([lo, hi]), np.array([share, 1 - share])
                best_two = max(best_two, _loglik_points(c, pts, ws))
    own = np.clip((c / N - FP) / (1 - FP - FN), 0, 1)
    saturated = float(binom.logpmf(c, N, FP + (1 - FP - FN) * own).sum())
    assert 2 * (best_two - base) - 1e-6 <= got <= 2 * (saturated - base) + 1e-6


def test_a_strong_models_counts_are_flagged_and_the_flag_is_earned() -> None:
    """The Beta's U shape piles a strong model's all-but-right questions on t = n: the
    corrected G-Pass@16_1.0 then misses the truth (mean p^16) by more than its interval."""
    rng = np.random.default_rng(11)
    p = _strong(rng)
    c = _observed(rng, p)
    got = correct([((N, int(x)),) for x in c], [(FP, FN)], [KEY], n_boot=200)[KEY]
    truth = float((p**16).mean())
    assert got.model_rejected and got.misfit_p < MISFIT_LEVEL
    assert not (got.rerun_low <= truth <= got.rerun_high)


def test_beta_shaped_counts_are_not_flagged() -> None:
    rng = np.random.default_rng(5)
    for _ in range(3):
        c = _observed(rng, rng.beta(0.6, 0.6, Q))
        got = correct([((N, int(x)),) for x in c], [(FP, FN)], [KEY], n_boot=0)[KEY]
        assert np.isfinite(got.misfit) and not got.model_rejected


def test_without_error_rates_nothing_is_checked() -> None:
    rng = np.random.default_rng(5)
    c = rng.binomial(N, _strong(rng))
    got = correct([((N, int(x)),) for x in c], [(0.0, 0.0)], [KEY], n_boot=0)[KEY]
    assert math.isnan(got.misfit) and not got.model_rejected


def _questions(q: int) -> list[tuple[str, str, int, str]]:
    return [("AMC", "en", i, f"[AMC/en] problem {i}: compute x.") for i in range(q)]


def test_report_marks_only_the_rejected_row(capsys, tmp_path) -> None:
    """Markdown: ‡ beside every corrected value of the strong row, none in the Beta row,
    and the legend under the table; JSON: model_rejected per metric."""
    rng = np.random.default_rng(11)
    qs = _questions(Q)
    strong, plain = abbr("strong", "0-7"), abbr("plain", "0-7")
    write_run(tmp_path, strong, DATASET, _observed(rng, _strong(rng)), N, qs=qs, rng=rng)
    write_run(tmp_path, plain, DATASET, _observed(rng, rng.beta(0.6, 0.6, Q)), N, qs=qs, rng=rng)
    rates = f"fp={FP},fn={FN}"
    code, out, err = run_cli(capsys, "report", tmp_path, "--verdict-error", rates)
    assert code == 0, err
    section = out.split("## Corrected for verdict error")[1].split("\n## ")[0]
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if "|" in line}
    strong_row = next(v for k, v in rows.items() if k.startswith("strong"))
    plain_row = next(v for k, v in rows.items() if k.startswith("plain"))
    assert strong_row.count("‡") >= 3 and "‡" not in plain_row
    assert "‡: that row's counts reject the model" in section
    code, out, err = run_cli(
        capsys, "report", tmp_path, "--verdict-error", rates, "--format", "json"
    )
    assert code == 0, err
    flags = {
        r["model"].split("_")[0]: {
            m["model_rejected"] for m in r["corrected"]["metrics"].values() if m["status"] == "ok"
        }
        for r in json.loads(out)
        if r.get("corrected")
    }
    assert flags == {"strong": {True}, "plain": {False}}


def test_compare_marks_the_rejected_side_like_the_report(capsys, tmp_path) -> None:
    """compare --verdict-error: ‡ on the strong side's corrected cells only, the legend
    under its section, no benchmark brackets without resamples; JSON model_rejected."""
    rng = np.random.default_rng(11)
    qs = _questions(Q)
    strong, plain = abbr("strong", "0-7"), abbr("plain", "0-7")
    write_run(tmp_path, strong, DATASET, _observed(rng, _strong(rng)), N, qs=qs, rng=rng)
    write_run(tmp_path, plain, DATASET, _observed(rng, rng.beta(0.6, 0.6, Q)), N, qs=qs, rng=rng)
    argv = ["compare", tmp_path, tmp_path, "--model-a", strong, "--model-b", plain]
    argv += ["--verdict-error", f"fp={FP},fn={FN}", "--metrics", KEY, "--resamples", "0"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    section = out.split("## Corrected for verdict error")[1]
    row = next(line for line in section.splitlines() if line.startswith(f"| {KEY} |"))
    a_cell, b_cell = (cell.strip() for cell in row.split("|")[2:4])
    assert a_cell.endswith("‡") and "‡" not in b_cell
    assert a_cell.count(",") == 1 and "—" not in a_cell  # the rerun interval only
    assert "‡: that side's counts reject the model" in section
    code, out, err = run_cli(capsys, *argv, "--format", "json")
    assert code == 0, err
    fixed = json.loads(out)["corrected"]
    assert fixed["A"][KEY]["model_rejected"] is True
    assert fixed["B"][KEY]["model_rejected"] is False
    assert fixed["A"][KEY]["model_check"]["p"] < MISFIT_LEVEL
