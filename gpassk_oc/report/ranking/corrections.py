"""The report's verdict-error corrections and rank intervals, as data (renderers read
typed fields of :class:`~gpassk_oc.report.data.report_model.Report`; nothing here renders text).

* :func:`load_rates` — rates from a filled-in audit sheet (``--audit``, with their
  posterior draws) or stated (``--verdict-error``, known exactly).
* :func:`attach_corrections` — per row (overall), the headline metrics, pass@k and pass@1
  corrected for those rates (:mod:`gpassk_oc.core.uncertainty.corrected_estimates`), and maj@k
  corrected for class rates from an audit by class (``--audit-classes``,
  :mod:`gpassk_oc.core.uncertainty.corrected_majority`) — without one, maj@k is listed as not
  corrected; the raw estimates are left as they are.
* :func:`attach_ranks` — per dataset and headline metric, every row's rank and its
  interval under both kinds (:mod:`gpassk_oc.core.uncertainty.rank_intervals`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gpassk_oc.core.metrics.registry import MAJ, PASS, MetricSpec
from gpassk_oc.core.uncertainty.corrected_estimates import Corrected, correct
from gpassk_oc.core.uncertainty.corrected_majority import class_rates, correct_maj
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.metric_intervals import Estimate
from gpassk_oc.core.uncertainty.rank_intervals import (
    benchmark_draws,
    point_ranks,
    rank_intervals,
    rerun_draws,
)
from gpassk_oc.core.uncertainty.verdict_channel import Question
from gpassk_oc.core.uncertainty.verdict_rates import (
    ALL_SOURCES,
    parse_verdict_error,
    rates_from_audit,
)
from gpassk_oc.report.data.collect import Row, Run
from gpassk_oc.report.data.report_model import Report
from gpassk_oc.report.data.report_parts import ClassRates, ErrorRates, RankCell
from gpassk_oc.report.ranking.correction_inputs import RowInputs, row_inputs
from gpassk_oc.worker_pool import Mapper, in_process

__all__ = [
    "ClassRates",
    "ErrorRates",
    "RankCell",
    "attach_corrections",
    "attach_ranks",
    "rank_cells",
    "load_rates",
    "unused_sources",
    "vote_metric",
]

#: rank and corrected intervals need fewer draws than a bootstrap CI: their tails are wider
MAX_RANK_DRAWS = 4000
RATE_DRAWS = 100  # as the bench measured coverage with


def load_rates(
    runs: Sequence[Run], audit: Path | None, stated: Sequence[str], mapper: Mapper = in_process
) -> ErrorRates | None:
    """The rates asked for (ValueError, one line, for a bad sheet or spec); an audit's
    runs are read through *mapper* (the report's workers' ``map``; default: here)."""
    if audit is not None:
        from gpassk_oc.report.auditing.audit_sheet import audits_of, read_labels

        audits = audits_of(runs, read_labels(audit), audit, mapper)
        try:
            points, draws = rates_from_audit(audits, RATE_DRAWS)
        except ValueError as exc:  # rates out of bounds: name the sheet they came from
            raise ValueError(f"--audit {audit}: {exc}") from None
        skipped = [a.source for a in audits if a.one_verdict]
        return ErrorRates(points, draws, f"audit {audit}", skipped, list(audits))
    if stated:
        return ErrorRates(parse_verdict_error(stated), None, "stated")
    return None


def unused_sources(sources: Sequence[str], tables: Sequence[Sequence[Question]]) -> dict[str, str]:
    """Why each stated source (``by=``) that no sample of *tables* (each row's
    :func:`channel_questions`) came from corrects nothing, by source: the table would not
    show it (every corrected value equal to its raw one, beside the rates)."""
    return {
        source: f"no sample of the rows reported came from {source!r}, so its rates correct nothing"
        for j, source in enumerate(sources, start=1)
        if source != ALL_SOURCES and not any(q[j][0] for t in tables for q in t)
    }


def corrected_metrics(report: Report) -> list[MetricSpec]:
    """The metrics corrected: the report's headline ones, pass@k and pass@1."""
    return list(dict.fromkeys(report.headline_specs() + [PASS.spec(report.k), PASS.spec(1)]))


def rate_arrays(rates: ErrorRates) -> tuple[list[tuple[float, float]], np.ndarray | None]:
    """Point rates per channel (channel 0: sources without rates, exact) and the draws
    (R × channels × 2; None when the rates are known) in :func:`channel_questions` order."""
    sources = list(rates.points)
    point = [(0.0, 0.0)] + [rates.points[s] for s in sources]
    if rates.draws is None or not sources:
        return point, None
    r = min(len(d) for d in rates.draws.values())
    draws = np.zeros((r, len(sources) + 1, 2))
    for j, s in enumerate(sources, start=1):
        draws[:, j] = rates.draws[s][:r]
    return point, draws


def vote_metric(k: int) -> str:
    """The vote metric the corrections table shows at the report's k: maj@k. The one
    place this module picks a metric by kind (class rates correct it, sample rates not)."""
    return MAJ.spec(k).key


def _correct_row(task: tuple) -> dict[str, Corrected] | str:
    """One row's :func:`correct` (runs in a worker); the reason as a string where the row
    cannot be corrected (too few questions to fit the difficulty prior)."""
    questions, point, metrics, draws, level, n_boot, seed = task
    try:
        return correct(
            questions, point, metrics, rate_draws=draws, level=level, n_boot=n_boot, seed=seed
        )
    except ValueError as exc:
        return str(exc)


def attach_corrections(
    report: Report,
    rates: ErrorRates | None,
    class_sheet: Path | None = None,
    mapper: Mapper = in_process,
) -> None:
    """``report.corrected[(label, dataset)]`` = {metric: Corrected}: the sample
    rates' corrections (*rates*), then maj@k (:func:`attach_vote_corrections`). Each row's
    files are read once and each row corrected through *mapper* (the report's workers'
    ``map``; None: in this process); the numbers are the same either way."""
    out: dict[tuple[str, str], dict[str, Corrected]] = {}
    sources = list(rates.points) if rates is not None else []
    inputs = row_inputs(report.rows, sources, True, mapper)
    if rates is not None:
        point, draws = rate_arrays(rates)
        tables = [i.questions for i in inputs]
        rates.unused = unused_sources(sources, tables)  # the JSON rows' corrected block too
        report.notes += rates.unused_lines()
        metrics = [m.key for m in corrected_metrics(report)]
        n_boot = min(report.n_boot, MAX_RANK_DRAWS)
        tasks = [(t, point, metrics, draws, report.level, n_boot, report.seed) for t in tables]
        done = mapper(_correct_row, tasks)
        for row, got in zip(report.rows, done):
            if isinstance(got, str):
                # data first: the row's JSON says why it has no corrected values
                report.not_corrected[(row.label, row.dataset_abbr)] = got
                report.notes.append(f"{row.label} on {row.dataset_abbr}: not corrected: {got}")
            else:
                out[(row.label, row.dataset_abbr)] = got
    report.rates = rates
    attach_vote_corrections(report, out, class_sheet, inputs)
    report.corrected = out


def attach_vote_corrections(
    report: Report,
    out: dict[tuple[str, str], dict[str, Corrected]],
    class_sheet: Path | None,
    inputs: Sequence[RowInputs],
) -> None:
    """maj@k of each row with votes (one run: class ids are per run; *inputs*: the rows'
    :class:`RowInputs`): corrected with the class rates of *class_sheet*, else marked "not
    corrected" (sample rates do not determine which class is the gold). Its raw value goes
    to ``report.raw_votes``."""
    from gpassk_oc.report.auditing.audit_classes import class_channels, mean_raw

    key, k = vote_metric(report.k), report.k
    points: dict[str, tuple[float, float]] = {}
    draws: dict[str, np.ndarray] = {}
    if class_sheet is not None:
        from gpassk_oc.report.auditing.audit_sheet import class_audits_of

        runs = [run for row in report.rows for run in row.runs] + list(report.greedy)
        try:
            points, draws = class_rates(class_audits_of(runs, class_sheet, k), RATE_DRAWS, 0)
        except ValueError as exc:
            if str(exc).startswith("--audit-classes"):
                raise
            raise ValueError(f"--audit-classes {class_sheet}: {exc}") from None
        report.class_rates = ClassRates(points, draws, f"class audit {class_sheet}")
    sources = list(points)
    point = [(0.0, 0.0)] + [points[s] for s in sources]
    stacked = None
    if sources:
        stacked = np.stack([np.zeros((RATE_DRAWS, 2))] + [draws[s] for s in sources], axis=1)
    raws: dict[tuple[str, str], float] = {}
    for row, got in zip(report.rows, inputs):
        if got.classes is None:
            continue
        questions = class_channels(got.classes, sources)
        raws[(row.label, row.dataset_abbr)] = mean_raw(questions, k)
        if class_sheet is None:
            nan = float("nan")
            fixed = Corrected(nan, nan, nan, nan, nan, "not corrected")
        else:
            fixed = correct_maj(
                questions,
                point,
                k,
                rate_draws=stacked,
                level=report.level,
                n_boot=min(report.n_boot, MAX_RANK_DRAWS),
                seed=report.seed,
            )
        out.setdefault((row.label, row.dataset_abbr), {})[key] = fixed
    report.raw_votes = raws


def _question_values(rows: Sequence[Row], spec: MetricSpec) -> np.ndarray:
    """(questions of the union × rows) per-question values, NaN where a row lacks one."""
    union = list(dict.fromkeys(q for r in rows for q in r.keys))
    where = {q: i for i, q in enumerate(union)}
    out = np.full((len(union), len(rows)), np.nan)
    tables: dict[int, np.ndarray | None] = {}
    for j, row in enumerate(rows):
        at = np.array([where[q] for q in row.keys])
        for n in np.unique(row.n):
            if int(n) not in tables:
                tables[int(n)] = metric_per_c(spec, int(n))
            per_c = tables[int(n)]
            if per_c is not None:
                mask = row.n == n
                out[at[mask], j] = per_c[row.c[mask]]
    return out


def rank_cells(
    rows: Sequence[Row],
    ests: Sequence[Estimate],
    spec: MetricSpec,
    draws: tuple[int, int],
    level: float,
    seed: int,
) -> dict[str, RankCell]:
    """Each row's rank by *spec* (1: the best, as the metric's ``higher_is_better`` says)
    and its rerun and benchmark intervals from *draws* = (rerun, benchmark) draws (a kind
    with 0 draws: no interval); rows without a value are left out. *ests*: the rows'
    overall estimates, in order."""
    # ranks count the rows strictly above: where lower is better, rank the negated values
    sign = 1.0 if spec.definition.higher_is_better else -1.0
    points = [sign * e.value for e in ests]
    ranks = point_ranks(points)
    kinds: dict[str, list[tuple[int, int] | None]] = {}
    n_rerun, n_bench = draws
    if n_rerun > 0:
        se = [e.sampling_se for e in ests]
        kinds["rerun"] = rank_intervals(points, rerun_draws(points, se, n_rerun, seed), level)
    if n_bench > 0:
        means = sign * benchmark_draws(_question_values(rows, spec), n_bench, seed)
        kinds["benchmark"] = rank_intervals(points, means, level)
    return {
        r.label: RankCell(int(ranks[i]), {k: v[i] for k, v in kinds.items()})
        for i, r in enumerate(rows)
        if np.isfinite(ranks[i])
    }


def attach_ranks(report: Report) -> None:
    """``report.ranks[(dataset, metric)][label]`` = :class:`RankCell` (overall)."""
    out: dict[tuple[str, str], dict[str, RankCell]] = {}
    # the rerun interval needs no bootstrap: its draws are normal ones, always as many,
    # so that every format shows the same interval (the markdown with rerun intervals
    # only skips the bootstrap, JSON and CSV do not; --resamples sets the benchmark's)
    n_bench = min(report.n_boot, MAX_RANK_DRAWS)
    draws = (MAX_RANK_DRAWS, n_bench)
    for dataset in report.subsets:
        rows = [
            r
            for r in report.rows
            if r.dataset_abbr == dataset and (r.label, dataset, "overall") in report.cells
        ]
        if len(rows) < 2:
            continue
        for spec in report.headline_specs():
            ests = [report.cells[(r.label, dataset, "overall")].metrics[spec.key] for r in rows]
            out[(dataset, spec.key)] = rank_cells(
                rows, ests, spec, draws, report.level, report.seed
            )
    report.ranks = out
