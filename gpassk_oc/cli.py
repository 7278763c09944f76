"""The ``gpassk-oc`` command: one entry point, one subcommand per tool."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from gpassk_oc import __version__
from gpassk_oc.log import OneLineParser, fail, use_cli_format

# subcommand name -> (module path, help); modules are imported lazily so that
# `gpassk-oc --help` stays instant (OpenCompass takes ~10 s to import).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "dump": ("gpassk_oc.configgen", "expand a template into one OpenCompass config per grid point"),
    "report": (
        "gpassk_oc.report.commands.report_command",
        "G-Pass@k tables (with bootstrap CIs) and figures from OpenCompass work dirs",
    ),
    "compare": (
        "gpassk_oc.report.commands.compare_command",
        "paired comparison of two runs on the same questions (difference with CI)",
    ),
    "audit": (
        "gpassk_oc.report.commands.audit_command",
        "a stratified random sample of verdicts as an audit sheet (CSV) to label by hand",
    ),
    "plan": (
        "gpassk_oc.report.commands.plan_command",
        "sample-size planner: questions and samples a precision needs",
    ),
    "rescore": (
        "gpassk_oc.rescore.rescore_command",
        "re-grade an OpenCompass work dir or another harness's samples into gpassk_oc results",
    ),
    "demo": (
        "gpassk_oc.demo.run",
        "offline demo: simulated models, the real OpenCompass CLI, report vs. known truth",
    ),
    "serve-demo": (
        "gpassk_oc.demo.serve",
        "serve the demo's simulated models on 127.0.0.1 (and write its data) until Ctrl-C",
    ),
}


def _load(
    module_path: str,
) -> tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]:
    import importlib

    module = importlib.import_module(module_path)
    return module.add_arguments, module.run


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="gpassk-oc",
        description="G-Pass@k and LiveMathBench for OpenCompass.",
    )
    parser.add_argument("--version", action="version", version=f"gpassk-oc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module_path, help_text) in SUBCOMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


#: exit status after Ctrl-C (128 + SIGINT), as shells report it
INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; Ctrl-C anywhere is one ``error: interrupted`` line, exit 130."""
    use_cli_format()  # one plain line per message; errors as "error: ..."
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:
        return fail("interrupted", INTERRUPTED)


def _main(argv: list[str]) -> int:
    parser = build_parser()
    if argv and argv[0] in SUBCOMMANDS:
        module_path, help_text = SUBCOMMANDS[argv[0]]
        add_arguments, run = _load(module_path)
        sub = OneLineParser(prog=f"gpassk-oc {argv[0]}", description=help_text)
        add_arguments(sub)
        return int(run(sub.parse_args(argv[1:])) or 0)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
