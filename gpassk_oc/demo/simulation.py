"""The demo's simulated models and their exact truth (no OpenCompass, no I/O).

Two models answer each demo problem correctly with a known probability p that depends on
the problem and the sampling temperature (:func:`success_probability`);
:class:`TemperatureResponder` serves them from :class:`gpassk_oc.demo.sim_endpoint.SimEndpoint`.
The truth of every report metric is computed in closed form from the binomial distribution
(:func:`true_metric`), independently of the hypergeometric estimators the report uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec, parse_metric
from gpassk_oc.core.uncertainty.metric_intervals import rerun_se
from gpassk_oc.demo import problems
from gpassk_oc.demo.sim_endpoint import ProbabilityResponder, SimQuestion, questions_from_records

__all__ = [
    "MODELS",
    "STEADY",
    "SHAKY",
    "TEMPERATURE_PULL",
    "base_probability",
    "success_probability",
    "question_probability",
    "TemperatureResponder",
    "true_metric",
    "true_metrics",
]

STEADY = "gpassk-demo-steady"  # weaker but stable
SHAKY = "gpassk-demo-shaky"  # stronger but unstable
MODELS = (STEADY, SHAKY)
#: At temperature T a probability p moves a fraction min(1, PULL·T) of the way to 0.5.
TEMPERATURE_PULL = 0.15


def base_probability(model: str, position: int) -> float:
    """Success probability at temperature 0 of the *position*-th problem (0-based) of a
    split; the same in both languages.

    * ``gpassk-demo-shaky`` (strong, unstable): 0.50, 0.55, …, 0.85 — solves every
      problem often, few of them every time;
    * ``gpassk-demo-steady`` (weak, stable): 0.97 on the first three problems of each
      split, 0.03 on the others — either (almost) always right or (almost) always wrong.
    """
    if model == SHAKY:
        return 0.50 + 0.05 * (position % 8)
    if model == STEADY:
        return 0.97 if position % 8 < 3 else 0.03
    raise KeyError(f"unknown simulated model {model!r} (known: {', '.join(MODELS)})")


def success_probability(model: str, position: int, temperature: float) -> float:
    """Temperature effect: sampling hotter pulls p toward 0.5, the least stable value,
    ``p(T) = p + min(1, TEMPERATURE_PULL·T)·(0.5 − p)``."""
    p = base_probability(model, position)
    return p + min(1.0, TEMPERATURE_PULL * temperature) * (0.5 - p)


def question_probability(model: str, question: str, temperature: float) -> float:
    """p of a demo question given by its text (English or Chinese)."""
    position = _POSITIONS.get(question)
    if position is None:
        raise KeyError(f"not a demo question: {question[:60]!r}")
    return success_probability(model, position, temperature)


def _all_rows() -> list[tuple[str, str, int, dict]]:
    """(split, language, position in the split, JSONL row) of every demo question."""
    return [
        (split, lang, i, row)
        for split in problems.SPLITS
        for lang in problems.LANGUAGES
        for i, row in enumerate(problems.rows(split, lang))
    ]


_POSITIONS: dict[str, int] = {row["question"]: i for _, _, i, row in _all_rows()}


class TemperatureResponder:
    """Endpoint responder: model *and* request temperature decide p.

    Delegates to :class:`ProbabilityResponder` with one synthetic model name per
    (model, temperature), ``"{model}@T={temperature}"``, so every grid point draws from its
    own reproducible stream; a temperature not announced up front is an HTTP 500.
    """

    def __init__(self, temperatures: Iterable[float], seed: int = 0):
        rows = _all_rows()
        self.questions: list[SimQuestion] = questions_from_records([r for *_, r in rows])
        table: dict[str, dict[str, float]] = {}
        for model in MODELS:
            for t in temperatures:
                table[self.key(model, float(t))] = {
                    row["question"]: success_probability(model, i, float(t))
                    for _, _, i, row in rows
                }
        self._inner = ProbabilityResponder(self.questions, table, seed=seed)

    @staticmethod
    def key(model: str, temperature: float) -> str:
        return f"{model}@T={temperature!r}"

    def __call__(self, model: str, messages: list, params: dict) -> str:
        temperature = params.get("temperature")
        if temperature is None:
            raise LookupError("request without temperature")
        return self._inner(self.key(model, float(temperature)), messages, params)


# --------------------------------------------------------------------------- truth
def true_metric(key: str | MetricSpec, p: Sequence[float] | np.ndarray) -> float:
    """True value (fraction) of a report metric for questions with success probabilities
    *p*: the mean over questions of the per-question quantity for k i.i.d. samples (the
    closed form of the metric's definition, ``MetricDef.expected``):

    ``G-Pass@k_τ``: P(X ≥ m), X ~ Binomial(k, p), m = max(⌈τk⌉, 1) on exact rationals;
    ``mG-Pass@k``: (2/k)·Σ_{i=⌈k/2⌉+1}^{k} P(X ≥ i) (the documented weights);
    ``pass@k``: 1 − (1−p)^k; ``gap@k``: pass@k − p^k.
    """
    spec = parse_metric(key)
    expected = spec.definition.expected
    if expected is None:
        raise ValueError(f"{spec.key} has no closed form at known success rates")
    return float(np.mean(expected(np.asarray(p, dtype=float), spec.k, spec.tau)))


def true_metrics(
    specs: Iterable[MetricSpec],
    p: Sequence[float] | np.ndarray,
    n: int | Sequence[int] | np.ndarray,
) -> dict[str, dict[str, float]]:
    """``{key: {"value", "rerun_se"}}`` in percent: the truth, and the standard error of
    the report's estimator around it for *n* samples per question (exact under the model)."""
    specs = list(specs)
    se = rerun_se(n, p, specs)
    # unrounded: the leaderboard rounds once, when it writes the number
    return {
        spec.key: {"value": 100 * true_metric(spec, p), "rerun_se": 100 * se[spec.key]}
        for spec in specs
    }
