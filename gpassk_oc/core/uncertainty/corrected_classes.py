"""G-Pass@k (and every count metric) corrected for verdict error by answer class (pure core).

Real checker errors come in clusters: a rule that misses ``\\frac{1}{2}`` for the gold
``0.5`` misses every sample written that way, and a wrong form it lets through is let
through in all its samples. The sample-level correction (:mod:`.corrected_estimates`)
assumes each sample errs on its own; under clustered errors its posterior over a
question's true count is too narrow and centred wrongly (docs/verdict-error-and-ranks.md,
"Clustered errors", gives the numbers).

An audit by answer class (``gpassk-oc audit --by class``, the one maj@k uses,
:mod:`.corrected_majority`) measures the errors where they happen. Per source the class
rates are

* ``e1`` = P(a class graded correct is *not* the gold),
* ``e0`` = P(a class graded wrong *is* the gold),

here as plain shares of the audited classes (each audited class counts once: a class
audit draws classes uniformly within a stratum). Class j of a question is truly correct
with chance ``π_j = 1 − e1`` (graded correct) or ``e0`` (graded wrong), independently of
the question's other classes; the true count is the sum of the sizes of the truly correct
classes, so its posterior is the convolution over classes of
``(1 − π_j)·δ_0 + π_j·δ_{size_j}`` (abstaining samples, which gave no answer, are wrong),
and the corrected per-question value is ``E[f(T)]`` for the per-count estimator f the raw
table uses. With every rate 0 the posterior is a point mass on the graded count and the
value is the raw one, exactly.

Intervals are those of the sample-level correction, fed with this posterior: the rerun
interval adds the posterior mean squared error ``E[(g(p) − h)² | classes]`` over
questions (p | t from the difficulty prior fitted to the graded counts) and mixes over
draws of the class rates; the benchmark interval bootstraps the per-question values and
shifts each resample by one draw of the rates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec, parse_metric
from gpassk_oc.core.uncertainty.bootstrap import DEFAULT_LEVEL
from gpassk_oc.core.uncertainty.corrected_estimates import (
    Corrected,
    _bootstrap,
    _mean,
    _moment_tables,
    _rerun_bounds,
)
from gpassk_oc.core.uncertainty.corrected_majority import ClassQuestion, ClassRates
from gpassk_oc.core.uncertainty.difficulty_model import Difficulty
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.verdict_channel import check_rates, fit_prior

__all__ = [
    "class_count_posterior",
    "class_leverage",
    "correct_by_class",
    "corrected_class_value",
]


def _samples(question: ClassQuestion) -> int:
    classes, abstain = question
    return sum(size for size, _, _ in classes) + abstain


def class_count_posterior(question: ClassQuestion, rate_draws: np.ndarray) -> np.ndarray:
    """(R × (n+1)): per draw of the class rates (R × channels × 2, each (e1, e0)) the
    posterior over the question's true count, a convolution over its classes."""
    draws = np.asarray(rate_draws, dtype=float).reshape(len(rate_draws), -1, 2)
    pmf = np.zeros((len(draws), _samples(question) + 1))
    pmf[:, 0] = 1.0
    for size, graded_correct, channel in question[0]:
        pi = 1 - draws[:, channel, 0] if graded_correct else draws[:, channel, 1]
        shifted = np.zeros_like(pmf)
        shifted[:, size:] = pmf[:, : pmf.shape[1] - size]
        pmf = (1 - pi)[:, None] * pmf + pi[:, None] * shifted
    return pmf


def corrected_class_value(
    question: ClassQuestion, rates: ClassRates, spec: str | MetricSpec
) -> float:
    """One question's corrected value ``E[f(T)]`` at class rates (per channel (e1, e0));
    NaN where k exceeds its samples."""
    table = metric_per_c(spec, _samples(question))
    if table is None:
        return math.nan
    return float(class_count_posterior(question, np.asarray([rates], dtype=float))[0] @ table)


def _values(
    atoms: Sequence[ClassQuestion],
    stacked: np.ndarray,
    prior: Difficulty,
    specs: Sequence[MetricSpec],
) -> tuple[np.ndarray, np.ndarray]:
    """*stacked*: (M × D × channels × 2) rates per metric, draw 0 the point rates. Returns
    (D × A × M) corrected values per draw and (A × M) the posterior MSE at the point
    rates; NaN where k exceeds a question's samples. One posterior per atom serves every
    metric's rates at once (M·D rows)."""
    m, d = stacked.shape[:2]
    flat = stacked.reshape(m * d, *stacked.shape[2:])
    values = np.full((d, len(atoms), m), np.nan)
    err = np.full((len(atoms), m), np.nan)
    for i, q in enumerate(atoms):
        f, g1, g2 = _moment_tables(_samples(q), prior, specs)
        pmf = class_count_posterior(q, flat).reshape(m, d, -1)
        values[:, i] = np.einsum("mdt,tm->dm", pmf, f)
        h = values[0, i]
        first = pmf[:, 0]  # M × (n+1): the point rates' posterior per metric
        e1, e2 = np.einsum("mt,tm->m", first, g1), np.einsum("mt,tm->m", first, g2)
        err[i] = np.maximum(e2 - 2 * h * e1 + h * h, 0.0)
    return values, err


def _graded_prior(atoms: Sequence[ClassQuestion], weight: np.ndarray) -> Difficulty:
    """The difficulty prior of the rerun interval, fitted to the graded counts."""
    graded = [((_samples(q), sum(s for s, ok, _ in q[0] if ok)),) for q in atoms]
    return fit_prior(graded, weight, [(0.0, 0.0)])


def _stack(
    specs: Sequence[MetricSpec],
    rates: ClassRates | Mapping[str, ClassRates],
    rate_draws: np.ndarray | Mapping[str, np.ndarray] | None,
) -> np.ndarray:
    """(M × D × channels × 2): each metric's point rates, then its draws."""
    out = []
    for spec in specs:
        point = rates[spec.key] if isinstance(rates, Mapping) else rates
        for s, (e1, e0) in enumerate(point):
            check_rates(e1, e0, f"class channel {s}")
        rows = [np.asarray(point, dtype=float)]
        drawn = rate_draws[spec.key] if isinstance(rate_draws, Mapping) else rate_draws
        if drawn is not None:
            rows += list(np.asarray(drawn, dtype=float))
        out.append(np.stack(rows))
    if len({a.shape for a in out}) > 1:
        raise ValueError("class rates: every metric needs the same channels and draws")
    return np.stack(out)


def correct_by_class(
    questions: Sequence[ClassQuestion],
    rates: ClassRates | Mapping[str, ClassRates],
    metrics: Sequence[str | MetricSpec],
    *,
    rate_draws: np.ndarray | Mapping[str, np.ndarray] | None = None,
    prior: Difficulty | None = None,
    level: float = DEFAULT_LEVEL,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Corrected]:
    """Every count metric's mean over *questions* corrected with class rates (per channel
    (e1, e0); channel 0 is usually "no audit", (0, 0)), with both intervals; *rate_draws*
    (R × channels × 2) carry the rates' uncertainty (None: known). Both may be given per
    metric key (rates weighted by :func:`class_leverage` differ by metric). Vote metrics
    (maj@k) are 'not corrected' here: :func:`.corrected_majority.correct_maj` corrects
    them."""
    specs = [parse_metric(m) for m in metrics]
    stacked = _stack(specs, rates, rate_draws)
    index: dict[ClassQuestion, int] = {}
    inverse = [index.setdefault(q, len(index)) for q in questions]
    atoms = list(index)
    weight = np.bincount(np.array(inverse, dtype=np.int64), minlength=len(atoms))
    if prior is None:
        prior = _graded_prior(atoms, weight)
    values, mse = _values(atoms, stacked, prior, specs)
    point, valid = _mean(weight, values[0]), ~np.isnan(values[0])
    counted = weight @ valid
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(weight @ np.where(valid, mse, 0.0)) / counted  # the point rates' error
    means = [_mean(weight, v) for v in values[1:]]
    rerun = _rerun_bounds(point, se, means, level, seed)
    bench = _bootstrap(weight, values[0], list(values[1:]), point, level, n_boot, seed)
    table = np.column_stack([point, *rerun, *bench]).tolist()
    return {
        spec.key: Corrected(v[0], v[1], v[2], v[3], v[4], _status(spec, int(counted[j])))
        for j, (spec, v) in enumerate(zip(specs, table))
    }


def _status(spec: MetricSpec, counted: int) -> str:
    if not spec.definition.correctable:
        return "not corrected"  # a vote metric: corrected_majority
    return "ok" if counted else "undefined"


def class_leverage(question: ClassQuestion, j: int, spec: str | MetricSpec) -> float:
    """How far class j moves the question's value when its verdict flips:
    ``|f(c ∓ size_j) − f(c)|`` for the graded count c (0 where k exceeds the samples). An
    audited class counts with this weight in its stratum's rate (see the module
    docstring)."""
    classes = question[0]
    table = metric_per_c(spec, _samples(question))
    if table is None:
        return 0.0
    c = sum(size for size, graded, _ in classes if graded)
    size, graded, _ = classes[j]
    return abs(float(table[c - size if graded else c + size] - table[c]))
