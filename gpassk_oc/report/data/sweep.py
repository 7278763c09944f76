"""Any k after the fact: ``gpassk-oc report --k 1,2,4,8,16,32,48 [--tau 0.5,1.0]``.

Every metric is a function of saved per-question data — G-Pass@k_τ, mG-Pass@k and
pass@k of the counts ``(n, c)``, maj@k of the vote classes
(:meth:`~gpassk_oc.core.runs.results_file.QuestionResult.vote_profile`) — so a results file
answers for every k ≤ n, not only the ks the run was configured with. For each row
(overall) and each k this computes pass@k, G-Pass@k_τ for every ``--tau`` (default 0.5,
0.75, 1.0), mG-Pass@k and maj@k, with the report's intervals:

* counts metrics through :func:`gpassk_oc.core.uncertainty.metric_intervals.summarize` (bootstrap CI over
  questions and rerun SE), all ks in one call;
* maj@k through :func:`gpassk_oc.core.uncertainty.metric_intervals.bootstrap` on the per-question values
  (same resampling, level and seed); its rerun SE is not estimated (NaN): a rerun of a vote
  depends on the class probabilities, which the plug-in model of ``stats`` does not carry.

maj@k is left out (NaN, a note says why) for a row whose files carry no votes (written
before votes were recorded) and for a row that pools several seeds: class ids are per
run, so votes of two runs cannot be added up without re-checking their answers
(``--no-pool-seeds`` gives one row per seed, each with its maj@k).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.registry import MetricDef, MetricSpec, any_k_defs
from gpassk_oc.core.metrics.same_metric import same_metric_groups
from gpassk_oc.core.runs.run_spec import RunSpecError, parse_thresholds
from gpassk_oc.core.runs.run_spec import parse_ks as parse_ks_once
from gpassk_oc.core.uncertainty.metric_intervals import (
    Estimate,
    bootstrap,
    ci_status,
    no_spread,
    summarize_many,
)
from gpassk_oc.report.data.collect import Row, maj_values
from gpassk_oc.report.data.numbers import pct
from gpassk_oc.report.data.report_model import Report, ReportError, sorted_rows, undefined_notes
from gpassk_oc.report.data.report_parts import Sweep
from gpassk_oc.report.data.tables import (
    INTERVAL_CHOICES,
    estimate_text,
    identity_cells,
    identity_columns,
    interval_header,
)

__all__ = ["Sweep", "build_sweep", "parse_ks", "parse_taus", "sweep_columns", "sweep_keys"]


def parse_ks(text: str) -> list[int]:
    """``"1,2,4"`` → ``[1, 2, 4]`` (sorted, deduplicated), read by the run spec;
    :class:`ReportError` names the flag for anything but positive integers."""
    try:
        values = [int(part) for part in str(text).split(",")]
    except ValueError:
        raise ReportError(
            f"--k {text}: need an integer >= 1 or a comma-separated list, e.g. 1,2,4,8"
        ) from None
    try:
        return sorted(parse_ks_once(values, "--k"))
    except RunSpecError as exc:
        raise ReportError(f"--k {text}: {exc.problem}") from None


def parse_taus(text: str) -> list[Fraction]:
    """``"0.5,1.0"`` → exact thresholds, read by the run spec; :class:`ReportError` for a τ
    outside [0, 1]."""
    try:
        return sorted(parse_thresholds([p.strip() for p in str(text).split(",")], "--tau"))
    except RunSpecError as exc:
        raise ReportError(
            f"--tau {text}: every τ must be a number in [0, 1] (e.g. 0.5,1.0); {exc.problem}"
        ) from None


def _columns(taus: Sequence[Fraction]) -> list[tuple[MetricDef, Fraction | None]]:
    """(definition, τ) per column of the sweep table, in the registry's any-k order."""
    out: list[tuple[MetricDef, Fraction | None]] = []
    for d in any_k_defs():
        out += [(d, t) for t in taus] if d.has_tau else [(d, None)]
    return out


def sweep_columns(taus: Sequence[Fraction]) -> list[str]:
    """Column names of the sweep table (k-generic)."""
    return [d.column(t) for d, t in _columns(taus)]


def sweep_specs(k: int, taus: Sequence[Fraction]) -> list[MetricSpec]:
    """The metrics of :func:`sweep_columns` at one k."""
    return [d.spec(k, t) for d, t in _columns(taus)]


def sweep_keys(k: int, taus: Sequence[Fraction]) -> list[str]:
    """The metric keys of :func:`sweep_columns` at one k."""
    return [s.key for s in sweep_specs(k, taus)]


def _maj_estimates(
    row: Row, specs: Sequence[MetricSpec], n_boot: int, level: float, seed: int
) -> dict[str, Estimate]:
    values = maj_values(row.runs[0], [s.k for s in specs])
    # identical per-question value vectors are one atom (NaN marked by a sentinel for unique)
    marked = np.where(np.isnan(values), -1.0, values)
    atoms, weight = np.unique(marked, axis=0, return_counts=True)
    atoms = np.where(atoms < 0, np.nan, atoms)
    point, low, high = bootstrap(weight, atoms, n_boot=n_boot, level=level, seed=seed)
    flat = no_spread(weight, atoms)
    defined = weight @ ~np.isnan(atoms)
    return {
        spec.key: Estimate(
            float(point[j]),
            float(low[j]),
            float(high[j]),
            float("nan"),
            int(defined[j]),
            ci_status(n_boot, int(defined[j]), bool(flat[j]), spec),
        )
        for j, spec in enumerate(specs)
    }


def _maj_note(row: Row) -> str | None:
    if len(row.runs) > 1:
        return (
            "maj@k not computed: seeds are pooled and vote classes are per run "
            "(--no-pool-seeds gives one row per seed)"
        )
    if not row.runs[0].summary.has_votes:
        return "maj@k not computed: the results file records no votes (written before votes were)"
    return None


def build_sweep(report: Report, ks: Sequence[int], taus: Sequence[Fraction] | None) -> Sweep:
    """The sweep of every sampled row of *report* (overall), with its CI settings. A k
    above a row's samples is refused earlier (:func:`gpassk_oc.report.data.report_model.build_report`);
    questions with fewer judged samples than k are left out of that k, as in the tables."""
    taus = list(taus) if taus else list(report.taus)  # default: the runs' recorded τs
    sweep = Sweep(list(ks), taus)
    nan = Estimate(float("nan"), float("nan"), float("nan"), float("nan"), 0, "undefined")
    specs = [spec for k in ks for spec in sweep_specs(k, taus)]
    report.notes += [n for n in undefined_notes(specs) if n not in report.notes]
    counted = [spec for spec in specs if not spec.definition.needs_votes]
    votes = [spec for spec in specs if spec.definition.needs_votes]
    every = summarize_many(
        [(row.n, row.c) for row in report.rows],
        counted,
        n_boot=report.n_boot,
        level=report.level,
        seed=report.seed,
    )
    for row, est in zip(report.rows, every):
        why = _maj_note(row)
        if why is None:
            est.update(_maj_estimates(row, votes, report.n_boot, report.level, report.seed))
        else:
            est.update({spec.key: nan for spec in votes})
            sweep.not_computed[(row.label, row.dataset_abbr)] = why
            note = f"{row.label} on {row.dataset_abbr}: {why}"
            if note not in report.notes:
                report.notes.append(note)
        sweep.cells[(row.label, row.dataset_abbr)] = est
    return sweep


def sweep_table(
    report: Report, dataset_abbr: str, rows: Sequence[Row], ci: bool = True
) -> tuple[list[str], list[list[str]]]:
    """Header and cells of one dataset's sweep table. With *ci* the cells carry the
    report's interval kinds (``--interval``, as the main tables), and every header names
    them; maj@k has no rerun estimate, so its column names only what it shows."""
    sweep = report.sweep
    assert sweep is not None
    kinds = INTERVAL_CHOICES[report.interval] if ci else ()
    vote_kinds = tuple(kind for kind in kinds if kind != "rerun")
    header = identity_columns(report) + ["k"]
    for d, tau in _columns(sweep.taus):
        col = d.column(tau)
        shown = kinds if d.rerun_variance else vote_kinds
        header.append(f"{col} {interval_header(report, shown)}" if shown else col)
    body = []
    for row in rows:
        cells = sweep.cells.get((row.label, dataset_abbr))
        if cells is None:
            continue
        name = identity_cells(report, row)
        for k in sweep.ks:
            same = _same_cells(k, sweep.taus)
            texts = [
                f"= {same[key]}" if key in same else estimate_text(cells[key], ci, kinds)
                for key in sweep_keys(k, sweep.taus)
            ]
            body.append(name + [str(k)] + texts)
    return header, body


def _same_cells(k: int, taus: Sequence[Fraction]) -> dict[str, str]:
    """The keys at *k* that name the metric of an earlier column (G-Pass@1 at every τ),
    each to that column's key: their cells say so instead of repeating its numbers."""
    groups = same_metric_groups(sweep_specs(k, taus))
    return {s.key: group[0].key for group in groups for s in group[1:]}


def sweep_csv_keys(report: Report, present: Sequence[str]) -> list[str]:
    """Sweep metric keys that ``--format csv`` adds as columns (those not in *present*)."""
    if report.sweep is None:
        return []
    keys = [key for k in report.sweep.ks for key in sweep_keys(k, report.sweep.taus)]
    return [key for key in dict.fromkeys(keys) if key not in present]


def sweep_estimate(report: Report, row: Row, subset: str, key: str) -> Estimate | None:
    """One sweep estimate of *row* (overall only; None elsewhere or without a sweep)."""
    if report.sweep is None or subset != "overall":
        return None
    return report.sweep.cells.get((row.label, row.dataset_abbr), {}).get(key)


def sweep_json(
    report: Report, row: Row, to_json: Callable[[Estimate], dict[str, Any]]
) -> dict[str, Any] | None:
    """The ``k_sweep`` entry of a row in ``--format json``: ``ks``, ``taus`` and per k the
    metrics (each as ``to_json`` writes an Estimate; a vote metric the row could not
    compute adds ``not_computed``: why, the reason the markdown's notes give)."""
    sweep = report.sweep
    if sweep is None or (row.label, row.dataset_abbr) not in sweep.cells:
        return None
    cells = sweep.cells[(row.label, row.dataset_abbr)]
    why = sweep.not_computed.get((row.label, row.dataset_abbr))
    metrics: dict[str, dict[str, Any]] = {}
    for k in sweep.ks:
        metrics[str(k)] = {}
        for spec in sweep_specs(k, sweep.taus):
            entry = metrics[str(k)][spec.key] = to_json(cells[spec.key])
            if why and spec.definition.needs_votes:
                entry["not_computed"] = why
    return {"ks": sweep.ks, "taus": [float(t) for t in sweep.taus], "metrics": metrics}


def sweep_curves(report: Report, rows: Sequence[Row], labels: dict[str, str]) -> list[dict]:
    """Curves of the ``metrics_vs_k`` figure: per row, pass@k, G-Pass@k_τ and maj@k
    against k (percent; the row's metrics share its colour)."""
    sweep = report.sweep
    assert sweep is not None
    curves = []
    for row in rows:
        cells = sweep.cells.get((row.label, row.dataset_abbr))
        if cells is None:
            continue
        series = [(d, t) for d, t in _columns(sweep.taus) if d.k_curve]
        for d, tau in series:
            name = d.column(tau)
            values = [cells[d.key(k, tau)] for k in sweep.ks]
            if not any(np.isfinite(e.value) for e in values):
                continue
            curves.append(
                {
                    "label": f"{labels[row.label]} — {name}",
                    "model": row.label,
                    "group": row.base_model,
                    "metric": name,
                    "dataset": row.dataset_abbr,
                    "x": list(sweep.ks),
                    "y": [pct(e.value) for e in values],
                    "ci_low": [pct(e.ci_low) for e in values],
                    "ci_high": [pct(e.ci_high) for e in values],
                }
            )
    return curves


def sweep_note(report: Report) -> str:
    """The any-k table's caption; what it says of maj@k is what its cells show: a vote
    has no rerun estimate, so with rerun intervals only maj@k's cells have none."""
    if report.interval == "rerun":
        maj = (
            "maj@k: no interval here, a vote has no rerun estimate "
            "(--interval benchmark or both shows its benchmark interval)"
        )
    else:
        maj = "maj@k: benchmark interval only, a vote has no rerun estimate"
    sweep = report.sweep
    specs = [s for k in sweep.ks for s in sweep_specs(k, sweep.taus)] if sweep else []
    missing = [s.key for s in specs if s.undefined]
    gone = f" {', '.join(missing)}: — (no such metric at that k; the notes say why)." * bool(
        missing
    )
    return (
        "Every metric at every listed k, recomputed from the saved per-question counts "
        "(maj@k: from the votes); the intervals the headers name, computed as in the tables "
        f"above ({maj}). pass^k is G-Pass@k_1.0.{gone}{_same_note(report)}"
    )


def _same_note(report: Report) -> str:
    """The caption's line on cells that name another column's metric (none: '')."""
    sweep = report.sweep
    if sweep is None or not any(_same_cells(k, sweep.taus) for k in sweep.ks):
        return ""
    return (
        " A cell '= G-Pass@k_τ' is that column's metric at its row's k: G-Pass@k_τ depends "
        "on τ only through ⌈τ·k⌉, the draws of k it asks to be right (at k = 1 every τ asks "
        "for 1 of 1, so each is pass@1)."
    )


def sweep_sections(report: Report, ci: bool = True) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, body) of each dataset's any-k table, rows in table order."""
    if report.sweep is None:
        return []
    out = []
    for dataset_abbr in report.subsets:
        header, body = sweep_table(report, dataset_abbr, sorted_rows(report, dataset_abbr), ci)
        if body:
            out.append((f"Any k — {dataset_abbr}", header, body))
    return out
