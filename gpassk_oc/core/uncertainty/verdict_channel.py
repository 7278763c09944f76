"""The verdict-error channel and the posterior over a question's true correct counts.

A checker that keeps a truly correct sample with probability ``1 − fn`` and lets a wrong
one through with probability ``fp`` turns a true count t of n into an observed count
``c = Bin(t, 1 − fn) + Bin(n − t, fp)``: :func:`channel_matrix` is ``K[c, t] = P(c | t)``.

Samples settled by different checkers (rules, judge, …) pass different channels. A
question is then a tuple of ``(n_s, c_s)`` per channel s. With the question-difficulty
prior ``p ~ Beta(a, b)`` of the rerun interval and i.i.d. true verdicts given p,

    P(t_1..t_S, c) ∝ Π_s C(n_s, t_s) K_s[c_s, t_s] · B(a + t, b + n − t),  t = Σ t_s,

so the posterior over the true total t is a convolution over channels times a beta
function (:func:`true_count_posterior`). With every rate 0 each K_s is the identity and
the posterior is a point mass on t = c, exactly. The prior is fitted to the observed
counts *through the channel* (:func:`fit_prior`), the same Beta-binomial model the rerun
interval fits, so the contaminated counts do not bias it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from gpassk_oc.core.uncertainty.difficulty_model import LOG_S_BOUNDS, LOGIT_MU_BOUNDS, Difficulty

__all__ = [
    "Question",
    "channel_matrix",
    "check_rates",
    "draw_log_weights",
    "fit_prior",
    "likelihood_weights",
    "true_count_posterior",
]

#: one question: ``((n_s, c_s), …)`` per channel, in the order of the rates it is given with
Question = tuple[tuple[int, int], ...]


def check_rates(fp: float, fn: float, where: str = "rates") -> None:
    """ValueError (one line naming *where*) unless 0 ≤ fp, fn < 1 and fp + fn < 1: at
    fp + fn = 1 a verdict says nothing about the truth and no correction exists."""
    for name, value in (("fp", fp), ("fn", fn)):
        if not (math.isfinite(value) and 0 <= value < 1):
            raise ValueError(f"{where}: {name}={value:g} must lie in [0, 1)")
    if fp + fn >= 1:
        raise ValueError(
            f"{where}: fp + fn = {fp + fn:g} >= 1: the verdicts then carry no information "
            "about the truth (nothing to correct)"
        )


def _binom_rows(sizes: np.ndarray, p: float, width: int) -> np.ndarray:
    """Row i: the Bin(sizes[i], p) pmf over 0..width−1 (zero beyond sizes[i]); exact point
    masses at p = 0 and p = 1, so a rate of 0 changes nothing."""
    from scipy.special import gammaln

    j = np.arange(width)[None, :]
    m = sizes[:, None]
    if p in (0.0, 1.0):
        at = m if p == 1.0 else np.zeros_like(m)
        return (j == at).astype(float)
    inside = j <= m
    jj = np.where(inside, j, 0)
    log_pmf = (
        gammaln(m + 1)
        - gammaln(jj + 1)
        - gammaln(m - jj + 1)
        + jj * np.log(p)
        + (m - jj) * np.log1p(-p)
    )
    return np.where(inside, np.exp(log_pmf), 0.0)


@lru_cache(maxsize=512)
def channel_matrix(n: int, fp: float, fn: float) -> np.ndarray:
    """``K[c, t] = P(observed c | true t)`` for c, t = 0..n (columns sum to 1)."""
    t = np.arange(n + 1)
    kept = _binom_rows(t, 1.0 - fn, n + 1)  # true-correct samples still marked correct
    let_through = _binom_rows(n - t, fp, n + 1)  # wrong samples marked correct
    k = np.empty((n + 1, n + 1))
    for i in range(n + 1):
        k[:, i] = np.convolve(kept[i], let_through[i])[: n + 1]
    k.setflags(write=False)
    return k


@lru_cache(maxsize=512)
def _log_binom(n: int) -> np.ndarray:
    return np.array(
        [math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) for j in range(n + 1)]
    )


def likelihood_weights(question: Question, rates: Sequence[tuple[float, float]]) -> np.ndarray:
    """``w(t) ∝ Σ_{Σ t_s = t} Π_s C(n_s, t_s) K_s[c_s, t_s]`` for t = 0..n, scaled to max 1
    (the scale is the same for every t, so it cancels in the posterior)."""
    out = np.ones(1)
    for (n_s, c_s), (fp, fn) in zip(question, rates, strict=True):
        row = channel_matrix(n_s, float(fp), float(fn))[c_s]
        with np.errstate(divide="ignore"):
            log_h = np.log(row) + _log_binom(n_s)
        h = np.exp(log_h - np.max(log_h))
        out = np.convolve(out, h)
        out /= out.max()
    return out


def _log_beta_terms(n: int, prior: Difficulty) -> np.ndarray:
    return _log_beta_cached(n, prior.a, prior.b)


@lru_cache(maxsize=256)
def _log_beta_cached(n: int, a: float, b: float) -> np.ndarray:
    from scipy.special import betaln

    t = np.arange(n + 1)
    out = np.asarray(betaln(a + t, b + n - t), dtype=float)
    out.setflags(write=False)
    return out


def true_count_posterior(
    question: Question, rates: Sequence[tuple[float, float]], prior: Difficulty
) -> np.ndarray:
    """P(true correct count = t | the observed counts) for t = 0..n (sums to 1)."""
    w = likelihood_weights(question, rates)
    n = len(w) - 1
    log_b = _log_beta_terms(n, prior)
    post = w * np.exp(log_b - log_b[w > 0].max())
    return post / post.sum()


def fit_prior(
    questions: Sequence[Question],
    weight: Sequence[int] | np.ndarray,
    rates: Sequence[tuple[float, float]],
    start: Difficulty | None = None,
) -> Difficulty:
    """Maximum-likelihood Beta(a, b) of the *true* success rates from the observed counts
    through the channel: ``Σ_q weight_q · log Σ_t w_q(t) B(a + t, b + n_q − t) / B(a, b)``,
    searched on (logit μ, log s) within the bounds of :func:`.difficulty_model.fit_beta`.
    ValueError with fewer than 2 questions or when the optimiser fails."""
    from scipy.optimize import minimize
    from scipy.special import betaln

    wq = np.asarray(weight, dtype=float)
    if wq.sum() < 2:
        raise ValueError(f"fitting a Beta needs at least 2 questions, got {wq.sum():g}")
    by_n: dict[int, tuple[list[np.ndarray], list[float]]] = {}
    for q, w in zip(questions, wq):
        lw = likelihood_weights(q, rates)
        by_n.setdefault(len(lw) - 1, ([], []))[0].append(lw)
        by_n[len(lw) - 1][1].append(w)
    blocks = [(n, np.array(rows), np.array(ws), np.arange(n + 1)) for n, (rows, ws) in by_n.items()]
    if start is None:
        start = Difficulty(1.0, 1.0, "start")

    def nll(x: np.ndarray) -> float:
        mu = 1.0 / (1.0 + math.exp(-x[0]))
        s = math.exp(x[1])
        a, b = mu * s, (1 - mu) * s
        total = 0.0
        for n, rows, ws, t in blocks:
            lb = betaln(a + t, b + n - t) - betaln(a, b)
            top = lb.max()
            total += float(ws @ (np.log(rows @ np.exp(lb - top)) + top))
        return -total

    mu0 = min(max(start.mean, 1e-4), 1 - 1e-4)
    x0 = np.array(
        [
            min(max(math.log(mu0 / (1 - mu0)), LOGIT_MU_BOUNDS[0]), LOGIT_MU_BOUNDS[1]),
            min(max(math.log(start.a + start.b), LOG_S_BOUNDS[0]), LOG_S_BOUNDS[1]),
        ]
    )
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        res = minimize(
            nll,
            x0,
            method="Nelder-Mead",
            bounds=[LOGIT_MU_BOUNDS, LOG_S_BOUNDS],
            options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 4000},
        )
    if not res.success or not np.all(np.isfinite(res.x)):
        raise ValueError(
            f"the Beta fit through the verdict channel did not converge: {res.message}"
        )
    mu = 1.0 / (1.0 + math.exp(-float(res.x[0])))
    s = math.exp(float(res.x[1]))
    return Difficulty(mu * s, (1 - mu) * s, "fitted through the verdict channel")


@lru_cache(maxsize=16)
def _pair_counts(n: int) -> np.ndarray:
    """(n+1) × (n+1) × (n+1): [c, t, j] = C(t, k) C(n − t, c − k) with k = min(c, t) − j,
    the ways to see c correct verdicts when t samples are truly correct and k of them are
    kept (0 where impossible)."""
    out = np.zeros((n + 1, n + 1, n + 1))
    for c in range(n + 1):
        for t in range(n + 1):
            top = min(c, t)
            for j in range(top + 1):
                k = top - j
                if c - k <= n - t:
                    out[c, t, j] = math.comb(t, k) * math.comb(n - t, c - k)
    out.setflags(write=False)
    return out


def _channel_log_rows(n: int, c: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """R × len(c) × (n+1): ``log C(n, t) P(observed c | true t)`` for every draw r of the
    rates (*rates*: R × 2 of (fp, fn), each in (0, 1) with fp + fn < 1), all draws at once.

    With k of the t correct samples kept, ``P(c | t) = Σ_k C(t, k) C(n − t, c − k)
    (1 − fn)^k fn^(t − k) fp^(c − k) (1 − fp)^(n − t − c + k)``, which is
    ``fn^t fp^c (1 − fp)^(n − t − c) z^m · Σ_j C(t, m − j) C(n − t, c − m + j) y^j`` with
    z = (1 − fn)(1 − fp) / (fn·fp) = 1/y, m = min(c, t). As fp + fn < 1, z > 1: every
    term is positive and at most its coefficient (the j = 0 one is ≥ 1), so one matrix
    product over j evaluates the sums of all draws without overflow or cancellation;
    the prefactor stays in logs."""
    fp, fn = rates[:, 0], rates[:, 1]
    log_z = np.log1p(-fn) + np.log1p(-fp) - np.log(fn) - np.log(fp)  # R
    powers = np.exp(-np.outer(np.arange(n + 1), log_z))  # [j, r] = y_r^j
    sums = _pair_counts(n)[c].reshape(-1, n + 1) @ powers  # [(c, t), r]
    sums = sums.reshape(len(c), n + 1, len(rates)).transpose(2, 0, 1)  # [r, c, t]
    t = np.arange(n + 1)[None, None, :]
    per_t = t * (np.log(fn) - np.log1p(-fp))[:, None, None] + _log_binom(n)[None, None, :]
    per_c = c[None, :, None] * (np.log(fp) - np.log1p(-fp))[:, None, None]
    per_c = per_c + n * np.log1p(-fp)[:, None, None]
    return np.log(sums) + per_t + per_c + np.minimum(c[:, None], t[0])[None] * log_z[:, None, None]


def draw_posteriors(
    questions: Sequence[Question], rate_draws: np.ndarray, prior: Difficulty
) -> np.ndarray:
    """R × Q × (n+1): :func:`true_count_posterior` of each question under each draw of the
    rates (*rate_draws*: R × S × 2), for questions with the same n_s per channel."""
    full = draw_log_weights(questions, rate_draws)
    full += _log_beta_terms(full.shape[2] - 1, prior)[None, None, :]
    post = np.exp(full - full.max(axis=2, keepdims=True))
    return post / post.sum(axis=2, keepdims=True)


def draw_log_weights(questions: Sequence[Question], rate_draws: np.ndarray) -> np.ndarray:
    """R × Q × (n+1): the log of :func:`likelihood_weights` (up to a constant per row) of
    each question under each draw of the rates (*rate_draws*: R × S × 2), for questions
    with the same n_s per channel: one pass per channel for all draws instead of one per
    draw and question. A channel without error in every draw adds its observed count to
    t exactly (−inf elsewhere)."""
    sizes = [n_s for n_s, _ in questions[0]]
    counts = np.array([[c_s for _, c_s in q] for q in questions], dtype=np.int64)
    moving = [s for s in range(len(sizes)) if rate_draws[:, s, :].any()]
    shift = counts.sum(axis=1) - counts[:, moving].sum(axis=1)
    log_like = np.zeros((len(rate_draws), len(questions), 1))
    for s in moving:
        rates = np.clip(rate_draws[:, s, :], 1e-300, None)  # a rate of 0 in some draws
        rows = _channel_log_rows(sizes[s], counts[:, s], rates)
        if log_like.shape[2] == 1:
            log_like = log_like + rows
            continue
        top_a, top_b = log_like.max(axis=2, keepdims=True), rows.max(axis=2, keepdims=True)
        a, b = np.exp(log_like - top_a), np.exp(rows - top_b)
        wider = np.zeros(a.shape[:2] + (a.shape[2] + sizes[s],))
        for k in range(sizes[s] + 1):
            wider[:, :, k : k + a.shape[2]] += a * b[:, :, k : k + 1]
        with np.errstate(divide="ignore"):
            log_like = np.log(wider) + top_a + top_b
    n = sum(sizes)
    full = np.full((len(rate_draws), len(questions), n + 1), -np.inf)
    at = shift[:, None] + np.arange(log_like.shape[2])[None, :]
    full[:, np.arange(len(questions))[:, None], at] = log_like
    return full
