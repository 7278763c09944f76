"""The plan ``gpassk-oc plan`` prints (:mod:`gpassk_oc.report.commands.plan_command` says
what it holds): the flags validated, the pilot read, each metric's variance split into
questions and sampling, the grid of half-widths, and the n a target half-width or a
difference needs (:mod:`gpassk_oc.core.uncertainty.sample_size`)."""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.metric_keys import HEADLINE_TAUS
from gpassk_oc.core.metrics.registry import MetricSpec, headline_specs
from gpassk_oc.core.metrics.same_metric import same_as, same_metric_groups
from gpassk_oc.core.uncertainty.grid_prior import fit_grid
from gpassk_oc.core.uncertainty.interval_kinds import SHOWN
from gpassk_oc.core.uncertainty.metric_intervals import (
    INTERVAL_KINDS,
    atoms_of,
    rerun_interval,
    summarize,
)
from gpassk_oc.core.uncertainty.sample_size import N_MAX, Difficulty, fit_beta, smallest_n, split
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.data.report_model import default_k, recorded_taus
from gpassk_oc.report.data.row_pick import CompareError, aligned, same_pair, select_row
from gpassk_oc.report.planning.plan_model import Plan

KINDS = {"rerun": ("rerun",), "benchmark": ("benchmark",), "both": INTERVAL_KINDS}
#: --power when not given: the chance that A − B's interval excludes 0 at --difference
DEFAULT_POWER = 0.8
#: the pilot check warns when the model's half-width and the pilot's own differ by more
#: than this factor (either way): the pilot's own half-widths scatter by some 10–30% at
#: Q ≈ 30, so a factor of 2 is a misfit, not noise
PILOT_FACTOR = 2.0


#: the warning beside a pilot B with the pilot's counts on every question
SAME_COUNTS = (
    "--pilot-b: B has the same number of correct samples as the pilot on every question, "
    "so its per-question differences from A have no spread: the benchmark kind of "
    "--difference then needs the rerun kind's n. If B is A's run saved twice, or one "
    "deterministic setting run twice, that spread says nothing about model B"
)


class PlanError(ValueError):
    """A plan that cannot be made as asked; the message is the one line to show."""


def _int_list(text: str, flag: str) -> list[int]:
    try:
        values = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise PlanError(f"{flag} {text}: need comma-separated whole numbers") from None
    if not values or values[0] < 1:
        raise PlanError(f"{flag} {text}: need whole numbers >= 1")
    return values


def _level(value: float) -> float:
    level = value / 100 if 1 < value < 100 else value
    if not 0 < level < 1:
        raise PlanError(
            f"--level {value:g}: need a confidence level in (0, 1) or a percentage in "
            "(1, 100), e.g. 0.95 or 95"
        )
    return level


def _normal_quantile(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def _pilot_row(path: str, model: str | None, dataset: str | None, side: str) -> Row:
    flag = "--model" if side == "pilot" else "--model-b"
    try:
        row, _ = select_row(path, model, dataset, "X")
    except CompareError as exc:  # compare's wording names its own flags: say ours
        text = str(exc).replace("--model-x", flag).removeprefix("X: ")
        raise PlanError(f"{side}: {text}") from None
    if len(row.keys) < 2:
        raise PlanError(f"pilot {path}: {row.label} has {len(row.keys)} question; need >= 2")
    if int(row.n.min()) < 2:
        raise PlanError(
            f"pilot {path}: {row.label} has n={int(row.n.min())} sample per question; "
            "need n >= 2 to separate question difficulty from sampling noise"
        )
    return row


def _difficulty(args: argparse.Namespace) -> tuple[Difficulty, Row | None]:
    if args.pilot and args.beta:
        raise PlanError("give a pilot run or --beta assumptions, not both")
    if args.pilot:
        row = _pilot_row(args.pilot, args.model, args.dataset, "pilot")
        return fit_beta(row.n, row.c, f"fitted to {row.label} on {row.dataset_abbr}"), row
    if not args.beta:
        raise PlanError("need a pilot run (PILOT) or assumptions (--beta A,B --questions Q)")
    try:
        a, b = (float(x) for x in args.beta.split(","))
    except ValueError:
        raise PlanError(f"--beta {args.beta}: need two numbers A,B, e.g. 0.6,0.6") from None
    if not (a > 0 and b > 0 and math.isfinite(a + b)):
        raise PlanError(f"--beta {args.beta}: both Beta parameters must be > 0")
    if args.questions is None:
        raise PlanError("--beta needs --questions Q (the number of questions)")
    return Difficulty(a, b, "assumed"), None


def _pilot_check(plan: Plan, row: Row) -> None:
    """The pilot's own half-widths (its rerun and benchmark intervals) beside the model's
    at the pilot's n and Q (not the plan's --n / --questions: the check compares the model
    with the data it was fitted to)."""
    est = summarize(row.n, row.c, plan.metrics, n_boot=4000, level=plan.level, seed=0)
    n, questions = int(np.median(row.n)), len(row.keys)
    for spec in plan.metrics:
        key = spec.key
        e = est[key]
        model = split(spec, plan.difficulty, n)
        rerun = (e.rerun_high - e.rerun_low) / 2 if e.rerun in SHOWN else None
        if rerun is not None and e.rerun != "ok":
            # the pilot's own interval took some question's variance from a Beta fitted
            # to it (n near 2k): that is the fit being checked, so it would agree with the
            # model however wrong both are; a prior that assumes no shape answers instead
            rerun = _grid_halfwidth(row, spec, plan.level)
            if rerun is None:
                plan.pilot_unchecked.setdefault(key, {})["rerun"] = NO_GRID
        plan.pilot[key] = {
            "value": e.value,
            "model_mean": model.mean,
            "rerun": rerun,
            "model_rerun": model.halfwidth(questions, "rerun", plan.z),
            # a width wherever report gives one ('!' too: a benchmark interval of τ = 1
            # over fewer than 32 questions is marked, its width still the data's)
            "benchmark": (e.ci_high - e.ci_low) / 2 if e.ci in SHOWN else None,
            "model_benchmark": model.halfwidth(questions, "benchmark", plan.z),
        }
        for kind, status in (("rerun", e.rerun), ("benchmark", e.ci)):
            if plan.pilot[key][kind] is None and status in UNCHECKED:
                plan.pilot_unchecked.setdefault(key, {})[kind] = UNCHECKED[status][kind]
        plan.warnings += _disagreements(plan, key)
    plan.warnings += _unchecked_warnings(plan)


def _grid_halfwidth(row: Row, spec: MetricSpec, level: float) -> float | None:
    """The pilot's rerun half-width, as ``report`` computes it, with every fallback variance
    from the grid prior (:mod:`~gpassk_oc.core.uncertainty.grid_prior`) fitted to it; None
    if it cannot be fitted."""
    atoms = atoms_of(row.n, row.c)
    try:
        prior = fit_grid(atoms.n, atoms.c, "the pilot's questions", weight=atoms.weight)
    except ValueError:
        return None
    var = atoms.variances([spec], prior)
    low, high, _, _ = rerun_interval(atoms.weight, atoms.values([spec]), var, level=level)
    return float(high[0] - low[0]) / 2


#: why the pilot has no half-width of its own to check the model's against, by the
#: status of its interval and the kind (JSON ``pilot_unchecked``)
UNCHECKED = {
    "no width": {
        "rerun": "the pilot's own rerun interval has no width (no question's value moves "
        "within its samples, e.g. every question right in all or in none of them)",
        "benchmark": "the pilot's own benchmark interval has no width (every question has "
        "the same value)",
    },
    "undefined": {kind: "the metric has no value on the pilot's questions" for kind in KINDS},
    "n < 2k": {kind: "the pilot has fewer than 2k samples per question" for kind in KINDS},
}
#: ... and where the grid prior that stands in for the fitted Beta cannot be fitted
NO_GRID = (
    "the pilot's own rerun interval needs a difficulty prior here (n near 2k), and a "
    "prior of no set shape could not be fitted to the pilot"
)


def _unchecked_warnings(plan: Plan) -> list[str]:
    """One warning per planned kind and reason where the pilot gives no half-width of its
    own: there the model's half-widths, and every n from them, go unchecked."""
    groups = plan.unchecked_groups()
    return [
        f"pilot check: not made for {', '.join(keys)} ({kind}): {why}, so the fitted "
        f"Beta({plan.difficulty.a:.3g}, {plan.difficulty.b:.3g})'s {kind} half-widths "
        f"cannot be checked against the pilot, and the {kind} half-widths and n below "
        "rest on that fit alone"
        for (kind, why), keys in groups.items()
        if kind in plan.kinds
    ]


def _disagreements(plan: Plan, key: str) -> list[str]:
    """A warning per interval kind where the fitted model's half-width and the pilot's own
    differ by more than :data:`PILOT_FACTOR`: every half-width and n the plan prints comes
    from the model, so it is off by about as much."""
    out = []
    check = plan.pilot[key]
    fit = f"the fitted Beta({plan.difficulty.a:.3g}, {plan.difficulty.b:.3g})"
    for kind in plan.kinds:
        pilot, model = check[kind], check[f"model_{kind}"]
        if not (pilot and model and pilot > 0 and model > 0):
            continue
        ratio = max(model / pilot, pilot / model)
        if ratio > PILOT_FACTOR:
            bigger = "larger" if model > pilot else "smaller"
            out.append(
                f"pilot check: for {key} the fitted model's {kind} half-width is "
                f"{ratio:.1f}× {bigger} than the pilot's own (±{100 * model:.2f} vs "
                f"±{100 * pilot:.2f} points; warned beyond {PILOT_FACTOR:g}×): "
                f"{fit} does not describe these questions, and "
                f"every half-width and n below comes from it (its n are likely too "
                f"{'large' if model > pilot else 'small'})"
            )
    return out


def _target(plan: Plan) -> None:
    """The smallest n reaching --halfwidth per metric and kind; an unreachable one is None
    with its reason (the rest of the plan still stands), and a plan that no kind of any
    metric can reach is refused (:class:`PlanError`)."""
    assert plan.target is not None
    for spec in plan.metrics:
        key = spec.key
        plan.smallest[key] = {}
        for kind in plan.kinds:

            def ok(
                n: int, kind: str = kind, spec: MetricSpec = spec, target: float = plan.target
            ) -> bool:
                return (
                    split(spec, plan.difficulty, n).halfwidth(plan.questions, kind, plan.z)
                    <= target
                )

            found = plan.smallest[key][kind] = smallest_n(ok, spec.k)
            if found is None:
                plan.unreachable.setdefault(key, {})[kind] = _unreachable(plan, spec, kind)
    reasons = unreachable_lines(plan)
    if len(reasons) == len(plan.metrics) * len(plan.kinds):  # nothing reachable to print
        raise PlanError(reasons[0])


def unreachable_lines(plan: Plan) -> list[str]:
    """One line per metric and kind that no n brings to --halfwidth, saying why."""
    assert plan.target is not None or not plan.unreachable
    return [
        f"--halfwidth {100 * (plan.target or 0):g}: unreachable for {key} ({kind}): {why}"
        for key, by in plan.unreachable.items()
        for kind, why in by.items()
    ]


def _unreachable(plan: Plan, spec: MetricSpec, kind: str) -> str:
    """Why no n ≤ N_MAX brings *kind*'s half-width of *spec* to the target."""
    assert plan.target is not None
    if kind != "benchmark":
        return f"it needs more than n = {N_MAX} samples per question"
    floor = split(spec, plan.difficulty, N_MAX)
    lowest = floor.halfwidth(plan.questions, kind, plan.z)
    need = math.ceil((plan.z / plan.target) ** 2 * (floor.between + floor.within))
    return (
        f"with {plan.questions} questions no n gets the benchmark interval below "
        f"±{100 * lowest:.2f} points (question variance); about {need} questions at "
        f"n = {N_MAX} would"
    )


def _per_question(spec: MetricSpec, n: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The metric's per-question estimates (NaN where k > n)."""
    atoms = atoms_of(n, c)
    return atoms.values([spec])[atoms.inverse, 0]


def _resolve(plan: Plan, row_a: Row | None, row_b: Row | None) -> None:
    """n for which A − B resolves plan.difference (see module docstring)."""
    assert plan.difference is not None
    difference = plan.difference
    factor = plan.z + _normal_quantile(plan.power)
    diff_b = fit_beta(row_b.n, row_b.c, "pilot B") if row_b is not None else plan.difficulty
    for spec in plan.metrics:
        key = spec.key
        between = None
        if row_a is not None and row_b is not None:
            n_a, c_a, n_b, c_b = aligned(row_a, row_b)
            d = _per_question(spec, n_a, c_a) - _per_question(spec, n_b, c_b)
            d = d[~np.isnan(d)]
            n0a, n0b = int(np.median(n_a)), int(np.median(n_b))
            sampling0 = split(spec, plan.difficulty, n0a).within + split(spec, diff_b, n0b).within
            # the paired differences' spread at the pilot's n, less the sampling part
            between = max(float(np.var(d, ddof=1)) - sampling0, 0.0) if d.size > 1 else None
        plan.resolve[key] = {}
        for kind in plan.kinds:
            if kind == "benchmark" and between is None:
                plan.resolve[key][kind] = "needs --pilot-b"
                continue
            extra = between if kind == "benchmark" and between is not None else 0.0

            def ok(
                n: int, extra: float = extra, spec: MetricSpec = spec, diff: float = difference
            ) -> bool:
                var = extra + split(spec, plan.difficulty, n).within + split(spec, diff_b, n).within
                return factor * math.sqrt(var / plan.questions) <= diff

            plan.resolve[key][kind] = smallest_n(ok, spec.k)


def _metrics(
    args: argparse.Namespace, row: Row | None, n: int, notes: list[str]
) -> list[MetricSpec]:
    """The metrics to plan for: --metrics (``args.metric_specs``), else the headline ones
    at --k (default: the pilot's headline k, else 16, at most n); a headline metric that
    does not exist at that k (mG-Pass@1) is left out with a line in *notes*. Errors name
    the flag the metrics came from."""
    if args.k is not None and args.k < 1:
        raise PlanError(f"--k {args.k}: k must be >= 1")
    k = args.k or min((default_k([row]) if row is not None else None) or 16, n)
    taus = recorded_taus([row])[0] if row is not None else HEADLINE_TAUS
    # --metrics arrives parsed (plan_command: keys are read at the CLI edge)
    metrics = list(args.metric_specs) if args.metric_specs else headline_specs(k, taus)
    if not args.metric_specs:
        notes += [f"{m.key} left out: {m.undefined}" for m in metrics if m.undefined]
        metrics = [m for m in metrics if m.undefined is None]
        if k > min(n, N_MAX):
            raise PlanError(f"--k {k}: k exceeds n = {n} samples per question")
    votes = [m.key for m in metrics if m.definition.needs_votes]
    if votes:  # the Beta model gives counts (n, c); a vote needs the answer classes
        raise PlanError(
            f"--metrics {votes[0]}: the planner models correct counts, and a vote needs the "
            "answer classes; plan for pass@k / G-Pass@k, see maj@k in gpassk-oc report"
        )
    undefined = [m for m in metrics if m.undefined is not None]
    if undefined:
        raise PlanError(f"--metrics {undefined[0].key}: {undefined[0].undefined}")
    too_big = [m.key for m in metrics if m.k > min(n, N_MAX)]
    if too_big:
        raise PlanError(f"--metrics {too_big[0]}: k exceeds n = {n} samples per question")
    return metrics


def _distinct(metrics: list[MetricSpec]) -> tuple[list[MetricSpec], dict[str, dict[str, Any]]]:
    """*metrics* without the G-Pass@k_τ that ask for as many of the k draws as a larger τ
    does (at k = 1 every τ asks for 1 of 1: each is pass@1; the largest τ, whose τ·k is
    that count, is kept), and per metric kept the keys it stands for with the reason
    (:func:`~gpassk_oc.core.metrics.same_metric.same_as`): one plan per metric, not one
    identical row per name."""
    return [group[-1] for group in same_metric_groups(metrics)], same_as(metrics)


def _grids(
    args: argparse.Namespace, questions: int, n: int, metrics: list[MetricSpec]
) -> tuple[list[int], list[int]]:
    """The question counts and samples per question of the half-width grid."""
    grid_q = (
        _int_list(args.grid_questions, "--grid-questions")
        if args.grid_questions
        else (sorted({max(2, questions // 2), questions, 2 * questions, 4 * questions}))
    )
    kmax = max(m.k for m in metrics)
    grid_n = (
        _int_list(args.grid_n, "--grid-n")
        if args.grid_n
        else sorted({x for x in (kmax, 2 * kmax, n, 2 * n, 4 * n) if kmax <= x <= N_MAX})
    )
    if grid_n[0] < kmax or grid_n[-1] > N_MAX:
        raise PlanError(f"--grid-n {args.grid_n}: every n must lie in [k = {kmax}, {N_MAX}]")
    return grid_q, grid_n


def _assumptions(difficulty: Difficulty, z: float, level: float) -> list[str]:
    """What the plan assumes, in words."""
    return [
        f"question success rates p ~ Beta({difficulty.a:.3g}, {difficulty.b:.3g}) "
        f"({difficulty.source}; mean {100 * difficulty.mean:.1f}%); questions exchangeable, "
        "new ones from the same population",
        "samples of a question i.i.d. Bernoulli(p) (the sampling setting fixed)",
        f"half-width = z × SD with z = {z:.3f} ({100 * level:g}%, normal: Q large enough "
        "that the score is near-normal)",
    ]


def _split_and_grid(plan: Plan) -> None:
    """Each metric's variance split at the current n, and its half-widths on the grid."""
    for spec in plan.metrics:
        key = spec.key
        s = split(spec, plan.difficulty, plan.n)
        plan.split[key] = {"mean": s.mean, "between": s.between, "within": s.within}
        plan.grid[key] = {
            kind: [
                [split(spec, plan.difficulty, m).halfwidth(q, kind, plan.z) for m in plan.grid_n]
                for q in plan.grid_questions
            ]
            for kind in plan.kinds
        }


def _difference(plan: Plan, args: argparse.Namespace, row: Row | None) -> None:
    """--difference: the n at which A − B resolves it (:func:`_resolve`)."""
    if not args.difference > 0:
        raise PlanError(f"--difference {args.difference:g}: need a positive difference in points")
    plan.difference = args.difference / 100
    plan.power = DEFAULT_POWER if args.power is None else args.power
    row_b = (
        _pilot_row(args.pilot_b, args.model_b, args.dataset, "pilot B") if args.pilot_b else None
    )
    if row_b is not None and row is None:
        raise PlanError("--pilot-b needs a pilot run for model A too")
    try:
        if row is not None and row_b is not None and same_pair(row, row_b, "--model-b"):
            # greedy runs of one setting, say: no spread of differences to plan with
            plan.warnings.append(SAME_COUNTS)
        _resolve(plan, row, row_b)
    except CompareError as exc:
        raise PlanError(f"--pilot-b: {exc}") from None


def make_plan(args: argparse.Namespace) -> Plan:
    """Validate the arguments and compute the plan; :class:`PlanError` names the flag."""
    level = _level(args.level)
    difficulty, row = _difficulty(args)
    questions = args.questions or (len(row.keys) if row is not None else 0)
    n = args.n or (int(np.median(row.n)) if row is not None else 16)
    if args.power is not None and not 0 < args.power < 1:
        raise PlanError(f"--power {args.power:g}: need a probability in (0, 1)")
    if questions < 2:
        raise PlanError(f"--questions {questions}: need at least 2 questions")
    if not 1 <= n <= N_MAX:
        raise PlanError(f"--n {n}: need 1 <= n <= {N_MAX} samples per question")
    notes: list[str] = []
    metrics = _metrics(args, row, n, notes)
    same: dict[str, dict[str, Any]] = {}
    if not args.metric_specs:  # the headline ones: each distinct metric once
        metrics, same = _distinct(metrics)
        notes += [
            f"{key} stands for {', '.join(s['keys'])}: {s['reason']}" for key, s in same.items()
        ]
    z = _normal_quantile(0.5 + level / 2)
    grid_q, grid_n = _grids(args, questions, n, metrics)
    kinds = KINDS[args.interval]
    assumptions = _assumptions(difficulty, z, level)
    plan = Plan(level, z, kinds, difficulty, questions, n, metrics, assumptions, grid_q, grid_n)
    plan.warnings += notes
    plan.same_as = same
    _split_and_grid(plan)
    if row is not None:
        _pilot_check(plan, row)
    if args.halfwidth is not None:
        if not args.halfwidth > 0:
            raise PlanError(f"--halfwidth {args.halfwidth:g}: need a positive half-width in points")
        plan.target = args.halfwidth / 100
        _target(plan)
    if args.difference is not None:
        _difference(plan, args, row)
    elif args.power is not None:  # read only with --difference: say so, not ignore it
        plan.warnings.append(f"--power {args.power:g}: used only with --difference; ignored")
    return plan


def to_json(plan: Plan) -> dict[str, Any]:
    out = {key: value for key, value in plan.__dict__.items() if key != "difficulty"}
    out["difficulty"] = plan.difficulty.__dict__
    out["metrics"] = [spec.key for spec in plan.metrics]  # keys are written at the edge
    out["kinds"] = list(plan.kinds)
    return out
