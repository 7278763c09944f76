"""``gpassk-oc report``: the paper's G-Pass@k tables, with error bars, from OpenCompass
work dirs (see :mod:`.collect` for what is read and how runs are grouped).

Every bad input ends in one ``error:`` line and exit status 2: ``--k < 1``, a ``--k``
larger than a run's samples per question, a ``--tau`` outside [0, 1], a ``--level`` that is neither a fraction in
(0, 1) nor a percentage in (1, 100) (95 means 95%), ``--resamples < 0``, and paths that
hold no usable run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpassk_oc.core.scoring.stats import DEFAULT_LEVEL, DEFAULT_RESAMPLES
from gpassk_oc.log import fail, logger
from gpassk_oc.report.model import Report, ReportError, build_report
from gpassk_oc.report.tables import DEFAULT_INTERVAL, INTERVAL_CHOICES

FORMATS = ("markdown", "csv", "json", "html")


def add_common_arguments(parser: argparse.ArgumentParser, k_list: bool = False) -> None:
    """Options shared by ``report`` and ``compare`` (*k_list*: ``--k`` takes a list, kept
    as text for :func:`gpassk_oc.report.sweep.parse_ks`)."""
    parser.add_argument(
        "--k",
        type=str if k_list else int,
        default=None,
        help="k for G-Pass@k (default: the largest k the runs declare)"
        + (
            "; a comma-separated list (1,2,4,8,16) adds a table of every metric at "
            "every listed k, recomputed from the saved counts and votes (tables use "
            "the largest)"
            if k_list
            else ""
        ),
    )
    parser.add_argument(
        "--level",
        type=float,
        default=DEFAULT_LEVEL,
        help="confidence level of both intervals (rerun and benchmark): a fraction (0.95) "
        "or a percentage (95); default 0.95",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=DEFAULT_RESAMPLES,
        help="bootstrap resamples of the benchmark interval (default 10000; 0 disables "
        "it; the rerun interval needs none)",
    )
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument(
        "--no-pool-seeds",
        action="store_true",
        help="one row per seed instead of pooling the samples of seeds that share "
        "a sampling setting",
    )
    parser.add_argument("--out", type=Path, default=None, help="write here instead of stdout")


def check_common(args: argparse.Namespace) -> None:
    """Validate (and normalise) the shared options in place; :class:`ReportError` names
    the flag."""
    if args.k is not None and args.k < 1:
        raise ReportError(f"--k {args.k}: k must be >= 1")
    level = args.level
    if 1 < level < 100:
        level = level / 100  # 95 means 95%
    if not 0 < level < 1:
        raise ReportError(
            f"--level {args.level:g}: need a confidence level in (0, 1) or a "
            "percentage in (1, 100), e.g. 0.95 or 95"
        )
    args.level = level
    if args.resamples < 0:
        raise ReportError(f"--resamples {args.resamples}: need 0 (no intervals) or more")
    if args.seed < 0:
        raise ReportError(f"--seed {args.seed}: need a non-negative integer")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="OpenCompass work dir(s), timestamp dir(s), results dir(s) or results JSON files",
    )
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument(
        "--plots",
        type=Path,
        default=None,
        metavar="DIR",
        help="also write figures (PNG + SVG + the plotted data as JSON) to DIR",
    )
    parser.add_argument(
        "--no-ci", action="store_true", help="markdown/html: values only, like the paper's tables"
    )
    parser.add_argument(
        "--interval",
        choices=tuple(INTERVAL_CHOICES),
        default=DEFAULT_INTERVAL,
        help="markdown/html: the interval kind(s) in the brackets — rerun (same questions, "
        "new samples; default), benchmark (new questions too) or both; json/csv carry both",
    )
    parser.add_argument(
        "--descending",
        action="store_true",
        help="sort rows by mG-Pass@k descending (default ascending, like the paper)",
    )
    parser.add_argument(
        "--tau",
        default=None,
        metavar="T1,T2",
        help="thresholds of the any-k table (default 0.5,0.75,1.0); implies that table",
    )
    add_common_arguments(parser, k_list=True)


def render(report: Report, fmt: str, ci: bool = True, descending: bool = False) -> str:
    """The report as text in *fmt* (one of :data:`FORMATS`)."""
    if fmt == "json":
        from gpassk_oc.report.jsonout import render_json

        return render_json(report, descending)
    if fmt == "csv":
        from gpassk_oc.report.csvout import render_csv

        return render_csv(report, descending)
    if fmt == "html":
        from gpassk_oc.report.html import render_html

        return render_html(report, ci, descending)
    from gpassk_oc.report.markdown import render_markdown

    return render_markdown(report, ci, descending)


def write_output(text: str, out: Path | None) -> None:
    """*text* to stdout, or to *out*; a file that cannot be written is a
    :class:`ReportError` naming it."""
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    except OSError as exc:
        raise ReportError(f"--out {out}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    from gpassk_oc.report.sweep import build_sweep, parse_ks, parse_taus

    try:
        ks = parse_ks(args.k) if args.k is not None else None
        taus = parse_taus(args.tau) if args.tau is not None else None
        args.k = max(ks) if ks else None
        check_common(args)
        report = build_report(
            args.paths,
            args.k,
            level=args.level,
            n_boot=args.resamples,
            seed=args.seed,
            pool_seeds=not args.no_pool_seeds,
        )
        if (ks and len(ks) > 1) or taus is not None:
            report.sweep = build_sweep(report, ks or [report.k], taus)
    except ReportError as exc:
        return fail(str(exc))
    report.interval = args.interval
    for note in report.notes:
        logger.info(f"note: {note}")
    if not report.rows and not report.greedy:
        return fail("no usable runs found under " + ", ".join(map(str, args.paths)))
    try:
        write_output(
            render(report, args.format, ci=not args.no_ci, descending=args.descending), args.out
        )
    except ReportError as exc:
        return fail(str(exc))
    if args.plots is not None and not report.rows:
        logger.warning(
            f"--plots {args.plots}: no figures, the runs are all greedy (one sample "
            "per question: no G-Pass curves to draw)"
        )
    elif args.plots is not None:
        from gpassk_oc.report.plots import write_all

        try:
            written = write_all(report, args.plots)
        except OSError as exc:
            return fail(f"--plots {args.plots}: {exc.strerror or exc}")
        for path in written:
            logger.info(f"wrote {path}")
    return 0
