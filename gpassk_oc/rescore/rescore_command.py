"""``gpassk-oc rescore PATH -o OUT``: re-grade another tool's LiveMathBench runs.

PATH is an OpenCompass work dir or the output folder of another harness; the tool is
detected from its files (or named with ``--from``; importers: :mod:`.importers`). Reads
PATH (never writes there), grades every sample with this package's checker, and writes
under OUT, in the layout ``report``/``compare``/``plan`` read:

* ``{ts}/results/{model}/{abbr}.json`` — this package's results file (current schema,
  with run record and health);
* ``{ts}/rescore/{model}/{abbr}.json`` — the tool's reported values beside the
  re-scored ones and the reasons for the differences (:mod:`.sidecar`);
* ``.gpassk_judge_cache/`` — with ``--judge-url``, the judgement cache.

Every task is graded before anything is written; a bad input is one ``error:`` line naming
the file, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from gpassk_oc.core.metrics.metric_keys import ACCURACY
from gpassk_oc.core.metrics.registry import parse_metric
from gpassk_oc.core.vocabulary import CheckMode
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import digest
from gpassk_oc.rescore.importers import detect, importer_names, importers
from gpassk_oc.rescore.json_text import loads
from gpassk_oc.rescore.reason_words import reason_count, reason_text, tool_label
from gpassk_oc.rescore.regrade import REASONING_CHOICES, Options
from gpassk_oc.rescore.sidecar import MANIFEST, sidecar_path
from gpassk_oc.rescore.source import RescoreError
from gpassk_oc.workdir import CACHE_DIRNAME, results_file
from gpassk_oc.worker_pool import Workers, default_workers

__all__ = ["add_arguments", "rescore", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``rescore`` flags."""
    parser.add_argument(
        "work_dir",
        type=Path,
        metavar="PATH",
        help="an OpenCompass -w dir, or another harness's output folder",
    )
    parser.add_argument(
        "--from",
        dest="tool",
        choices=importer_names(),
        default=None,
        help="the tool that wrote PATH (default: detected from its files)",
    )
    parser.add_argument(
        "-o", "--out", type=Path, required=True, help="where the results files go (not inside it)"
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        metavar="LIVEMATH_DIR",
        help="local LiveMathBench ({version}/{split}_{lang}.jsonl) to recover split x language",
    )
    parser.add_argument(
        "--judge-url",
        action="append",
        default=None,
        metavar="URL",
        help="judge endpoint (repeatable): cascade, rules first; default: rules only",
    )
    parser.add_argument("--judge-model", default=None, help="the judge's model name")
    parser.add_argument(
        "--judge-prompt", default="auto", help="judge prompt: auto, opencompass, gpassk, en, cn"
    )
    parser.add_argument(
        "--reasoning",
        choices=REASONING_CHOICES,
        default="auto",
        help="read replies as a thinking model's (default auto: when some reply closes a thought)",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite files under OUT rescore did not write"
    )


def _inside(path: Path, folder: Path) -> bool:
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents


def _options(args: argparse.Namespace, out: Path) -> Options:
    if not args.judge_url:
        if args.judge_model:
            raise RescoreError("--judge-model: given without --judge-url")
        return Options(reasoning=args.reasoning)
    if not args.judge_model:
        raise RescoreError("--judge-url: needs --judge-model NAME (the judge's model name)")
    from gpassk_oc.evaluators import judge_identity, validate_judge  # needs OpenCompass

    try:
        config = validate_judge(
            {"urls": list(args.judge_url), "model": args.judge_model, "prompt": args.judge_prompt}
        )
    except ValueError as exc:
        raise RescoreError(str(exc).replace("judge.", "--judge-")) from None
    return Options(
        check=CheckMode.CASCADE,
        judge=config,
        judge_identity=judge_identity(config),
        cache_dir=str(out / CACHE_DIRNAME),
        reasoning=args.reasoning,
    )


def _encode(data: dict[str, Any]) -> bytes:
    # compact: json's C encoder (an indent falls back to the pure-Python one)
    return (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")


def _one(tool: str, job: Any, data: Path | None, opts: Options) -> tuple[bytes, dict[str, Any]]:
    """One run: (its results file's bytes, its sidecar)."""
    results, sidecar = importers()[tool].rescore_run(job, data, opts)
    return _encode(results), sidecar


def _workers(tasks: int, opts: Options) -> int:
    """Tasks graded in parallel: one per usable core (as ``report``'s default) by the rules;
    with a judge one at a time (the judgement cache and the endpoint are shared)."""
    if opts.check != CheckMode.RULES or tasks < 2:
        return 1
    return max(1, min(default_workers(), tasks))


def rescore(
    work_dir: Path, out: Path, data: Path | None, opts: Options, tool: str | None = None
) -> tuple[dict[Path, bytes], list[dict[str, Any]], list[str]]:
    """Every file to write under *out* (path -> bytes), the sidecars and the notes;
    nothing is written here."""
    importer = detect(work_dir, tool)
    jobs, notes = importer.find_runs(work_dir)
    if not jobs:
        raise RescoreError(f"{work_dir}: no {importer.name} run found")
    # the report's worker processes (loky: Ctrl-C is the command's one line, no worker
    # outlives it); each run's bytes come back pickled, so any number of workers writes
    # the same files
    with Workers(_workers(len(jobs), opts)) as pool:
        done = pool.map(partial(_one, importer.name, data=data, opts=opts), jobs)
    files: dict[Path, bytes] = {}
    sidecars = []
    for results, sidecar in done:
        task = sidecar["task"]
        run, model, abbr = task["run"], task["model_abbr"], task["dataset_abbr"]
        files[results_file(out / run, model, abbr)] = results
        files[sidecar_path(out, run, model, abbr)] = _encode(sidecar)
        sidecars.append(sidecar)
        notes += sidecar["notes"]
    return files, sidecars, notes


def _manifest(out: Path) -> dict[str, str]:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_all(out: Path, files: dict[Path, bytes], force: bool) -> None:
    """Write *files* (each atomically) and the manifest, after refusing — before writing
    anything — any existing file rescore did not write or that changed since."""
    manifest = _manifest(out)
    if not force:
        for path in files:
            rel = path.relative_to(out).as_posix()
            if path.exists() and (
                not path.is_file() or manifest.get(rel) != digest(path.read_bytes())
            ):
                raise RescoreError(
                    f"{path}: exists and was not written by rescore (or changed since); left "
                    "alone (--force overwrites it)"
                )
    for path, blob in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(blob)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide the results from other readers
        os.replace(tmp, path)
        manifest[path.relative_to(out).as_posix()] = digest(blob)
    (out / MANIFEST).write_text(json.dumps(dict(sorted(manifest.items())), indent=1) + "\n")


def _headline(metric: str) -> bool:
    """G-Pass@k_τ, mG-Pass@k and (greedy) accuracy: the values a summary line shows (the
    sidecar's metric names, as written to its JSON, parsed at this text edge)."""
    if metric == ACCURACY:
        return True
    try:
        return parse_metric(metric).definition.opencompass
    except ValueError:
        return False


_GROUPS = {
    "data": "split × language from --data",
    "config": "split × language from the config",
    "tool": "split × language from the tool's records",
    "unknown": "split × language unknown",
}


def _checker(results: dict[str, Any], judged_run: bool) -> str:
    """Which checker graded: rules (saying so where the run itself had a judge), or the
    cascade with its judge model."""
    run = results.get("run") or {}
    judge = run.get("judge") or {}
    if run.get("check") == str(CheckMode.RULES) or not judge:
        where = " where the run had a judge (--judge-url for the cascade)" if judged_run else ""
        return f"graded by the rules{where}"
    return f"graded by {run.get('check')} (rules, then judge {judge.get('model')})"


def _summary(path: Path, side: Path, sidecar: dict[str, Any], results: dict[str, Any]) -> str:
    """Per run: identity, checker, headline numbers beside the tool's, each reason the
    numbers differ with its count, and where the full comparison is."""
    task, tool = sidecar["task"], tool_label(sidecar)
    # the metrics the tool reported first (those are the comparison), then the headline
    ordered = sorted(
        (m for m in sidecar["metrics"] if _headline(m["metric"]) or m["opencompass"] is not None),
        key=lambda m: m["opencompass"] is None,
    )
    shown = [
        f"{m['metric']} {m['rescored']:.2f}"
        + ("" if m["opencompass"] is None else f" ({tool} {m['opencompass']:.2f})")
        for m in ordered
    ]
    head = f"{task.get('model') or task['model_abbr']} / {task['dataset_abbr']} ({task['run']})"
    lines = [
        f"rescored {head} from {tool}, {_checker(results, bool(task.get('judge_configured')))}, "
        f"{_GROUPS.get(str(sidecar.get('groups')), 'split × language unknown')}",
        "  " + ", ".join(shown[:8]),
    ]
    for reason in sidecar.get("reasons", []):
        count = reason_count(reason)
        counted = "" if count is None else f" ({count})"
        lines.append(f"  differs{counted}: {reason_text(reason, tool)}")
    lines.append(f"  results: {path}; full comparison: {side}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    work, out = args.work_dir, args.out
    try:
        if not work.is_dir():
            raise RescoreError(
                f"{work}: no such folder (need an OpenCompass work dir or a tool's output)"
            )
        if _inside(out, work):
            raise RescoreError(
                f"-o {out}: inside the work dir {work}; rescore never writes there, "
                "choose a folder outside it"
            )
        if out.exists() and not out.is_dir():
            raise RescoreError(f"-o {out}: is a file; need a folder")
        if args.data is not None and not args.data.is_dir():
            raise RescoreError(f"--data {args.data}: no such folder")
        opts = _options(args, out)
        files, sidecars, notes = rescore(work, out, args.data, opts, args.tool)
        write_all(out, files, args.force)
    except RescoreError as exc:
        return fail(str(exc))
    for note in dict.fromkeys(notes):
        logger.warning(note)
    for sidecar in sidecars:
        task = sidecar["task"]
        key = (task["run"], task["model_abbr"], task["dataset_abbr"])
        where = results_file(out / key[0], key[1], key[2])
        results = loads(files[where])  # our own bytes: orjson reads them
        logger.info(_summary(where, sidecar_path(out, *key), sidecar, results))
    return 0
