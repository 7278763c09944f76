"""The audited cells of ``bench_verdict_grid``: why some leave the band, measured.

* **re-measure** — a scenario with a cell outside [0.93, 0.97] beyond noise that is not a
  boundary cell is run again with more reruns on a fresh seed; its verdict is the
  re-measurement's.
* **exact enumeration** — an audit of m verdicts of one stratum finds x ~ Binomial(m, e)
  errors (hypergeometric over the run's own verdicts), so the interval for the share e can
  only take m + 1 forms and its coverage jumps as e crosses their ends. The coverage of the
  report's interval for e (the 2.5% and 97.5% points of the share draws, Jeffreys
  posterior, :mod:`gpassk_oc.core.uncertainty.verdict_rates`) is enumerated over x, with
  no simulation. Where a corrected metric's interval is dominated by that rate (G-Pass@16_1.0
  against fn), the metric's coverage follows the share interval's: the conditional
  coverage given x shows it.
* **boundary** — where a true rate is 0 the audit finds no error on that side, every
  interval for the rate holds 0, and the metric's interval covers more often than its
  level. The alternative (a side without errors draws its share as exactly 0) is run on
  the same question sets, on those cells and on small positive rates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import betabinom, binom, hypergeom

#: the share intervals' level (the report's default)
LEVEL = 0.95


def share_interval(x: int, m: int, total: int, level: float = LEVEL) -> tuple[float, float]:
    """The report's interval for a stratum's error share, x errors among m audited of
    *total*: x plus the equal-tailed quantiles of BetaBinomial(total − m, x + ½, m − x + ½)
    (the exact law of the draws), over *total*. total <= m: known, x/m."""
    if total <= m:
        return x / m, x / m
    tail = (1 - level) / 2
    law = betabinom(total - m, x + 0.5, m - x + 0.5)
    return (x + law.ppf(tail)) / total, (x + law.ppf(1 - tail)) / total


def exact_coverage(errors: int, total: int, m: int, level: float = LEVEL) -> float:
    """P(the share interval holds errors/total), x ~ Hypergeometric(total, errors, m).
    The interval's ends are quantiles q(·) of the draws' law, so it holds the share when
    cdf(errors − x) ≥ tail and cdf(errors − x − 1) < 1 − tail (all x at once)."""
    xs = np.arange(min(m, errors) + 1)
    pmf = hypergeom(total, errors, m).pmf(xs)
    if total <= m:
        return 1.0
    tail = (1 - level) / 2
    law = betabinom(total - m, xs + 0.5, m - xs + 0.5)
    held = (law.cdf(errors - xs) >= tail) & (law.cdf(errors - xs - 1) < 1 - tail)
    return float(pmf[held].sum())


def binomial_coverage(e: float, m: int, level: float = LEVEL) -> float:
    """The Jeffreys interval's coverage of e, x ~ Binomial(m, e) (an unlimited run)."""
    from scipy.stats import beta

    xs = np.arange(m + 1)
    tail = (1 - level) / 2
    low = np.where(xs > 0, beta.ppf(tail, xs + 0.5, m - xs + 0.5), 0.0)
    high = np.where(xs < m, beta.ppf(1 - tail, xs + 0.5, m - xs + 0.5), 1.0)
    return float(binom.pmf(xs, m, e)[(low <= e) & (e <= high)].sum())


def enumeration_lines(m: int, shares: Sequence[float]) -> list[str]:
    """A table of :func:`binomial_coverage` at *m* over *shares*."""
    head = " | ".join(f"{100 * e:g}%" for e in shares)
    cells = " | ".join(f"{binomial_coverage(e, m):.3f}" for e in shares)
    return [
        f"| e (m = {m}) | {head} |",
        "|---|" + "---|" * len(shares),
        f"| coverage | {cells} |",
    ]


def conditional_lines(x: np.ndarray, covered: np.ndarray, exact: np.ndarray) -> list[str]:
    """Coverage of one metric's interval given the audit's error count x, beside the
    share of reruns with that x, and the share interval's exact coverage averaged."""
    lines = [
        "| errors found x0 | reruns | share | metric interval covers |",
        "|---|---|---|---|",
    ]
    for value in np.unique(x):
        at = x == value
        lines.append(
            f"| {int(value)} | {int(at.sum())} | {at.mean():.3f} | {covered[at].mean():.3f} |"
        )
    lines.append(
        f"| all | {len(x)} | 1 | {covered.mean():.3f} (the e0 interval, exact over the "
        f"audit's draw, averaged over the reruns' runs: {exact.mean():.3f}) |"
    )
    return lines


def boundary_lines(
    rows: Sequence[tuple[str, str, int, np.ndarray]], keys: Sequence[str]
) -> list[str]:
    """(scenario, rates, reruns, coverage 2 × M) as a table."""
    cols = " | ".join(f"{k} rerun / benchmark" for k in keys)
    out = [f"| fp | fn | Q | n | rates | treatment | reruns | {cols} |"]
    out.append("|---|---|---|---|---|---|---|" + "---|" * len(keys))
    for label, how, m, cov in rows:
        cells = " | ".join(f"{cov[0, j]:.3f} / {cov[1, j]:.3f}" for j in range(len(keys)))
        out.append(f"| {label} | {how} | {m} | {cells} |")
    return out
