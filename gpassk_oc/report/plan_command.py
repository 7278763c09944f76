"""``gpassk-oc plan``: how many questions and samples per question a target precision needs.

From a pilot run (a results JSON or anything ``report`` reads; pick one run with
``--model`` / ``--dataset``) or from stated assumptions (``--beta A,B --questions Q --n N``),
split each metric's variance into the part from questions and the part from sampling
(:mod:`gpassk_oc.core.uncertainty.sample_size`), and print

* the split at the current n, and (with a pilot) the pilot's own rerun and benchmark
  half-widths beside the model's, so the model can be checked against the data;
* the half-width of each interval kind for a grid of (questions, n);
* with ``--halfwidth H``: the smallest n reaching ±H points — or fail (exit 2) when no n
  can with these questions, naming how many questions would;
* with ``--difference D``: the n at which A − B resolves a true difference of D points
  (the interval excludes 0 with probability ``--power``). The rerun kind needs only the
  difficulty model; the benchmark kind needs the spread of per-question differences, from
  a paired pilot of model B (``--pilot-b``).

Every bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np

from gpassk_oc.argtypes import path_text
from gpassk_oc.core.metrics.metric_keys import HEADLINE_TAUS
from gpassk_oc.core.metrics.registry import MetricSpec, headline_specs, parse_metric
from gpassk_oc.core.uncertainty.metric_intervals import INTERVAL_KINDS, atoms_of, summarize
from gpassk_oc.core.uncertainty.sample_size import N_MAX, Difficulty, fit_beta, smallest_n, split
from gpassk_oc.log import fail
from gpassk_oc.report.collect import Row
from gpassk_oc.report.compare_command import CompareError, aligned, select_row
from gpassk_oc.report.plan_markdown import render_markdown
from gpassk_oc.report.plan_model import Plan
from gpassk_oc.report.report_model import ReportError, default_k, recorded_taus

KINDS = {"rerun": ("rerun",), "benchmark": ("benchmark",), "both": INTERVAL_KINDS}


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
    """The pilot's own half-widths (its rerun and benchmark intervals) beside the model's."""
    est = summarize(row.n, row.c, plan.metrics, n_boot=4000, level=plan.level, seed=0)
    for spec in plan.metrics:
        key = spec.key
        e = est[key]
        model = split(spec, plan.difficulty, plan.n)
        plan.pilot[key] = {
            "value": e.value,
            "model_mean": model.mean,
            "rerun": (e.rerun_high - e.rerun_low) / 2 if e.rerun in ("ok", "posterior") else None,
            "model_rerun": model.halfwidth(plan.questions, "rerun", plan.z),
            "benchmark": (e.ci_high - e.ci_low) / 2 if e.ci == "ok" else None,
            "model_benchmark": model.halfwidth(plan.questions, "benchmark", plan.z),
        }


def _target(plan: Plan) -> None:
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

            found = smallest_n(ok, spec.k)
            if found is None:
                floor = split(spec, plan.difficulty, N_MAX)
                if kind == "benchmark":
                    lowest = floor.halfwidth(plan.questions, kind, plan.z)
                    need = math.ceil((plan.z / plan.target) ** 2 * (floor.between + floor.within))
                    why = (
                        f"with {plan.questions} questions no n gets the benchmark interval "
                        f"below ±{100 * lowest:.2f} points (question variance); about {need} "
                        f"questions at n = {N_MAX} would"
                    )
                else:
                    why = f"it needs more than n = {N_MAX} samples per question"
                if len(plan.kinds) > 1:
                    why += " (--interval rerun plans the rerun interval alone)"
                raise PlanError(
                    f"--halfwidth {100 * plan.target:g}: unreachable for {key} ({kind}): {why}"
                )
            plan.smallest[key][kind] = found


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


def make_plan(args: argparse.Namespace) -> Plan:
    """Validate the arguments and compute the plan; :class:`PlanError` names the flag."""
    level = _level(args.level)
    difficulty, row = _difficulty(args)
    questions = args.questions or (len(row.keys) if row is not None else 0)
    n = args.n or (int(np.median(row.n)) if row is not None else 16)
    if questions < 2:
        raise PlanError(f"--questions {questions}: need at least 2 questions")
    if not 1 <= n <= N_MAX:
        raise PlanError(f"--n {n}: need 1 <= n <= {N_MAX} samples per question")
    if args.k is not None and args.k < 1:
        raise PlanError(f"--k {args.k}: k must be >= 1")
    k = args.k or min((default_k([row]) if row is not None else None) or 16, n)
    try:
        taus = recorded_taus([row])[0] if row is not None else HEADLINE_TAUS
        metrics = (
            [parse_metric(m) for m in args.metrics] if args.metrics else headline_specs(k, taus)
        )
    except ValueError as exc:
        raise PlanError(f"--metrics: {exc}") from None
    votes = [m.key for m in metrics if m.definition.needs_votes]
    if votes:  # the Beta model gives counts (n, c); a vote needs the answer classes
        raise PlanError(
            f"--metrics {votes[0]}: the planner models correct counts, and a vote needs the "
            "answer classes; plan for pass@k / G-Pass@k, see maj@k in gpassk-oc report"
        )
    too_big = [m.key for m in metrics if m.k > min(n, N_MAX)]
    if too_big:
        raise PlanError(f"--metrics {too_big[0]}: k exceeds n = {n} samples per question")
    z = _normal_quantile(0.5 + level / 2)
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
    source = difficulty.source
    assumptions = [
        f"question success rates p ~ Beta({difficulty.a:.3g}, {difficulty.b:.3g}) ({source}; "
        f"mean {100 * difficulty.mean:.1f}%); questions exchangeable, new ones from the "
        "same population",
        "samples of a question i.i.d. Bernoulli(p) (the sampling setting fixed)",
        f"half-width = z × SD with z = {z:.3f} ({100 * level:g}%, normal: Q large enough "
        "that the score is near-normal)",
    ]
    plan = Plan(
        level,
        z,
        KINDS[args.interval],
        difficulty,
        questions,
        n,
        metrics,
        assumptions,
        grid_q,
        grid_n,
    )
    for spec in metrics:
        key = spec.key
        s = split(spec, difficulty, n)
        plan.split[key] = {"mean": s.mean, "between": s.between, "within": s.within}
        plan.grid[key] = {
            kind: [
                [split(spec, difficulty, m).halfwidth(q, kind, z) for m in grid_n] for q in grid_q
            ]
            for kind in plan.kinds
        }
    if row is not None:
        _pilot_check(plan, row)
    if args.halfwidth is not None:
        if not args.halfwidth > 0:
            raise PlanError(f"--halfwidth {args.halfwidth:g}: need a positive half-width in points")
        plan.target = args.halfwidth / 100
        _target(plan)
    if args.difference is not None:
        if not args.difference > 0:
            raise PlanError(
                f"--difference {args.difference:g}: need a positive difference in points"
            )
        if not 0 < args.power < 1:
            raise PlanError(f"--power {args.power:g}: need a probability in (0, 1)")
        plan.difference, plan.power = args.difference / 100, args.power
        row_b = (
            _pilot_row(args.pilot_b, args.model_b, args.dataset, "pilot B")
            if args.pilot_b
            else None
        )
        if row_b is not None and row is None:
            raise PlanError("--pilot-b needs a pilot run for model A too")
        try:
            _resolve(plan, row, row_b)
        except CompareError as exc:
            raise PlanError(f"--pilot-b: {exc}") from None
    return plan


def to_json(plan: Plan) -> dict[str, Any]:
    out = {key: value for key, value in plan.__dict__.items() if key != "difficulty"}
    out["difficulty"] = plan.difficulty.__dict__
    out["metrics"] = [spec.key for spec in plan.metrics]  # keys are written at the edge
    out["kinds"] = list(plan.kinds)
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "pilot",
        nargs="?",
        type=path_text,
        metavar="PILOT",
        help="pilot run: results JSON or work/timestamp/results dir",
    )
    parser.add_argument(
        "--model", default=None, help="model in PILOT (abbr, base name or unique substring)"
    )
    parser.add_argument(
        "--dataset", default=None, help="dataset abbr (or substring) in the pilot(s)"
    )
    parser.add_argument(
        "--beta", default=None, metavar="A,B", help="assume p ~ Beta(A, B) instead of a pilot"
    )
    parser.add_argument(
        "--questions", type=int, default=None, help="number of questions Q (default: the pilot's)"
    )
    parser.add_argument(
        "--n",
        type=int,
        default=None,
        help="samples per question now (default: the pilot's, else 16)",
    )
    parser.add_argument(
        "--k", type=int, default=None, help="k of the default metrics (G-Pass@k, mG-Pass@k)"
    )
    parser.add_argument(
        "--metrics", nargs="+", default=None, metavar="METRIC", help="metrics to plan for"
    )
    parser.add_argument(
        "--interval",
        choices=tuple(KINDS),
        default="both",
        help="interval kind(s): rerun, benchmark or both (default)",
    )
    parser.add_argument(
        "--level", type=float, default=0.95, help="confidence level: 0.95 or 95 (default 0.95)"
    )
    parser.add_argument(
        "--halfwidth",
        type=float,
        default=None,
        metavar="H",
        help="target half-width in percent points: print the smallest n reaching it",
    )
    parser.add_argument(
        "--difference",
        type=float,
        default=None,
        metavar="D",
        help="difference A − B in points to resolve: print the n needed",
    )
    parser.add_argument(
        "--power",
        type=float,
        default=0.8,
        help="probability that the interval of A − B excludes 0 at --difference (default 0.8)",
    )
    parser.add_argument(
        "--pilot-b",
        type=path_text,
        default=None,
        metavar="PILOT_B",
        help="pilot run of model B on the same questions (for the benchmark kind of --difference)",
    )
    parser.add_argument("--model-b", default=None, help="model in PILOT_B")
    parser.add_argument(
        "--grid-questions", default=None, metavar="Q1,Q2,…", help="question counts of the grid"
    )
    parser.add_argument(
        "--grid-n", default=None, metavar="N1,N2,…", help="samples per question of the grid"
    )
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")


def run(args: argparse.Namespace) -> int:
    try:
        plan = make_plan(args)
    except (PlanError, ReportError) as exc:
        return fail(str(exc))
    if args.format == "json":
        print(json.dumps(to_json(plan), indent=1))
    else:
        print(render_markdown(plan), end="")
    return 0
