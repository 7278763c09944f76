"""Write generated configs, and the CLI (``gpassk-oc dump``, ``dump_opencompass_configs.py``)."""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from gpassk_oc.argtypes import path_text
from gpassk_oc.configgen.collisions import check_folder
from gpassk_oc.configgen.expand import ConfigData
from gpassk_oc.configgen.loader import TEMPLATES_DIRNAME, resolve_template
from gpassk_oc.configgen.pipeline import Plan, build
from gpassk_oc.configgen.schema import TemplateError
from gpassk_oc.log import OneLineParser, fail, logger, use_cli_format
from gpassk_oc.ownership import Refused, check_targets

__all__ = ["DEFAULT_OUTPUT_DIR", "write_configs", "add_arguments", "run", "main"]

DEFAULT_OUTPUT_DIR = "./opencompass_configs"


def write_configs(
    configs: Sequence[ConfigData], output_dir: str | os.PathLike[str], force: bool = False
) -> list[Path]:
    """Write all files into a temporary directory next to *output_dir*, then move them in,
    so an interrupted run never leaves a half-written config. Existing files with other
    names are left alone; a file with the same name is replaced only if this generator
    wrote it and nobody edited it since (its sha256 line matches) or *force*: otherwise
    :class:`~gpassk_oc.ownership.Refused` names every such file and nothing is written."""
    out = Path(output_dir)
    if out.exists() and not out.is_dir():
        raise Refused([f"{out}: exists and is not a folder; left alone"])
    check_targets([out / config.name for config in configs], force)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        for config in configs:
            with open(staging / config.name, "w", encoding="utf-8", newline="\n") as f:
                f.write(config.text)
        if not out.exists():
            # mkdtemp makes a 0700 directory; give the final one the usual permissions
            umask = os.umask(0)
            os.umask(umask)
            staging.chmod(0o777 & ~umask)
            staging.rename(out)
        else:
            for config in configs:
                os.replace(staging / config.name, out / config.name)
            staging.rmdir()
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [out / config.name for config in configs]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``gpassk-oc dump`` / ``dump_opencompass_configs.py``."""
    parser.add_argument(
        "-tc",
        "--config_template_file",
        "--config-template-file",
        dest="config_template_file",
        required=True,
        type=path_text,
        metavar="TEMPLATE",
        help="template path, or a bare name such as nono1.py looked up among "
        f"the shipped templates ({TEMPLATES_DIRNAME}/)",
    )
    parser.add_argument(
        "-o",
        "--output-dir",
        "--output_dir",
        dest="output_dir",
        type=path_text,
        default=DEFAULT_OUTPUT_DIR,
        help=f"where configs are written (default {DEFAULT_OUTPUT_DIR})",
    )
    parser.add_argument(
        "--grid",
        action="store_true",
        help="also write OUTPUT_DIR/grid_<template stem>.py, one config that "
        "runs every grid point in a single OpenCompass invocation; its "
        "path is the last line printed",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite same-named files in OUTPUT_DIR even if they were edited by hand or "
        "not written by this generator (default: leave them alone, write nothing, exit 2)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse (exit 2, nothing written) a max_out_len or max_seq_len above a named "
        "model's output limit or context length (default: a note)",
    )
    parser.add_argument(
        "--dry-run",
        "--dry_run",
        dest="dry_run",
        action="store_true",
        help="list the file names without writing anything",
    )


def run(args: argparse.Namespace) -> int:
    """Expand the template; 0 on success, 2 on a template error or a file that is not ours
    to overwrite (one line per file, nothing written), 1 on a write error."""
    use_cli_format()
    display = Path(args.config_template_file).name
    try:
        path = resolve_template(args.config_template_file)
        display = path.name  # 'nono1' given, 'nono1.py' found: name the file
        plan = build(path, display)
        configs = plan.configs + ([plan.grid] if args.grid else [])
    except TemplateError as exc:
        return fail(f"{display}: {exc}")
    if args.strict and plan.limit_notes:
        extra = len(plan.limit_notes) - 1
        first = f"{display}: {plan.limit_notes[0]}"
        return fail(first + (f" (and {extra} more)" if extra else ""))
    count = f"{len(plan.configs)} config(s)" + (" + 1 grid config" if args.grid else "")
    if args.dry_run:
        _notes(plan, display)
        for config in configs:
            print(config.name)
        print(f"{count} from {display} (dry run, nothing written)")
        return 0
    clashes = check_folder(Path(args.output_dir), _origins(plan, display))
    if clashes:  # one line: the first clash, and how many more
        tail = f" (and {len(clashes) - 1} more such file(s))" if len(clashes) > 1 else ""
        return fail(clashes[0] + tail)
    try:
        written = write_configs(configs, args.output_dir, force=args.force)
    except Refused as exc:
        for line in exc.lines[:-1]:
            logger.error(line)
        return fail(exc.lines[-1])
    except OSError as exc:
        return fail(f"{args.output_dir}: {exc}", 1)
    _notes(plan, display)  # after the write: a refusal stays one error line
    shown = [os.path.join(args.output_dir, target.name) for target in written]
    for line in shown[: len(plan.configs)]:
        print(line)
    print(f"{count} from {display} written to {args.output_dir}")
    if args.grid:  # the contract: the grid config's path is the last line
        print(shown[-1])
    return 0


def _origins(plan: Plan, display: str) -> list[tuple[str, dict, str]]:
    """(file name, data, template entry) of every per-point config."""
    where = {spec.path: spec.where for spec in plan.settings.models}
    return [
        (c.name, c.data, f"{display} {where.get(c.data['models'][0]['path'], '')}".strip())
        for c in plan.configs
    ]


def _notes(plan: Plan, display: str) -> None:
    for note in dict.fromkeys(plan.notes):
        logger.info(f"note: {display}: {note}")
    if plan.limits_unknown:  # said once per dump: neither a note nor a refusal
        logger.info(f"{display}: {plan.limits_unknown}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dump_opencompass_configs.py``."""
    use_cli_format()  # before parsing: a bad flag is one error line too
    parser = OneLineParser(
        prog="dump_opencompass_configs.py",
        description="Expand a template into one OpenCompass config per grid point.",
    )
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except KeyboardInterrupt:  # as gpassk-oc does: one line, 128 + SIGINT
        return fail("interrupted", 130)
