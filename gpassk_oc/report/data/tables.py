"""Table content shared by the markdown and HTML renderers: headers and cell strings,
all numbers through :mod:`.numbers` (one rounding rule)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gpassk_oc.core.metrics.metric_keys import ACCURACY, PASS_AT_1
from gpassk_oc.core.runs.run_record import value_text
from gpassk_oc.core.uncertainty.bootstrap import MIN_BENCHMARK_QUESTIONS
from gpassk_oc.core.uncertainty.interval_kinds import (
    GUESSED_SHARE,
    MIN_VARYING,
    SHOWN,
    WIDE_RATIO,
)
from gpassk_oc.core.uncertainty.metric_intervals import INTERVAL_KINDS, Estimate
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.data.health_warnings import MARKER
from gpassk_oc.report.data.identity import identity, identity_header
from gpassk_oc.report.data.numbers import DASH, pct_text
from gpassk_oc.report.data.report_model import (
    ACCOUNTING_COLUMNS,
    Cell,
    Report,
    accounting,
    sorted_rows,
)

NO_WIDTH = "no width"
SHORT_N = "n<2k"
#: why a rerun interval reads ``[n<2k]`` (the legend's line and the page's note)
SHORT_N_NOTE = "not even a Beta can be fitted"
#: after a rerun interval of status 'posterior' / 'wide' / 'unreliable' (see :func:`wide_note`,
#: :func:`unreliable_reasons`)
MARKS = {"posterior": "*", "wide": "+", "unreliable": "!"}
#: what ``--interval`` may ask for, and the kinds each shows (in order)
INTERVAL_CHOICES: dict[str, tuple[str, ...]] = {
    "rerun": ("rerun",),
    "benchmark": ("benchmark",),
    "both": INTERVAL_KINDS,
}
#: the compact table's default: the leaderboard's numbers are defined on these questions,
#: and the rerun interval is what reproducing the table would move; the benchmark interval
#: (~3-7× wider) answers "on new questions like these", which `compare` serves for A − B
DEFAULT_INTERVAL = "rerun"


def interval_text(low: float, high: float, status: str) -> str:
    """``[low, high]`` (``[low, high]*`` where posterior variances stand in for some
    question's, see :func:`legend`; ``[low, high]+`` where they make it wider than
    needed, :func:`wide_note`; ``[low, high]!`` where it is unreliable,
    :func:`unreliable_reasons`), ``[no width]`` (:func:`no_width_note`), ``[n<2k]``, or ''
    when there is none to show."""
    if status in SHOWN:
        return f"[{bounds_text(low, high)}]{MARKS.get(status, '')}"
    if status == "no width":
        return f"[{NO_WIDTH}]"
    if status == "n < 2k":
        return f"[{SHORT_N}]"
    return ""


def bounds_text(low: float, high: float) -> str:
    """``low, high`` in percent, with more decimals (up to 4) where one would print a
    narrow interval as ``[0.0, 0.0]``: a width, however small, is not shown as none."""
    for digits in range(1, 5):
        texts = pct_text(low, digits), pct_text(high, digits)
        if texts[0] != texts[1] or not high > low:
            break
    return ", ".join(texts)


def estimate_text(est: Estimate | None, ci: bool, kinds: Sequence[str] = ("benchmark",)) -> str:
    """``value [low, high]`` with one bracket per interval kind in *kinds*;
    ``[no width]`` when the counts cannot give one a width (:func:`no_width_note`),
    ``[n<2k]`` when a rerun interval cannot be calibrated."""
    if est is None:
        return DASH
    text = pct_text(est.value)
    if text == DASH or not ci:
        return text
    parts = [interval_text(*est.interval(kind)) for kind in kinds]
    return " ".join([text] + [p for p in parts if p])


def setting_text(row: Row) -> str:
    s = row.setting
    if s is None:
        return DASH
    seeds = ",".join(value_text(x) for x in row.seeds)
    return (
        f"T={value_text(s.temperature)} top_p={value_text(s.top_p)} "
        f"top_k={value_text(s.top_k)} rp={value_text(s.repetition_penalty)} "
        f"seed={seeds} len={value_text(s.max_out_len)}"
    )


def identity_cells(report: Report, row: Row, marker: bool = False) -> list[str]:
    """The row's identity columns (see :mod:`.identity`); *marker* flags run-health
    warnings on the model name."""
    cells = list(identity(row, report.identity).values())
    if marker and row.warnings:
        cells[0] += MARKER
    return cells


def identity_columns(report: Report) -> list[str]:
    """Headers of :func:`identity_cells`."""
    return identity_header(report.identity)


def interval_header(report: Report, kinds: Sequence[str] | None = None) -> str:
    """The bracket the table header names: ``[rerun 95%]``, ``[benchmark 95%]``…"""
    kinds = INTERVAL_CHOICES[report.interval] if kinds is None else kinds
    return " ".join(f"[{kind} {100 * report.level:g}%]" for kind in kinds)


def greedy_kinds(report: Report) -> tuple[str, ...]:
    """Greedy (temperature-0) accuracy has no sampling noise to rerun: benchmark only."""
    return tuple(k for k in INTERVAL_CHOICES[report.interval] if k != "rerun")


def table_rows(
    report: Report, dataset_abbr: str, subset: str, ci: bool = True, descending: bool = True
) -> tuple[list[str], list[list[str]]]:
    """Header and string cells of one table; with *ci* every metric column names the
    interval kind(s) its brackets show."""
    columns = report.headline_columns()  # one per metric: G-Pass@1 at every τ is one
    kinds = INTERVAL_CHOICES[report.interval]
    suffix = f" {interval_header(report)}" if ci else ""
    greedy = greedy_kinds(report)
    greedy_suffix = f" {interval_header(report, greedy)}" if ci and greedy else ""
    header = identity_columns(report) + ["Setting", "n", "Q", "Greedy" + greedy_suffix]
    header += [name + suffix for _, name in columns]
    body = []
    for row in sorted_rows(report, dataset_abbr, subset, descending):
        cell = report.cells[(row.label, dataset_abbr, subset)]
        values = [estimate_text(cell.greedy, ci, greedy_kinds(report))] + [
            estimate_text(cell.metrics.get(key), ci, kinds) for key, _ in columns
        ]
        body.append(
            identity_cells(report, row, marker=True)
            + [setting_text(row), str(int(row.n.max())), str(cell.num_questions)]
            + values
        )
    return header, body


def greedy_rows(report: Report, ci: bool = True) -> tuple[list[str], list[list[str]]]:
    """Every greedy (one sample per question) run: its accuracy."""
    kinds = greedy_kinds(report)
    label = f"{ACCURACY} {interval_header(report, kinds)}" if ci and kinds else ACCURACY
    header = ["Model", "Dataset", "Q", label]
    body = []
    for run in report.greedy:
        cell: Cell = report.greedy_cells[(run.model_abbr, run.dataset_abbr)]
        body.append(
            [
                run.model_abbr,
                run.dataset_abbr,
                str(cell.num_questions),
                estimate_text(cell.metrics[PASS_AT_1], ci, kinds),
            ]
        )
    return header, body


def sensitivity_rows(
    report: Report, dataset_abbr: str, descending: bool = True
) -> tuple[list[str], list[list[str]]]:
    """Verdict sensitivity: each headline metric's range, reported value first."""
    columns = report.merge_columns(report.headline_metrics() + [PASS_AT_1])
    metrics = [key for key, _ in columns]
    header = identity_columns(report) + ["undecided", "unjudged"] + [n for _, n in columns]
    body = []
    for row in sorted_rows(report, dataset_abbr, "overall", descending):
        cell = report.cells[(row.label, dataset_abbr, "overall")]
        sens = cell.sensitivity
        if sens is None:
            continue
        undecided = {
            "exact": str(sens.undecided),
            "upper bound": f"≤{sens.undecided}",
            "unknown": "?",
        }[sens.basis]
        cells = []
        for key in metrics:
            low, high = sens.ranges[key]
            cells.append(
                f"{pct_text(cell.metrics[key].value)} ({pct_text(low)}–{pct_text(high)})"
                if pct_text(low) != pct_text(high)
                else pct_text(cell.metrics[key].value)
            )
        body.append(identity_cells(report, row) + [undecided, str(sens.unjudged)] + cells)
    return header, body


def accounting_rows(
    report: Report, dataset_abbr: str, descending: bool = True
) -> tuple[list[str], list[list[str]]]:
    """How the samples were checked: the counts the results files carry (no metric)."""
    rows = sorted_rows(report, dataset_abbr, "overall", descending)
    tables = [accounting(row) for row in rows]
    columns = [c for c in ACCOUNTING_COLUMNS if any(c in t for t in tables)]
    if not columns:
        return [], []
    body = [
        identity_cells(report, row) + [str(t["check"])] + [str(t.get(c, DASH)) for c in columns]
        for row, t in zip(rows, tables)
    ]
    return identity_columns(report) + ["check"] + columns, body


def accounting_note(columns: Sequence[str]) -> str:
    """The accounting table's caption: what its counts hold, for the columns it shows."""
    parts = ["How each row's samples were checked (counts summed over its runs)."]
    if "rule_decided" in columns:
        among = [c for c in ("no_answer", "rule_undecided") if c in columns]
        inside = f", {' and '.join(among)} among them" if among else ""
        parts.append(f"rule_decided: every sample the rules settled{inside}.")
    if "rule_undecided" in columns:
        parts.append("rule_undecided: no rule decided it; scored wrong.")
    return " ".join(parts)


def sensitivity_note(report: Report) -> str:
    return (
        "Verdict sensitivity: value (range if every sample no rule decided and no judge "
        "labelled were wrong – right). undecided = scored wrong with no rule deciding "
        "(rules mode; ≤ marks an upper bound from an older results file: every rule-wrong "
        "sample with an answer; ? = the file does not record how samples were checked, "
        "so only unjudged samples count); unjudged = no judge label (excluded from n). "
        "The range is how far the checker, not the model, could move the number."
    )


def no_width_note(interval: str = "both") -> str:
    """What ``[no width]`` means for the interval kinds *interval* shows (true of each)."""
    rerun = (
        "no question's counts give it any rerun variance: every question was answered "
        "right in all or in none of its samples, or its value is the same for every count "
        "a rerun would plausibly give it (pass@k where fewer than k samples were wrong), "
        "so the counts cannot say how far a rerun would move the value"
    )
    bench = "every question has the same value, so resampling questions gives no width"
    parts = {"rerun": [rerun], "benchmark": [bench]}.get(
        interval, [f"rerun: {rerun}", f"benchmark: {bench}"]
    )
    return "no interval is given: " + "; ".join(parts)


#: why an interval is marked '!' (status 'unreliable'), in short (the page's tooltips)
UNRELIABLE = (
    f"unreliable: fewer than {MIN_VARYING} of the table's questions vary, n < 2k for a "
    "metric that needs all k draws right, or most of the width is the fitted difficulty "
    "model's guess, not the samples' estimate (rerun); fewer than "
    f"{MIN_BENCHMARK_QUESTIONS} questions for such a metric (benchmark)"
)


#: why a rerun interval is marked '*' (status 'posterior'), in short (the page's note)
POSTERIOR = (
    "approximate: some question's rerun variance is the fitted difficulty model's "
    "posterior expectation, where the samples give no usable unbiased estimate "
    "(n < 2k, an estimate of 0, or n < 4k)"
)


#: why a rerun interval is marked '+' (status 'wide'), in short (the page's tooltips)
WIDE = (
    "wider than needed: most of this width comes from the fitted difficulty model, not "
    "from variation seen in the samples"
)


def wide_note() -> str:
    """What a rerun interval marked ``+`` (status 'wide') means, and why."""
    return (
        f"+ = {WIDE} (the Beta fitted to the questions gives their variances more than "
        f"{WIDE_RATIO:g}× what a fit assuming no shape for the difficulties gives: the "
        "Beta's shape puts questions near the metric's threshold that the counts do not "
        "show, e.g. questions solved nearly always or nearly never and τ ≤ 0.5), so a rerun "
        "would likely move the value less than this (docs/intervals-and-planning.md, "
        "Marked wider than needed)"
    )


def wide_clause(statuses: Iterable[str]) -> str:
    """``"{wide_note()}; "`` where one of the rerun *statuses* shown is 'wide', else "": a
    legend explains '+' only beside a '+' (the report's default fallback marks none;
    :class:`.atoms.Fallback`, ``ends``)."""
    return f"{wide_note()}; " if "wide" in set(statuses) else ""


def unreliable_reasons() -> list[str]:
    """The three reasons a rerun interval is marked ``!`` (status 'unreliable'); the
    benchmark interval's one is :data:`BENCHMARK_FEW`."""
    return [
        f"fewer than {MIN_VARYING} of the table's questions vary (have a "
        "value strictly between the metric's lowest and highest, e.g. for G-Pass@k_1.0 "
        "some but not all k-subsets of their samples right; where n < 2k: samples not all "
        "alike), so the interval rests on those few and its coverage can be far from its "
        "level: below it where a few questions near the top carry the value (τ = 1), above "
        "it where every question sits at a flat end (τ ≤ 0.5, see docs/intervals-and-"
        "planning.md, Small tables)",
        "n < 2k for a metric that needs all k draws right "
        "(G-Pass@k_1.0, mG-Pass@k): the width is then the fitted difficulty model's "
        "guess of how far below 1 the rates of the questions often right lie, which the "
        "counts cannot check, and it comes out narrowest when the value came out high "
        "(same page, n < 2k)",
        "for G-Pass@k_τ with 2 ≤ ⌈τk⌉ < k, more than "
        f"{GUESSED_SHARE:.0%} of its variance is the fitted difficulty model's, not the "
        "unbiased estimate from the samples (mostly questions at a flat end: no rerun is "
        "seen moving them): its width is then the model's guess of how often such a question "
        "leaves its flat end, which the counts cannot check (same page, Small tables)",
    ]


#: why a *benchmark* interval is marked '!' (a rerun interval's: :func:`unreliable_reasons`)
BENCHMARK_FEW = (
    "benchmark interval, from fewer than "
    f"{MIN_BENCHMARK_QUESTIONS} questions, of a metric that needs all k draws right "
    "(G-Pass@k_1.0, mG-Pass@k): so few questions often hold none of the "
    "population's questions solved in every draw, resampling them cannot show what is "
    "missing, and the interval tends to lie below the truth (same page, The benchmark "
    "interval in small tables)"
)


#: a legend entry: its text and the items listed under it
Entry = tuple[str, list[str]]


def shown_statuses(report: Report, ci: bool = True) -> set[str]:
    """The interval statuses the markdown tables show: each cell's headline metrics and
    Greedy, the greedy runs' accuracy and the any-k table, under the kinds ``--interval``
    shows (none without *ci*). The legend explains a mark only where a cell shows it."""
    if not ci:
        return set()
    kinds, greedy = INTERVAL_CHOICES[report.interval], greedy_kinds(report)
    keys = report.headline_metrics()
    pairs = [(c.metrics.get(key), kinds) for c in report.cells.values() for key in keys]
    pairs += [(c.greedy, greedy) for c in report.cells.values()]
    pairs += [(c.metrics.get(PASS_AT_1), greedy) for c in report.greedy_cells.values()]
    if report.sweep is not None:
        pairs += [(e, kinds) for by in report.sweep.cells.values() for e in by.values()]
    return {
        est.interval(kind)[2]
        for est, shown in pairs
        if isinstance(est, Estimate) and pct_text(est.value) != DASH
        for kind in shown
    }


def _short_rows(report: Report) -> bool:
    """Some row has fewer than 2k samples of a question at a k the tables show."""
    k = max([report.k] + (list(report.sweep.ks) if report.sweep is not None else []))
    return any(int(row.n.min()) < 2 * k for row in report.rows)


def _rerun_entries(report: Report, level: str, shown: set[str] | None) -> list[Entry]:
    """The rerun interval's entry and those of its marks a cell shows (every mark where
    *shown* is None; '+' only beside a '+' either way)."""
    statuses = {"posterior", "unreliable", "n < 2k"} if shown is None else shown
    if shown is None:
        wide = wide_clause(e.rerun for c in report.cells.values() for e in c.metrics.values())
    else:
        wide = wide_clause(shown)
    reasons = [f"{r}." for r in unreliable_reasons()]
    if shown is not None and not _short_rows(report):
        reasons = [r for r in reasons if not r.startswith("n < 2k")]
    if report.interval == "both":
        reasons.append(f"{BENCHMARK_FEW}.")
    out: list[Entry] = [
        (
            f"[rerun {level}] = how far a rerun on these same questions would move the value "
            "(sampling noise only; t interval from an unbiased per-question variance "
            "estimate).",
            [],
        )
    ]
    if "posterior" in statuses:
        out.append((POSTERIOR_LEGEND, []))
    if wide:
        out.append((wide.removesuffix("; ") + ".", []))
    if "unreliable" in statuses:
        out.append(("! = unreliable, for one of these reasons:", reasons))
    if "n < 2k" in statuses:
        out.append((f"[{SHORT_N}]: {SHORT_N_NOTE}.", []))
    return out


#: the legend's '*' entry (the full text; :data:`POSTERIOR` is the page's short one)
POSTERIOR_LEGEND = (
    "* = approximate: some question's variance is the posterior expectation "
    "under a Beta fitted to the questions (under the shape-free grid fit for "
    "G-Pass@k_τ with 2 ≤ ⌈τk⌉ < k where n ≥ 2k: a Beta keeps mass near the threshold "
    "that the counts do not show) — where n < 2k (no unbiased estimate "
    "exists; there the shape-free grid fit's instead where it gives more), where the "
    "unbiased estimate is 0 (e.g. every sample right: it would claim a rerun cannot "
    "move the question) and, combined with it, where n < 4k (the unbiased estimate "
    "alone is too noisy)."
)


def legend(report: Report, best_first: bool = True, shown: set[str] | None = None) -> list[Entry]:
    """The report's legend as entries, one per thing a reader meets in the tables (the
    layout, each interval kind, each mark; the reasons for ``!`` listed under it):
    markdown shows one bullet each. *shown*: the interval statuses the tables show
    (:func:`shown_statuses`): a mark no cell shows is left out, and so are the interval
    kinds when none is shown (``--no-ci``); None: every mark."""
    order = "the best first" if best_first else "ascending, like the paper"
    level = f"{100 * report.level:g}%"
    rerun = _rerun_entries(report, level, shown)
    bench: list[Entry]
    if report.n_boot <= 0:
        bench = [(f"[benchmark {level}]: off (--resamples 0).", [])]
    else:
        bench = [
            (
                f"[benchmark {level}] = how the model would do on new questions like these "
                f"(questions resampled too: BCa bootstrap over questions, "
                f"{report.n_boot} resamples, seed {report.seed}, widened to contain the "
                "estimate).",
                [],
            )
        ]
    if report.interval == "benchmark" and (shown is None or "unreliable" in shown):
        bench.append((f"! = unreliable: {BENCHMARK_FEW}.", []))
    kinds: list[Entry] = {"both": rerun + bench, "rerun": rerun}.get(report.interval, bench)
    layout = (
        "Values in percent, rounded half up (an interval's bounds to as many decimals, up "
        "to 4, as show its width). n = samples per question, Q = questions. "
        f"Rows sorted by {report.sort_spec().key}, {order}. Greedy: temperature-0 run of "
        f"the same base model ({DASH} when absent); its column and table (nothing to "
        "resample) show only the benchmark interval."
    )
    same: list[Entry] = [(line, []) for line in report.same_metric_notes()]  # merged columns: why
    if shown is not None and not shown:  # --no-ci: no interval to explain
        return [(layout, []), *same]
    if shown is None or "no width" in shown:
        kinds.append((f"[{NO_WIDTH}]: {no_width_note(report.interval)}.", []))
    return [(layout, []), *same, *kinds]


def titles(report: Report) -> Sequence[tuple[str, str]]:
    """(dataset, subset) of every table, in order."""
    return [(d, s) for d, subsets in report.subsets.items() for s in subsets]
