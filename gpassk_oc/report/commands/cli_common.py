"""What the subcommands ``report``, ``compare`` and ``plan`` share on the command line: the
format an ``--out`` asks for, the interval and bootstrap options and their validation,
the verdict-error options, and writing the output as the package writes every file
(:mod:`gpassk_oc.ownership`). Errors are :class:`~gpassk_oc.report.data.report_model.
ReportError` (one line naming the flag), shown by the command."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpassk_oc.argtypes import path_arg, path_text
from gpassk_oc.core.uncertainty.metric_intervals import DEFAULT_LEVEL, DEFAULT_RESAMPLES
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import Refused, write_files
from gpassk_oc.report.data.report_model import ReportError
from gpassk_oc.report.formats.format_registry import suffix_formats


def output_format(fmt: str | None, out: Path | None, choices: tuple[str, ...]) -> str:
    """The format to write: ``--format`` when given, else the one ``--out``'s suffix names,
    else markdown. :class:`ReportError` when the two disagree, or the suffix names a format
    this command does not write (a ``report.json`` holding markdown helps no one)."""
    suffix = out.suffix if out is not None else ""
    named = suffix_formats().get(suffix.lower())
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


def add_paths_argument(
    parser: argparse.ArgumentParser, name: str, nargs: str, metavar: str, help: str
) -> None:
    """The positional run path(s) of a command, kept as text: a path that does not exist
    is the command's one-line error, not argparse's."""
    parser.add_argument(name, nargs=nargs, type=path_text, metavar=metavar, help=help)


def add_common_arguments(parser: argparse.ArgumentParser, k_list: bool = False) -> None:
    """Options shared by ``report`` and ``compare`` (*k_list*: ``--k`` takes a list, kept
    as text for :func:`gpassk_oc.report.data.sweep.parse_ks`)."""
    parser.add_argument(
        "--k",
        type=str if k_list else int,
        default=None,
        help="k for G-Pass@k (default: the largest k the runs declare that is below their "
        "samples per question n, else the largest every run reaches)"
        + (
            "; a comma-separated list (1,2,4,8,16) adds a table of every metric at "
            "every listed k, recomputed from the saved counts and votes (the other "
            "tables stay at one k: the default, or the one --k names alone)"
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
            f"--resamples {args.resamples}: need 0 (no benchmark interval) to {MAX_RESAMPLES:,} "
            "(memory grows with resamples x questions; 10,000 is already precise)"
        )
    if args.seed < 0:
        raise ReportError(f"--seed {args.seed}: need a non-negative integer")


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
