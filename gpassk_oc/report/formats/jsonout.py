"""JSON output of ``gpassk-oc report``: one entry per row (percent values, 4 decimals by
the rounding rule of :mod:`.numbers`); greedy runs follow with ``"greedy": true``."""

from __future__ import annotations

from typing import Any

from gpassk_oc.core.metrics.metric_keys import ACCURACY, PASS_AT_1
from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.metrics.same_metric import same_as
from gpassk_oc.core.uncertainty.metric_intervals import Estimate
from gpassk_oc.report.data.collect import Row, Run
from gpassk_oc.report.data.identity import identity
from gpassk_oc.report.data.numbers import pct
from gpassk_oc.report.data.published_section import cell_json, unmatched_json
from gpassk_oc.report.data.report_model import Cell, Report, Sensitivity, accounting, sorted_rows
from gpassk_oc.report.data.sweep import sweep_json, sweep_specs
from gpassk_oc.report.formats.corrections_out import json_extras
from gpassk_oc.report.formats.format_spec import Format, RenderOptions


def estimate_json(est: Estimate) -> dict[str, Any]:
    """``value``; the two named intervals ``rerun`` (same questions, new samples: ``low``,
    ``high``, ``se``, ``status``) and ``benchmark`` (new questions too: ``low``, ``high``,
    ``status``) — bounds null when ``status`` is not 'ok', 'posterior', 'wide' (wider
    than needed: :func:`.tables.wide_note`) or 'unreliable' (fewer than 4 questions
    vary, or the width is mostly the fitted model's guess: :func:`.tables.unreliable_reasons`) but 'no width',
    'n < 2k', 'off' or 'undefined'; ``ci_low``/``ci_high``/``ci`` repeat the benchmark interval and
    ``sampling_se`` the rerun SE under their release-0.1 names; ``n_questions``."""
    return {
        "value": pct(est.value),
        "rerun": {
            "low": pct(est.rerun_low),
            "high": pct(est.rerun_high),
            "se": pct(est.sampling_se),
            "status": est.rerun,
        },
        "benchmark": {"low": pct(est.ci_low), "high": pct(est.ci_high), "status": est.ci},
        "ci_low": pct(est.ci_low),
        "ci_high": pct(est.ci_high),
        "ci": est.ci,
        "sampling_se": pct(est.sampling_se),
        "n_questions": est.n_questions,
    }


def _cell_metrics(cell: Cell) -> dict[str, Any]:
    out = {"Greedy": estimate_json(cell.greedy) if cell.greedy else None}
    out.update({key: estimate_json(est) for key, est in cell.metrics.items()})
    return out


def _sensitivity_json(sens: Sensitivity | None) -> dict[str, Any] | None:
    if sens is None:
        return None
    return {
        "undecided": sens.undecided,
        "unjudged": sens.unjudged,
        "undecided_basis": sens.basis,
        "metrics": {
            key: {"low": pct(low), "high": pct(high)} for key, (low, high) in sens.ranges.items()
        },
    }


def _setting_json(row: Row | Run) -> dict[str, Any] | None:
    s = row.setting
    if s is None:
        return None
    seeds = row.seeds if isinstance(row, Row) else [s.seed]
    return {
        "model": s.model,
        "temperature": s.temperature,
        "top_p": s.top_p,
        "top_k": s.top_k,
        "repetition_penalty": s.repetition_penalty,
        "seeds": seeds,
        "max_out_len": s.max_out_len,
    }


def to_json_rows(report: Report, descending: bool = True) -> list[dict[str, Any]]:
    """The JSON output: sampled rows by dataset (sorted like the tables), then greedy runs."""
    out = []
    same = same_as(_json_specs(report))  # keys that name one metric, and why: every row's
    for dataset_abbr in report.subsets:
        for row in sorted_rows(report, dataset_abbr, best_first=descending):
            out.append(_mark_undefined(report, _row_json(report, row, dataset_abbr)))
            if same:
                out[-1]["same_as"] = same
            if report.published is not None:  # --published: the paper's values, or null
                out[-1]["published"] = cell_json(report, row)
                out[-1].update(unmatched_json(report, row))
    for run in report.greedy:
        out.append(_greedy_json(report, run))
    return out


def _row_json(report: Report, row: Row, dataset_abbr: str) -> dict[str, Any]:
    """One sampled row's entry (without its published values)."""
    subsets = report.subsets[dataset_abbr]
    overall = report.cells[(row.label, dataset_abbr, "overall")]
    return {
        "model": row.label,
        "dataset": dataset_abbr,
        "greedy": False,
        "base_model": row.base_model,
        "identity": identity(row, report.identity),
        "setting": _setting_json(row),
        "runs": [str(r.path) for r in row.runs],
        "tokens": [r.summary.tokens for r in row.runs],  # per run, None: no counts
        "greedy_run": report.greedy_runs.get((row.label, dataset_abbr)),
        "k": report.k,
        "n": int(row.n.max()),
        "n_min": int(row.n.min()),
        "num_questions": overall.num_questions,
        "confidence_level": report.level,
        "resamples": report.n_boot,
        "metrics": _cell_metrics(overall),
        "sensitivity": _sensitivity_json(overall.sensitivity),
        "k_sweep": sweep_json(report, row, estimate_json),
        "accounting": accounting(row),
        "splits": {
            s: {
                "num_questions": report.cells[(row.label, dataset_abbr, s)].num_questions,
                "metrics": _cell_metrics(report.cells[(row.label, dataset_abbr, s)]),
            }
            for s in subsets[1:]
            if (row.label, dataset_abbr, s) in report.cells
        },
        "notes": row.notes,
        "warnings": row.warnings,
        **json_extras(report, row.label, dataset_abbr),  # ranks, corrected
    }


def _json_specs(report: Report) -> list[MetricSpec]:
    """Every metric a row's entry carries: the report's k's, then the any-k table's."""
    specs = report.computed_specs()
    if report.sweep is not None:
        specs += [s for k in report.sweep.ks for s in sweep_specs(k, report.sweep.taus)]
    return specs


def _mark_undefined(report: Report, entry: dict[str, Any]) -> dict[str, Any]:
    """Each metric of *entry* (its corrected values too) that does not exist at its k
    (value null, status 'undefined') gets ``undefined``: why (:attr:`~gpassk_oc.core.metrics.registry.
    MetricSpec.undefined`)."""
    why = {s.key: s.undefined for s in _json_specs(report) if s.undefined}
    if not why:
        return entry
    sweep = entry["k_sweep"]["metrics"].values() if entry["k_sweep"] else []
    splits = [split["metrics"] for split in entry["splits"].values()]
    corrected = [entry["corrected"]["metrics"]] if "corrected" in entry else []
    for metrics in [entry["metrics"], *splits, *sweep, *corrected]:
        for key, text in why.items():
            if key in metrics:
                metrics[key]["undefined"] = text
    return entry


def _greedy_json(report: Report, run: Run) -> dict[str, Any]:
    """One greedy run's entry: its accuracy."""
    cell = report.greedy_cells[(run.model_abbr, run.dataset_abbr)]
    return {
        "model": run.model_abbr,
        "dataset": run.dataset_abbr,
        "greedy": True,
        "base_model": run.base_model,
        "setting": _setting_json(run),
        "runs": [str(run.path)],
        "tokens": [run.summary.tokens],
        "n": int(run.n.max()),
        "num_questions": cell.num_questions,
        "confidence_level": report.level,
        "resamples": report.n_boot,
        "metrics": {ACCURACY: estimate_json(cell.metrics[PASS_AT_1])},
        "notes": run.notes,
        "warnings": run.warnings,
    }


def render_json(report: Report, descending: bool = True) -> str:
    """The report's rows as JSON text. Written by orjson: json.dumps with an indent falls
    back to its pure-Python encoder, seconds at grid size (240 rows × 9 subsets)."""
    import orjson

    rows = to_json_rows(report, descending)
    return orjson.dumps(rows, default=_plain, option=orjson.OPT_INDENT_2).decode() + "\n"


def _plain(value: Any) -> Any:
    """numpy scalars as Python numbers (orjson takes only exact floats and ints)."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _render(report: Report, options: RenderOptions) -> str:
    return render_json(report, options.descending)


FORMAT = Format("json", (".json",), _render, also_in=("compare", "plan"))
