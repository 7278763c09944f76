"""Verdict error rates: stated ones, and ones measured by an audit, with their uncertainty.

An audit labels a stratified sample of verdicts (:mod:`gpassk_oc.report.commands.audit_command`): per
source, some verdicts "correct" (of the N1 the source gave) and some "wrong" (of its N0).
Among the audited "correct" ones a share e1 is truly wrong; among the audited "wrong" ones
a share e0 is truly correct. The population of the source then holds N1·e1 let-through
wrong samples among N1·e1 + N0·(1 − e0) truly wrong ones, and N0·e0 rejected correct
samples among N1·(1 − e1) + N0·e0 truly correct ones:

    fp = N1·e1 / (N1·e1 + N0·(1 − e0)),   fn = N0·e0 / (N1·(1 − e1) + N0·e0).

Each e is the share of errors among the N verdicts of its stratum in this run: the m
audited ones are known (x errors), the other N − m hold Binomial(N − m, e′) more with e′
from the Jeffreys posterior Beta(x + ½, m − x + ½). Draws of (e1, e0) become draws of
(fp, fn) — the rates' uncertainty, which the corrected intervals carry; an audit of a
large part of a small run leaves little of it. The point rates use the observed shares x/m.
Stated rates (``--verdict-error fp=…,fn=…``) are taken as known exactly.

A side whose audit finds no error gives the point rate 0, but its draws lie above 0: a rate
the audit cannot rule out (:func:`no_errors_found` gives its bound) widens the corrected
intervals. No interval that holds a rate of 0 whenever an audit finds none can do
otherwise; where the true rate is 0 such intervals cover more often than their level
(docs/verdict-error-and-ranks.md, "Audits that find no errors").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gpassk_oc.core.uncertainty.verdict_channel import check_rates
from gpassk_oc.core.vocabulary import Source

#: what ``by=`` may name: a results file's ``source`` words, and ``unknown`` for the
#: samples of a file that records none
VERDICT_SOURCES = (*Source.values(), "unknown")

__all__ = [
    "ALL_SOURCES",
    "MIN_AUDITED",
    "NoErrorsFound",
    "SourceAudit",
    "no_errors_found",
    "parse_verdict_error",
    "rate_intervals",
    "rates_from_audit",
    "stratified_beta",
]

#: the key of rates that apply to every source
ALL_SOURCES = "*"
#: fewer audited verdicts than this in a source give rates too vague to correct with
MIN_AUDITED = 20


@dataclass(frozen=True)
class SourceAudit:
    """One source's verdict counts in the run and its audit counts."""

    source: str
    n_correct: int  # N1: verdicts "correct" the source gave in the run
    n_wrong: int  # N0: verdicts "wrong"
    audited_correct: int  # m1: audited among the "correct" verdicts
    false_correct: int  # x1: of those, truly wrong
    audited_wrong: int  # m0: audited among the "wrong" verdicts
    false_wrong: int  # x0: of those, truly correct

    @property
    def audited(self) -> int:
        return self.audited_correct + self.audited_wrong

    def rates_of(self, e1: np.ndarray, e0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(fp, fn) from the shares e1 = P(wrong | "correct"), e0 = P(correct | "wrong")."""
        n1, n0 = float(self.n_correct), float(self.n_wrong)
        with np.errstate(invalid="ignore", divide="ignore"):
            wrong, right = n1 * e1 + n0 * (1 - e0), n1 * (1 - e1) + n0 * e0
            fp = np.where(wrong > 0, n1 * e1 / np.where(wrong > 0, wrong, 1), 0.0)
            fn = np.where(right > 0, n0 * e0 / np.where(right > 0, right, 1), 0.0)
        return fp, fn

    @property
    def one_verdict(self) -> bool:
        """The source gave only one verdict (rules mode's ``rule_undecided`` is always
        "wrong"): its verdicts say nothing about the truth, so this model cannot correct
        them (the report's verdict sensitivity bounds them instead)."""
        return self.n_correct == 0 or self.n_wrong == 0

    def point(self) -> tuple[float, float]:
        """The rates at the observed shares e1 = x1/m1 and e0 = x0/m0 (unbiased; an audit
        that finds no error gives rate 0, and only the interval widens)."""
        e1 = self.false_correct / self.audited_correct if self.audited_correct else 0.0
        e0 = self.false_wrong / self.audited_wrong if self.audited_wrong else 0.0
        fp, fn = self.rates_of(np.array(e1), np.array(e0))
        return float(fp), float(fn)

    def draws(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """(size × 2) draws of (fp, fn) from the posterior of the run's own error shares.

        The audit drew its m verdicts from the N a stratum holds, without replacement:
        only the N − m unaudited ones are unknown. So a draw is the audited errors x plus
        errors among the rest, ~ Binomial(N − m, e) with e from the Jeffreys posterior,
        over N. When an audit labels a large part of a small run this is much narrower
        than the Jeffreys posterior itself, which would treat the run as unlimited."""
        e1 = _share_draws(self.false_correct, self.audited_correct, self.n_correct, size, rng)
        e0 = _share_draws(self.false_wrong, self.audited_wrong, self.n_wrong, size, rng)
        fp, fn = self.rates_of(e1, e0)
        # the channel needs fp + fn < 1 (a checker no worse than a coin); a side without
        # labels, or with every label an error, can draw a share of exactly 1: such draws
        # are held just inside that edge rather than leaving the model
        fp = np.minimum(fp, 1 - _EDGE)
        fn = np.minimum(fn, (1 - fp) * (1 - _EDGE))
        return np.stack([fp, fn], axis=1)


#: how far inside fp + fn < 1 a rate draw is held
_EDGE = 1e-6


def stratified_beta(a: float, b: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """*size* draws of Beta(a, b), stratified: one from each of *size* equal slices of its
    probability, in random order (called once per rate, the draws of two rates form a Latin
    hypercube). Drawn plainly, the k-th smallest of R draws lies on average at the
    k/(R + 1) point of the law, so the 2.5% and 97.5% points of 100 draws hold about 93% of
    it, not 95%, and intervals taken as quantiles over the draws came out narrower than
    their level where a rate's uncertainty dominates (docs/verdict-error-and-ranks.md,
    "Audits of 100 verdicts"). Each draw still follows the law exactly. One owner for the
    sample audit's shares (:meth:`SourceAudit.draws`) and the class audit's
    (:meth:`~gpassk_oc.core.uncertainty.corrected_majority.ClassAudit.draws`)."""
    from scipy.special import betaincinv

    slices = (rng.permutation(size) + rng.random(size)) / size
    return np.asarray(betaincinv(a, b, slices), dtype=float)


def _share_draws(x: int, m: int, total: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of the share of errors among *total* verdicts, x of the m audited wrong: e
    from the Jeffreys posterior, stratified (:func:`stratified_beta`), then the errors among
    the unaudited verdicts."""
    e = stratified_beta(x + 0.5, m - x + 0.5, size, rng)
    if total <= m:  # every verdict audited (or the counts disagree): the share is known
        return np.full(size, x / m) if m else e
    return (x + rng.binomial(total - m, e)) / total


@dataclass(frozen=True)
class NoErrorsFound:
    """One side of a source's audit that found no errors, and the rate it cannot rule out."""

    source: str
    rate: str  # "fp": no error among the audited "correct" verdicts; "fn": the "wrong" ones
    audited: int  # verdicts audited on that side
    bound: float  # the rate's upper bound: its (1 + level)/2 point under the draws' law
    point: float  # the quantile's probability, (1 + level)/2

    @property
    def verdicts(self) -> str:
        return "correct" if self.rate == "fp" else "wrong"


@lru_cache(maxsize=16)  # each side's law serves both rates and both ends of each
def _error_count_law(x: int, m: int, total: int) -> tuple[np.ndarray, np.ndarray]:
    """The law of a stratum's error count that the draws follow (:func:`_share_draws`):
    x plus BetaBinomial(total − m, x + ½, m − x + ½), as (counts, probabilities), both
    tails beyond 1e-12 of the posterior left out; a stratum audited whole holds its x."""
    from scipy.stats import beta, betabinom

    rest = total - m
    if rest <= 0:
        return np.array([x]), np.array([1.0])
    ends = beta.ppf([1e-12, 1 - 1e-12], x + 0.5, m - x + 0.5) * rest
    pad = 8 * rest**0.5 + 10  # the binomial part's spread, 16 standard deviations
    k = np.arange(max(0, int(ends[0] - pad)), min(rest, int(ends[1] + pad)) + 1)
    pmf = betabinom.pmf(k, rest, x + 0.5, m - x + 0.5)
    return x + k, pmf / pmf.sum()


def _rate_quantile(own: tuple[int, int, int], other: tuple[int, int, int], q: float) -> float:
    """The q point of a rate whose own side holds x errors among m audited of N verdicts
    (*own* = (x, m, N)), the other side x′ among m′ of N′ (*other*).

    With K errors on the own side and C on the other, the rate is K / (K + N′ − C)
    (fp: K let-through among the N1 "correct" verdicts, N′ − C the truly wrong among the
    N0 "wrong" ones; fn the same with the sides swapped), so rate ≤ t exactly when
    K ≤ t·(N′ − C)/(1 − t): P(rate ≤ t) is a sum over C, and t is found by bisection."""
    k_vals, k_pmf = _error_count_law(*own)
    cdf = np.cumsum(k_pmf)
    c_vals, c_pmf = _error_count_law(*other)
    room = (other[2] - c_vals).astype(float)  # N′ − C

    def below(t: float) -> float:
        # K's counts run k_vals[0], k_vals[0] + 1, …: the CDF at a limit is an index
        at = np.floor(t * room / (1 - t)).astype(np.int64) - int(k_vals[0])
        held = np.where(at >= 0, cdf[np.clip(at, 0, len(cdf) - 1)], 0.0)
        return float(c_pmf @ held)

    if below(0.0) >= q:  # K = 0 holds q already: the point is 0 itself
        return 0.0
    low, high = 0.0, 1.0
    for _ in range(48):  # to 4e-15
        mid = (low + high) / 2
        low, high = (low, mid) if below(mid) >= q else (mid, high)
    return high


@lru_cache(maxsize=64)
def no_errors_found(audit: SourceAudit, level: float) -> tuple[NoErrorsFound, ...]:
    """The sides of *audit* with audited verdicts but no error among them, each with the
    upper bound of its rate: the (1 + level)/2 point of the rate under the law its draws
    follow (:meth:`SourceAudit.draws`: per side, the audited errors plus
    BetaBinomial(N − m, x + ½, m − x + ½) among the rest — the Jeffreys posterior carried to
    the unaudited verdicts — the two sides independent): computed exactly, the upper end
    of the rate's interval that the report prints from the draws. A side audited whole (m = N)
    knows its share is 0 and is left out, as is a source with one verdict only. Cached:
    every output of a report asks."""
    if audit.one_verdict:
        return ()
    q = (1 + level) / 2
    ones = (audit.false_correct, audit.audited_correct, audit.n_correct)
    zeros = (audit.false_wrong, audit.audited_wrong, audit.n_wrong)
    out = []
    for rate, own, other in (("fp", ones, zeros), ("fn", zeros, ones)):
        x, m, total = own
        if x or not m or total <= m:
            continue
        bound = _rate_quantile((0, m, total), other, q)
        out.append(NoErrorsFound(audit.source, rate, m, bound, q))
    return tuple(out)


@lru_cache(maxsize=64)
def rate_intervals(audit: SourceAudit, level: float) -> tuple[tuple[float, float], ...]:
    """((fp low, fp high), (fn low, fn high)): the (1 ∓ level)/2 points of each rate under
    the law its draws follow (:meth:`SourceAudit.draws`), computed exactly as
    :func:`no_errors_found` computes its bound. The report prints these rather than
    quantiles of its 100 draws, which move with the draws' seed (an upper end of 13.0% to
    15.6% in 90% of seeds for an exact 14.9%) and so disagreed with the bound printed
    beside them."""
    ones = (audit.false_correct, audit.audited_correct, audit.n_correct)
    zeros = (audit.false_wrong, audit.audited_wrong, audit.n_wrong)
    qs = ((1 - level) / 2, (1 + level) / 2)
    return tuple(
        (_rate_quantile(own, other, qs[0]), _rate_quantile(own, other, qs[1]))
        for own, other in ((ones, zeros), (zeros, ones))
    )


def rates_from_audit(
    audits: Iterable[SourceAudit], n_draws: int = 200, seed: int = 0
) -> tuple[dict[str, tuple[float, float]], dict[str, np.ndarray]]:
    """Point rates and (n_draws × 2) posterior draws per audited source (a source that
    gives one verdict only is left out: :attr:`SourceAudit.one_verdict`). ValueError (one
    line) for a source with fewer than :data:`MIN_AUDITED` audited verdicts."""
    rng = np.random.default_rng(seed)
    points: dict[str, tuple[float, float]] = {}
    draws: dict[str, np.ndarray] = {}
    for audit in audits:
        if audit.one_verdict:  # its labels are not used, however many: no minimum
            continue
        if audit.audited < MIN_AUDITED:
            raise ValueError(
                f"source {audit.source!r}: only {audit.audited} audited verdicts; need at "
                f"least {MIN_AUDITED} to correct with its rates"
            )
        points[audit.source] = audit.point()
        check_rates(*points[audit.source], where=f"source {audit.source!r}")
        draws[audit.source] = audit.draws(n_draws, rng)
    return points, draws


def _rate(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a number") from None
    return value


def parse_verdict_error(specs: Iterable[str]) -> dict[str, tuple[float, float]]:
    """``fp=0.01,fn=0.02[,by=judge]`` (one per source; without ``by`` for every source)
    → {source or :data:`ALL_SOURCES`: (fp, fn)}. ValueError, one line, on anything else."""
    out: Mapping[str, tuple[float, float]] = {}
    result: dict[str, tuple[float, float]] = dict(out)
    for spec in specs:
        where = f"--verdict-error {spec}"
        fields: dict[str, str] = {}
        for part in spec.split(","):
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or key not in ("fp", "fn", "by") or key in fields:
                raise ValueError(f"{where}: need fp=RATE,fn=RATE[,by=SOURCE], got {part!r}")
            fields[key] = value.strip()
        if "fp" not in fields or "fn" not in fields:
            raise ValueError(f"{where}: need both fp= and fn=")
        fp, fn = _rate(fields["fp"], where), _rate(fields["fn"], where)
        check_rates(fp, fn, where)
        source = fields.get("by", ALL_SOURCES) or ALL_SOURCES
        # a misspelt source (by=rules) would correct nothing and still print its rates
        if source != ALL_SOURCES and source not in VERDICT_SOURCES:
            raise ValueError(
                f"{where}: by={source!r} is not a verdict source; one of "
                f"{', '.join(VERDICT_SOURCES)}"
            )
        if source in result:
            raise ValueError(f"{where}: rates for {source!r} given twice")
        result[source] = (fp, fn)
    return result
