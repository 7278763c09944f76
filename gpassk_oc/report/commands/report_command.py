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
import tempfile
from collections.abc import Callable
from pathlib import Path

from gpassk_oc.argtypes import path_arg, worker_count_arg
from gpassk_oc.core.data.published import PublishedError, load_leaderboard
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import Refused
from gpassk_oc.report.commands.cli_common import (
    add_common_arguments,
    add_error_arguments,
    add_paths_argument,
    check_common,
    fail_refused,
    output_format,
    write_output,
)
from gpassk_oc.report.data.published_section import build_published
from gpassk_oc.report.data.report_model import (
    Report,
    ReportError,
    build_report,
    check_k,
    report_warnings,
)
from gpassk_oc.report.data.tables import DEFAULT_INTERVAL, INTERVAL_CHOICES
from gpassk_oc.report.formats.format_registry import RenderOptions, format_names, render
from gpassk_oc.worker_pool import Workers, default_workers, in_process


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _add_view_arguments(parser)
    _add_content_arguments(parser)
    add_common_arguments(parser, k_list=True)
    add_error_arguments(parser)
    _add_work_arguments(parser)


def _add_view_arguments(parser: argparse.ArgumentParser) -> None:
    """What is read and how it is shown: paths, format, figures, intervals, order."""
    add_paths_argument(
        parser,
        "paths",
        "+",
        "PATH",
        "OpenCompass work dir(s), timestamp dir(s), results dir(s) or results JSON files",
    )
    parser.add_argument(
        "--format",
        choices=format_names(),
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
        "--ascending",
        action="store_true",
        help="list rows by mG-Pass@k ascending, like the paper (default: the best first)",
    )
    parser.add_argument(
        "--descending",
        action="store_true",
        help="the best first by mG-Pass@k: the default (kept for scripts that say it)",
    )


def _add_content_arguments(parser: argparse.ArgumentParser) -> None:
    """Tables beyond the default ones: the any-k table's τs, the published values."""
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


def _add_work_arguments(parser: argparse.ArgumentParser) -> None:
    """The worker processes, and the class audit that corrects maj@k."""
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


def apply_extras(report: Report, args: argparse.Namespace, workers: Workers | None = None) -> None:
    """Rank intervals always; corrections when rates are given, each row's in *workers*
    (ReportError, one line, for a bad sheet or rate)."""
    from gpassk_oc.report.ranking.corrections import attach_corrections, attach_ranks, load_rates

    if args.audit is not None and args.verdict_error:
        raise ReportError("--audit and --verdict-error: give one of them, not both")
    try:
        runs = [r for row in report.rows for r in row.runs] + list(report.greedy)
        mapper = workers.map if workers else in_process
        rates = load_rates(runs, args.audit, args.verdict_error, mapper)
        classes = getattr(args, "audit_classes", None)
        if rates is not None or classes is not None:
            attach_corrections(report, rates, classes, mapper)
    except ValueError as exc:
        raise ReportError(str(exc)) from None
    attach_ranks(report)


def render_plots(report: Report, plots: Path) -> dict[Path, bytes]:
    """The figures as {final path: bytes}, drawn in a scratch folder first so that they
    are checked with the other outputs before any lands in *plots*."""
    from gpassk_oc.report.page.plots import write_all

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


def _build(args: argparse.Namespace, workers: Workers) -> Report:
    """The report the flags ask for, with its sweep and published values (ReportError,
    PublishedError: one line naming the flag)."""
    from gpassk_oc.report.data.sweep import build_sweep, parse_ks, parse_taus

    args.format = output_format(args.format, args.out, format_names())
    if args.ascending and args.descending:
        raise ReportError("--ascending and --descending: give one of them, not both")
    ks = parse_ks(args.k) if args.k is not None else None
    taus = parse_taus(args.tau) if args.tau is not None else None
    # one k sets the tables' k; a list only adds the any-k table (the tables keep theirs)
    args.k = ks[0] if ks and len(ks) == 1 else None
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
        check_k(report.rows, max(ks or [report.k]))  # a listed k no run reaches: refused
        report.sweep = build_sweep(report, ks or [report.k], taus)
    if args.published or args.published_file is not None:
        report.published = build_published(report, load_leaderboard(args.published_file))
    return report


def _report(args: argparse.Namespace, workers: Workers) -> int:
    try:
        report = _build(args, workers)
    except (ReportError, PublishedError) as exc:
        return fail(str(exc))
    report.interval = args.interval
    finish_figures = None
    if report.rows and (args.plots is not None or args.format == "html"):
        from gpassk_oc.report.page.plots import start_drawing

        # matplotlib holds the GIL: a worker draws while ranks and drill-down files are made
        finish_figures = start_drawing(report, workers, png=args.plots is not None)
    try:
        apply_extras(report, args, workers)
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
    text, files, drill = _outputs(report, args, finish_figures)
    try:
        write_output(text, args.out, args.force, files)
    except Refused as exc:
        return fail_refused(exc)
    except ReportError as exc:
        return fail(str(exc))
    _written(report, args, files, drill)
    return 0


def _outputs(
    report: Report, args: argparse.Namespace, finish_figures: Callable[[], None] | None
) -> tuple[str, dict[Path, bytes], str | None]:
    """The report's text, the files beside it (figures, the page's drill-down scripts)
    and the drill-down folder's name (html with --out; else None)."""
    figures: dict[Path, bytes] = {}
    drill = None
    if args.format == "html" and args.out is not None:
        # the per-sample drill-down: one script per row beside the page, loaded on a click
        from gpassk_oc.report.page.drilldown import drill_files, drill_folder

        drill = drill_folder(args.out).name
        figures.update(drill_files(report, args.out, not args.ascending))
    if args.plots is not None and not report.rows:
        logger.warning(
            f"--plots {args.plots}: no figures, the runs are all greedy (one sample "
            "per question: no G-Pass curves to draw)"
        )
    if finish_figures is not None:
        finish_figures()  # the page and --plots share these drawings
    if args.plots is not None and report.rows:
        figures.update(render_plots(report, args.plots))
    text = render(report, args.format, RenderOptions(not args.no_ci, not args.ascending, drill))
    if args.format == "markdown":  # runs made by `gpassk-oc rescore`: OpenCompass's values too
        from gpassk_oc.report.data.rescored_section import rescored_section

        text += rescored_section(args.paths)
    return text, figures, drill


def _written(
    report: Report, args: argparse.Namespace, files: dict[Path, bytes], drill: str | None
) -> None:
    """After writing: keep the runs' summaries for the next read, say what was written."""
    from gpassk_oc.report.data.collect import keep_summaries
    from gpassk_oc.report.page.drilldown import drill_folder

    keep_summaries([run for row in report.rows for run in row.runs] + report.greedy)
    for path in files:
        if path.suffix != ".js":  # the page's drill-down files: one line for all below
            logger.info(f"wrote {path}")
    if drill is not None and args.out is not None:
        logger.info(f"wrote {len(report.rows)} drill-down files to {drill_folder(args.out)}")
