"""``gpassk-oc report``: the paper's G-Pass@k tables, with error bars, from OpenCompass
work dirs (see :mod:`.collect` for what is read and how runs are grouped).

Every bad input ends in one ``error:`` line and exit status 2: ``--k < 1``, a ``--k``
larger than a run's samples per question, a ``--level`` that is neither a fraction in
(0, 1) nor a percentage in (1, 100) (95 means 95%), ``--resamples < 0``, and paths that
hold no usable run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpassk_oc.core.scoring.stats import DEFAULT_LEVEL, DEFAULT_RESAMPLES
from gpassk_oc.log import fail, logger
from gpassk_oc.report.health import report_warnings
from gpassk_oc.report.model import Report, ReportError, build_report

FORMATS = ("markdown", "csv", "json", "html")


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``report`` and ``compare``."""
    parser.add_argument(
        "--k",
        type=int,
        default=None,
        help="k for G-Pass@k (default: the largest k the runs declare)",
    )
    parser.add_argument(
        "--level",
        type=float,
        default=DEFAULT_LEVEL,
        help="confidence level of the bootstrap intervals: a fraction (0.95) "
        "or a percentage (95); default 0.95",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=DEFAULT_RESAMPLES,
        help="bootstrap resamples (default 10000; 0 disables the intervals)",
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
        "--descending",
        action="store_true",
        help="sort rows by mG-Pass@k descending (default ascending, like the paper)",
    )
    add_common_arguments(parser)


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
    try:
        check_common(args)
        report = build_report(
            args.paths,
            args.k,
            level=args.level,
            n_boot=args.resamples,
            seed=args.seed,
            pool_seeds=not args.no_pool_seeds,
        )
    except ReportError as exc:
        return fail(str(exc))
    for note in report.notes:
        logger.info(f"note: {note}")
    for line in report_warnings(report, args.paths):
        logger.warning(line)
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
