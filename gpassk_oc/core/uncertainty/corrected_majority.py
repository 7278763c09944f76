"""maj@k corrected for verdict error, from an audit by answer class (pure core).

A question's judged samples fall into vote classes (:mod:`gpassk_oc.core.judging.voting`):
one class graded correct, wrong classes, and abstentions. maj@k asks whether *the gold
class* wins a vote among k samples. A checker that errs can grade the gold class wrong
(it then sits among the wrong classes) or grade a wrong class correct. Sample-level rates
cannot say which class is the gold (docs/verdict-error-and-ranks.md); class-level rates
can, and an audit that labels one answer per sampled class measures them directly.

Per source s (the source most of the class's samples came from) the class rates are

* ``e1_s`` = P(the class is *not* the gold | it was graded correct),
* ``e0_s`` = P(the class *is* the gold | it was graded wrong),

and a class j of a question counts as the gold with chance ``π_j = 1 − e1`` (graded
correct) or ``e0`` (graded wrong). The corrected maj@k of the question is the expected
vote of its gold class,

    Σ_j π_j · V_j(k),

where ``V_j(k)`` is the exact chance that class j wins the k-sample vote (ties as maj@k
counts them; :func:`gpassk_oc.core.metrics.majority_vote.maj_curve` with j as the correct
class); no gold class scores 0. The value is linear in the chances, so only each class's
marginal chance matters, not how the errors of one question's classes go together; the
value stays in [0, 1], since a draw's win shares add up to at most 1 over the classes
(at most one class wins). With every rate 0 the graded-correct class is the gold and
the value is the raw maj@k, exactly.

**Rates weighted by the chance to win.** Errors do not fall evenly on classes: the gold
class a checker misses is most often the question's largest class (the one that wins the
vote), and the wrong class it lets through is most often a small one. A plain share of
mis-graded classes would spread a missed gold class's weight over every wrong class,
mostly small ones that win nothing, and barely correct maj@k at all. So each audited
class j counts with weight ``V_j(k)``: a stratum's rate is the ratio
``Σ V_j · [j mis-graded] / Σ V_j`` over its audited classes. With classes audited
uniformly at random within the stratum, the corrected mean is then the ratio estimator of
``Σ_j [j is the gold] · V_j(k)`` over the run's classes: consistent whether or not errors
go with the chance to win. The rates' uncertainty is the Jeffreys posterior
Beta(x + ½, m − x + ½) at the audit's effective size m — the size at which a plain share
would have the ratio's (linearised) variance — with ``x = m · rate``; a stratum
(source × verdict) with no audited class is taken as it is (rate 0), as an unaudited
source is.

The corrected mean's benchmark interval (new questions) bootstraps the per-question values
and shifts each resample by one draw of the rates (:func:`.corrected_estimates._bootstrap`); there
is no rerun interval, as the raw maj@k has none (a vote's rerun needs the class
probabilities).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from gpassk_oc.core.metrics.majority_vote import maj_curve
from gpassk_oc.core.uncertainty.bootstrap import DEFAULT_LEVEL
from gpassk_oc.core.uncertainty.corrected_estimates import Corrected, _bootstrap
from gpassk_oc.core.uncertainty.verdict_channel import check_rates
from gpassk_oc.core.uncertainty.verdict_rates import stratified_beta

__all__ = [
    "ClassAudit",
    "ClassQuestion",
    "class_rates",
    "correct_maj",
    "corrected_maj_value",
]

#: one vote class: (size, graded correct, channel of its rates)
VoteClass = tuple[int, bool, int]
#: one question: its classes and its abstentions (samples voting for nothing)
ClassQuestion = tuple[tuple[VoteClass, ...], int]
#: per channel (e1, e0); channel 0 is "no audit" (0, 0)
ClassRates = Sequence[tuple[float, float]]


#: one audited class: (weight V_j(k), mis-graded: the label disagrees with its verdict)
Labelled = tuple[float, bool]


def _share(labelled: Sequence[Labelled]) -> tuple[float, float]:
    """(weighted share R of mis-graded classes, effective audit size m); (0, 0) when
    empty. m matches the ratio estimator's linearised variance,
    ``Var R ≈ n/(n−1) · Σ w²(y − R)² / (Σ w)² = R(1 − R)/m``; with no error found (or
    only errors) that variance is 0 and m is Kish's ``(Σ w)² / Σ w²``."""
    w = np.array([x for x, _ in labelled], dtype=float)
    if not w.size or w.sum() <= 0:
        return 0.0, 0.0
    y = np.array([e for _, e in labelled], dtype=float)
    rate = float(w @ y / w.sum())
    n = len(w)
    var = n / max(n - 1, 1) * float((w * w) @ (y - rate) ** 2) / float(w.sum()) ** 2
    if var > 0:
        return rate, rate * (1 - rate) / var
    return rate, float(w.sum() ** 2 / (w * w).sum())


@dataclass(frozen=True)
class ClassAudit:
    """One source's class audit at one k: the audited classes graded correct and graded
    wrong, each with its weight V_j(k) and whether the label says it was mis-graded
    (graded correct but not the gold; graded wrong but the gold)."""

    source: str
    graded_correct: tuple[Labelled, ...]
    graded_wrong: tuple[Labelled, ...]

    @property
    def audited(self) -> int:
        return len(self.graded_correct) + len(self.graded_wrong)

    def point(self) -> tuple[float, float]:
        """(e1, e0): the weighted shares (0 for a stratum nobody audited)."""
        return _share(self.graded_correct)[0], _share(self.graded_wrong)[0]

    def draws(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """(size × 2) draws of (e1, e0) from their posteriors, stratified as the sample
        audit's are (:func:`.verdict_rates.stratified_beta`: quantiles over the draws hold
        the posterior's own points); a stratum nobody audited stays at 0."""
        out = np.zeros((size, 2))
        for j, labelled in enumerate((self.graded_correct, self.graded_wrong)):
            rate, m = _share(labelled)
            if m > 0:
                out[:, j] = stratified_beta(m * rate + 0.5, m * (1 - rate) + 0.5, size, rng)
        return out


def class_rates(
    audits: Sequence[ClassAudit], n_draws: int, seed: int = 0
) -> tuple[dict[str, tuple[float, float]], dict[str, np.ndarray]]:
    """Point (e1, e0) and (n_draws × 2) posterior draws per audited source. ValueError (one
    line) when e1 + e0 ≥ 1: the verdicts would then say nothing about which class is gold."""
    rng = np.random.default_rng(seed)
    points: dict[str, tuple[float, float]] = {}
    draws: dict[str, np.ndarray] = {}
    for audit in audits:
        points[audit.source] = audit.point()
        e1, e0 = points[audit.source]
        check_rates(e1, e0, f"class audit, source {audit.source!r} (e1, e0)")
        drawn = audit.draws(n_draws, rng)
        # a draw with e1 + e0 >= 1 inverts the verdicts: keep it just inside the bound
        total = drawn.sum(axis=1)
        over = total >= 1 - 1e-9
        drawn[over] *= ((1 - 1e-9) / total[over])[:, None]
        draws[audit.source] = drawn
    return points, draws


def corrected_maj_value(
    question: ClassQuestion, rates: ClassRates, k: int, fractions: bool = False
) -> float | Fraction:
    """The question's maj@k corrected for class-level verdict error (NaN where k exceeds
    its samples); *fractions*: exact, with the rates taken as Fractions."""
    classes, abstain = question
    sizes = [size for size, _, _ in classes]
    if k > sum(sizes) + abstain:
        return math.nan
    conv = Fraction if fractions else float
    priors = []
    for _, graded_correct, channel in classes:
        e1, e0 = (conv(x) for x in rates[channel])
        priors.append(1 - e1 if graded_correct else e0)
    total: float | Fraction = conv(0)
    for j, p in enumerate(priors):
        if p == 0:
            continue
        others = tuple(s for i, s in enumerate(sizes) if i != j)
        total += p * maj_curve((sizes[j], others, abstain), fractions)[k - 1]
    return total


def _coefficients(
    atoms: Sequence[ClassQuestion], channels: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """(A, B), atoms × channels: the summed chances to win V_j(k) of the classes graded
    correct (A) and graded wrong (B) per channel, so that an atom's corrected value at
    rates (e1, e0) is ``A @ (1 − e1) + B @ e0`` — linear in the rates, one matrix product
    per draw of them. NaN rows where k exceeds the question's samples."""
    a = np.zeros((len(atoms), channels))
    b = np.zeros_like(a)
    for i, (classes, abstain) in enumerate(atoms):
        sizes = [size for size, _, _ in classes]
        if k > sum(sizes) + abstain:
            a[i] = b[i] = np.nan
            continue
        for j, (size, graded_correct, channel) in enumerate(classes):
            others = tuple(x for m, x in enumerate(sizes) if m != j)
            win = float(maj_curve((size, others, abstain))[k - 1])
            (a if graded_correct else b)[i, channel] += win
    return a, b


def _values(coef: tuple[np.ndarray, np.ndarray], rates: ClassRates) -> np.ndarray:
    r = np.asarray(rates, dtype=float).reshape(-1, 2)
    return (coef[0] @ (1 - r[:, 0]) + coef[1] @ r[:, 1])[:, None]


def correct_maj(
    questions: Sequence[ClassQuestion],
    rates: ClassRates,
    k: int,
    *,
    rate_draws: np.ndarray | None = None,
    level: float = DEFAULT_LEVEL,
    n_boot: int = 2000,
    seed: int = 0,
) -> Corrected:
    """The corrected maj@k over *questions* (mean of :func:`corrected_maj_value`) with its
    benchmark interval; *rate_draws* (R × channels × 2) carry the rates' uncertainty.
    The rerun bounds are NaN (see the module docstring)."""
    for s, (e1, e0) in enumerate(rates):
        check_rates(e1, e0, f"class channel {s}")
    index: dict[ClassQuestion, int] = {}
    inverse = [index.setdefault(q, len(index)) for q in questions]
    atoms = list(index)
    weight = np.bincount(np.array(inverse, dtype=np.int64), minlength=len(atoms))
    coef = _coefficients(atoms, len(rates), k)
    values = _values(coef, rates)
    valid = ~np.isnan(values[:, 0])
    if not valid.any():
        nan = math.nan
        return Corrected(nan, nan, nan, nan, nan, "undefined")
    point = np.array([weight[valid] @ values[valid, 0] / weight[valid].sum()])
    draws = []
    for draw in [] if rate_draws is None else rate_draws:
        draws.append(_values(coef, draw))
    low, high = _bootstrap(weight, values, draws, point, level, n_boot, seed)
    return Corrected(float(point[0]), math.nan, math.nan, float(low[0]), float(high[0]))
