"""Text for the report's rank intervals and verdict-error corrections
(:mod:`.corrections`): one small hook per renderer calls these.

A rank cell reads ``2 (1–4)``: rank 2 by the point estimates (1 = best; tied rows share
the better rank), and at the report's level the true rank lies between 1 and 4 under the
interval kind the tables show (``--interval``; with ``both``: ``2 (1–4; 1–5)``, rerun
first). Corrected values are shown beside the raw ones, labelled, never in their place,
with the rates used (an audit's rates with their intervals: percent, at the report's level).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.registry import MAJ
from gpassk_oc.core.uncertainty.metric_intervals import INTERVAL_KINDS
from gpassk_oc.core.uncertainty.verdict_rates import NoErrorsFound, no_errors_found
from gpassk_oc.core.uncertainty.verdict_rates import rate_intervals as exact_intervals
from gpassk_oc.report.data.corrected_cells import (
    computed_kinds,
    corrected_cell,
    corrected_json,
    misfit_note,
)
from gpassk_oc.report.data.identity import identity, identity_header
from gpassk_oc.report.data.numbers import DASH, pct, pct_text
from gpassk_oc.report.data.report_model import Report
from gpassk_oc.report.data.report_parts import ClassRates, ErrorRates, RankCell

__all__ = [
    "csv_columns",
    "csv_values",
    "json_extras",
    "markdown_sections",
    "no_error_notes",
    "rank_text",
    "rate_intervals",
    "rates_text",
    "sections",
]


def _kinds(report: Report) -> tuple[str, ...]:
    shown = report.interval
    return INTERVAL_KINDS if shown == "both" else (shown,)


def rank_text(cell: RankCell | None, kinds: tuple[str, ...]) -> str:
    """``2 (1–4)`` (or ``2`` when no interval was computed)."""
    if cell is None:
        return DASH
    spans = [cell.intervals.get(k) for k in kinds]
    inner = "; ".join(f"{s[0]}–{s[1]}" for s in spans if s is not None)
    return f"{cell.rank} ({inner})" if inner else str(cell.rank)


def rate_intervals(rates: ErrorRates | ClassRates, level: float) -> dict[str, dict[str, Any]]:
    """Per source: fp and fn (fractions) and, for audited rates, their intervals at *level*
    (a sample audit's: the exact quantiles of the law its draws follow, the same numbers
    as its no-error bound; a class audit's: quantiles of its draws; None for stated rates)."""
    out: dict[str, dict[str, Any]] = {}
    alpha = (1 - level) / 2
    audits = {a.source: a for a in rates.audits} if isinstance(rates, ErrorRates) else {}
    for source, (fp, fn) in rates.points.items():
        draws = rates.draws.get(source) if rates.draws is not None else None
        spans: list[list[float] | None] = [None, None]
        exact = exact_intervals(audits[source], level) if source in audits else None
        if draws is not None:  # holds the point (an audit without errors: rate 0)
            for j, value in enumerate((fp, fn)):
                low, high = exact[j] if exact else np.quantile(draws[:, j], [alpha, 1 - alpha])
                spans[j] = [min(float(low), value), max(float(high), value)]
        out[source] = {"fp": fp, "fn": fn, "fp_interval": spans[0], "fn_interval": spans[1]}
    return out


def _rate_text(name: str, value: float, span: list[float] | None) -> str:
    inner = f" [{100 * span[0]:.2f}, {100 * span[1]:.2f}]" if span else ""
    return f"{name} {100 * value:.2f}%{inner}"


def _no_errors(report: Report) -> list[NoErrorsFound]:
    rates = report.rates
    audits = rates.audits if rates is not None else []
    return [found for audit in audits for found in no_errors_found(audit, report.level)]


def _no_error_text(found: NoErrorsFound) -> str:
    return (
        f"{found.source}: the audit found no errors among its {found.audited} "
        f'"{found.verdicts}" verdicts: {found.rate} up to {100 * found.bound:.2f}% (the '
        f"{100 * found.point:g}% point of its Jeffreys-based rate draws) cannot be ruled "
        f"out, so the intervals allow it; they are wider than needed if the true "
        f"{found.rate} is 0."
    )


def no_error_notes(report: Report) -> list[str]:
    """One sentence per audited side that found no error: the rate it cannot rule out
    (:func:`~gpassk_oc.core.uncertainty.verdict_rates.no_errors_found`), which widens the
    corrected intervals."""
    return [_no_error_text(found) for found in _no_errors(report)]


#: why a row has no rank by a metric that exists at k (the rank table's "—")
NO_RANK = "the row has no value of this metric to rank"

#: why an audited source's labels correct nothing (it gives one verdict only)
ONE_VERDICT = "one verdict only, not corrected"


def rates_text(rates: ErrorRates, level: float) -> str:
    """``audit SHEET; rule: fp 0.40% [0.05, 1.90], fn …; with their posterior uncertainty``:
    where the rates came from, each source's rates (an audit's with their intervals at
    *level*) and how they were used; the report's and compare's corrected tables say it."""
    parts = [
        f"{'every source' if s == '*' else s}: {_rate_text('fp', r['fp'], r['fp_interval'])}, "
        f"{_rate_text('fn', r['fn'], r['fn_interval'])}"
        for s, r in rate_intervals(rates, level).items()
    ]
    how = "with their posterior uncertainty" if rates.draws is not None else "taken as exact"
    parts += [f"{s}: {ONE_VERDICT}" for s in rates.skipped]
    return f"{rates.origin}; {'; '.join(parts)}; {how}"


def _corrected_note(report: Report) -> str:
    rates = report.rates
    if rates is not None:
        head = "Raw values and values corrected for verdict error "
        head += f"({rates_text(rates, report.level)})."
    else:
        head = "Raw values and values corrected for verdict error."
    kinds = _corrected_kinds(report)
    shown = {
        ("rerun",): "rerun interval",
        ("benchmark",): "benchmark interval",
        INTERVAL_KINDS: "rerun and benchmark intervals",
    }.get(kinds)
    brackets = (
        f" Brackets: the corrected value's {shown} at {100 * report.level:g}%."
        if shown
        else _no_interval(report)
    )
    zero = "".join(f" {text}" for text in no_error_notes(report))
    return f"{head}{zero}{_vote_note(report)}{brackets}"


def _no_interval(report: Report) -> str:
    """Why no corrected value shows an interval, naming the flag that would give one:
    under ``--interval rerun`` the only values may be maj@k's, which have no rerun
    interval (however many resamples); otherwise the benchmark interval was off."""
    if "benchmark" not in _kinds(report):
        return (
            " No interval: maj@k has no rerun interval, the kind --interval rerun shows; "
            "--interval benchmark or both shows its benchmark interval."
        )
    return " No interval: none was computed (--resamples 0)."


def _vote_note(report: Report) -> str:
    """What the maj@k column rests on: the class rates, or the flag that would give them."""
    if not report.raw_votes:
        return ""
    classes = report.class_rates
    if classes is None:
        return (
            " maj@k is not corrected: sample rates do not say which answer class is the "
            "gold; an audit by class would (gpassk-oc audit --by class, then "
            "--audit-classes SHEET)."
        )
    parts = [
        f"{s}: {_rate_text('e1', r['fp'], r['fp_interval'])}, "
        f"{_rate_text('e0', r['fn'], r['fn_interval'])}"
        for s, r in rate_intervals(classes, report.level).items()
    ]
    return (
        f" maj@k is corrected with class rates ({classes.origin}; e1: graded correct but "
        f"not the gold, e0: graded wrong but the gold, weighted by the chance to win; "
        f"{'; '.join(parts) or 'no class labelled'}); it has no rerun interval (—), as "
        "the raw maj@k."
    )


def _corrected_kinds(report: Report) -> tuple[str, ...]:
    """The interval kinds the corrected table shows: those of ``--interval`` that some
    corrected value has (under the default ``rerun`` only the rerun interval is computed)."""
    return computed_kinds(
        (e for by in report.corrected.values() for e in by.values()), _kinds(report)
    )


#: beside a value corrected with sample-level rates, which assume independent errors
INDEPENDENT_FLAG = "†"


def _sample_level(report: Report, key: str) -> bool:
    """Corrected with the sample-level rates (every metric but maj@k, which has class rates)."""
    return key != MAJ.spec(report.k).key


def _errors(report: Report, key: str) -> str:
    """The error model of *key*'s correction, as the JSON and CSV name it."""
    return "independent" if _sample_level(report, key) else "by class"


def _flag(report: Report, key: str, which: str) -> str:
    return INDEPENDENT_FLAG if which == "corrected" and _sample_level(report, key) else ""


def _cluster_note(report: Report, keys: list[str]) -> str:
    """What the flag says: the correction's error model, and where its limits are measured."""
    if not any(_sample_level(report, k) for k in keys):
        return ""
    return (
        f" {INDEPENDENT_FLAG} assumes independent errors: the rates are per sample, and a "
        "checker that misses one way of writing the gold (or accepts one wrong answer) errs "
        "in all its samples at once, which leaves bias and intervals too narrow; see "
        "docs/verdict-error-and-ranks.md, 'Clustered errors', for how much."
    )


def _raw(report: Report, label: str, dataset: str, key: str) -> float | None:
    cell = report.cells.get((label, dataset, "overall"))
    if cell and key in cell.metrics:
        return float(cell.metrics[key].value)
    if key == MAJ.spec(report.k).key:  # the vote's raw value, over the same questions
        return report.raw_votes.get((label, dataset))
    return None


def _who(report: Report, label: str, dataset: str) -> list[str]:
    """The row's identity cells (model and the settings that tell rows apart), as every
    other table shows them; the label alone when the row is not in the report."""
    for row in report.rows:
        if row.label == label and row.dataset_abbr == dataset:
            return list(identity(row, report.identity).values())
    return [label] + [""] * (len(identity_header(report.identity)) - 1)


def _rank_note(report: Report, by_metric: list[dict[str, RankCell]], kinds: tuple[str, ...]) -> str:
    """The rank table's caption: the intervals it promises are the ones its cells show."""
    given = [k for k in kinds if any(c.intervals.get(k) for m in by_metric for c in m.values())]
    if not given:
        return (
            "Rank (1 = best) by each metric; no interval: the benchmark kind needs the "
            "bootstrap (--resamples > 0)."
        )
    return (
        f"Rank (1 = best) and, in parentheses, its {100 * report.level:g}% interval "
        f"({'; '.join(given)}), by each metric; each row's interval holds its own rank at "
        "that level, not every row's at once."
    )


def sections(report: Report) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """(title, note, header, body) of the rank tables (one per dataset) and the corrected
    table — the data every text format renders."""
    out = []
    columns = report.headline_columns()  # one per metric: G-Pass@1 at every τ is one
    metrics = [key for key, _ in columns]
    ranks = report.ranks
    kinds = _kinds(report)
    for dataset in report.subsets:
        order = report.sort_spec().key  # mG-Pass@k, unless it does not exist at k
        if (dataset, order) not in ranks:
            continue
        by_last = ranks[(dataset, order)]
        labels = sorted(by_last, key=lambda lab: by_last[lab].rank)
        body = [
            _who(report, lab, dataset)
            + [rank_text(ranks[(dataset, m)].get(lab), kinds) for m in metrics]
            for lab in labels
        ]
        note = _rank_note(report, [ranks[(dataset, m)] for m in metrics], kinds)
        header = identity_header(report.identity) + [name for _, name in columns]
        out.append((f"Ranks — {dataset}", note, header, body))
    corrected = report.corrected
    if corrected:
        merged = report.merge_columns(_corrected_keys(report))
        keys = [key for key, _ in merged]
        header = identity_header(report.identity) + ["Dataset"]
        header += [f"{n} {w}{_flag(report, k, w)}" for k, n in merged for w in ("raw", "corrected")]
        body = []
        text = partial(corrected_cell, kinds=_corrected_kinds(report))  # the kinds computed
        for (label, dataset), values in corrected.items():
            line = _who(report, label, dataset) + [dataset]
            for key in keys:
                line += [pct_text(_raw(report, label, dataset, key)), text(values.get(key))]
            body.append(line)
        note = (
            _corrected_note(report)
            + _cluster_note(report, keys)
            + misfit_note(e for v in corrected.values() for e in v.values())
        )
        out.append(("Corrected for verdict error", note, header, body))
    return out


def markdown_sections(report: Report) -> list[str]:
    """Markdown lines of :func:`sections` ([] when there are none)."""
    out: list[str] = []
    for title, note, header, body in sections(report):
        out += [f"## {title}", "", note, "", "| " + " | ".join(header) + " |"]
        out += ["|" + "---|" * len(header)] + ["| " + " | ".join(cells) + " |" for cells in body]
        out.append("")
    return out


def csv_columns(report: Report) -> list[str]:
    """Extra CSV columns: per headline metric its rank and both rank intervals, then per
    corrected metric the corrected value and both intervals, the raw value beside it,
    the corrected value's status and whether the model check rejected it (filled on
    overall lines)."""
    cols = []
    if report.ranks:
        for key in report.headline_metrics():
            cols += [f"{key} rank"] + [
                f"{key} rank_{k}_{e}" for k in INTERVAL_KINDS for e in ("low", "high")
            ]
    for key in _corrected_keys(report):
        cols += [f"{key} corrected"] + [
            f"{key} corrected_{k}_{e}" for k in INTERVAL_KINDS for e in ("low", "high")
        ]
        # what the table's cell and its neighbour show beyond the numbers: the raw value
        # (maj@k's is in no other column), "not corrected"/"—" (status) and ‡ (1: rejected)
        cols += [f"{key} raw", f"{key} corrected_status", f"{key} corrected_model_rejected"]
        cols.append(f"{key} corrected_errors")  # the header's †: 'independent' or 'by class'
    # an audit side without errors, a stated source that corrects nothing, a row not corrected
    if any(_row_notes(report, label, dataset) for label, dataset in _row_keys(report)):
        cols.append("corrected_note")
    return cols


def _row_keys(report: Report) -> list[tuple[str, str]]:
    return [(row.label, row.dataset_abbr) for row in report.rows]


def _row_notes(report: Report, label: str, dataset: str) -> list[str]:
    """What the corrected table's caption and the report's notes say of one row's
    corrections: the CSV's ``corrected_note`` (the JSON has each in its own key)."""
    out = no_error_notes(report) if report.corrected.get((label, dataset)) else []
    if report.rates is not None and (report.corrected or report.not_corrected):
        out += report.rates.unused_lines()
    if (why := report.not_corrected.get((label, dataset))) is not None:
        out.append(f"not corrected: {why}")
    return out


def _corrected_keys(report: Report) -> list[str]:
    """Every corrected metric of any row, in first-seen order (maj@k only on rows with
    votes)."""
    corrected = report.corrected
    return list(dict.fromkeys(key for values in corrected.values() for key in values))


def csv_values(report: Report, label: str, dataset: str, subset: str) -> list[Any]:
    """The values of :func:`csv_columns` for one line (empty off the overall lines)."""
    n = len(csv_columns(report))
    if subset != "overall":
        return [""] * n
    out: list[Any] = []
    ranks = report.ranks
    if ranks:
        for key in report.headline_metrics():
            cell = ranks.get((dataset, key), {}).get(label)
            out.append(cell.rank if cell else "")
            for kind in INTERVAL_KINDS:
                span = cell.intervals.get(kind) if cell else None
                out += list(span) if span else ["", ""]
    values = report.corrected.get((label, dataset), {})
    for key in _corrected_keys(report):
        est = values.get(key)
        nums = (
            (est.value, est.rerun_low, est.rerun_high, est.ci_low, est.ci_high)
            if est
            else (None,) * 5
        )
        out += ["" if v is None else v for v in map(pct, nums)]
        raw = pct(_raw(report, label, dataset, key))
        out.append("" if raw is None else raw)
        out.append(est.status if est else "")
        checked = est is not None and np.isfinite(est.misfit)
        out.append(int(est.model_rejected) if checked else "")  # type: ignore[union-attr]
        out.append(_errors(report, key) if est else "")
    if len(out) < n:  # the corrected_note column
        out.append(" ".join(_row_notes(report, label, dataset)))
    return out


def json_extras(report: Report, label: str, dataset: str) -> dict[str, Any]:
    """``ranks`` and ``corrected`` of a row's JSON (absent when not computed)."""
    out: dict[str, Any] = {}
    ranks = report.ranks
    if ranks:
        out["ranks"] = {}
        for spec in report.headline_specs():
            cell = ranks.get((dataset, spec.key), {}).get(label)
            # the table's "—": a metric undefined at k (mG-Pass@1), or no value to rank
            out["ranks"][spec.key] = (
                {"rank": None, "reason": spec.undefined or NO_RANK}
                if cell is None
                else {
                    "rank": cell.rank,
                    **{k: list(v) if v else None for k, v in cell.intervals.items()},
                }
            )
    values = report.corrected.get((label, dataset), {})
    why_not = report.not_corrected.get((label, dataset))
    if values or why_not:
        rates = report.rates
        classes = report.class_rates
        out["corrected"] = {
            "rates": rate_intervals(rates, report.level) if rates is not None else {},
            "origin": rates.origin if rates is not None else None,
            # audited sources whose labels correct nothing (the table's note names them)
            "skipped_sources": [
                {"source": source, "reason": ONE_VERDICT}
                for source in (rates.skipped if rates is not None else [])
            ],
            # stated sources no row's sample came from (the report's notes say it too)
            "unused_sources": [
                {"source": source, "reason": why}
                for source, why in (rates.unused if rates is not None else {}).items()
            ],
            # why this row has no value corrected with the sample rates (None: it has)
            "not_corrected": why_not,
            **({"class_rates": _class_json(classes, report.level)} if classes else {}),
            "no_errors_found": [
                {
                    "source": f.source,
                    "rate": f.rate,
                    "audited": f.audited,
                    "upper_bound": f.bound,
                    "quantile": f.point,
                    "note": _no_error_text(f),
                }
                for f in _no_errors(report)
            ],
            "metrics": {
                key: {
                    **corrected_json(e),
                    "errors": _errors(report, key),
                    # the raw value the table shows beside it (maj@k's is in no other key)
                    "raw": pct(_raw(report, label, dataset, key)),
                }
                for key, e in values.items()
            },
        }
    return out


def _class_json(classes: ClassRates, level: float) -> dict[str, Any]:
    """The class rates of a JSON row: origin, and e1/e0 with their intervals per source."""
    spans = rate_intervals(classes, level)
    return {
        "origin": classes.origin,
        "by_source": {
            s: {
                "e1": r["fp"],
                "e0": r["fn"],
                "e1_interval": r["fp_interval"],
                "e0_interval": r["fn_interval"],
            }
            for s, r in spans.items()
        },
    }
