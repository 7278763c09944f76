"""``gpassk-oc compare A B``: paired difference of two runs on the same questions.

A and B are each a results JSON or anything ``report`` reads (work dir, timestamp dir,
results dir). When a path holds several runs, pick one with ``--model-a`` / ``--model-b``
(exact model abbr, base model name, or a unique substring) and ``--dataset``. Both may
name the same work dir. Seeds of one sampling setting are pooled as in ``report``.

A − B gets both named intervals and a two-sided p-value for each: *rerun* (same
questions, A and B resampled: t interval and t-test from unbiased per-question variance
estimates) and *benchmark* (new questions too: paired bootstrap, *questions resampled
jointly*). Pairing is only meaningful when both runs answered exactly the same questions
— otherwise the command refuses and says which questions differ.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any

from gpassk_oc.argtypes import path_text
from gpassk_oc.core.metrics.metric_keys import pass_key
from gpassk_oc.core.metrics.registry import PASS, MetricSpec, headline_specs, parse_metric
from gpassk_oc.core.metrics.same_metric import merged_columns, same_metric_lines
from gpassk_oc.core.uncertainty.interval_kinds import SHOWN
from gpassk_oc.core.uncertainty.metric_intervals import Difference
from gpassk_oc.core.uncertainty.metric_intervals import compare as paired_compare
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import Refused
from gpassk_oc.report.commands.cli_common import (
    add_common_arguments,
    add_error_arguments,
    check_common,
    fail_refused,
    output_format,
    write_output,
)
from gpassk_oc.report.data.collect import Row, Run, collect, subset_masks
from gpassk_oc.report.data.numbers import DASH, pct, pct_text
from gpassk_oc.report.data.report_model import ReportError, default_k, recorded_taus
from gpassk_oc.report.data.report_parts import ErrorRates
from gpassk_oc.report.data.row_pick import CompareError, aligned, same_pair, select_row
from gpassk_oc.report.data.tables import (
    BENCHMARK_FEW,
    MARKS,
    Entry,
    unreliable_reasons,
    wide_clause,
)
from gpassk_oc.report.formats.corrections_out import rate_intervals, rates_text
from gpassk_oc.report.formats.format_registry import format_names
from gpassk_oc.report.formats.markdown import legend_lines
from gpassk_oc.report.ranking.compare_ranks import (
    beside,
    corrected_lines,
    prob_a_better,
    prob_lines,
)
from gpassk_oc.report.ranking.corrections import load_rates

#: what ``--format`` (or the suffix of ``--out``) may choose
FORMATS = format_names("compare")

#: the note beside two runs with the same counts on every question
IDENTICAL = (
    "A and B have the same number of correct samples on every question, so A − B is 0 "
    "throughout. The rerun interval and P(A better than B) treat A and B as independent "
    "runs; if they are one run saved twice, or one deterministic setting (greedy "
    "decoding) run twice, they are not, and no difference between them can be measured."
)


def compare_rows(
    a: Row,
    b: Row,
    metrics: Sequence[MetricSpec],
    *,
    by_split: bool = False,
    n_boot: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, dict[str, Difference]]:
    """Differences per subset ("overall", and "split/lang" when *by_split*)."""
    n_a, c_a, n_b, c_b = aligned(a, b)
    subsets = subset_masks(a.keys)
    if not by_split:
        subsets = {"overall": subsets["overall"]}
    return {
        name: paired_compare(
            n_a[m], c_a[m], n_b[m], c_b[m], metrics, n_boot=n_boot, level=level, seed=seed
        )
        for name, m in subsets.items()
    }


def to_json(
    a: Row, b: Row, k: int, level: float, n_boot: int, result: dict[str, dict[str, Difference]]
) -> dict[str, Any]:
    def block(diffs: dict[str, Difference]) -> dict[str, Any]:
        out = {}
        for key, d in diffs.items():
            p_bench = _p_or_none(d.p_value, d.ci)
            out[key] = {
                "a": pct(d.a),
                "b": pct(d.b),
                "diff": pct(d.diff),
                "rerun": {
                    "low": pct(d.rerun_low),
                    "high": pct(d.rerun_high),
                    "se": pct(d.sampling_se),
                    "p_value": _p_or_none(d.rerun_p, d.rerun),
                    "status": d.rerun,
                    "rests_on": d.rests_on,
                },
                "benchmark": {
                    "low": pct(d.ci_low),
                    "high": pct(d.ci_high),
                    "p_value": p_bench,
                    "status": d.ci,
                },
                # release-0.1 names of the benchmark interval and the rerun SE
                "ci_low": pct(d.ci_low),
                "ci_high": pct(d.ci_high),
                "ci": d.ci,
                "sampling_se": pct(d.sampling_se),
                "p_value": p_bench,
                "n_questions": d.n_questions,
            }
        return out

    return {
        "a": a.label,
        "b": b.label,
        "dataset_a": a.dataset_abbr,
        "dataset_b": b.dataset_abbr,
        "k": k,
        "num_questions": len(a.keys),
        "confidence_level": level,
        "resamples": n_boot,
        "metrics": block(result["overall"]),
        "splits": {name: block(d) for name, d in result.items() if name != "overall"},
    }


def _p_or_none(p: float, status: str) -> float | None:
    return None if status in ("undefined", "off", "n < 2k") or p != p else p


def _bound_text(x: float) -> str:
    """A signed difference or interval bound, its side of 0 kept visible: one that rounds
    to 0.0 but is not 0 reads ``+0.0`` or ``-0.0``; exactly 0 (A equals B, or the interval
    touches 0) reads ``0.0``."""
    text = pct_text(x, sign=True)
    if text.lstrip("+-") == pct_text(0.0) and math.isfinite(x):
        return pct_text(0.0) if x == 0 else ("+" if x > 0 else "-") + pct_text(0.0)
    return text


def _ci_text(low: float, high: float, status: str) -> str:
    if status in SHOWN:
        mark = MARKS.get(status, "")
        return f"[{_bound_text(low)}, {_bound_text(high)}]{mark}"
    return {"no width": "no width", "n < 2k": "n<2k"}.get(status, DASH)


def _p_text(p: float, status: str, alpha: float = 0.05) -> str:
    """The p-value to 3 decimals, with more where 3 would read as *alpha* (1 − level) but
    p is not *alpha*: which side of it p lies on is the comparison's verdict."""
    value = _p_or_none(p, status)
    return DASH if value is None else beside(value, alpha)


#: the legend's ``no width``: the report's (:func:`.tables.no_width_note`) for A − B, true
#: also where Σ V = 0 with counts strictly between 0 and n (pass@16 at c > n − 16), and
#: why its p-value is left out too
NO_WIDTH = (
    "no width: no interval is given: rerun: no question's value moves within the samples "
    "of A or of B (e.g. every question answered right in all or in none of its samples in "
    "both), so the counts cannot say how far a rerun would move the difference, and no "
    "p-value (—); benchmark: every question has the same A − B, so resampling questions "
    "gives no width, and no p-value (—) unless every A − B is 0 (p = 1): any other p "
    "would reflect only the number of resamples."
)


#: the legend's ``n<2k`` (the report's ``[n<2k]``, said for A − B)
SHORT_N_NOTE = (
    "n<2k: no rerun interval, nor a p-value (—): a side has fewer than 2k samples per "
    "question at the metric's k, so no unbiased variance estimate exists, and no Beta "
    "could be fitted to its questions to stand in (one sample per question, as in a "
    "greedy run, cannot tell question difficulty from sampling noise)."
)


def _one_run_entries(result: dict[str, dict[str, Difference]]) -> list[tuple[str, list, bool]]:
    """Legend entries for rerun intervals that rest on one run's samples (the other was
    right in all or in none of every question's samples: :attr:`.Difference.rests_on`)."""
    tables: dict[str, list[str]] = {"A": [], "B": []}
    for name, diffs in result.items():
        if any(d.rerun in SHOWN and d.rests_on in tables for d in diffs.values()):
            side = next(d.rests_on for d in diffs.values() if d.rests_on in tables)
            tables["B" if side == "A" else "A"].append(name)
    return [
        (
            f"{flat} was answered right in all or in none of its samples on every question "
            f"of {', '.join(names)}: its counts cannot say how far a rerun would move {flat} "
            f"(its own report shows [no width]), so the rerun interval there rests on "
            f"{other}'s samples alone, and a rerun of {flat} could move the difference further.",
            [],
            True,
        )
        for flat, other in (("A", "B"), ("B", "A"))
        if (names := tables[flat])
    ]


def _legend(
    a: Row, b: Row, level: float, n_boot: int, result: dict[str, dict[str, Difference]]
) -> list[Entry]:
    """The markdown's legend entries: the layout, each interval kind and each mark a cell
    shows (the reason "n < 2k" for '!' only where a side has n < 2k at a metric's k)."""
    diffs = [d for by_metric in result.values() for d in by_metric.values()]
    shown = {d.rerun for d in diffs} | {d.ci for d in diffs}
    wide = wide_clause(shown)
    varying, short, *others = unreliable_reasons()
    fewest = min(int(a.n.min()), int(b.n.min()))
    if any(2 * parse_metric(key).k > fewest for by in result.values() for key in by):
        others = [short, *others]
    if any(d.ci == "unreliable" for d in diffs):
        others.append(BENCHMARK_FEW)
    reasons = [f"{r}." for r in [varying.replace("vary", "vary in A or in B", 1), *others]]
    marks = [
        (
            "* = approximate: posterior variances under a Beta fitted to the questions (the "
            "shape-free grid fit for G-Pass@k_τ with 2 ≤ ⌈τk⌉ < k) stand in where n < 2k or "
            "an unbiased one is 0, and are combined with it where n < 4k.",
            [],
            "posterior" in shown,
        ),
        (wide.removesuffix("; ") + ".", [], bool(wide)),
        ("! = unreliable, for one of these reasons:", reasons, "unreliable" in shown),
        (NO_WIDTH, [], "no width" in shown),
        (SHORT_N_NOTE, [], "n < 2k" in shown),
        *_one_run_entries(result),
    ]
    keys = dict.fromkeys(key for by_metric in result.values() for key in by_metric)
    same: list[Entry] = [(line, []) for line in same_metric_lines([parse_metric(k) for k in keys])]
    return [
        (
            f"Dataset: A {a.dataset_abbr}, B {b.dataset_abbr}; {len(a.keys)} shared questions. "
            f"Percent; A − B with two {100 * level:g}% intervals and a two-sided p-value "
            f"each, read off that interval: p < {1 - level:g} exactly when the "
            f"{100 * level:g}% interval beside it leaves 0 out. A difference or bound shown "
            "as +0.0 or -0.0 lies just above or below 0; 0.0 is 0 itself (A equals B, or "
            f"the interval touches 0, and p ≥ {1 - level:g}).",
            [],
        ),
        *same,
        (
            "rerun: would the difference hold if both were sampled again on these "
            "questions (t interval, unbiased per-question variances).",
            [],
        ),
        *[(text, items) for text, items, show in marks if show],
        (
            "benchmark: would it hold on new questions like these (paired BCa bootstrap "
            + (
                f"over questions, {n_boot} resamples; its p inverts the same BCa interval)."
                if n_boot > 0
                else "over questions: not computed, — throughout, as --resamples 0 asks)."
            ),
            [],
        ),
    ]


def render_markdown(
    a: Row,
    b: Row,
    level: float,
    n_boot: int,
    result: dict[str, dict[str, Difference]],
    identical: bool = False,
) -> str:
    entries = _legend(a, b, level, n_boot, result)
    out = [f"# {a.label} (A) vs {b.label} (B)", "", *legend_lines(entries), ""]
    if identical:
        out += [f"Note: {IDENTICAL}", ""]
    for name, diffs in result.items():
        out += [
            f"## {name}",
            "",
            f"| Metric | A | B | A − B | rerun {100 * level:g}% | rerun p | "
            f"benchmark {100 * level:g}% | benchmark p |",
            "|---|---|---|---|---|---|---|---|",
        ]
        rows = merged_columns([parse_metric(k) for k in diffs])  # G-Pass@1 at every τ: one
        for key, metric in rows:
            d = diffs[key]
            out.append(
                f"| {metric} | {pct_text(d.a)} | {pct_text(d.b)} | "
                f"{_bound_text(d.diff)} | "
                f"{_ci_text(d.rerun_low, d.rerun_high, d.rerun)} | "
                f"{_p_text(d.rerun_p, d.rerun, 1 - level)} | "
                f"{_ci_text(d.ci_low, d.ci_high, d.ci)} | {_p_text(d.p_value, d.ci, 1 - level)} |"
            )
        out.append("")
    return "\n".join(out)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "a", type=path_text, metavar="A", help="results JSON or work/timestamp/results dir of run A"
    )
    parser.add_argument(
        "b", type=path_text, metavar="B", help="results JSON or work/timestamp/results dir of run B"
    )
    parser.add_argument(
        "--model-a", default=None, help="model abbr (or base name / unique substring) in A"
    )
    parser.add_argument(
        "--model-b", default=None, help="model abbr (or base name / unique substring) in B"
    )
    parser.add_argument(
        "--dataset", default=None, help="dataset abbr (or substring) when a path holds several"
    )
    parser.add_argument(
        "--metrics",
        nargs="+",
        default=None,
        metavar="METRIC",
        help="metrics to compare (default: G-Pass@k_{0.5,0.75,1.0}, mG-Pass@k, pass@k, pass@1)",
    )
    parser.add_argument("--by-split", action="store_true", help="also compare per split × language")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="default: from the suffix of --out (.md, .json), else markdown",
    )
    add_common_arguments(parser)
    add_error_arguments(parser)


def check_metrics(
    names: Sequence[str | MetricSpec], rows: Sequence[tuple[Row, str]]
) -> list[MetricSpec]:
    """Metric keys (``--metrics``, the CLI edge), parsed once into specs; CompareError (one
    line) for an unknown name, a vote metric, a metric that does not exist at its k
    (mG-Pass@1), or a k that a run's samples cannot reach."""
    keys = []
    for name in names:
        try:
            spec = parse_metric(name)
        except ValueError as exc:
            raise CompareError(f"--metrics: {exc}") from None
        if spec.definition.needs_votes:
            raise CompareError(
                f"--metrics {name}: compare pairs (n, c) counts, and a vote needs the "
                "answer classes; see maj@k in gpassk-oc report"
            )
        if spec.undefined is not None:
            raise CompareError(f"--metrics {name}: {spec.undefined}")
        for row, side in rows:
            most = int(row.n.max())
            if spec.k > most:
                raise CompareError(
                    f"--metrics {name}: k={spec.k} exceeds the n={most} judged "
                    f"samples per question of {side} ({row.label}); it cannot "
                    "be computed"
                )
        keys.append(spec)
    return list(dict.fromkeys(keys))


def _default_metrics(a: Row, b: Row, k: int, notes: list[str]) -> list[MetricSpec]:
    """The headline metrics at *k*, pass@k and pass@1; one that does not exist at k
    (mG-Pass@1) is left out, with a note saying why."""
    default = headline_specs(k, recorded_taus([a, b])[0]) + [PASS.spec(k), PASS.spec(1)]
    notes += [f"{s.key} left out: {s.undefined}" for s in default if s.undefined]
    return [s for s in default if s.undefined is None]


def _audited_runs(args: argparse.Namespace, pool: bool) -> list[Run]:
    """The runs an audit sheet's rates are counted over: every run ``report`` reads under
    A's and B's paths. A sheet drawn with ``audit`` from a work dir holds samples of all
    its runs, not only A's and B's; counted over the same runs, ``compare`` and ``report``
    take the same rates from one sheet."""
    rows, greedy, _ = collect(list(dict.fromkeys([args.a, args.b])), pool)
    return [run for row in rows for run in row.runs] + list(greedy)


def _corrected(
    a: Row, b: Row, rates: ErrorRates, metrics: list[MetricSpec], args: argparse.Namespace
) -> tuple[list[str], dict[str, Any]]:
    """Each side's corrected values (markdown lines, JSON block) with the rates they rest
    on, named as the report's corrected table names them."""
    lines, data = corrected_lines(
        [(a, "A"), (b, "B")], rates, metrics, args.level, args.resamples, args.seed
    )
    unused = "".join(f" {line}." for line in rates.unused_lines())  # stated, never used
    lines[4:4] = [f"Rates: {rates_text(rates, args.level)}.{unused}", ""]  # under the caption
    data["rates"] = rate_intervals(rates, args.level)
    data["unused_sources"] = [{"source": s, "reason": why} for s, why in rates.unused.items()]
    return lines, data


def _probs(
    result: dict[str, dict[str, Difference]], metrics: list[MetricSpec], n_boot: int
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, dict[str, Any]]]]:
    """P(A better than B) overall and per split × language (``--by-split``; {} without),
    each read off its own subset's interval and p."""
    splits = {name: prob_a_better(d, metrics, n_boot) for name, d in result.items()}
    return splits.pop("overall"), splits


def run(args: argparse.Namespace) -> int:
    pool = not args.no_pool_seeds
    try:
        check_common(args)
        args.format = output_format(args.format, args.out, FORMATS)
        a, notes_a = select_row(args.a, args.model_a, args.dataset, "A", pool)
        b, notes_b = select_row(args.b, args.model_b, args.dataset, "B", pool)
        sides = ((a, "A"), (b, "B"))
        identical = same_pair(a, b)
        if args.k is not None:
            check_metrics([pass_key(args.k)], sides)  # an explicit --k must be reachable
        k = args.k or min(default_k([a]) or 1, default_k([b]) or 1, int(a.n.max()), int(b.n.max()))
        metrics = check_metrics(args.metrics or _default_metrics(a, b, k, notes_a), sides)
        result = compare_rows(
            a,
            b,
            metrics,
            by_split=args.by_split,
            n_boot=args.resamples,
            level=args.level,
            seed=args.seed,
        )
    except (CompareError, ReportError) as exc:
        return fail(str(exc))
    notes = list(dict.fromkeys(notes_a + notes_b))  # in the output too, not only on stderr
    for note in notes:
        logger.info(f"note: {note}")
    probs, splits = _probs(result, metrics, args.resamples)
    if args.audit is not None and args.verdict_error:
        return fail("--audit and --verdict-error: give one of them, not both")
    try:
        runs = _audited_runs(args, pool) if args.audit is not None else a.runs + b.runs
        rates = load_rates(runs, args.audit, args.verdict_error)
    except ValueError as exc:
        return fail(str(exc))
    fixed = _corrected(a, b, rates, metrics, args) if rates is not None else ([], {})
    if args.format == "json":
        data = to_json(a, b, k, args.level, args.resamples, result)
        # P(A better than B), both kinds; under its 0.3.0 name too (the same values: for
        # every metric but gap@k "better" is "greater")
        data["p_a_better"] = data["p_a_greater"] = probs
        data["p_a_better_splits"] = splits  # --by-split: per split × language ({} without)
        data["identical_counts"] = identical
        data["notes"] = notes  # a metric left out (mG-Pass@1 at k = 1), the runs' notes
        if rates is not None:
            data["corrected"] = fixed[1]
        text = json.dumps(data, indent=1) + "\n"
    else:
        text = render_markdown(a, b, args.level, args.resamples, result, identical)
        rows = merged_columns(metrics)  # G-Pass@1 at every τ: one row
        text += "\n" + "\n".join(prob_lines(probs, args.level, splits, rows) + fixed[0])
        text += "".join(["\n## Notes\n\n"] + [f"- {n}\n" for n in notes] if notes else [])
    try:
        write_output(text, args.out, args.force)
    except Refused as exc:
        return fail_refused(exc)
    except ReportError as exc:
        return fail(str(exc))
    return 0
