"""How far the fitted difficulty prior's own error moves a corrected mean (pure core).

The correction (:mod:`.corrected_estimates`) averages ``h_q(θ) = E[f(t) | c_q; θ]`` over
questions, with the prior θ = (a, b) fitted to the same questions
(:func:`.verdict_channel.fit_prior`). Holding θ̂ fixed treats it as known; but θ̂ is an
estimate, and its error moves *every* question's h the same way — an error shared by the
whole table, which neither the per-question posterior variance nor a bootstrap over
questions at a fixed θ̂ sees. Under judge-like rates it is a large part of the total
(at fp 2%, fn 8%, 280 questions, n = 48 it takes G-Pass@16_1.0's rerun coverage from 0.95
to 0.93 and its benchmark coverage to 0.90; docs/verdict-error-and-ranks.md).

First order (the delta method for an M-estimator): θ̂ − θ ≈ J⁻¹ Σ_q s_q with s_q the
question's score and J = −Σ_q ∂s_q/∂θ the observed information, so a mean moves by
D · J⁻¹ Σ_q s_q, with D = ∂ mean h / ∂θ. Each question therefore carries an
*increment* ``Q · D · J⁻¹ (s_q − s̄)`` on top of its value h_q:

* the **benchmark** interval bootstraps ``h_q +`` increment, so each resample moves by
  the refit prior's shift too (a one-step refit, without refitting);
* the **rerun** interval adds the increments' variance ``Σ_q increment² / Q²`` (the
  sandwich variance of D θ̂) to the posterior variance; the two errors are uncorrelated,
  as the posterior error is orthogonal to every function of the counts;
* a **rate draw** refits the prior by one Newton step, ``J⁻¹ Σ_q s_q(draw)``.

Every derivative is exact, from the posterior over the true count t (weights P(t)) and
digammas: with ``L_t = log B(a + t, b + n − t)``, ∂L_t/∂a = ψ(a + t) − ψ(a + b + n), so
``∂h/∂a = Cov_P(f(t), ψ(a + t))``, the score is ``E_P ψ(a + t) − ψ(a + b + n) − ψ(a) +
ψ(a + b)`` and the Hessian adds ``Var_P`` of those digammas to trigamma terms. Without
verdict error the posterior is a point mass: every slope is exactly 0 and so is every
increment, so the corrected value and intervals stay the raw ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gpassk_oc.core.uncertainty.difficulty_model import Difficulty

__all__ = [
    "AtomTerms",
    "PriorInfluence",
    "atom_terms",
    "prior_influence",
    "scores",
    "stack_terms",
]


@dataclass(frozen=True)
class AtomTerms:
    """Per atom: the score of its marginal likelihood in (a, b) (A × 2), its Hessian
    (A × 2 × 2) and the slopes ∂h/∂(a, b) of its corrected values (A × M × 2; NaN
    where the metric is undefined)."""

    score: np.ndarray
    hessian: np.ndarray
    slope: np.ndarray


@lru_cache(maxsize=256)
def _digammas(n: int, a: float, b: float) -> tuple[np.ndarray, ...]:
    """ψ(a + t), ψ(b + n − t), ψ'(a + t), ψ'(b + n − t) for t = 0..n and the constant
    parts of the score (2,) and the Hessian (2 × 2)."""
    from scipy.special import polygamma, psi

    t = np.arange(n + 1)
    s_const = psi(a + b) - psi(a + b + n)
    h_const = float(polygamma(1, a + b) - polygamma(1, a + b + n))
    score0 = np.array([s_const - psi(a), s_const - psi(b)])
    hess0 = np.array([[h_const - polygamma(1, a), h_const], [h_const, h_const - polygamma(1, b)]])
    return psi(a + t), psi(b + n - t), polygamma(1, a + t), polygamma(1, b + n - t), score0, hess0


def atom_terms(posts: np.ndarray, f: np.ndarray, prior: Difficulty) -> AtomTerms:
    """:class:`AtomTerms` of atoms with one total n: *posts* (A × (n+1)) their posteriors
    over the true count, *f* ((n+1) × M) the per-count estimator."""
    n = posts.shape[1] - 1
    psi_a, psi_b, tri_a, tri_b, score0, hess0 = _digammas(n, prior.a, prior.b)
    # centred digammas: exactly 0 at a point-mass posterior's t, so slopes are exactly 0
    da = psi_a[None, :] - (posts @ psi_a)[:, None]
    db = psi_b[None, :] - (posts @ psi_b)[:, None]
    score = np.stack([posts @ psi_a, posts @ psi_b], axis=1) + score0
    hessian = np.empty((len(posts), 2, 2))
    hessian[:, 0, 0] = (posts * da * da).sum(axis=1) + posts @ tri_a
    hessian[:, 1, 1] = (posts * db * db).sum(axis=1) + posts @ tri_b
    hessian[:, 0, 1] = hessian[:, 1, 0] = (posts * da * db).sum(axis=1)
    hessian += hess0
    slope = np.stack([(posts * da) @ f, (posts * db) @ f], axis=2)
    return AtomTerms(score, hessian, slope)


def scores(posts: np.ndarray, prior: Difficulty) -> np.ndarray:
    """(… × 2): the score in (a, b) of atoms with posteriors *posts* (… × (n+1)), as in
    :func:`atom_terms`, for a stack of rate draws at once."""
    psi_a, psi_b, _, _, score0, _ = _digammas(posts.shape[-1] - 1, prior.a, prior.b)
    return np.stack([posts @ psi_a, posts @ psi_b], axis=-1) + score0


@dataclass(frozen=True)
class PriorInfluence:
    """The fitted prior's first-order effect on every metric's corrected mean."""

    inverse_information: np.ndarray  # J⁻¹ (2 × 2); zeros when the fit is not interior
    slopes: np.ndarray  # M × 2: D_j = ∂ mean_j / ∂(a, b)

    def increments(self, weight: np.ndarray, terms: AtomTerms, valid: np.ndarray) -> np.ndarray:
        """A × M: ``q_j · D_j J⁻¹ (s_i − s̄_j)`` per atom i where metric j is defined (else
        0), s̄_j the mean score over those atoms: their weighted sum is 0, so a mean of
        h + increments is the mean of h."""
        q = weight @ valid
        per_atom = terms.score @ self.inverse_information @ self.slopes.T  # A × M
        per_atom = np.where(valid, per_atom, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            centre = np.where(q > 0, (weight @ per_atom) / q, 0.0)
        return np.where(valid, (per_atom - centre) * q, 0.0)

    def refit_shift(self, weight: np.ndarray, score: np.ndarray) -> np.ndarray:
        """R × M: how far one Newton step of the prior's refit under other rates moves each
        mean; *score*: R × A × 2, the atoms' scores at the current prior under each draw."""
        step = np.einsum("a,rak->rk", weight.astype(float), score) @ self.inverse_information
        return step @ self.slopes.T


def prior_influence(weight: np.ndarray, terms: AtomTerms, valid: np.ndarray) -> PriorInfluence:
    """The influence of the prior fitted to atoms of *weight* with *terms* (at θ̂). Where
    the observed information is not positive definite (the fit sits on a bound: no
    spread beyond binomial noise, every question solved, …) the prior is taken as known
    (a zero J⁻¹): there is no interior optimum to linearise around."""
    info = -np.einsum("a,aij->ij", weight.astype(float), terms.hessian)
    slopes = _mean_slopes(weight, terms.slope, valid)
    det = info[0, 0] * info[1, 1] - info[0, 1] * info[1, 0]
    ok = bool(np.all(np.isfinite(info))) and info[0, 0] > 0 and det > 1e-12 * info[0, 0] ** 2
    # 2 × 2 inverse in closed form (a LAPACK call costs more than the whole sum here)
    inverse = np.array([[info[1, 1], -info[0, 1]], [-info[1, 0], info[0, 0]]]) / det
    inverse = inverse if ok else np.zeros((2, 2))
    return PriorInfluence(inverse, slopes)


def _mean_slopes(weight: np.ndarray, slope: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """M × 2: the weighted mean over atoms where each metric is defined."""
    filled = np.where(valid[:, :, None], slope, 0.0)
    q = weight @ valid
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.einsum("a,amk->mk", weight.astype(float), filled) / q[:, None]
    return np.where(q[:, None] > 0, out, 0.0)


def stack_terms(parts: Sequence[AtomTerms], order: np.ndarray) -> AtomTerms:
    """Terms computed per group of atoms (one total n each), back in atom order: *order*
    lists, for each stacked row, the atom index it belongs to."""
    score = np.concatenate([p.score for p in parts])
    hessian = np.concatenate([p.hessian for p in parts])
    slope = np.concatenate([p.slope for p in parts])
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    return AtomTerms(score[back], hessian[back], slope[back])
