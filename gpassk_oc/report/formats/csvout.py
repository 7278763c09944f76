"""Long CSV output of ``gpassk-oc report``: one line per row × subset with, per metric, the
value, the benchmark interval (``ci_low``/``ci_high``: new questions too), its rerun
standard error (``sampling_se``) and the rerun interval (``rerun_low``/``rerun_high``: same
questions, new samples) — percent, rounding rule of :mod:`.numbers`, empty where an
interval is not given — and each interval's status (``rerun_status``, ``ci_status``: 'ok',
'posterior', 'wide', 'unreliable', 'n < 2k', 'no width', 'off', 'undefined', see
:class:`~gpassk_oc.core.uncertainty.metric_intervals.Estimate`); greedy runs follow with their accuracy in the ``Greedy`` columns.
With ``--k`` listing several ks, every k's metrics (:mod:`.sweep`) follow as further
columns, filled on ``overall`` lines; the output-token statistics of each row's runs
(:mod:`.token_table`) come last, also on ``overall`` lines."""

from __future__ import annotations

import csv
import io
from typing import Any

from gpassk_oc.core.metrics.metric_keys import PASS_AT_1
from gpassk_oc.core.uncertainty.metric_intervals import Estimate
from gpassk_oc.report.data.numbers import pct
from gpassk_oc.report.data.published_section import csv_columns as published_cells
from gpassk_oc.report.data.published_section import csv_header as published_header
from gpassk_oc.report.data.report_model import Report, sorted_rows
from gpassk_oc.report.data.sweep import sweep_csv_keys, sweep_estimate
from gpassk_oc.report.data.token_table import TOKEN_CSV_HEADER, token_csv_cells
from gpassk_oc.report.formats.corrections_out import csv_columns, csv_values
from gpassk_oc.report.formats.format_spec import Format, RenderOptions

_SETTING = ["temperature", "top_p", "top_k", "repetition_penalty", "seeds", "max_out_len"]


_PER_METRIC = (
    "",
    " ci_low",
    " ci_high",
    " sampling_se",
    " rerun_low",
    " rerun_high",
    # why a bound is empty, or that a rerun interval used posterior variances ('wide':
    # mostly, and wider than needed; 'unreliable': fewer than 4 questions vary, or the
    # width is mostly the fitted model's guess: tables.unreliable_reasons)
    " rerun_status",
    " ci_status",
)


def _values(est: Estimate | None) -> list[Any]:
    if est is None:
        return [""] * len(_PER_METRIC)
    values = (est.value, est.ci_low, est.ci_high, est.sampling_se, est.rerun_low, est.rerun_high)
    return ["" if v is None else v for v in map(pct, values)] + [est.rerun, est.ci]


def _setting(s: Any, seeds: list[Any]) -> list[Any]:
    if s is None:
        return [""] * len(_SETTING)
    return [
        s.temperature,
        s.top_p,
        s.top_k,
        s.repetition_penalty,
        " ".join(map(str, seeds)),  # numbers, 'not sent' or None (unknown)
        s.max_out_len,
    ]


def render_csv(report: Report, descending: bool = True) -> str:
    metrics = ["Greedy"] + report.computed_metrics()
    extra = sweep_csv_keys(report, metrics)  # --k list: every k's metrics, overall lines
    header = ["model", "base_model"] + _SETTING + ["dataset", "subset", "n", "num_questions"]
    header.append("warnings")  # run-health warnings of the row (report.health)
    ranked = csv_columns(report)  # ranks and corrected values (report.corrections_out)
    for key in metrics + extra:
        header += [key + suffix for suffix in _PER_METRIC]
    header += ranked
    header += published_header(report)  # --published: the paper's values, overall lines
    header += TOKEN_CSV_HEADER  # output-token statistics of the row's runs, overall lines
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for dataset_abbr, subsets in report.subsets.items():
        for subset in subsets:
            for row in sorted_rows(report, dataset_abbr, subset, descending):
                cell = report.cells[(row.label, dataset_abbr, subset)]
                line: list[Any] = [row.label, row.base_model] + _setting(row.setting, row.seeds)
                line += [dataset_abbr, subset, int(row.n.max()), cell.num_questions]
                line.append(len(row.warnings))
                for key in metrics:
                    line += _values(cell.greedy if key == "Greedy" else cell.metrics[key])
                for key in extra:
                    line += _values(sweep_estimate(report, row, subset, key))
                line += csv_values(report, row.label, dataset_abbr, subset)
                line += published_cells(report, row, subset)
                writer.writerow(line + token_csv_cells(row.runs, subset))
    for run in report.greedy:
        cell = report.greedy_cells[(run.model_abbr, run.dataset_abbr)]
        line = [run.model_abbr, run.base_model]
        line += _setting(run.setting, [run.setting.seed] if run.setting else [])
        line += [run.dataset_abbr, "overall", int(run.n.max()), cell.num_questions]
        line.append(len(run.warnings))
        padding = len(_PER_METRIC) * (len(metrics) + len(extra) - 1)
        line += _values(cell.metrics[PASS_AT_1]) + [""] * (padding + len(ranked))
        line += [""] * len(published_header(report))
        writer.writerow(line + token_csv_cells([run], "overall"))
    return buf.getvalue()


def _render(report: Report, options: RenderOptions) -> str:
    return render_csv(report, options.descending)


FORMAT = Format("csv", (".csv",), _render)
