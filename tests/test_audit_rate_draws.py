"""Rate draws from an audit are draws of the run's own error shares: the audited verdicts
are known, so only the unaudited rest is uncertain (issue 35: with the Jeffreys posterior
alone, an audit of 400 of a small run's 800 verdicts left the corrected rerun intervals
covering 0.98–0.99). Expected moments are derived in closed form."""

from __future__ import annotations

import numpy as np

from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit


def test_an_audit_of_every_verdict_leaves_no_rate_uncertainty() -> None:
    audit = SourceAudit("judge", 120, 80, 120, 6, 80, 4)  # every verdict labelled
    draws = audit.draws(50, np.random.default_rng(0))
    assert np.all(draws == np.array(audit.point()))


def test_draws_spread_like_the_unaudited_rest() -> None:
    # x errors among m audited of N verdicts: the share is (x + Y) / N with
    # Y ~ Binomial(N − m, e), e ~ Beta(x + ½, m − x + ½); its variance in closed form
    n_wrong, m, x = 400, 200, 7
    audit = SourceAudit("judge", 1000, n_wrong, 1000, 0, m, x)  # "correct": all audited
    e0 = _shares(audit.draws(40_000, np.random.default_rng(1)), audit)
    a, b = x + 0.5, m - x + 0.5
    mean = a / (a + b)
    var_e = a * b / ((a + b) ** 2 * (a + b + 1))
    rest = n_wrong - m
    expected = (rest * (mean - mean**2 - var_e) + rest**2 * var_e) / n_wrong**2
    assert abs(e0.var() / expected - 1) < 0.05
    assert abs(e0.mean() - (x + rest * mean) / n_wrong) < 3e-4


def _shares(draws: np.ndarray, audit: SourceAudit) -> np.ndarray:
    """e0 = P(truly correct | "wrong") back from the drawn (fp, fn): with no false
    "correct" verdicts, fn = N0·e0 / (N1 + N0·e0)."""
    fn = draws[:, 1]
    return fn * audit.n_correct / (audit.n_wrong * (1 - fn))


def test_draws_stay_inside_the_channel_when_one_side_has_no_labels():
    """Labels on the 'correct' verdicts only, every one of them an error: the unlabelled
    side's share can come out 1 in a draw; every draw must still satisfy fp + fn < 1 (the
    channel's domain), with each rate below 1."""
    import numpy as np

    from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit

    audit = SourceAudit(
        "rule", 40, 60, audited_correct=30, false_correct=30, audited_wrong=0, false_wrong=0
    )
    draws = audit.draws(5000, np.random.default_rng(0))
    fp, fn = draws[:, 0], draws[:, 1]
    assert (fp < 1).all() and (fn < 1).all() and (fp + fn < 1).all()


def test_draws_take_one_from_each_slice_of_the_posterior() -> None:
    """100 draws of a share hold one draw in each 1% slice of its Jeffreys posterior's
    probability: plain draws leave about 37% of the slices empty (1 − (99/100)^100 of them
    hit), and their 2.5% and 97.5% points then hold about 93% of the law, so the corrected
    intervals built from them were too narrow (issue 35's Q = 280, fn 8% cells)."""
    from scipy.special import betainc

    n_wrong, m, x = 10**9, 50, 4  # an unaudited rest so large its binomial noise is ~1e-5
    audit = SourceAudit("judge", 1000, n_wrong, 1000, 0, m, x)  # "correct": all audited
    for seed in range(3):
        e0 = _shares(audit.draws(100, np.random.default_rng(seed)), audit)
        e = (e0 * n_wrong - x) / (n_wrong - m)  # the posterior draw behind the share
        slices = np.floor(100 * betainc(x + 0.5, m - x + 0.5, e)).astype(int)
        assert len(set(slices.tolist())) >= 97  # a draw within ~1e-5 of an edge may cross
