"""``compare``'s P(A better than B) under both interval kinds (:mod:`gpassk_oc.core.uncertainty.rank_intervals`).

* rerun — questions fixed: A − B is normal with the rerun SE of the difference, so
  ``P = Φ(diff / se)``;
* benchmark — new questions: the share of paired bootstrap resamples (questions drawn
  jointly for A and B) in which A's mean exceeds B's (ties count half).

"Better" is higher, or lower for a metric whose ``MetricDef.higher_is_better`` is False
(gap@k: the smaller gap is the steadier model).

Both read one pair's data alone (a flat prior on the true difference): over simulated
pairs whose true differences spread over several standard errors, the share of pairs
where A is truly better matches the printed P bin by bin; for pairs known to be close
the printed P is too sure (bench/bench_ranks_and_pairs.py, docs/verdict-error-and-ranks.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.uncertainty.interval_kinds import SHOWN
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.metric_intervals import INTERVAL_KINDS, Difference
from gpassk_oc.core.uncertainty.rank_intervals import benchmark_draws, prob_greater
from gpassk_oc.log import logger
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.data.corrected_cells import (
    computed_kinds,
    corrected_cell,
    corrected_json,
    misfit_note,
)
from gpassk_oc.report.data.numbers import DASH
from gpassk_oc.report.data.report_parts import ErrorRates

__all__ = ["corrected_lines", "prob_a_better", "prob_lines"]


def _values(n: np.ndarray, c: np.ndarray, spec: MetricSpec) -> np.ndarray:
    out = np.full(len(n), np.nan)
    for value in np.unique(n):
        per_c = metric_per_c(spec, int(value))
        if per_c is not None:
            out[n == value] = per_c[c[n == value]]
    return out


#: why a kind's P(A better than B) is not given (JSON ``reason``, the markdown's note on
#: its ``—``), by the status of that kind's interval of A − B
NO_P = {
    "n < 2k": "n < 2k: a side has fewer than 2k samples, so A − B has no rerun interval",
    "undefined": "undefined: the metric has no value on the shared questions",
    "off": "not computed (--resamples 0)",
}
#: ... and where that interval has no width, by kind
NO_WIDTH_P = {
    "rerun": "no width: no question's value moves within the samples of A or of B, so the "
    "rerun interval of A − B has no width, and a probability read off a zero standard error "
    "would only repeat the sign of A − B",
    "benchmark": "no width: every question has the same A − B, so resampling questions "
    "gives no spread, and a probability read off it would only repeat the sign of A − B",
}


def _rerun_p(d: Difference, ahead: float) -> tuple[float | None, str | None]:
    """The rerun kind's P and, where none, why: Φ(ahead / se) needs a rerun interval with
    width (a zero SE gave 1, 0 or ½ whatever the counts say)."""
    from scipy.special import ndtr

    if d.rerun in SHOWN and d.sampling_se > 0:
        return float(ndtr(ahead / d.sampling_se)), None
    return None, NO_P.get(d.rerun, NO_WIDTH_P["rerun"])


def prob_a_better(
    counts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    diffs: dict[str, Difference],
    specs: Sequence[MetricSpec],
    n_boot: int,
    seed: int,
) -> dict[str, dict[str, Any]]:
    """{metric: {"rerun": P, "benchmark": P, "reason": {kind: why P is None, or None}}}:
    P(A better than B) for aligned (n_a, c_a, n_b, c_b), better by the metric's direction
    (``MetricDef.higher_is_better``); None where that kind's interval of A − B has no
    width (its p-value is left out there too) or was not computed."""
    n_a, c_a, n_b, c_b = counts
    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        key, d = spec.key, diffs[spec.key]
        # A is better when its value is higher, or lower where lower is better (gap@k)
        ahead = d.diff if spec.definition.higher_is_better else -d.diff
        rerun, why_rerun = _rerun_p(d, ahead)
        bench: float | None = None
        why_bench = NO_WIDTH_P["benchmark"] if d.ci == "no width" else NO_P.get(d.ci)
        if n_boot <= 0:
            why_bench = NO_P["off"]
        if why_bench is None:
            both = np.stack([_values(n_a, c_a, spec), _values(n_b, c_b, spec)], axis=1)
            both[np.isnan(both).any(axis=1)] = np.nan  # a question counts where both have it
            draws = benchmark_draws(both, n_boot, seed)
            better, worse = (0, 1) if spec.definition.higher_is_better else (1, 0)
            bench = prob_greater(draws[:, better], draws[:, worse])
        reason = {"rerun": why_rerun, "benchmark": why_bench}
        out[key] = {"rerun": rerun, "benchmark": bench, "reason": reason}
    return out


def prob_lines(probs: dict[str, dict[str, Any]]) -> list[str]:
    """The markdown section of P(A better than B)."""
    out = [
        "## P(A better than B)",
        "",
        "rerun: A stays ahead if both are sampled again on these questions; "
        "benchmark: A is ahead on new questions like these.",
        "",
        "| Metric | rerun | benchmark |",
        "|---|---|---|",
    ]
    kinds = ("rerun", "benchmark")
    for key, p in probs.items():
        cells = [DASH if p[k] is None else f"{p[k]:.3f}" for k in kinds]
        out.append(f"| {key} | " + " | ".join(cells) + " |")
    # each reason a dash stands for, once per kind (JSON: "reason")
    reasons = dict.fromkeys((k, p["reason"][k]) for p in probs.values() for k in kinds)
    notes = [f"{DASH} under {k}: {why}." for k, why in reasons if why]
    return out + [""] + [f"{line}\n" for line in notes]


def corrected_lines(
    sides: list[tuple[Row, str]],
    rates: ErrorRates,
    metrics: Sequence[MetricSpec],
    level: float,
    n_boot: int,
    seed: int,
) -> tuple[list[str], dict[str, Any]]:
    """Each side's values corrected for verdict error (``--audit`` / ``--verdict-error``),
    beside the raw ones: markdown lines and the JSON block."""
    from gpassk_oc.core.uncertainty.corrected_estimates import correct
    from gpassk_oc.report.ranking.corrections import (
        MAX_RANK_DRAWS,
        channel_questions,
        rate_arrays,
        unused_sources,
    )

    point, draws = rate_arrays(rates)
    fixable = [m for m in metrics if m.definition.correctable]
    data: dict[str, Any] = {}
    results = []
    tables = [channel_questions(row, list(rates.points)) for row, _ in sides]
    for line in unused_sources(list(rates.points), tables):
        logger.warning(line)
    for (_, side), questions in zip(sides, tables):
        got = correct(
            questions,
            point,
            fixable,
            rate_draws=draws,
            level=level,
            n_boot=min(n_boot, MAX_RANK_DRAWS),
            seed=seed,
        )
        results.append(got)
        data[side] = {k: corrected_json(e) for k, e in got.items()}
    estimates = [e for r in results for e in r.values()]
    kinds = computed_kinds(estimates, INTERVAL_KINDS)  # no benchmark column without resamples
    brackets = f"{' and '.join(kinds)} interval{'s' if len(kinds) > 1 else ''}" if kinds else ""
    out = [
        "## Corrected for verdict error",
        "",
        f"Each side corrected for the verdict error rates ({rates.origin}), which are per "
        "sample: errors are assumed independent (docs/verdict-error-and-ranks.md, 'Clustered "
        "errors')"
        + (f"; brackets: {brackets} at {100 * level:g}%." if brackets else ".")
        + misfit_note(estimates, "that side's"),
        "",
        "| Metric | " + " | ".join(f"{side} corrected" for _, side in sides) + " |",
        "|---|" + "---|" * len(sides),
    ]
    for m in fixable:
        cells = [corrected_cell(r.get(m.key), kinds) for r in results]
        out.append(f"| {m.key} | " + " | ".join(cells) + " |")
    return out + [""], data
