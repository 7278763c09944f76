"""``gpassk-oc plan``: how many questions and samples per question a target precision needs.

From a pilot run (a results JSON or anything ``report`` reads; pick one run with
``--model`` / ``--dataset``) or from stated assumptions (``--beta A,B --questions Q --n N``),
split each metric's variance into the part from questions and the part from sampling
(:mod:`gpassk_oc.core.uncertainty.sample_size`), and print

* the split at the current n, and (with a pilot) the pilot's own rerun and benchmark
  half-widths beside the model's, so the model can be checked against the data — with a
  warning where they differ by more than a factor of 2 (``PILOT_FACTOR``), and one where
  the pilot has no half-width of its own to check against (an interval without width);
* the half-width of each interval kind for a grid of (questions, n);
* with ``--halfwidth H``: the smallest n reaching ±H points; a metric or kind that no n
  reaches with these questions shows "—" with the reason (how many questions would), and
  the rest of the plan still prints — only a plan where nothing is reachable fails
  (exit 2);
* with ``--difference D``: the n at which A − B resolves a true difference of D points
  (the interval excludes 0 with probability ``--power``). The rerun kind needs only the
  difficulty model; the benchmark kind needs the spread of per-question differences, from
  a paired pilot of model B (``--pilot-b``).

Every bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import json

from gpassk_oc.argtypes import path_text
from gpassk_oc.core.metrics.registry import parse_metric
from gpassk_oc.log import fail, logger
from gpassk_oc.report.commands.cli_common import add_paths_argument
from gpassk_oc.report.data.report_model import ReportError
from gpassk_oc.report.formats.format_registry import format_names
from gpassk_oc.report.planning.plan_build import (
    KINDS,
    PlanError,
    make_plan,
    to_json,
    unreachable_lines,
)
from gpassk_oc.report.planning.plan_markdown import render_markdown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _add_source_arguments(parser)
    _add_target_arguments(parser)


def _add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the difficulty comes from (a pilot run or assumptions) and what is planned."""
    add_paths_argument(
        parser, "pilot", "?", "PILOT", "pilot run: results JSON or work/timestamp/results dir"
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


def _add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """The precision asked for, model B's pilot, the grid shown, the output format."""
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
        default=None,
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
    parser.add_argument("--format", choices=format_names("plan"), default="markdown")


def run(args: argparse.Namespace) -> int:
    try:
        args.metric_specs = [parse_metric(m) for m in args.metrics or []]
    except ValueError as exc:
        return fail(f"--metrics: {exc}")
    try:
        plan = make_plan(args)
    except (PlanError, ReportError) as exc:
        return fail(str(exc))
    for line in plan.warnings + unreachable_lines(plan):  # in the plan too; here, not missed
        logger.warning(line)
    if args.format == "json":
        print(json.dumps(to_json(plan), indent=1))
    else:
        print(render_markdown(plan), end="")
    return 0
