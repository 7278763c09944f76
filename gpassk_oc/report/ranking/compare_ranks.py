"""``compare``'s P(A better than B) under both interval kinds, read off the same
construction as the interval and p-value printed beside A − B, so the three agree: with
p that kind's two-sided p-value, P = 1 − p/2 on the side of the observed difference (p/2
on the other), and P lies beyond 1 − α/2 or below α/2 exactly when p < α, i.e. when the
(1 − α) interval leaves 0 out.

* rerun — questions fixed: the t distribution of the rerun interval (ν as there), so
  ``P = T_ν(diff / se)``;
* benchmark — new questions: the BCa confidence distribution of the paired bootstrap
  (questions drawn jointly for A and B), whose quantiles are the benchmark interval.

Before, P was ``Φ(diff / se)`` and the raw share of resamples with A ahead: beside a
p-value of 0.0033 it could read 0.97, or 0.98 beside p = 0.053 (few questions: ν small,
a skewed bootstrap).

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

from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.metrics.same_metric import merged_columns
from gpassk_oc.core.uncertainty.interval_kinds import SHOWN
from gpassk_oc.core.uncertainty.metric_intervals import INTERVAL_KINDS, Difference
from gpassk_oc.log import logger
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.data.corrected_cells import (
    computed_kinds,
    corrected_cell,
    corrected_json,
    misfit_note,
)
from gpassk_oc.report.data.numbers import DASH
from gpassk_oc.report.data.report_parts import ErrorRates, unused_line

__all__ = ["beside", "corrected_lines", "prob_a_better", "prob_lines"]


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


def _from_p(p: float, ahead: float) -> float:
    """P(A better) under the confidence distribution whose two-sided p of "A − B = 0" is
    *p*: 1 − p/2 on the side A is *ahead* by (½ where it is not ahead either way)."""
    return 1 - p / 2 if ahead > 0 else p / 2 if ahead < 0 else 0.5


def _kind_p(d: Difference, kind: str, ahead: float, n_boot: int) -> tuple[float | None, str | None]:
    """One kind's P and, where there is none, why: it needs that kind's interval, with
    width (a zero spread gave 1, 0 or ½ whatever the counts said)."""
    status, p = (d.rerun, d.rerun_p) if kind == "rerun" else (d.ci, d.p_value)
    if kind == "benchmark" and n_boot <= 0:
        return None, NO_P["off"]
    if status in SHOWN and p == p:
        return _from_p(p, ahead), None
    return None, NO_P.get(status, NO_WIDTH_P[kind])


def prob_a_better(
    diffs: dict[str, Difference], specs: Sequence[MetricSpec], n_boot: int
) -> dict[str, dict[str, Any]]:
    """{metric: {"rerun": P, "benchmark": P, "reason": {kind: why P is None, or None}}}:
    P(A better than B) from each kind's p-value of A − B (module docstring), better by the
    metric's direction (``MetricDef.higher_is_better``); None where that kind's interval
    of A − B has no width (its p-value is left out there too) or was not computed."""
    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        key, d = spec.key, diffs[spec.key]
        # A is better when its value is higher, or lower where lower is better (gap@k)
        ahead = d.diff if spec.definition.higher_is_better else -d.diff
        got = {kind: _kind_p(d, kind, ahead, n_boot) for kind in INTERVAL_KINDS}
        out[key] = {kind: p for kind, (p, _) in got.items()}
        out[key]["reason"] = {kind: why for kind, (_, why) in got.items()}
    return out


def beside(value: float, mark: float, digits: int = 3) -> str:
    """*value* to *digits* decimals, with more (up to 8) where those would read as *mark*
    but *value* is not *mark*: which side of it *value* lies on is the verdict (a p-value
    beside α, a P beside 1 − α/2); "<mark" or ">mark" where no digits tell them apart."""
    while digits < 8 and value != mark and f"{value:.{digits}f}" == f"{mark:.{digits}f}":
        digits += 1
    text = f"{value:.{digits}f}"
    if value != mark and text == f"{mark:.{digits}f}":  # closer than any digits show
        return f"<{mark:g}" if value < mark else f">{mark:g}"
    return text


def _p_cell(p: float | None, alpha: float) -> str:
    """A printed P, with the digits that show its side of α/2 or 1 − α/2."""
    if p is None:
        return DASH
    return beside(p, alpha / 2 if p < 0.5 else 1 - alpha / 2)


def prob_lines(
    probs: dict[str, dict[str, Any]],
    level: float = 0.95,
    splits: dict[str, dict[str, dict[str, Any]]] | None = None,
    rows: Sequence[tuple[str, str]] | None = None,
) -> list[str]:
    """The markdown section of P(A better than B): the overall table, then (``--by-split``)
    one of every split × language, each read off that split's own interval and p. *rows*:
    (key, name) of the tables' rows (:func:`~gpassk_oc.core.metrics.same_metric.merged_columns`;
    None: one per key of *probs*)."""
    alpha = 1 - level
    rows = [(key, key) for key in probs] if rows is None else rows
    out = [
        "## P(A better than B)",
        "",
        "rerun: A stays ahead if both are sampled again on these questions; "
        "benchmark: A is ahead on new questions like these. Each is read off the interval "
        f"and p beside A − B: 1 − p/2 on the side A − B lies on, so it lies above "
        f"{1 - alpha / 2:g} or below {alpha / 2:g} exactly when p < {alpha:g}.",
        "",
        "| Metric | rerun | benchmark |",
        "|---|---|---|",
    ]
    kinds = INTERVAL_KINDS
    for key, name in rows:
        cells = [_p_cell(probs[key][k], alpha) for k in kinds]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    splits = splits or {}
    if splits:
        out += ["", "Per split × language (A − B of that split's tables above):", ""]
        out += ["| Split | Metric | rerun | benchmark |", "|---|---|---|---|"]
        for name, by_metric in splits.items():
            for key, metric in rows:
                cells = [_p_cell(by_metric[key][k], alpha) for k in kinds]
                out.append(f"| {name} | {metric} | " + " | ".join(cells) + " |")
    # each reason a dash stands for, once per kind (JSON: "reason")
    every = [p for table in [probs, *splits.values()] for p in table.values()]
    reasons = dict.fromkeys((k, p["reason"][k]) for p in every for k in kinds)
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
    from gpassk_oc.report.ranking.correction_inputs import channel_questions
    from gpassk_oc.report.ranking.corrections import MAX_RANK_DRAWS, rate_arrays, unused_sources

    point, draws = rate_arrays(rates)
    fixable = [m for m in metrics if m.definition.correctable]
    data: dict[str, Any] = {}
    results = []
    tables = [channel_questions(row, list(rates.points)) for row, _ in sides]
    rates.unused = unused_sources(list(rates.points), tables)  # the output says it too
    for source, why in rates.unused.items():
        logger.warning(unused_line(source, why))
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
        + misfit_note(estimates, "that side's")
        + " A − B, its intervals and p-values, and P(A better than B) above are of the raw "
        "verdicts: no corrected difference is tested here.",
        "",
        "| Metric | " + " | ".join(f"{side} corrected" for _, side in sides) + " |",
        "|---|" + "---|" * len(sides),
    ]
    for key, name in merged_columns(fixable):  # G-Pass@1 at every τ: one row
        cells = [corrected_cell(r.get(key), kinds) for r in results]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out + [""], data
