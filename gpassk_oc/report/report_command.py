"""``gpassk-oc report``: the paper's G-Pass@k tables, with error bars, from OpenCompass
work dirs (see :mod:`.collect` for what is read and how runs are grouped).

Every bad input ends in one ``error:`` line and exit status 2: ``--k < 1``, a ``--k``
larger than a run's samples per question, a ``--tau`` outside [0, 1], a ``--level`` that is
neither a fraction in (0, 1) nor a percentage in (1, 100) (95 means 95%), ``--resamples``
outside 0..100,000, ``--plots`` naming a file, and paths that hold no usable run.

Writing follows :mod:`gpassk_oc.ownership`: ``--out`` and the files of ``--plots`` replace
only files gpassk-oc wrote and nobody changed since (else one line per file, exit 2,
nothing written, nothing printed; ``--force`` overrides). Everything is rendered first and
checked, then written, so a refusal leaves no half-made output.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from gpassk_oc.argtypes import path_arg, path_text, worker_count_arg
from gpassk_oc.core.data.published import PublishedError, load_leaderboard
from gpassk_oc.core.uncertainty.metric_intervals import DEFAULT_LEVEL, DEFAULT_RESAMPLES
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import Refused, write_files
from gpassk_oc.report.health_warnings import report_warnings
from gpassk_oc.report.published_section import build_published
from gpassk_oc.report.report_model import Report, ReportError, build_report
from gpassk_oc.report.tables import DEFAULT_INTERVAL, INTERVAL_CHOICES
from gpassk_oc.report.worker_pool import Workers, default_workers

FORMATS = ("markdown", "csv", "json", "html")
#: what an ``--out`` suffix says the file holds
SUFFIX_FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".csv": "csv",
    ".json": "json",
    ".html": "html",
    ".htm": "html",
}


def output_format(fmt: str | None, out: Path | None, choices: tuple[str, ...]) -> str:
    """The format to write: ``--format`` when given, else the one ``--out``'s suffix names,
    else markdown. :class:`ReportError` when the two disagree, or the suffix names a format
    this command does not write (a ``report.json`` holding markdown helps no one)."""
    suffix = out.suffix if out is not None else ""
    named = SUFFIX_FORMATS.get(suffix.lower())
    if named is not None and named not in choices:
        raise ReportError(
            f"--out {out}: a {suffix} file would hold {named}, which this command does "
            f"not write (--format {', '.join(choices)}); choose another name"
        )
    if fmt is None:
        return named or "markdown"
    if named is not None and named != fmt:
        raise ReportError(
            f"--out {out}: its suffix {suffix} means {named}, but --format is {fmt}; "
            "change one (or drop --format: the suffix decides)"
        )
    return fmt


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
    parser.add_argument(
        "--out",
        type=path_arg,
        default=None,
        help="write here instead of stdout; the format follows its suffix (.md, .json, "
        "and for report .csv, .html) unless --format says otherwise",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite output files even if gpassk-oc did not write them or they were "
        "edited since (default: leave them alone and exit 2)",
    )


#: Bootstrap resamples allowed. Memory grows as resamples x distinct question values
#: (8 bytes each); at 10,000 the Monte-Carlo error of a 95% bound is already ~0.1 of the
#: interval's standard error, so more than 100,000 only costs time and memory.
MAX_RESAMPLES = 100_000


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
    if not 0 <= args.resamples <= MAX_RESAMPLES:
        raise ReportError(
            f"--resamples {args.resamples}: need 0 (no intervals) to {MAX_RESAMPLES:,} "
            "(memory grows with resamples x questions; 10,000 is already precise)"
        )
    if args.seed < 0:
        raise ReportError(f"--seed {args.seed}: need a non-negative integer")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        type=path_text,
        metavar="PATH",
        help="OpenCompass work dir(s), timestamp dir(s), results dir(s) or results JSON files",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="default: from the suffix of --out, else markdown",
    )
    parser.add_argument(
        "--plots",
        type=path_arg,
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
    parser.add_argument(
        "--published",
        action="store_true",
        help="add the paper's published values for rows whose model and benchmark match "
        "(docs/published.md), with whether each lies inside the run's benchmark interval",
    )
    parser.add_argument(
        "--published-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="published values from FILE (the shipped file's JSON format) instead of the "
        "paper's; implies --published",
    )
    add_common_arguments(parser, k_list=True)
    add_error_arguments(parser)
    parser.add_argument(
        "--workers",
        type=worker_count_arg,
        default=None,
        metavar="N",
        help="processes for the first read of results files and for drawing figures "
        "(default: the usable cores, at most 8; 1: none, all in this process); the "
        "report is the same with any number",
    )
    parser.add_argument(
        "--audit-classes",
        type=Path,
        default=None,
        metavar="SHEET.csv",
        help="a filled-in audit sheet by answer class (gpassk-oc audit --by class): "
        "class-level error rates; adds maj@k corrected for them beside the raw value",
    )


def add_error_arguments(parser: argparse.ArgumentParser) -> None:
    """``--audit`` / ``--verdict-error``: verdict error rates (:mod:`.corrections`)."""
    parser.add_argument(
        "--audit",
        type=Path,
        default=None,
        metavar="SHEET.csv",
        help="a filled-in audit sheet (gpassk-oc audit): per-source verdict error rates "
        "with their uncertainty; adds values corrected for them beside the raw ones",
    )
    parser.add_argument(
        "--verdict-error",
        action="append",
        default=[],
        metavar="fp=R,fn=R[,by=SOURCE]",
        help="stated verdict error rates (known exactly), for every source or, with by=, "
        "one source (repeat the flag per source); adds corrected values",
    )


def apply_extras(report: Report, args: argparse.Namespace) -> None:
    """Rank intervals always; corrections when rates are given (ReportError, one line,
    for a bad sheet or rate)."""
    from gpassk_oc.report.corrections import attach_corrections, attach_ranks, load_rates

    if args.audit is not None and args.verdict_error:
        raise ReportError("--audit and --verdict-error: give one of them, not both")
    try:
        runs = [r for row in report.rows for r in row.runs] + list(report.greedy)
        rates = load_rates(runs, args.audit, args.verdict_error)
        classes = getattr(args, "audit_classes", None)
        if rates is not None or classes is not None:
            attach_corrections(report, rates, classes)
    except ValueError as exc:
        raise ReportError(str(exc)) from None
    attach_ranks(report)


def render(
    report: Report, fmt: str, ci: bool = True, descending: bool = False, drill: str | None = None
) -> str:
    """The report as text in *fmt* (one of :data:`FORMATS`); *drill*: html only, the
    folder of the page's drill-down files."""
    if fmt == "json":
        from gpassk_oc.report.jsonout import render_json

        return render_json(report, descending)
    if fmt == "csv":
        from gpassk_oc.report.csvout import render_csv

        return render_csv(report, descending)
    if fmt == "html":
        from gpassk_oc.report.html import render_html

        return render_html(report, ci, descending, drill=drill)
    from gpassk_oc.report.markdown import render_markdown

    return render_markdown(report, ci, descending)


def write_output(
    text: str, out: Path | None, force: bool = False, extra: dict[Path, bytes] | None = None
) -> None:
    """*text* to stdout, or to *out*, plus the *extra* files (e.g. figures), all after one
    ownership check (:class:`~gpassk_oc.ownership.Refused` before anything is written or
    printed); a file that cannot be written is a :class:`ReportError` naming it."""
    files = dict(extra or {})
    if out is not None:
        if out.is_dir():
            raise ReportError(f"--out {out}: is a folder; need a file name")
        files[out] = text.encode("utf-8")
    try:
        write_files(files, force)
    except OSError as exc:
        where = f"--out {out}" if out is not None else "--plots"
        raise ReportError(f"{where}: {exc.strerror or exc}") from None
    if out is None:
        sys.stdout.write(text)


def fail_refused(exc: Refused) -> int:
    """One ``error:`` line per file left alone; exit status 2."""
    for line in exc.lines[:-1]:
        logger.error(line)
    return fail(exc.lines[-1])


def render_plots(report: Report, plots: Path) -> dict[Path, bytes]:
    """The figures as {final path: bytes}, drawn in a scratch folder first so that they
    are checked with the other outputs before any lands in *plots*."""
    from gpassk_oc.report.plots import write_all

    with tempfile.TemporaryDirectory(prefix="gpassk-plots-") as scratch:
        drawn = write_all(report, Path(scratch))
        return {plots / path.name: path.read_bytes() for path in drawn}


def blocked_folder(folder: Path) -> str | None:
    """Why *folder* cannot be (or become) a folder: it, or the nearest existing ancestor,
    is a file. None when it can."""
    for path in (folder, *folder.parents):
        if path.exists():
            if path.is_dir():
                return None
            return "is a file" if path == folder else f"{path} is a file, not a folder"
    return None


def run(args: argparse.Namespace) -> int:
    # before any work: a bad figure folder must not cost a report printed in vain
    if args.plots is not None and (why := blocked_folder(args.plots)):
        return fail(f"--plots {args.plots}: {why}; need a folder for the figures")
    # a mistyped path beside good ones would otherwise leave its runs out with a note
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        more = f" (+{len(missing) - 1} more)" if len(missing) > 1 else ""
        return fail(
            f"{missing[0]}: no such file or directory{more}; name work dirs or results files"
        )
    with Workers(args.workers or default_workers()) as workers:
        return _report(args, workers)


def _report(args: argparse.Namespace, workers: Workers) -> int:
    from gpassk_oc.report.sweep import build_sweep, parse_ks, parse_taus

    try:
        args.format = output_format(args.format, args.out, FORMATS)
        ks = parse_ks(args.k) if args.k is not None else None
        taus = parse_taus(args.tau) if args.tau is not None else None
        args.k = max(ks) if ks else None
        check_common(args)
        # the bootstrap is most of a report's time: skip it when nothing shows its
        # benchmark interval (markdown with rerun intervals only, or none; no figures; no
        # published values, which are checked against it)
        shown = args.format != "markdown" or args.plots is not None
        shown = shown or (args.interval != "rerun" and not args.no_ci)
        shown = shown or args.published or args.published_file is not None
        report = build_report(
            args.paths,
            args.k,
            level=args.level,
            n_boot=args.resamples if shown else 0,
            seed=args.seed,
            pool_seeds=not args.no_pool_seeds,
            workers=workers,
        )
        if (ks and len(ks) > 1) or taus is not None:
            report.sweep = build_sweep(report, ks or [report.k], taus)
        if args.published or args.published_file is not None:
            report.published = build_published(report, load_leaderboard(args.published_file))
    except (ReportError, PublishedError) as exc:
        return fail(str(exc))
    report.interval = args.interval
    finish_figures = None
    if report.rows and (args.plots is not None or args.format == "html"):
        from gpassk_oc.report.plots import start_drawing

        # matplotlib holds the GIL: a worker draws while ranks and drill-down files are made
        finish_figures = start_drawing(report, workers, png=args.plots is not None)
    try:
        apply_extras(report, args)
    except ReportError as exc:
        return fail(str(exc))
    # run health and configured pairs without results first: when nothing is usable they
    # are the likely answer to "why nothing?"
    for line in report_warnings(report, args.paths):
        logger.warning(line)
    if not report.rows and not report.greedy:
        # one line: why the first run was unusable is the likely answer to "why nothing?"
        why = f": {report.notes[0]}" if report.notes else ""
        more = f" (+{len(report.notes) - 1} more)" if len(report.notes) > 1 else ""
        return fail(f"no usable runs found under {', '.join(map(str, args.paths))}{why}{more}")
    for note in report.notes:
        logger.info(f"note: {note}")
    figures: dict[Path, bytes] = {}
    drill = None
    if args.format == "html" and args.out is not None:
        # the per-sample drill-down: one script per row beside the page, loaded on a click
        from gpassk_oc.report.drilldown import drill_files, drill_folder

        drill = drill_folder(args.out).name
        figures.update(drill_files(report, args.out, args.descending))
    if args.plots is not None and not report.rows:
        logger.warning(
            f"--plots {args.plots}: no figures, the runs are all greedy (one sample "
            "per question: no G-Pass curves to draw)"
        )
    if finish_figures is not None:
        finish_figures()  # the page and --plots share these drawings
    if args.plots is not None and report.rows:
        figures.update(render_plots(report, args.plots))
    text = render(report, args.format, not args.no_ci, args.descending, drill)
    if args.format == "markdown":  # runs made by `gpassk-oc rescore`: OpenCompass's values too
        from gpassk_oc.report.rescored_section import rescored_section

        text += rescored_section(args.paths)
    try:
        write_output(text, args.out, args.force, figures)
    except Refused as exc:
        return fail_refused(exc)
    except ReportError as exc:
        return fail(str(exc))
    from gpassk_oc.report.collect import keep_summaries

    keep_summaries([run for row in report.rows for run in row.runs] + report.greedy)
    for path in figures:
        if path.suffix != ".js":  # the page's drill-down files: one line for all below
            logger.info(f"wrote {path}")
    if drill is not None and args.out is not None:
        logger.info(f"wrote {len(report.rows)} drill-down files to {drill_folder(args.out)}")
    return 0
