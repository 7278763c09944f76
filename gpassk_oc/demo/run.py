"""``gpassk-oc demo``: the whole pipeline, offline, on simulated models with a known truth.

What it does (each stage prints one line):

1. writes the bundled problems (:mod:`gpassk_oc.demo.problems`) in the LiveMathBench
   layout under ``OUTPUT/data``;
2. starts a *simulated* OpenAI-compatible endpoint on 127.0.0.1
   (:class:`gpassk_oc.demo.sim_endpoint.SimEndpoint`) serving two models whose
   per-question success probabilities are known (see :mod:`.simulation`);
3. expands ``opencompass_config_templates/demo.py`` with :mod:`gpassk_oc.configgen`,
   overriding (as data) the endpoint's URL and the absolute data path (``--quick``: one
   temperature, n = 8), into one file per grid point in ``OUTPUT/configs`` and the grid
   config ``OUTPUT/grid_demo.py``;
4. runs the real ``opencompass`` CLI once on the grid config, which pairs every model only
   with its own dataset (``model_dataset_combinations``; one inference task per config,
   see :func:`demo_grid`);
5. builds the leaderboard with rerun intervals (:mod:`gpassk_oc.report`) and puts the *true*
   value of every metric next to each estimate, then draws the figures
   (:mod:`gpassk_oc.report.page.plots`).

The truth is computed here in closed form from the binomial distribution — for a question
answered correctly with probability p, k independent samples give X ~ Binomial(k, p) and
G-Pass@k_τ = P(X ≥ max(⌈τk⌉, 1)) — independently of the hypergeometric estimators the
report uses. The estimators are unbiased for exactly these quantities, so the printed
estimates differ from the truth only by sampling noise (about ``rerun_se`` of the truth).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpassk_oc import configgen
from gpassk_oc.argtypes import opencompass_dir_problem, path_arg, port_number, seed_number
from gpassk_oc.demo import problems
from gpassk_oc.demo.leaderboard import (
    SIMULATION_BANNER,
    DemoError,
    attach_truth,
    shown_metrics,
    truth_markdown,
    truth_text,
    write_reports,
)
from gpassk_oc.demo.opencompass_run import run_opencompass
from gpassk_oc.demo.opencompass_run import say as _say
from gpassk_oc.demo.sim_endpoint import SimEndpoint
from gpassk_oc.demo.simulation import MODELS, TemperatureResponder
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import Refused, is_stamped

__all__ = [
    "demo_plan",
    "demo_grid",
    "SIMULATION_BANNER",
    "DemoError",
    "attach_truth",
    "shown_metrics",
    "truth_markdown",
    "truth_text",
    "write_reports",
    "add_arguments",
    "build_parser",
    "run",
    "main",
]

DEFAULT_OUTPUT = "gpassk_demo_output"
#: Written into every output folder the demo creates; only such a folder is reused.
MARKER = ".gpassk-oc-demo"
MARKER_TEXT = "This folder was made by `gpassk-oc demo`; the demo may overwrite its files.\n"
TEMPLATE_NAME = "demo.py"


# --------------------------------------------------------------------------- configs
def demo_plan(template_path: Path, base_url: str, data_dir: Path, quick: bool) -> configgen.Plan:
    """The demo template expanded with overrides given as data (the endpoint's URL, the
    absolute data path; ``--quick``: one temperature, n = max(k)); every file header names
    the overridden variables."""
    variables = configgen.template_variables(template_path)[0]
    overrides: dict[str, Any] = {
        "api_models": [dict(m, openai_api_base=base_url) for m in variables["api_models"]],
        "data_path": str(data_dir),  # absolute: the CLI's cwd does not matter
    }
    if quick:
        overrides.update(temperatures=list(variables["temperatures"][:1]), replications=[1])
    return configgen.build(
        template_path, TEMPLATE_NAME, overrides, overridden_by="`gpassk-oc demo`"
    )


def demo_grid(plan: configgen.Plan) -> configgen.ConfigData:
    """The plan's grid config (every model with its own datasets, one OpenCompass run),
    with one inference task per grid point: the tiny demo dataset is not worth splitting,
    task start-up dominates (measured on 2 cores: one combined run of the 4 default
    configs ~55 s, four separate CLI runs ~120 s)."""
    grid = plan.grid
    infer = grid.variables.get("infer")
    if infer and infer["partitioner"].get("num_worker"):
        infer = dict(infer, partitioner=dict(infer["partitioner"], num_worker=1))
        grid = replace(grid, variables={**grid.variables, "infer": infer})
    return grid


# --------------------------------------------------------------------------- output folder
class OwnershipError(DemoError):
    """The output folder (or a file in it) is not the demo's to write: exit status 2."""


def claim_output(out: Path) -> None:
    """Make *out* the demo's folder: a new or empty folder gets the :data:`MARKER`; a
    non-empty folder without it is not ours and is refused (:class:`OwnershipError`) before
    anything is written — the demo overwrites its own files there, so it never goes into a
    folder the user filled."""
    if out.exists() and not out.is_dir():
        raise OwnershipError(f"--output {out}: is a file; need a new or empty folder")
    if out.is_dir() and not _is_demo_marker(out / MARKER) and any(out.iterdir()):
        raise OwnershipError(
            f"--output {out}: folder is not empty and was not made by gpassk-oc demo (no "
            f"{MARKER} file of the demo's in it); choose a new or empty folder"
        )
    out.mkdir(parents=True, exist_ok=True)
    if not (out / MARKER).exists():
        (out / MARKER).write_text(MARKER_TEXT, encoding="utf-8")


def _is_demo_marker(path: Path) -> bool:
    """*path* is the marker the demo wrote (a user's file of that name is not)."""
    try:
        return not path.is_symlink() and path.read_text(encoding="utf-8") == MARKER_TEXT
    except (OSError, ValueError):
        return False


def remove_stale_configs(configs_dir: Path) -> None:
    """Delete configs of an earlier run (e.g. --quick) that the generator wrote and nobody
    edited since; anything else in the folder stays."""
    for stale in configs_dir.glob("*.py") if configs_dir.is_dir() else ():
        if stale.is_file() and not stale.is_symlink() and is_stamped(stale.read_bytes()):
            stale.unlink()


def cli_environment() -> dict[str, str]:
    """Offline switches, no proxy for 127.0.0.1, a dummy API key (the simulated endpoint
    ignores it; a real key is never sent), and this gpassk_oc importable by the tasks."""
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        OPENAI_API_KEY="gpassk-demo",
        TOKENIZERS_PARALLELISM="false",
    )
    for name in ("NO_PROXY", "no_proxy"):
        env[name] = ",".join(x for x in (env.get(name), "127.0.0.1", "localhost") if x)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    return env


# --------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output",
        type=path_arg,
        default=Path(DEFAULT_OUTPUT),
        metavar="DIR",
        help=f"folder for everything the demo writes (default ./{DEFAULT_OUTPUT}): new, "
        f"empty, or made by an earlier demo ({MARKER} in it); any other folder is refused",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=0,
        help="port of the simulated endpoint on 127.0.0.1, 1-65535 (default 0: a free one)",
    )
    parser.add_argument(
        "--seed",
        type=seed_number,
        default=0,
        help="seed of the simulated answers and of the bootstrap (default 0)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one temperature and n = 8 samples per question (for tests)",
    )


@dataclass(frozen=True)
class _Ran:
    """What stages 1-4 leave for the report and the closing lines."""

    run_dir: Path
    configs_dir: Path
    log_path: Path
    template_path: Path


def run(args: argparse.Namespace) -> int:
    """The demo; 0 on success, 1 with one ``error:`` line when a stage fails."""
    start = time.monotonic()
    out = args.output.resolve()
    if why := opencompass_dir_problem(out, "--output"):  # else every task fails after a minute
        return fail(why)
    try:  # before the first line of output: a refused folder is one error line
        claim_output(out)
    except OwnershipError as exc:
        return fail(str(exc))
    _say(f"gpassk-oc demo — {SIMULATION_BANNER}")
    try:
        ran = _run_stages(out, args)
    except Refused as exc:  # a config of ours edited by hand: left alone
        for line in exc.lines[:-1]:
            logger.error(line)
        return fail(exc.lines[-1])
    except DemoError as exc:
        return fail(str(exc), 1)
    except configgen.TemplateError as exc:
        return fail(f"template {TEMPLATE_NAME}: {exc}", 1)
    except OSError as exc:  # e.g. the output folder is not writable
        return fail(str(exc), 1)
    except KeyboardInterrupt:  # the CLI's process group is already gone (run_opencompass)
        return fail("interrupted", 130)

    _say(f"[5/5] report and figures from {ran.run_dir}")
    try:
        rows_json, report, _ = write_reports(ran.run_dir, out, args.seed)
    except (DemoError, OSError) as exc:
        return fail(str(exc), 1)
    _say_results(out, ran, rows_json, report, time.monotonic() - start)
    return 0


def _run_stages(out: Path, args: argparse.Namespace) -> _Ran:
    """Stages 1-4: the dataset, the simulated endpoint, the configs, the opencompass run
    (the endpoint stops when they end, in every case)."""
    _say(f"[1/5] writing the sample dataset (LiveMathBench layout) to {out / 'data'}")
    data_dir = out / "data"
    problems.write_dataset(data_dir)
    # looked up from the package's directory, so a demo.py in the user's cwd is not taken
    template_path = configgen.resolve_template(TEMPLATE_NAME, cwd=Path(configgen.__file__).parent)
    temperatures = configgen.load_template(template_path).temperatures
    try:
        endpoint = SimEndpoint(
            TemperatureResponder(temperatures, seed=args.seed), port=args.port, models=list(MODELS)
        ).start()
    except OSError as exc:
        raise DemoError(
            f"cannot start the simulated endpoint on 127.0.0.1:{args.port}: {exc}"
        ) from exc
    try:
        _say(f"[2/5] simulated endpoint (models {', '.join(MODELS)}) at {endpoint.url}")
        configs_dir = out / "configs"
        remove_stale_configs(configs_dir)
        plan = demo_plan(template_path, endpoint.url, data_dir, args.quick)
        grid = demo_grid(plan)
        written = configgen.write_configs(plan.configs, configs_dir)
        (combined,) = configgen.write_configs([grid], out)  # beside configs/, not in it
        pairs = grid.pairs
        n_questions = len(problems.PROBLEMS) * len(problems.LANGUAGES)  # split x language
        # samples per question of each dataset, from the generated config data (not names)
        n_of = {d["abbr"]: d["n"] for d in grid.variables["datasets"]}
        expected = sum(n_questions * n_of[d] for _, d in pairs)
        _say(
            f"[3/5] {len(plan.configs)} configs from {TEMPLATE_NAME} (endpoint URL and "
            f"data path overridden) in {configs_dir}"
        )
        for path in written:
            _say(f"      {path.name}")
        log_path = out / "opencompass.log"
        _say(
            f"[4/5] running opencompass on {combined.name} ({len(plan.configs)} configs, "
            f"{expected} samples); log: {log_path}"
        )
        run_dir = run_opencompass(
            combined, out / "outputs", log_path, pairs, endpoint, expected, cli_environment()
        )
    finally:
        endpoint.stop()
    return _Ran(run_dir, configs_dir, log_path, template_path)


def _say_results(
    out: Path, ran: _Ran, rows_json: Sequence[dict], report: Any, seconds: float
) -> None:
    """The leaderboard beside the truth, what the checker did, and where everything is."""
    _say("")
    _say(f"=== {SIMULATION_BANNER}")
    _say(
        f"G-Pass@{report.k} leaderboard (percent, {100 * report.level:g}% rerun interval; "
        "truth = exact value of the simulated model)"
    )
    _say(truth_text(report, rows_json))
    _say(
        f"Read: pass@{report.k} (solved at least once in {report.k} tries) favours the shaky model; "
        f"G-Pass@{report.k}_1.0 (solved in all {report.k}) favours the steady one. At "
        f"{100 * report.level:g}% about 1 interval in {round(1 / (1 - report.level))} may "
        "miss the truth by chance; one marked ! can miss it more often than that."
    )
    _say(checking_text(rows_json, report.level))
    _say("")
    _say(f"Done in {seconds:.0f} s. Everything is in {out}:")
    for label, path in [
        ("leaderboard + truth", out / "report" / "leaderboard.md"),
        ("leaderboard page", out / "report" / "leaderboard.html"),
        ("report JSON", out / "report" / "report.json"),
        (f"figures ({100 * report.level:g}% benchmark bands)", out / "plots"),
        ("configs", ran.configs_dir),
        ("OpenCompass work dir", ran.run_dir),
        ("OpenCompass log", ran.log_path),
    ]:
        _say(f"  {label:<30} {path}")
    _say("Real models: serve one (e.g. `lmdeploy serve api_server <model> --server-port 23333`),")
    _say(f"copy {ran.template_path} and set path, openai_api_base='http://127.0.0.1:23333/v1' and")
    _say(
        "data_path (or use llm_infos for TurboMind), then `gpassk-oc dump -tc YOUR_COPY.py`. "
        "See docs/real-models.md."
    )


def checking_text(rows_json: Sequence[dict], level: float) -> str:
    """What the checker did, in the accounting's own words: replies stating no answer are
    'undecided' (rule_undecided), not 'no_answer' (empty or cut-off replies only)."""
    accounting = [r.get("accounting") or {} for r in rows_json]
    undecided = sum(int(a.get("rule_undecided", 0)) for a in accounting)
    no_answer = sum(int(a.get("no_answer", 0)) for a in accounting)
    return (
        f'Checking: rules only. {undecided} replies stated no answer ("I am not sure ..."): '
        f"scored wrong as undecided (rule_undecided); no_answer = {no_answer} counts only "
        "empty or cut-off replies. The report's verdict-sensitivity range is the value if "
        "every undecided reply were right: the checker's reach, not a confidence interval. "
        f"Figure bands are {100 * level:g}% benchmark intervals (new questions), wider than "
        "the rerun intervals above."
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``gpassk-oc demo`` argument parser (also used by ``python -m gpassk_oc.demo.run``)."""
    parser = argparse.ArgumentParser(prog="gpassk-oc demo", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
