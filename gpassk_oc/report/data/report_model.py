"""The report as data: per row and question subset, every metric's estimate with its
bootstrap CI and rerun SE (:mod:`gpassk_oc.core.uncertainty.metric_intervals`), the matching greedy accuracy, the
verdict sensitivity of the headline metrics, and notes. Renderers and plots read this;
it never renders text.

Verdict sensitivity (per headline metric, overall): the samples that no rule decided and no
judge labelled could each be right or wrong. Per question q with ``c_q`` correct of ``n_q``
judged samples, ``u_q`` of them scored wrong though undecided (rules mode), and ``j_q``
unjudged samples (excluded from ``n_q``), let ``N_q = n_q + j_q``:

* ``low``  — all of them wrong:  the metric of ``(N_q, c_q)``;
* ``high`` — all of them right:  the metric of ``(N_q, c_q + u_q + j_q)``;

each averaged over the questions with ``N_q >= k``. Every metric here is non-decreasing in
each sample's verdict, so ``low``/``high`` are the exact minimum and maximum over all
assignments of those samples; the reported value lies between them (for unjudged samples,
exclusion is a leave-out average of the two), exactly so when every question has
``n_q >= k``. In rules mode ``low`` is the reported value. Costs nothing: counts only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from pathlib import Path

import numpy as np

from gpassk_oc.core.metrics.metric_keys import ALL_TAUS, HEADLINE_TAUS, PASS_AT_1, group_name
from gpassk_oc.core.metrics.registry import (
    PASS,
    MetricSpec,
    headline_specs,
    report_specs,
)
from gpassk_oc.core.metrics.same_metric import (
    merged_columns,
    merged_name,
    same_metric_groups,
    same_metric_lines,
)
from gpassk_oc.core.uncertainty.corrected_estimates import Corrected
from gpassk_oc.core.uncertainty.metric_intervals import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    Estimate,
    point_means,
    summarize_many,
)
from gpassk_oc.core.vocabulary import COUNT_KEYS, FOUND_KEYS
from gpassk_oc.report.data.collect import (
    QuestionKey,
    Row,
    Run,
    collect,
    subset_masks,
    subset_name,
)
from gpassk_oc.report.data.greedy_match import pick_greedy
from gpassk_oc.report.data.health_warnings import missing_warnings
from gpassk_oc.report.data.identity import identity_fields
from gpassk_oc.report.data.report_parts import (
    ClassRates,
    ErrorRates,
    PublishedView,
    RankCell,
    Sweep,
)
from gpassk_oc.worker_pool import Workers

__all__ = [
    "ACCOUNTING_COLUMNS",
    "Cell",
    "Report",
    "ReportError",
    "Sensitivity",
    "accounting",
    "build_report",
    "check_k",
    "default_k",
    "recorded_taus",
    "report_warnings",
    "sensitivity",
    "sorted_rows",
]

#: accounting keys the report leaves out: pair-level counts (a row counts samples), the
#: ``found_*`` extraction tallies (the health section shows them) and the judge prompt sizes
_HIDDEN_ACCOUNTING = frozenset(
    {
        "unique_pairs",
        "cache_hit_pairs",
        "judged",
        "unjudged_pairs",
        "judge_input_chars",
        "judge_input_max",
    }
    | set(FOUND_KEYS.values())
)
#: accounting counts the report shows (when the results files have them), in the results
#: file's order: one list of keys (:data:`~gpassk_oc.core.vocabulary.COUNT_KEYS`), filtered
ACCOUNTING_COLUMNS = tuple(k for k in COUNT_KEYS if k not in _HIDDEN_ACCOUNTING)


class ReportError(ValueError):
    """A report that cannot be made as asked; the message is the one line to show."""


@dataclass
class Sensitivity:
    """Range of the headline metrics over the verdicts of undecided/unjudged samples."""

    undecided: int  # samples scored wrong that no rule decided (see basis)
    unjudged: int  # samples without a verdict
    basis: str  # 'exact', 'upper bound' (rules-mode schema-1 file), 'unknown' (not recorded)
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)  # fractions


@dataclass
class Cell:
    """Estimates of one row on one question subset (overall or one split × language)."""

    num_questions: int
    metrics: dict[str, Estimate]
    greedy: Estimate | None
    sensitivity: Sensitivity | None = None


@dataclass
class Report:
    k: int
    level: float
    n_boot: int
    seed: int
    rows: list[Row]
    greedy_runs: dict[tuple[str, str], str | None]  # (row label, dataset) -> greedy abbr
    cells: dict[tuple[str, str, str], Cell]  # (row label, dataset, subset) -> Cell
    subsets: dict[str, list[str]]  # dataset -> subset names ("overall", "AMC/en", …)
    notes: list[str]
    greedy: list[Run] = field(default_factory=list)  # every greedy run found
    greedy_cells: dict[tuple[str, str], Cell] = field(default_factory=dict)  # (abbr, dataset)
    sweep: Sweep | None = None  # every --k of a list (None: one k)
    interval: str = "rerun"  # the interval kind(s) the tables show: rerun, benchmark, both
    #: (record field, header) of the knobs that tell rows apart (report.identity)
    identity: list[tuple[str, str]] = field(default_factory=list)
    published: PublishedView | None = None  # with --published (None: off)
    #: rank and its intervals per (dataset, metric key) and row label
    #: (:func:`~gpassk_oc.report.ranking.corrections.attach_ranks`)
    ranks: dict[tuple[str, str], dict[str, RankCell]] = field(default_factory=dict)
    #: verdict error rates per source (--audit, --verdict-error; None: not given)
    rates: ErrorRates | None = None
    #: class-level rates of an audit by class (--audit-classes; None: not given)
    class_rates: ClassRates | None = None
    #: corrected estimates per (row label, dataset) and metric key (empty: no correction)
    corrected: dict[tuple[str, str], dict[str, Corrected]] = field(default_factory=dict)
    #: why a row has no sample-rate corrections, per (row label, dataset)
    not_corrected: dict[tuple[str, str], str] = field(default_factory=dict)
    #: maj@k's raw value per (row label, dataset) beside its correction
    raw_votes: dict[tuple[str, str], float] = field(default_factory=dict)
    #: estimates the figures need beyond the cells and the sweep, per (row label, dataset)
    plot_estimates: dict[tuple[str, str], dict[str, Estimate]] = field(default_factory=dict)
    #: the τ columns (:func:`recorded_taus`) and every τ computed per cell
    taus: tuple[Fraction, ...] = HEADLINE_TAUS
    thresholds: tuple[Fraction, ...] = ALL_TAUS

    def headline_specs(self) -> list[MetricSpec]:
        """The table columns at the report's k: G-Pass@k at :attr:`taus`, mG-Pass@k."""
        return headline_specs(self.k, self.taus)

    def sort_spec(self) -> MetricSpec:
        """The metric rows are ordered by: mG-Pass@k, or at a k where it does not exist
        (k = 1) the last headline metric that does."""
        return [s for s in self.headline_specs() if s.undefined is None][-1]

    def headline_metrics(self) -> list[str]:
        """The keys of :meth:`headline_specs`."""
        return [spec.key for spec in self.headline_specs()]

    def headline_columns(self) -> list[tuple[str, str]]:
        """(key, header) of the tables' metric columns: G-Pass@1 at every τ is one
        (:func:`~gpassk_oc.core.metrics.same_metric.merged_columns`)."""
        return merged_columns(self.headline_specs())

    def merge_columns(self, keys: Sequence[str]) -> list[tuple[str, str]]:
        """*keys* (a table's metric columns) as (key, header): headline keys that name one
        metric by definition (G-Pass@1 at every τ) are one column, read at the group's
        last key and headed by all of them (``G-Pass@1_0.5 = _0.75 = _1.0``); any other
        key is its own column."""
        groups = same_metric_groups(self.headline_specs())
        last = {s.key: g[-1].key for g in groups for s in g}
        names = {g[-1].key: merged_name(g) for g in groups}
        out: dict[str, str] = {}
        for key in keys:
            out.setdefault(last.get(key, key), names.get(last.get(key, key), key))
        return list(out.items())

    def same_metric_notes(self) -> list[str]:
        """Why a merged column (:meth:`merge_columns`) is one metric, one line each."""
        return same_metric_lines(self.headline_specs())

    def computed_specs(self) -> list[MetricSpec]:
        """Every metric computed per cell at the report's k (τs: :attr:`thresholds`)."""
        return report_specs(self.k, self.thresholds)

    def computed_metrics(self) -> list[str]:
        """The keys of :meth:`computed_specs`."""
        return [spec.key for spec in self.computed_specs()]


def recorded_taus(rows: Sequence[Row]) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """(headline τs, every τ) of the runs' recorded τ lists: a run of the default list
    shows the paper's columns, one that set its own shows those
    (:meth:`~gpassk_oc.core.runs.run_spec.RunSpec.headline_taus`); each in order."""
    specs = [run.summary.info.spec for row in rows for run in row.runs]
    if not specs:
        return HEADLINE_TAUS, ALL_TAUS
    headline = sorted({t for spec in specs for t in spec.headline_taus()})
    every = sorted({t for spec in specs for t in spec.thresholds} | set(headline))
    return tuple(headline), tuple(every)


def sensitivity(row: Row, metrics: Iterable[str | MetricSpec]) -> Sensitivity:
    """The verdict sensitivity of *row* (see the module docstring)."""
    total = row.n + row.unjudged
    low = point_means(total, row.c, list(metrics))
    high = point_means(total, row.c + row.undecided + row.unjudged, list(metrics))
    return Sensitivity(
        int(row.undecided.sum()),
        int(row.unjudged.sum()),
        row.undecided_basis,
        {key: (low[key], high[key]) for key in low},
    )


def accounting(row: Row) -> dict[str, object]:
    """The row's grading accounting: ``check`` (the runs' check modes) and every count of
    :data:`ACCOUNTING_COLUMNS` the files carry, summed over pooled runs."""
    checks = sorted({r.summary.info.check or "?" for r in row.runs})
    out: dict[str, object] = {"check": "+".join(checks)}
    for key in ACCOUNTING_COLUMNS:
        values = [r.summary.accounting.get(key) for r in row.runs]
        counts = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
        if len(counts) == len(values):
            out[key] = sum(counts)
    return out


def default_k(rows: Sequence[Row]) -> int | None:
    """The headline k: the largest k the rows' run specs declare (``run.ks``) that is below every row's samples per question n — at k = n every question has
    n < 2k, so every rerun interval would be approximate —; else the largest declared k
    that every row reaches; else the smallest n. None without rows."""
    if not rows:
        return None
    declared: set[int] = set()
    for row in rows:
        for run in row.runs:
            declared.update(run.summary.info.ks)
    n = min(int((row.n + row.unjudged).max()) for row in rows)
    below = [k for k in declared if k < n]
    if below:
        return max(below)
    reached = [k for k in declared if k <= n]
    return max(reached) if reached else n


def _describe(keys: Iterable[QuestionKey]) -> str:
    counts: dict[str, int] = {}
    for key in keys:
        name = group_name(key[0], key[1]) or "(no split)"
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{v} in {k}" for k, v in sorted(counts.items()))


def check_k(rows: Sequence[Row], k: int) -> None:
    """An explicit k that some row cannot reach is a bad input, not a column of dashes."""
    for row in rows:
        most = int((row.n + row.unjudged).max())
        if most < k:
            raise ReportError(
                f"--k {k}: {row.label} on {row.dataset_abbr} has only n={most} "
                f"samples per question, so G-Pass@{k} cannot be computed "
                f"(largest usable k: {most})"
            )


def _row_notes(row: Row, union: set, dataset_abbr: str, k: int) -> None:
    missing = union - set(row.keys)
    if missing:
        row.notes.append(
            f"covers {len(row.keys)}/{len(union)} questions of {dataset_abbr} "
            f"(missing {_describe(missing)}): not comparable with complete rows"
        )
    if int(row.n.min()) < k:
        undefined = int((row.n < k).sum())
        if undefined == len(row.n):
            row.notes.append(
                f"has n={int(row.n.max())} judged samples per question < k={k}: "
                f"G-Pass@{k} unavailable (largest possible k: {int(row.n.max())})"
            )
        else:
            row.notes.append(
                f"{undefined} questions have fewer than k={k} judged samples; "
                f"@{k} metrics average the other {len(row.n) - undefined}"
            )


@dataclass
class _Wanted:
    """What :func:`build_report` computes, gathered first: every cell's (n, c) and its
    greedy run's, so that one batched call per metric set serves all cells of a size."""

    cells: list[tuple[tuple[str, str, str], int, tuple[np.ndarray, np.ndarray]]] = field(
        default_factory=list
    )
    greedy: list[tuple[tuple[str, str, str], tuple[np.ndarray, np.ndarray]]] = field(
        default_factory=list
    )
    sensitivity: dict[tuple[str, str, str], Sensitivity] = field(default_factory=dict)
    greedy_runs: dict[tuple[str, str], str | None] = field(default_factory=dict)
    subsets: dict[str, list[str]] = field(default_factory=dict)


def _want_row(
    wanted: _Wanted, row: Row, dataset_abbr: str, greedy: list[Run], sens: list[MetricSpec]
) -> None:
    """*row*'s cells (one per subset it has questions in), its greedy run's matching
    counts, and its verdict sensitivity (overall, metrics *sens*)."""
    g_run, why = pick_greedy(row, greedy)
    if why:
        row.notes.append(why)
    wanted.greedy_runs[(row.label, dataset_abbr)] = g_run.model_abbr if g_run else None
    g_lookup = {key: (n, c) for key, n, c in zip(g_run.keys, g_run.n, g_run.c)} if g_run else {}
    masks = subset_masks(row.keys)
    for subset in wanted.subsets[dataset_abbr]:
        mask = masks.get(subset)
        if mask is None or not mask.any():
            continue
        where = (row.label, dataset_abbr, subset)
        wanted.cells.append((where, int(mask.sum()), (row.n[mask], row.c[mask])))
        if g_run is not None:
            g_nc = np.array([g_lookup[q] for q, m in zip(row.keys, mask) if m])
            wanted.greedy.append((where, (g_nc[:, 0], g_nc[:, 1])))
        if subset == "overall":
            wanted.sensitivity[where] = sensitivity(row, sens)


def _wanted(rows: list[Row], greedy: list[Run], k: int, sens: list[MetricSpec]) -> _Wanted:
    """Every cell of every dataset's rows (see :class:`_Wanted`); adds the rows' notes."""
    out = _Wanted()
    by_dataset: dict[str, list[Row]] = {}
    for row in rows:
        by_dataset.setdefault(row.dataset_abbr, []).append(row)
    for dataset_abbr, members in by_dataset.items():
        union = set().union(*(set(r.keys) for r in members))
        for row in members:
            _row_notes(row, union, dataset_abbr, k)
        # per split × language tables only when the details name them
        out.subsets[dataset_abbr] = ["overall"] + sorted({subset_name(q) for q in union} - {""})
        for row in members:
            _want_row(out, row, dataset_abbr, greedy, sens)
    return out


def _report_notes(
    rows: list[Row], greedy: list[Run], greedy_runs: dict[tuple[str, str], str | None]
) -> list[str]:
    """The greedy runs' and the rows' notes, each row's named by it."""
    notes: list[str] = []
    used_greedy = set(greedy_runs.values())
    for g in greedy:
        if rows and g.model_abbr not in used_greedy:  # a run note: its JSON entry says so too
            g.notes.append(
                f"{g.model_abbr}/{g.dataset_abbr}: greedy run not matched to any "
                "sampled row (shown in the greedy table)"
            )
        notes += g.notes
    shown: set[str] = set()  # a note on several rows (NOT pooled) is listed once
    for row in rows:
        prefixes = tuple(f"{r.model_abbr}/" for r in row.runs)  # run notes name their file already
        for note in row.notes:
            if note not in shown:
                shown.add(note)
                named = note.startswith(prefixes) or note.startswith(row.runs[0].model_abbr)
                notes.append(note if named else f"{row.label} on {row.dataset_abbr}: {note}")
    return notes


def _checks_to_runs(rows: list[Row], greedy: list[Run]) -> None:
    """Each run's cross-check findings (a top-level number its details do not give) on
    the rows and greedy runs it belongs to, so that their JSON ``notes`` carry them too
    (:func:`~gpassk_oc.report.data.collect.collect` gives them to the report only)."""
    for owner, runs in [(row, row.runs) for row in rows] + [(g, [g]) for g in greedy]:
        for run in runs:
            owner.notes += [c for c in run.summary.checks or [] if c not in owner.notes]


def undefined_notes(specs: Iterable[MetricSpec]) -> list[str]:
    """One note per metric of *specs* that does not exist at its k: every output shows it
    as "—" (no value), and the note says why."""
    return [f"{s.key} shows —: {s.undefined}" for s in dict.fromkeys(specs) if s.undefined]


def build_report(
    paths: Sequence[str | Path],
    k: int | None = None,
    *,
    level: float = DEFAULT_LEVEL,
    n_boot: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    pool_seeds: bool = True,
    workers: int | Workers = 1,
) -> Report:
    """Read, group and compute everything the outputs need. :class:`ReportError` when an
    explicit *k* exceeds a row's samples per question. *workers*: processes for the first
    read of results files, or the caller's pool of them (:func:`~gpassk_oc.report.data.collect.
    collect`; the same report with any number)."""
    rows, greedy, notes = collect(paths, pool_seeds, workers)
    if k is None:
        k = default_k(rows) or 1
    else:
        check_k(rows, k)
    taus, thresholds = recorded_taus(rows)
    pass1 = [PASS.spec(1)]
    wanted = _wanted(rows, greedy, k, headline_specs(k, taus) + pass1)
    many = partial(summarize_many, n_boot=n_boot, level=level, seed=seed)
    estimates = many([nc for *_, nc in wanted.cells], report_specs(k, thresholds))
    greedy_est = many([nc for _, nc in wanted.greedy], pass1)
    greedy_of = {where: est[PASS_AT_1] for (where, _), est in zip(wanted.greedy, greedy_est)}
    cells = {
        where: Cell(size, est, greedy_of.get(where), wanted.sensitivity.get(where))
        for (where, size, _), est in zip(wanted.cells, estimates)
    }
    greedy_cells = {
        (g.model_abbr, g.dataset_abbr): Cell(len(g.keys), est, None)
        for g, est in zip(greedy, many([(g.n, g.c) for g in greedy], pass1))
    }
    _checks_to_runs(rows, greedy)
    # a run's notes are the report's already (collect): each listed once
    notes = list(dict.fromkeys(notes + _report_notes(rows, greedy, wanted.greedy_runs)))
    if rows:  # without rows k is a placeholder: nothing shows, nothing to explain
        notes += undefined_notes(report_specs(k, thresholds))
    return Report(
        k,
        level,
        n_boot,
        seed,
        rows,
        wanted.greedy_runs,
        cells,
        wanted.subsets,
        notes,
        sorted(greedy, key=lambda g: (g.dataset_abbr, g.model_abbr)),
        greedy_cells,
        identity=identity_fields(rows),
        taus=taus,
        thresholds=thresholds,
    )


def report_warnings(report: Report, paths: Iterable[str | Path]) -> list[str]:
    """Every warning of a built report (its rows' and greedy runs' health warnings, each
    run once) followed by the missing results under *paths*."""
    runs = [run for row in report.rows for run in row.runs] + list(report.greedy)
    lines = [line for run in runs for line in run.warnings]
    return list(dict.fromkeys(lines)) + missing_warnings(paths)


def sorted_rows(
    report: Report, dataset_abbr: str, subset: str = "overall", best_first: bool = True
) -> list[Row]:
    """Rows of a dataset ordered by mG-Pass@k (:meth:`Report.sort_spec`), the best first (the metric's
    ``higher_is_better`` says which end is best; *best_first* False: the other way round,
    the paper's ascending order); ties by the row's label, rows without a value last."""
    spec = report.sort_spec()
    members = [
        r
        for r in report.rows
        if r.dataset_abbr == dataset_abbr and (r.label, dataset_abbr, subset) in report.cells
    ]
    # sorted() puts the smallest key first: the best row's value, signed, is the smallest
    sign = -1.0 if spec.definition.higher_is_better == best_first else 1.0

    def sort_key(row: Row) -> tuple[bool, float, str]:
        value = report.cells[(row.label, dataset_abbr, subset)].metrics[spec.key].value
        if not math.isfinite(value):
            return (True, 0.0, row.label)
        return (False, sign * value, row.label)

    return sorted(members, key=sort_key)
