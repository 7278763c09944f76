"""Figures for ``gpassk-oc report --plots DIR`` (matplotlib, Agg backend, imported lazily).

Three figures per dataset, each as ``<name>.png``, ``<name>.svg`` and ``<name>.json``
(the plotted data: one entry per curve with ``label``, ``x``, ``y``, ``ci_low``,
``ci_high``; y in percent):

* ``gpass_vs_tau`` — G-Pass@k_τ against τ on the grid τ = i/k (the paper's signature
  figure). G-Pass@k_τ is a step function of τ, constant on ((i−1)/k, i/k], so it is
  drawn as steps; τ = 0 is pass@k.
* ``mg_vs_temperature`` — mG-Pass@k against temperature, one line per base model (and
  per other setting, e.g. top_p, when those vary).
* ``stability_gap`` — pass@k′ − G-Pass@k′_1.0 against k′ = 1..k: how much "can solve it
  once" overstates "solves it every time" as k′ grows.
* ``metrics_vs_k`` (only with ``report --k`` listing several ks, or ``--tau``) — pass@k,
  G-Pass@k_τ for each τ and maj@k against the listed ks, one colour per row
  (:mod:`.sweep`).
* ``output_tokens`` (only where some run recorded its output tokens) — per row, the share
  of its samples with at most x output tokens (:mod:`.token_plot`).

Bands are the report's benchmark intervals (BCa bootstrap over questions: what new
questions like these would give), not the rerun intervals of the tables.

Readable at grid size: a figure with one curve per row draws the :data:`TOP_N` rows with
the highest mG-Pass@k (the title says how many of how many; the figure's JSON lists the
rows left out, which the tables show), and ``mg_vs_temperature`` draws the models of those
rows, one panel per other setting (e.g. top_p) when they vary. Every chart gives a model
the same colour (:func:`.plots_draw.model_colors`: one per base model of the report, in
name order).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import partial
from pathlib import Path

import numpy as np

from gpassk_oc.core.metrics.registry import G_PASS, GAP, MG_PASS, MetricSpec
from gpassk_oc.core.runs.run_record import value_text
from gpassk_oc.core.uncertainty.metric_intervals import Estimate, summarize_many
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.data.numbers import pct
from gpassk_oc.report.data.report_model import Report
from gpassk_oc.report.page.plots_draw import Curve, Drawn, FigureSpec, draw_figures
from gpassk_oc.report.page.token_plot import output_tokens_spec
from gpassk_oc.worker_pool import Workers

#: curves per figure at most: the rows with the highest mG-Pass@k
TOP_N = 8
#: rows from which the figures are drawn in a worker process (:func:`start_drawing`)
WORKER_ROWS = 8


def _pct_list(values: Sequence[float]) -> list[float | None]:
    return [pct(v) for v in values]


def short_label(row: Row) -> str:
    s = row.setting
    if s is None:
        return row.label
    return f"{s.model} T={value_text(s.temperature)} top_p={value_text(s.top_p)}"


def _labels(rows: Sequence[Row]) -> dict[str, str]:
    """Readable legend labels; the full abbr where the short form would be ambiguous."""
    short = {row.label: short_label(row) for row in rows}
    counts: dict[str, int] = {}
    for text in short.values():
        counts[text] = counts.get(text, 0) + 1
    return {label: (text if counts[text] == 1 else label) for label, text in short.items()}


def top_rows(report: Report, rows: Sequence[Row], n: int = TOP_N) -> tuple[list[Row], list[Row]]:
    """(the *n* rows with the highest overall mG-Pass@k, the rest), each in table order."""
    key = MG_PASS.key(report.k)

    def value(row: Row) -> float:
        cell = report.cells.get((row.label, row.dataset_abbr, "overall"))
        est = cell.metrics.get(key) if cell else None
        return est.value if est is not None and np.isfinite(est.value) else -1.0

    ranked = sorted(rows, key=value, reverse=True)
    return ranked[:n], ranked[n:]


def _estimates(report: Report, row: Row, specs: Sequence[MetricSpec]) -> dict[str, Estimate]:
    """The row's overall estimates of *specs*: those the tables or the any-k sweep already
    bootstrapped are reused, only the others are computed. Same bands either way: a
    metric's bootstrap depends only on the questions' (n, c), the resamples, level and
    seed, never on which other metrics share the call."""
    if any(s.key not in _known(report, row) for s in specs):
        _prefetch(report, [row], specs)
    return _known(report, row)


def _known(report: Report, row: Row) -> dict[str, Estimate]:
    known: dict[str, Estimate] = {}
    cell = report.cells.get((row.label, row.dataset_abbr, "overall"))
    if cell is not None:
        known.update(cell.metrics)
    if report.sweep is not None:
        known.update(report.sweep.cells.get((row.label, row.dataset_abbr), {}))
    known.update(report.plot_estimates.get((row.label, row.dataset_abbr), {}))
    return known


def _prefetch(report: Report, rows: Sequence[Row], specs: Sequence[MetricSpec]) -> None:
    """The estimates of *specs* that the rows do not have yet, in one batched call per set
    of missing metrics (rows of the same size share their resamples:
    :func:`~gpassk_oc.core.uncertainty.metric_intervals.summarize_many`), kept in
    ``report.plot_estimates`` for :func:`_estimates`."""
    store = report.plot_estimates
    many = partial(summarize_many, n_boot=report.n_boot, level=report.level, seed=report.seed)
    wanted: dict[tuple[MetricSpec, ...], list[Row]] = {}
    for row in rows:
        known = _known(report, row)
        missing = tuple(s for s in specs if s.key not in known)
        if missing:
            wanted.setdefault(missing, []).append(row)
    for missing, members in wanted.items():
        every = many([(r.n, r.c) for r in members], missing)
        for row, est in zip(members, every):
            store.setdefault((row.label, row.dataset_abbr), {}).update(est)


def _curve(
    report: Report, row: Row, label: str, x: Sequence[float], specs: Sequence[MetricSpec]
) -> Curve:
    est = _estimates(report, row, specs)
    values = [est[s.key] for s in specs]
    return {
        "label": label,
        "model": row.label,
        "group": row.base_model,
        "dataset": row.dataset_abbr,
        "x": list(x),
        "y": _pct_list([e.value for e in values]),
        "ci_low": _pct_list([e.ci_low for e in values]),
        "ci_high": _pct_list([e.ci_high for e in values]),
    }


def gpass_vs_tau_curves(report: Report, rows: Sequence[Row]) -> list[Curve]:
    k = report.k
    taus = [Fraction(i, k) for i in range(k + 1)]
    specs = [G_PASS.spec(k, tau) for tau in taus]
    labels = _labels(rows)
    rows = [row for row in rows if int(row.n.max()) >= k]
    _prefetch(report, rows, specs)
    return [_curve(report, row, labels[row.label], [float(t) for t in taus], specs) for row in rows]


def _temperature(row: Row) -> float:
    """The recorded temperature of a row kept for the temperature axis (a number)."""
    value = row.setting.temperature if row.setting else None
    return float(value) if isinstance(value, (int, float)) else float("nan")


def mg_vs_temperature_curves(report: Report, rows: Sequence[Row]) -> list[Curve]:
    """One curve per (base model, settings other than temperature and seed)."""
    k = report.k
    groups: dict[tuple, list[Row]] = {}
    for row in rows:
        s = row.setting
        if s is None or not isinstance(s.temperature, (int, float)) or int(row.n.max()) < k:
            continue  # no recorded temperature: no point on a temperature axis
        groups.setdefault(
            (s.model, s.top_p, s.top_k, s.repetition_penalty, s.max_out_len), []
        ).append(row)
    per_model: dict[str, int] = {}
    for key in groups:
        per_model[key[0]] = per_model.get(key[0], 0) + 1
    panels = {key: _panel(key) for key in groups}
    several = len(set(panels.values())) > 1
    curves = []
    spec = MG_PASS.spec(k)
    for key, members in groups.items():
        members = sorted(members, key=_temperature)
        label = (
            key[0]
            if per_model[key[0]] == 1
            else (
                f"{key[0]} top_p={value_text(key[1])} top_k={value_text(key[2])} "
                f"rp={value_text(key[3])} len={key[4]}"
            )
        )
        points = [_curve(report, r, label, [_temperature(r)], [spec]) for r in members]
        curves.append(
            {
                "label": key[0] if several else label,
                "group": key[0],
                "panel": panels[key] if several else "",
                "model": [r.label for r in members],
                "dataset": members[0].dataset_abbr,
                "x": [p["x"][0] for p in points],
                "y": [p["y"][0] for p in points],
                "ci_low": [p["ci_low"][0] for p in points],
                "ci_high": [p["ci_high"][0] for p in points],
            }
        )
    return curves


def _panel(key: tuple) -> str:
    """The panel title of an mg_vs_temperature group: its settings other than the model."""
    return (
        f"top_p={value_text(key[1])} top_k={value_text(key[2])} "
        f"rp={value_text(key[3])} len={key[4]}"
    )


def stability_gap_curves(report: Report, rows: Sequence[Row]) -> list[Curve]:
    labels = _labels(rows)
    tops: dict[int, list[Row]] = {}
    for row in rows:
        tops.setdefault(min(report.k, int(row.n.max())), []).append(row)
    for top, members in tops.items():
        _prefetch(report, members, [GAP.spec(k) for k in range(1, top + 1)])
    curves = []
    for row in rows:
        top = min(report.k, int(row.n.max()))
        ks = list(range(1, top + 1))
        curves.append(_curve(report, row, labels[row.label], ks, [GAP.spec(k) for k in ks]))
    return curves


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def figure_specs(report: Report, title_note: str | None = None) -> list[FigureSpec]:
    """Every figure of every dataset of *report*, as data (file stem, curves, labels)."""
    specs: list[FigureSpec] = []
    several = len(report.subsets) > 1
    prefix = f"{title_note} — " if title_note else ""
    for dataset_abbr in report.subsets:
        suffix = f"__{_slug(dataset_abbr)}" if several else ""
        specs += _dataset_specs(report, dataset_abbr, prefix, suffix)
    return specs


def _dataset_specs(report: Report, dataset_abbr: str, prefix: str, suffix: str) -> list[FigureSpec]:
    """The figures of one dataset (*prefix*: the title note; *suffix*: of the file stems)."""
    specs: list[FigureSpec] = []
    band = f"{100 * report.level:g}% benchmark interval"
    k = report.k
    every = [r for r in report.rows if r.dataset_abbr == dataset_abbr]
    rows, rest = top_rows(report, every)
    labels = _labels(every)
    left_out = [labels[r.label] for r in rest]
    top = f"top {len(rows)} of {len(every)} rows by mG-Pass@{k}; " if rest else ""
    models = {r.base_model for r in rows}
    by_model = [r for r in every if r.base_model in models]
    specs.append(
        (
            f"gpass_vs_tau{suffix}",
            gpass_vs_tau_curves(report, rows),
            f"{prefix}G-Pass@{k}$_\\tau$ — {dataset_abbr}\n({top}bands: {band})",
            "threshold τ (fraction of the k samples that must be correct)",
            f"G-Pass@{k}$_\\tau$ (%)",
            True,
            left_out,
        )
    )
    shown_models = f"the {len(models)} models of those rows; " if rest else ""
    specs.append(
        (
            f"mg_vs_temperature{suffix}",
            mg_vs_temperature_curves(report, by_model),
            f"{prefix}mG-Pass@{k} against temperature — {dataset_abbr}\n"
            f"({shown_models}bands: {band})",
            "sampling temperature",
            f"mG-Pass@{k} (%)",
            False,
            sorted({r.base_model for r in every} - models),
        )
    )
    specs.append(
        (
            f"stability_gap{suffix}",
            stability_gap_curves(report, rows),
            f"{prefix}Stability gap pass@k − G-Pass@k$_{{1.0}}$ — {dataset_abbr}"
            f"\n({top}bands: {band})",
            "k (samples drawn)",
            "pass@k − G-Pass@k$_{1.0}$ (percentage points)",
            False,
            left_out,
        )
    )
    if report.sweep is not None:  # --k lists several ks
        specs.append(_sweep_spec(report, (rows, labels, left_out), dataset_abbr, prefix, suffix))
    tokens = output_tokens_spec(rows, labels, dataset_abbr, prefix, suffix)
    if tokens is not None:  # only where some run recorded its output tokens
        specs.append(tokens)
    return specs


def _sweep_spec(
    report: Report,
    shown: tuple[list[Row], dict[str, str], list[str]],
    dataset_abbr: str,
    prefix: str,
    suffix: str,
) -> FigureSpec:
    """Every metric against k (--k lists several ks); *shown*: the rows drawn, their
    legend labels and the labels of the rows left out."""
    from gpassk_oc.report.data.sweep import sweep_curves

    rows, labels, left_out = shown
    every = [r for r in report.rows if r.dataset_abbr == dataset_abbr]
    top = f"top {len(rows)} of {len(every)} rows by mG-Pass@{report.k}; " if left_out else ""
    band = f"{100 * report.level:g}% benchmark interval"
    return (
        f"metrics_vs_k{suffix}",
        sweep_curves(report, rows, labels),
        f"{prefix}pass@k, G-Pass@k$_\\tau$ and maj@k against k — {dataset_abbr}\n"
        f"({top}bands: {band})",
        "k (samples drawn)",
        "metric (%)",
        False,
        left_out,
    )


#: the figures drawn per report (by id, dropped with the report) and title note: the
#: page and ``--plots`` share one drawing
_DRAWN: dict[int, dict[str | None, list[Drawn]]] = {}


def _drawings(report: Report) -> dict[str | None, list[Drawn]]:
    """The figures drawn for *report* so far, by title note."""
    key = id(report)
    if key not in _DRAWN:
        _DRAWN[key] = {}
        weakref.finalize(report, _DRAWN.pop, key, None)
    return _DRAWN[key]


def drawn_figures(report: Report, title_note: str | None = None, png: bool = True) -> list[Drawn]:
    """Every figure of *report*, drawn once (:func:`.plots_draw.draw_figures`) and kept on
    the report, so the page's inline SVG and the ``--plots`` files share one drawing; *png*
    False leaves the PNGs out (the page needs only SVG)."""
    cache = _drawings(report)
    drawn: list[Drawn] | None = cache.get(title_note)
    if drawn is None or (png and any(d.png is None for d in drawn)):
        drawn = cache[title_note] = draw_figures(*figure_data(report, title_note), png)
    return drawn


def figure_data(
    report: Report, title_note: str | None = None
) -> tuple[list[FigureSpec], list[str]]:
    """What :func:`.plots_draw.draw_figures` needs: every figure's spec and the base models
    (their colours)."""
    return figure_specs(report, title_note), sorted({row.base_model for row in report.rows})


def start_drawing(
    report: Report, workers: Workers, png: bool, title_note: str | None = None
) -> Callable[[], None]:
    """Draw the figures in a worker while this process goes on; the call returned waits
    for them and keeps them on the report (as :func:`drawn_figures` would). A report of
    fewer than :data:`WORKER_ROWS` rows draws them here: starting a worker would cost more
    than the time it saves."""
    if len(report.rows) < WORKER_ROWS:
        drawn_figures(report, title_note, png)
        return lambda: None
    pending = workers.submit(draw_figures, *figure_data(report, title_note), png)

    def finish() -> None:
        _drawings(report)[title_note] = pending.result()

    return finish


def write_all(report: Report, out_dir: Path, title_note: str | None = None) -> list[Path]:
    """Write every figure for every dataset of *report*; returns the files written.
    *title_note* is appended to every title (e.g. the demo's "SIMULATED models")."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for figure in drawn_figures(report, title_note):
        stem = out_dir / figure.stem
        assert figure.png is not None  # drawn with png=True
        files = {
            ".png": figure.png,
            ".svg": figure.svg.encode(),
            ".json": figure.data_json().encode(),
        }
        for ext, content in files.items():
            path = stem.with_suffix(ext)
            path.write_bytes(content)
            written.append(path)
    return written


def figure_svgs(report: Report, title_note: str | None = None) -> list[tuple[str, str, list[str]]]:
    """Every figure as (plain title, inline SVG text, rows or models left out) for the
    leaderboard page: no XML prolog, no external reference, element ids unique across
    figures. Reuses the figures drawn for ``--plots`` when those came first."""
    cache = _drawings(report)
    drawn = cache.get(title_note) or drawn_figures(report, title_note, png=False)
    return [(d.title, d.inline_svg(), d.rest) for d in drawn if d.curves]
