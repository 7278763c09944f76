"""Shared fixtures: LiveMathBench sample data and ONE real OpenCompass CLI run per session.

The e2e fixture starts a simulated OpenAI-compatible endpoint on 127.0.0.1 whose
answers are correct in exactly ``c_q`` of the ``n`` calls for question q, writes the
data in the local layout, and runs the real ``opencompass`` CLI (LocalRunner, task
subprocesses) on a config that uses only our plugin classes. Tests then compare the
results with values computed independently from the chosen ``c_q``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the package need not be installed to run the tests
    sys.path.insert(0, str(ROOT))

# One mypy cache for the checkout's own run (tests/test_lint.py) and the docs' clean copy
# (docs/contributing.md's `.venv/bin/mypy`, run by tests/test_docs_blocks.py): the copy's
# files equal the checkout's, so its run validates the cache by content hash instead of
# type-checking every dependency again (~70 s on 2 cores); a changed file is rechecked.
# parallel_support.py starts test_lint.py first so the cache is warm by then.
os.environ.setdefault("MYPY_CACHE_DIR", str(ROOT / ".mypy_cache"))

from gpassk_oc.demo.sim_endpoint import ExactCountsResponder, SimEndpoint, SimQuestion  # noqa: E402

# fixtures shared by the test modules that were split by topic
pytest_plugins = ["report_support", "metrics_support", "parallel_support", "readme_copy"]


@pytest.fixture(autouse=True)
def _package_log_back_to_stderr():
    """An in-process CLI call points the package logger at pytest's captured stderr (the
    CLI's one-line format); point it back at the real stderr afterwards (autouse: torn
    down after capsys)."""
    yield
    from gpassk_oc.log import use_cli_format

    use_cli_format(sys.__stderr__)


# --------------------------------------------------------------------------- sample data
#: (split, language, question, gold, correct forms, c_q) — c_q of N_E2E samples correct.
E2E_QUESTIONS = [
    ("AMC", "en", "Compute 7 + 5.", "12", ("12", "12.0"), 8),
    (
        "AMC",
        "en",
        "What is one half written as a fraction?",
        r"\frac{1}{2}",
        (r"\frac{1}{2}", r"\dfrac{1}{2}", "1/2"),  # not 0.5: "as a fraction" was asked
        5,
    ),
    (
        "AMC",
        "en",
        "What is the positive square root of 2?",
        r"\sqrt{2}",
        (r"\sqrt{2}", "2^{1/2}"),
        0,
    ),
    ("AMC", "cn", "计算 3 乘以 4。", "12", ("12",), 3),
    ("AMC", "cn", "求 x 使得 2x = 1。", r"\frac{1}{2}", (r"\frac{1}{2}",), 7),
    ("CCEE", "en", "Find the area of a unit square.", "1", ("1",), 1),
    ("CCEE", "en", "How many degrees are in a right angle?", "90", ("90",), 4),
    ("CCEE", "cn", "一个三角形的内角和是多少度？", "180", ("180",), 6),
    ("CCEE", "cn", "计算 \\frac{3}{4} + \\frac{1}{4}。", "1", ("1",), 2),
]
E2E_SPLITS = ["AMC", "CCEE"]
E2E_LANGUAGES = ["en", "cn"]
E2E_KS = [2, 4]
E2E_N = 8
E2E_DATASET_ABBR = "LiveMathBench-v202412-k2_4-r2"
E2E_MODEL_ABBR = "sim-model_t0-7_p0-9_k-1_rp1-0_rs0_l512"
E2E_TEMPERATURE = 0.7
E2E_TOP_P = 0.9


def write_layout(root: Path, rows, version: str = "202412") -> Path:
    """Write rows (split, lang, question, gold, ...) as ``{root}/{version}/{split}_{lang}.jsonl``."""
    version_dir = root / version
    version_dir.mkdir(parents=True, exist_ok=True)
    files: dict[Path, list[str]] = {}
    for split, lang, question, gold, *_ in rows:
        record = {
            "question": question,
            "answer": gold,
            "question_type": "问答" if lang == "cn" else "problem-solving",
        }
        files.setdefault(version_dir / f"{split}_{lang}.jsonl", []).append(
            json.dumps(record, ensure_ascii=False)
        )
    for path, lines in files.items():
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def livemath_dir(tmp_path: Path) -> Path:
    """A small local LiveMathBench tree (v202412, AMC/CCEE × en/cn)."""
    return write_layout(tmp_path / "LiveMathBench", E2E_QUESTIONS)


# --------------------------------------------------------------------------- oracle (independent of gpassk_oc.core.metrics.gpass_exact)
def brute_g_pass(n: int, c: int, k: int, tau: str) -> Fraction:
    """P(at least max(ceil(τk), 1) correct among k of n drawn without replacement)."""
    m = max(math.ceil(Fraction(tau) * k), 1)
    subsets = list(combinations(range(n), k))
    good = sum(1 for s in subsets if sum(1 for i in s if i < c) >= m)
    return Fraction(good, len(subsets))


def brute_mg_pass(n: int, c: int, k: int) -> Fraction:
    """Documented mG-Pass@k = (2/k) Σ_{i=ceil(k/2)+1}^{k} P(X >= i)."""
    total = Fraction(0)
    for i in range(math.ceil(k / 2) + 1, k + 1):
        total += brute_g_pass(n, c, k, str(Fraction(i, k)))
    return 2 * total / k


# --------------------------------------------------------------------------- CLI helpers
def opencompass_cli() -> Path:
    """The ``opencompass`` script of the interpreter running the tests."""
    cli = Path(sys.executable).with_name("opencompass")
    if not cli.exists():
        # a dependency, not an option: failing beats silently skipping the e2e tests
        pytest.fail(f"opencompass CLI not found next to {sys.executable}")
    return cli


def offline_env(extra_pythonpath: list[str] | None = None) -> dict[str, str]:
    """Environment for CLI runs: offline switches, repo on PYTHONPATH, no proxies."""
    env = dict(os.environ)
    paths = [str(p) for p in (extra_pythonpath or [])] + [str(ROOT)]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        OPENAI_API_KEY="sim-key",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        TOKENIZERS_PARALLELISM="false",
    )
    for name in (
        "COMPASS_DATA_CACHE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
        "OPENAI_BASE_URL",
    ):
        env.pop(name, None)
    return env


def start_serve_demo(cwd: Path, port: int, *more: str) -> subprocess.Popen:
    """``gpassk-oc serve-demo --port PORT [MORE...]`` as a user starts it, in *cwd* (where
    it writes the demo data); the caller reads its first line and stops it."""
    return subprocess.Popen(
        [sys.executable, "-m", "gpassk_oc.cli", "serve-demo", "--port", str(port), *more],
        cwd=cwd,
        env=offline_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def start_cli_as_from_terminal(cwd: Path, args: list[str]) -> subprocess.Popen:
    """``gpassk-oc ARGS`` in a session of its own (its process group takes the SIGINT a
    terminal's Ctrl-C sends), started as from a terminal: SIGINT neither blocked nor
    ignored. A child inherits its parent's signal mask, and something earlier in a pytest
    worker can leave SIGINT blocked there (seen in CI: the report then never saw the
    signal and finished, exit 0); the mask is restored right after the start."""
    import signal

    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "gpassk_oc.cli", *args],
            cwd=cwd,
            env=offline_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    finally:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def run_cli(
    cwd: Path, args: list[str], env: dict[str, str], timeout: int = 300
) -> subprocess.CompletedProcess:
    cmd = [str(opencompass_cli())] + args
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


_MODEL_BLOCK = """
models = [dict(
    type=OpenAICompatible,
    abbr={abbr!r},
    path='sim-model',
    openai_api_base={url!r},
    key='ENV',
    temperature={temperature},
    top_p={top_p},
    query_per_second=200,
    retry=1,
    max_seq_len=4096,
    max_out_len=512,
    batch_size=24,
    run_cfg=dict(num_gpus=0),
)]
"""


def e2e_config(url: str, evaluator_type: str | None = None) -> str:
    """The user-style config of the e2e runs (relative data path: tasks run in the cwd).

    By default it starts from our ready config through ``read_base()`` and adapts it,
    as a user would. With *evaluator_type* (e.g. a dotted string) it spells the dataset
    out with direct imports instead and uses that evaluator type.
    """
    model = _MODEL_BLOCK.format(
        abbr=E2E_MODEL_ABBR, url=url, temperature=E2E_TEMPERATURE, top_p=E2E_TOP_P
    )
    if evaluator_type is None:
        return (
            f"""
from mmengine.config import read_base

from gpassk_oc.models import OpenAICompatible

with read_base():
    from gpassk_oc.configs.livemathbench_gen import livemathbench_datasets

livemathbench_datasets[0].update(dict(
    abbr={E2E_DATASET_ABBR!r},
    path='data/LiveMathBench',
    dataset_splits={E2E_SPLITS!r},
    dataset_languages={E2E_LANGUAGES!r},
    k={E2E_KS!r},
    n={E2E_N},
))
livemathbench_datasets[0]['infer_cfg']['inferencer']['max_out_len'] = 512
datasets = livemathbench_datasets
"""
            + model
        )
    return (
        f"""
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from gpassk_oc.datasets import LiveMathBenchDataset
from gpassk_oc.models import OpenAICompatible

datasets = [dict(
    type=LiveMathBenchDataset,
    abbr={E2E_DATASET_ABBR!r},
    path='data/LiveMathBench',
    version='202412',
    dataset_splits={E2E_SPLITS!r},
    dataset_languages={E2E_LANGUAGES!r},
    cot=True,
    k={E2E_KS!r},
    n={E2E_N},
    reader_cfg=dict(input_columns=['prompt'], output_column='answer'),
    infer_cfg=dict(
        prompt_template=dict(type=PromptTemplate,
                             template=dict(round=[dict(role='HUMAN', prompt='{{prompt}}')])),
        retriever=dict(type=ZeroRetriever),
        inferencer=dict(type=GenInferencer, max_out_len=512),
    ),
    eval_cfg=dict(evaluator=dict(type={evaluator_type})),
)]
"""
        + model
    )


@dataclass
class CliRun:
    """What one CLI run left behind."""

    cwd: Path
    work_dir: Path
    timestamp: str
    proc: subprocess.CompletedProcess
    seconds: float
    endpoint: SimEndpoint
    responder: ExactCountsResponder
    calls_after: int
    extra: dict = field(default_factory=dict)

    @property
    def run_dir(self) -> Path:
        return self.work_dir / self.timestamp

    @property
    def results_file(self) -> Path:
        return self.run_dir / "results" / E2E_MODEL_ABBR / f"{E2E_DATASET_ABBR}.json"

    def logs(self) -> str:
        """CLI output plus every task log, for failure messages and log assertions."""
        parts = [self.proc.stdout, self.proc.stderr]
        for log in sorted((self.run_dir / "logs").rglob("*.out")) if self.run_dir.exists() else []:
            parts.append(f"--- {log}\n{log.read_text(errors='replace')}")
        return "\n".join(parts)


@pytest.fixture(scope="session")
def sim_endpoint():
    """The simulated endpoint with the exact-counts responder for E2E_QUESTIONS."""
    questions = [
        SimQuestion(text=q, gold=g, correct_forms=forms) for _, _, q, g, forms, _ in E2E_QUESTIONS
    ]
    counts = {q: c for _split, _lang, q, _gold, _forms, c in E2E_QUESTIONS}
    responder = ExactCountsResponder(questions, counts, n=E2E_N)
    with SimEndpoint(responder, models=["sim-model"]) as endpoint:
        yield endpoint


@pytest.fixture(scope="session")
def oc_run(tmp_path_factory, sim_endpoint) -> CliRun:
    """One full ``opencompass cfg.py -w outputs --dump-eval-details`` run (infer + eval)."""
    cwd = tmp_path_factory.mktemp("oc_e2e")
    write_layout(cwd / "data" / "LiveMathBench", E2E_QUESTIONS)
    (cwd / "cfg.py").write_text(e2e_config(sim_endpoint.url))
    start = time.monotonic()
    # exactly the command a user types (default LocalRunner, one worker)
    proc = run_cli(cwd, ["cfg.py", "-w", "outputs", "--dump-eval-details"], offline_env())
    seconds = time.monotonic() - start
    work_dir = cwd / "outputs"
    stamps = sorted(p.name for p in work_dir.iterdir() if p.is_dir()) if work_dir.exists() else []
    run = CliRun(
        cwd,
        work_dir,
        stamps[-1] if stamps else "",
        proc,
        seconds,
        sim_endpoint,
        sim_endpoint.responder,
        sim_endpoint.num_requests,
    )
    if proc.returncode != 0 or not stamps or not run.results_file.exists():
        pytest.fail(f"opencompass run failed (rc={proc.returncode}):\n{run.logs()[-8000:]}")
    return run


@pytest.fixture(scope="session")
def oc_rerun(oc_run: CliRun) -> CliRun:
    """The same config rerun with ``-r <timestamp>``: everything must be reused."""
    before = oc_run.endpoint.num_requests
    mtime = oc_run.results_file.stat().st_mtime_ns
    start = time.monotonic()
    proc = run_cli(
        oc_run.cwd,
        ["cfg.py", "-w", "outputs", "--dump-eval-details", "-r", oc_run.timestamp],
        offline_env(),
    )
    seconds = time.monotonic() - start
    run = CliRun(
        oc_run.cwd,
        oc_run.work_dir,
        oc_run.timestamp,
        proc,
        seconds,
        oc_run.endpoint,
        oc_run.responder,
        oc_run.endpoint.num_requests,
        extra={"calls_before": before, "results_mtime_before": mtime},
    )
    if proc.returncode != 0:
        pytest.fail(f"opencompass rerun failed (rc={proc.returncode}):\n{run.logs()[-8000:]}")
    return run
