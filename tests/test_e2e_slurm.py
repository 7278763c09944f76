"""The grid on Slurm: a real one-node cluster, ``opencompass grid.py --slurm -p P``, exact results.

A session fixture installs Debian's ``slurm-wlm`` and ``munge`` when missing (as root,
with apt-get) and brings up munged + slurmctld + slurmd in a temporary directory
(:mod:`slurm_cluster`). A small grid — two simulated models × one dataset config each —
is generated from a template and run through ``--slurm``; every task must be a Slurm job
and the results must equal brute-force values from the counts the endpoint was told to
serve. The test never skips: without root, apt-get or the packages it fails, saying why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import E2E_KS, E2E_N, E2E_QUESTIONS, ROOT, offline_env, run_cli, write_layout
from slurm_cluster import ClusterError, ensure_packages, start_cluster
from test_e2e_opencompass import expected_all

from gpassk_oc.demo.sim_endpoint import ExactCountsResponder, SimEndpoint, SimQuestion

#: Per model, how many of the n answers to each E2E question are correct. Different
#: multisets, so swapped or mixed-up results cannot pass.
COUNTS = {
    "sim-a": [c for *_, c in E2E_QUESTIONS],
    "sim-b": [min(E2E_N, c + 1) for *_, c in E2E_QUESTIONS],
}
TEMPERATURE, TOP_P = 0.7, 0.9
#: Names by the documented convention (docs/configgen.md, "Names"): hand-written, not computed.
MODEL_ABBRS = {
    "sim-a": "sim-a_t0-7_p0-9_k50_rp1-0_rs42_l512",
    "sim-b": "sim-b_t0-7_p0-9_k50_rp1-0_rs42_l512",
}
DATASET_ABBR = "LiveMathBench-v202412-CCEE-AMC-k2_4-r2"
CLI_TIMEOUT = 600


class PerModelResponder:
    """One exact-counts responder per served model name."""

    def __init__(self, counts: dict[str, list[int]]):
        questions = [
            SimQuestion(text=q, gold=g, correct_forms=forms)
            for _, _, q, g, forms, _ in E2E_QUESTIONS
        ]
        self.by_model = {
            model: ExactCountsResponder(
                questions, {q.text: c for q, c in zip(questions, cs)}, n=E2E_N
            )
            for model, cs in counts.items()
        }

    def __call__(self, model: str, messages: list, params: dict) -> str:
        return self.by_model[model](model, messages, params)


def grid_template(url: str, data_path: Path) -> str:
    """A grid template: the two models × one temperature, top_p, k-list and replication."""
    models = ",\n    ".join(
        f"dict(path={m!r}, openai_api_base={url!r}, batch_size=24, query_per_second=200, "
        f"retry=1, timeout=60)"
        for m in COUNTS
    )
    return f"""\
api_models = [
    {models},
]
temperatures = [{TEMPERATURE}]
top_ps = [{TOP_P}]
ks = [{E2E_KS!r}]
replications = [{E2E_N // max(E2E_KS)}]  # n = 8
max_out_len = 512
max_seq_len = 4096
data_path = {str(data_path)!r}
dataset_splits = ['AMC', 'CCEE']
dataset_languages = ['en', 'cn']
"""


def build_grid_config(template: Path, out_dir: Path) -> Path:
    """Write ONE OpenCompass config running every model × dataset pair of *template*'s
    grid (each model only with its own dataset), exactly as a user does, and return it:
    ``python dump_opencompass_configs.py --config_template_file T --output_dir D --grid``
    prints the grid file's path as its last stdout line."""
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "dump_opencompass_configs.py"),
            "--config_template_file",
            str(template),
            "--output_dir",
            str(out_dir),
            "--grid",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0:
        pytest.fail(f"dump --grid failed (rc={proc.returncode}): {proc.stderr.strip()}")
    grid = Path(proc.stdout.strip().splitlines()[-1])
    assert grid == out_dir / f"grid_{template.stem}.py", proc.stdout
    return grid


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def slurm_cluster():
    """A one-node cluster for this module; daemons stopped afterwards, even on failure."""
    try:
        ensure_packages()
        cluster = start_cluster()
    except ClusterError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory, slurm_cluster):
    """``opencompass grid.py -w outputs --slurm -p <partition> --dump-eval-details``."""
    cwd = tmp_path_factory.mktemp("oc_slurm")
    data = write_layout(cwd / "data" / "LiveMathBench", E2E_QUESTIONS)
    with SimEndpoint(PerModelResponder(COUNTS), models=list(COUNTS)) as endpoint:
        template = cwd / "slurm_grid.py"
        template.write_text(grid_template(endpoint.url, data))
        grid = build_grid_config(template, cwd / "configs")
        env = {**offline_env(), **slurm_cluster.env()}
        try:
            proc = run_cli(
                cwd,
                [
                    str(grid),
                    "-w",
                    "outputs",
                    "--slurm",
                    "-p",
                    slurm_cluster.partition,
                    "--dump-eval-details",
                ],
                env,
                timeout=CLI_TIMEOUT,
            )
        except subprocess.TimeoutExpired:  # the fixture's teardown cancels the jobs
            pytest.fail(
                f"opencompass --slurm did not finish within {CLI_TIMEOUT} s; "
                f"jobs: {slurm_cluster.jobs()}\n{slurm_cluster.logs()}"
            )
        requests = endpoint.num_requests
    stamps = sorted((cwd / "outputs").glob("2*"))
    run_dir = stamps[-1] if stamps else cwd / "outputs"
    logs = "\n".join(
        [proc.stdout[-4000:], proc.stderr[-4000:]]
        + [
            f"--- {p}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(run_dir.rglob("*.out"))
        ]
    )
    if proc.returncode != 0 or not stamps:
        pytest.fail(
            f"opencompass --slurm failed (rc={proc.returncode}):\n{logs[-12000:]}\n"
            f"{slurm_cluster.logs()}"
        )
    return dict(
        cwd=cwd,
        run_dir=run_dir,
        requests=requests,
        jobs=slurm_cluster.jobs(),
        partition=slurm_cluster.partition,
        logs=logs,
    )


# --------------------------------------------------------------------------- tests
@pytest.mark.e2e
def test_every_task_ran_as_a_slurm_job(slurm_run):
    """Two inference and two evaluation tasks, each a completed job of our partition,
    started from the CLI's directory; with the LocalRunner there would be no job."""
    jobs = slurm_run["jobs"]
    for model, abbr in MODEL_ABBRS.items():
        for kind in ("OpenICLInfer", "OpenICLEval"):
            mine = [j for j in jobs if j["JobName"].startswith(kind) and abbr in j["JobName"]]
            assert mine, f"no Slurm job for {kind} of {model}; jobs: {jobs}\n{slurm_run['logs']}"
            assert all(j["JobState"] == "COMPLETED" and j["ExitCode"] == "0:0" for j in mine), mine
            assert all(j["Partition"] == slurm_run["partition"] for j in mine)
            assert all(Path(j["WorkDir"]) == slurm_run["cwd"] for j in mine)


@pytest.mark.e2e
@pytest.mark.parametrize("model", sorted(COUNTS))
def test_results_equal_brute_force_values(slurm_run, model):
    path = slurm_run["run_dir"] / "results" / MODEL_ABBRS[model] / f"{DATASET_ABBR}.json"
    assert path.exists(), f"missing {path}\n{slurm_run['logs']}"
    results = json.loads(path.read_text())
    expected = expected_all(COUNTS[model])
    assert len(expected) == (len(E2E_KS) * 6 + 1) * 5  # overall + 4 split × language groups
    for key, value in expected.items():
        assert key in results, f"missing {key}"
        assert results[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    assert (
        results["run"]["n"],
        results["run"]["num_questions"],
        results["accounting"]["unjudged"],
    ) == (E2E_N, len(E2E_QUESTIONS), 0)
    assert [d["c"] for d in results["details"]] == COUNTS[model]


@pytest.mark.e2e
def test_each_sample_requested_once(slurm_run):
    assert slurm_run["requests"] == len(COUNTS) * len(E2E_QUESTIONS) * E2E_N


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # the process ended meanwhile
            continue
        if text in args:
            found.append(f"{cmdline.parent.name}: {args}")
    return found


@pytest.mark.e2e
def test_a_cluster_that_does_not_come_up_is_torn_down(slurm_cluster):
    """No time to get ready: one clear first line, and none of its daemons left running
    (the fixture's cluster, already up, guarantees the packages are there)."""
    with pytest.raises(ClusterError) as exc:
        start_cluster(partition="gpasskdoomed", timeout=0)
    first = str(exc.value).splitlines()[0]
    assert first.startswith("Slurm test: ") and "in time" in first, first
    assert not _processes_mentioning("gpasskdoomed")  # its slurmd runs with -N gpasskdoomedn1
    assert not [
        d
        for d in Path("/tmp").glob("gpassk-slurm-*")
        if (d / "slurm.conf").is_file() and "gpasskdoomed" in (d / "slurm.conf").read_text()
    ]  # its directory is gone


# --------------------------------------------------------------------------- no cluster: fail, never skip
def test_no_packages_and_no_apt_get_fails_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # neither srun nor apt-get on PATH
    with pytest.raises(ClusterError) as exc:
        ensure_packages()
    message = str(exc.value)
    assert "\n" not in message
    assert "srun" in message and "no apt-get" in message and "slurm-wlm munge" in message


def test_no_packages_and_not_root_fails_in_one_line(monkeypatch, tmp_path):
    fake = tmp_path / "apt-get"  # apt-get "present" (never run), Slurm clients absent
    fake.write_text("#!/bin/sh\nexit 99\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(ClusterError) as exc:
        ensure_packages()
    message = str(exc.value)
    assert "\n" not in message and "run as root" in message
