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
5. builds the leaderboard with bootstrap CIs (:mod:`gpassk_oc.report`) and puts the *true*
   value of every metric next to each estimate, then draws the figures
   (:mod:`gpassk_oc.report.plots`).

The truth is computed here in closed form from the binomial distribution — for a question
answered correctly with probability p, k independent samples give X ~ Binomial(k, p) and
G-Pass@k_τ = P(X ≥ max(⌈τk⌉, 1)) — independently of the hypergeometric estimators the
report uses. The estimators are unbiased for exactly these quantities, so the printed
estimates differ from the truth only by sampling noise (about ``rerun_se`` of the truth).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gpassk_oc import configgen
from gpassk_oc.core.data.naming import parse_dataset_abbr
from gpassk_oc.core.scoring.metric_names import headline_metrics, report_metrics
from gpassk_oc.demo import problems
from gpassk_oc.demo.sim_endpoint import SimEndpoint
from gpassk_oc.demo.simulation import (
    MODELS,
    SHAKY,
    STEADY,
    TEMPERATURE_PULL,
    TemperatureResponder,
    base_probability,
    question_probability,
    success_probability,
    true_metric,
    true_metrics,
)
from gpassk_oc.log import fail

__all__ = [
    "MODELS",
    "STEADY",
    "SHAKY",
    "TEMPERATURE_PULL",
    "base_probability",
    "success_probability",
    "question_probability",
    "TemperatureResponder",
    "true_metric",
    "true_metrics",
    "demo_plan",
    "demo_grid",
    "add_arguments",
    "build_parser",
    "run",
    "main",
]

DEFAULT_OUTPUT = "gpassk_demo_output"
TEMPLATE_NAME = "demo.py"
#: How long the OpenCompass run may take before the demo gives up (seconds).
CLI_TIMEOUT = 1200
SIMULATION_BANNER = (
    "SIMULATION — the two models are simulated by a local endpoint with known "
    "per-question success probabilities; no real LLM was evaluated."
)


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


# --------------------------------------------------------------------------- CLI run
def opencompass_command() -> list[str]:
    """The ``opencompass`` script next to this interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("opencompass")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "opencompass.cli.main"]


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


class DemoError(RuntimeError):
    """A stage failed; the message is the one line the user sees."""


def _say(text: str) -> None:
    print(text, flush=True)


def run_opencompass(
    config: Path,
    work_dir: Path,
    log_path: Path,
    pairs: Sequence[tuple[str, str]],
    endpoint: SimEndpoint,
    expected_requests: int,
    timeout: float = CLI_TIMEOUT,
) -> Path:
    """Run the CLI on *config* (cwd: the output folder), print progress, and return the
    timestamp directory it wrote; raise :class:`DemoError` naming the failure."""
    before = {p.name for p in work_dir.iterdir()} if work_dir.exists() else set()
    cmd = opencompass_command() + [config.name, "-w", str(work_dir), "--dump-eval-details"]
    start = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        # own session: on timeout or Ctrl-C the CLI and its task processes go together
        proc = subprocess.Popen(
            cmd,
            cwd=config.parent,
            env=cli_environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            last = ""
            next_print = 0.0
            while proc.poll() is None:
                elapsed = time.monotonic() - start
                if elapsed > timeout:
                    raise DemoError(
                        f"opencompass did not finish within {timeout:.0f} s; log: {log_path}"
                    )
                stamp = _new_run_dir(work_dir, before)
                done = _results_done(stamp, pairs)
                answered = min(endpoint.num_requests, expected_requests)
                status = (
                    f"  opencompass: {answered}/{expected_requests} samples answered, "
                    f"{done}/{len(pairs)} configs evaluated"
                )
                if status != last and elapsed >= next_print:
                    _say(f"{status}  ({elapsed:.0f} s)")
                    last, next_print = status, elapsed + 5
                time.sleep(0.5)
        finally:
            if proc.poll() is None:
                _kill_group(proc)
    stamp = _new_run_dir(work_dir, before)
    if proc.returncode != 0:
        raise DemoError(f"opencompass exited with code {proc.returncode}; log: {log_path}")
    if stamp is None:
        raise DemoError(f"opencompass wrote no run directory under {work_dir}; log: {log_path}")
    missing = [f"{m}/{d}" for m, d in pairs if not (stamp / "results" / m / f"{d}.json").exists()]
    if missing:
        from gpassk_oc.workdir import missing_results  # names each pair's task log

        first = (missing_results(stamp) or [missing[0]])[0]
        raise DemoError(
            f"opencompass produced no results for {len(missing)} of {len(pairs)} "
            f"configs (first: {first}); log: {log_path}"
        )
    _say(
        f"  opencompass: {len(pairs)}/{len(pairs)} configs evaluated "
        f"({time.monotonic() - start:.0f} s)"
    )
    return stamp


def _new_run_dir(work_dir: Path, before: set[str]) -> Path | None:
    if not work_dir.exists():
        return None
    new = sorted(p for p in work_dir.iterdir() if p.is_dir() and p.name not in before)
    return new[-1] if new else None


def _results_done(stamp: Path | None, pairs: Sequence[tuple[str, str]]) -> int:
    if stamp is None:
        return 0
    return sum((stamp / "results" / m / f"{d}.json").exists() for m, d in pairs)


def _kill_group(proc: subprocess.Popen) -> None:
    """Terminate the CLI's process group (it and its task processes), then wait."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


# --------------------------------------------------------------------------- report
def _row_probabilities(row: Any) -> np.ndarray:
    """True p of each question of a report row. Row keys carry (split, language, index)
    and only a hash of the text; the texts come from the runs' typed results."""
    from gpassk_oc.report import question_key

    texts: dict[tuple, str] = {
        question_key(q): q.question or "" for run in row.runs for q in run.results.questions
    }
    s = row.setting
    return np.array([question_probability(s.model, texts[key], s.temperature) for key in row.keys])


def attach_truth(report: Any, rows_json: list[dict]) -> list[dict]:
    """Add ``truth`` (overall and per split × language) and the simulation's ``p`` to the
    report's JSON rows; keys are the report's own metric keys."""
    from gpassk_oc.report.collect import subset_masks

    by_label = {(r.label, r.dataset_abbr): r for r in report.rows}
    keys = report_metrics(report.k)
    for entry in rows_json:
        row = by_label[(entry["model"], entry["dataset"])]
        p = _row_probabilities(row)
        entry["simulation"] = {
            "model": row.setting.model,
            "temperature": row.setting.temperature,
            "p": {
                f"{split}/{lang}/{index}": round(float(q), 6)
                for (split, lang, index, _), q in zip(row.keys, p)
            },
        }
        entry["truth"] = true_metrics(keys, p, row.n)
        masks = subset_masks(row.keys)
        for subset, block in entry["splits"].items():
            block["truth"] = true_metrics(keys, p[masks[subset]], row.n[masks[subset]])
    return rows_json


def _pct_text(value: float | None) -> str:
    """A percent value (the truth, unrounded) as text, by the report's one rounding rule."""
    from gpassk_oc.report.numbers import pct_text

    return pct_text(None if value is None else value / 100)


def _estimate(report: Any, entry: Mapping[str, Any], metric: str) -> str:
    """The estimate of *metric* for a leaderboard row, as every report table writes it
    (from the report's own Estimate, not the JSON's rounded copy: one rounding only)."""
    from gpassk_oc.report.tables import estimate_text

    cell = report.cells.get((entry["model"], entry["dataset"], "overall"))
    return estimate_text(cell.metrics.get(metric) if cell else None, ci=True)


def shown_metrics(k: int) -> list[str]:
    """The leaderboard's metrics: the headline ones, pass@k and the stability gap."""
    return headline_metrics(k) + [f"pass@{k}", f"gap@{k}"]


def truth_markdown(report: Any, rows_json: Sequence[dict]) -> str:
    """Leaderboard (overall) with the truth beside each estimate."""
    k, level = report.k, report.level
    metrics = shown_metrics(k)
    header = ["Model", "T", "n", "Q"] + [h for m in metrics for h in (m, "truth")]
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for entry in rows_json:
        s = entry["setting"] or {}
        cells = [
            entry["base_model"],
            f"{s.get('temperature', '')}",
            str(entry["n"]),
            str(entry["num_questions"]),
        ]
        for m in metrics:
            cells += [_estimate(report, entry, m), _pct_text(entry["truth"][m]["value"])]
        out.append("| " + " | ".join(cells) + " |")
    out += [
        "",
        f"Estimates in percent with {100 * level:g}% bootstrap CIs over questions "
        "([no width]: every question has the same value, so resampling questions "
        "cannot give an interval — the rerun SE still applies); *truth* = the "
        "simulated model's exact value (binomial closed form), which the estimate "
        "matches up to sampling noise. gap = pass@k − G-Pass@k_1.0.",
    ]
    return "\n".join(out)


def truth_text(report: Any, rows_json: Sequence[dict]) -> str:
    """The terminal version: one block per row, metric | estimate [CI] | truth."""
    k = report.k
    out = []
    for entry in rows_json:
        s = entry["setting"] or {}
        out.append(
            f"{entry['base_model']}  T={s.get('temperature')}  "
            f"({entry['num_questions']} questions x n={entry['n']} samples)"
        )
        for m in shown_metrics(k) + ["pass@1"]:
            out.append(
                f"  {m:<15} {_estimate(report, entry, m):<22} "
                f"truth {_pct_text(entry['truth'][m]['value']):>5}"
            )
    return "\n".join(out)


SIMULATION_DOC = f"""\
## How the simulation works

Two models are served by `gpassk_oc.demo.sim_endpoint.SimEndpoint` on 127.0.0.1. A
request's model name and temperature fix the probability p that its answer is correct;
correct answers contain the gold answer in `\\boxed{{}}`, wrong ones a wrong number or no
boxed answer. Draws are seeded (`--seed`), so a rerun gives the same counts.

* **{SHAKY}** (strong but unstable): p = 0.50, 0.55, …, 0.85 on the 8 problems of each
  split (both languages alike).
* **{STEADY}** (weaker but stable): p = 0.97 on the first 3 problems of each split, 0.03
  on the other 5.
* **Temperature**: p(T) = p + min(1, {TEMPERATURE_PULL}·T)·(0.5 − p) — hotter sampling
  pulls every question toward 0.5, the least stable value.

*Truth*: for k independent samples X ~ Binomial(k, p), so G-Pass@k_τ = P(X ≥ max(⌈τk⌉, 1)),
mG-Pass@k = (2/k)·Σ_(i=⌈k/2⌉+1..k) P(X ≥ i), pass@k = 1 − (1 − p)^k, averaged over
questions. The report's estimators (hypergeometric, from c of n samples) are unbiased for
exactly these values.

How to read it: pass@k says "solved at least once in k tries" — the shaky model wins it.
G-Pass@k_1.0 says "solved in all k tries": the steady model wins, and its stability gap
(pass@k − G-Pass@k_1.0) is far smaller. mG-Pass@k summarises τ from 0.5 to 1.
"""


def _demote_headings(markdown: str) -> str:
    """Nest a whole markdown document one heading level down."""
    return "\n".join("#" + line if line.startswith("#") else line for line in markdown.splitlines())


def write_reports(run_dir: Path, out: Path, seed: int) -> tuple[list[dict], Any, list[Path]]:
    """Leaderboard + truth (markdown, JSON), the standard CSV, and the figures."""
    from gpassk_oc import report as report_mod
    from gpassk_oc.report import plots

    report = report_mod.build_report([run_dir], seed=seed)
    from gpassk_oc.report.health import report_warnings

    for line in report_warnings(report, [run_dir]):  # run health, as `gpassk-oc report` says it
        _say(f"warning: {line}")
    if not report.rows:
        raise DemoError(f"no usable results under {run_dir}: " + "; ".join(report.notes[:3]))
    rows_json = attach_truth(
        report, [r for r in report_mod.to_json_rows(report) if not r["greedy"]]
    )
    report_dir = out / "report"
    report_dir.mkdir(parents=True, exist_ok=True)
    markdown = "\n".join(
        [
            f"# gpassk-oc demo — G-Pass@{report.k} leaderboard",
            "",
            f"**{SIMULATION_BANNER}**",
            "",
            truth_markdown(report, rows_json),
            "",
            SIMULATION_DOC,
            "---",
            "",
            "The full report (`gpassk-oc report`, per split × language):",
            "",
            _demote_headings(report_mod.render_markdown(report)),
        ]
    )
    files = [report_dir / "leaderboard.md", report_dir / "report.json", report_dir / "report.csv"]
    files[0].write_text(markdown + "\n", encoding="utf-8")
    files[1].write_text(
        json.dumps(
            {
                "simulation": True,
                "description": SIMULATION_BANNER,
                "k": report.k,
                "confidence_level": report.level,
                "run_dir": str(run_dir),
                "rows": rows_json,
                "notes": report.notes,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    files[2].write_text(report_mod.render_csv(report), encoding="utf-8")
    files += plots.write_all(report, out / "plots", title_note="SIMULATED models")
    return rows_json, report, files


# --------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output",
        type=Path,
        default=Path(DEFAULT_OUTPUT),
        metavar="DIR",
        help=f"folder for everything the demo writes (default ./{DEFAULT_OUTPUT})",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        help="port of the simulated endpoint on 127.0.0.1 (default: a free one)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the simulated answers and of the bootstrap (default 0)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one temperature and n = 8 samples per question (for tests)",
    )


def run(args: argparse.Namespace) -> int:
    """The demo; 0 on success, 1 with one ``error:`` line when a stage fails."""
    start = time.monotonic()
    out = args.output.resolve()
    _say(f"gpassk-oc demo — {SIMULATION_BANNER}")
    endpoint: SimEndpoint | None = None
    try:
        _say(f"[1/5] writing the sample dataset (LiveMathBench layout) to {out / 'data'}")
        out.mkdir(parents=True, exist_ok=True)
        data_dir = out / "data"
        problems.write_dataset(data_dir)

        # looked up from the package's directory, so a demo.py in the user's cwd is not taken
        template_path = configgen.resolve_template(
            TEMPLATE_NAME, cwd=Path(configgen.__file__).parent
        )
        temperatures = configgen.load_template(template_path)["temperatures"]
        try:
            endpoint = SimEndpoint(
                TemperatureResponder(temperatures, seed=args.seed),
                port=args.port,
                models=list(MODELS),
            ).start()
        except OSError as exc:
            raise DemoError(
                f"cannot start the simulated endpoint on 127.0.0.1:{args.port}: {exc}"
            ) from exc
        _say(f"[2/5] simulated endpoint (models {', '.join(MODELS)}) at {endpoint.url}")

        configs_dir = out / "configs"
        if configs_dir.exists():  # stale files of an earlier (e.g. --quick) run
            for stale in configs_dir.glob("*.py"):
                stale.unlink()
        plan = demo_plan(template_path, endpoint.url, data_dir, args.quick)
        grid = demo_grid(plan)
        written = configgen.write_configs(plan.configs, configs_dir)
        (combined,) = configgen.write_configs([grid], out)  # beside configs/, not in it
        pairs = grid.pairs
        n_questions = len(endpoint.responder.questions)
        expected = sum(n_questions * parse_dataset_abbr(d).n for _, d in pairs)
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
        run_dir = run_opencompass(combined, out / "outputs", log_path, pairs, endpoint, expected)
    except DemoError as exc:
        return fail(str(exc), 1)
    except configgen.TemplateError as exc:
        return fail(f"template {TEMPLATE_NAME}: {exc}", 1)
    except OSError as exc:  # e.g. the output folder is not writable
        return fail(str(exc), 1)
    except KeyboardInterrupt:  # the CLI's process group is already gone (run_opencompass)
        return fail("interrupted", 130)
    finally:
        if endpoint is not None:
            endpoint.stop()

    _say(f"[5/5] report and figures from {run_dir}")
    try:
        rows_json, report, files = write_reports(run_dir, out, args.seed)
    except (DemoError, OSError) as exc:
        return fail(str(exc), 1)
    _say("")
    _say(f"=== {SIMULATION_BANNER}")
    _say(
        f"G-Pass@{report.k} leaderboard (percent, {100 * report.level:g}% bootstrap CI; "
        "truth = exact value of the simulated model)"
    )
    _say(truth_text(report, rows_json))
    _say(
        f"Read: pass@{report.k} (solved at least once in {report.k} tries) favours the shaky model; "
        f"G-Pass@{report.k}_1.0 (solved in all {report.k}) favours the steady one. Estimates match "
        "the truth up to sampling noise; the CIs say how far to trust them."
    )
    _say("")
    _say(f"Done in {time.monotonic() - start:.0f} s. Everything is in {out}:")
    for label, path in [
        ("leaderboard + truth", out / "report" / "leaderboard.md"),
        ("report JSON", out / "report" / "report.json"),
        ("figures", out / "plots"),
        ("configs", configs_dir),
        ("OpenCompass work dir", run_dir),
        ("OpenCompass log", log_path),
    ]:
        _say(f"  {label:<22} {path}")
    _say("Real models: serve one (e.g. `lmdeploy serve api_server <model> --server-port 23333`),")
    _say(f"copy {template_path} and set path, openai_api_base='http://127.0.0.1:23333/v1' and")
    _say(
        "data_path (or use llm_infos for TurboMind), then `gpassk-oc dump -tc YOUR_COPY.py`. "
        'See README.md, "The offline demo".'
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``gpassk-oc demo`` argument parser (also used by ``python -m gpassk_oc.demo.run``)."""
    parser = argparse.ArgumentParser(prog="gpassk-oc demo", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
