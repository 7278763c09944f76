"""A config written by release 0.1.0 runs unchanged through the real ``opencompass`` CLI.

Users commit generated configs; the import paths they name are public API. This takes one
committed 0.1.0 demo config (tests/fixtures/configs_v0_1_0/demo/, byte for byte), serves
its models with ``gpassk-oc serve-demo`` on the port that config names (which also writes
the demo data where the config looks for it), and runs ``opencompass CONFIG -w outputs``
as its header says.

The expected metrics come from the predictions OpenCompass saved, read with the serve-demo
reply format only: a correct reply boxes the gold answer verbatim, a wrong one boxes
another answer or none. G-Pass@k is then enumerated over k-subsets (conftest's oracle).
"""

from __future__ import annotations

import json
import re
import shutil
import socket
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from conftest import brute_g_pass, offline_env, run_cli, start_serve_demo
from parallel_support import fixed_port

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).parent / "fixtures" / "configs_v0_1_0" / "demo"
CONFIG = FIXTURES / (
    "gpassk-demo-steady_t0-5_p0-95_k50_rp1-0_rs42_l1024@LiveMathBench-v202412-k4_8-r2.py"
)
MODEL_ABBR = "gpassk-demo-steady_t0-5_p0-95_k50_rp1-0_rs42_l1024"
DATASET_ABBR = "LiveMathBench-v202412-k4_8-r2"
PORT = 18000  # what the 0.1.0 config names: the test cannot choose another
N = 16


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture(scope="module")
def v010_run(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("v0_1_0")
    shutil.copy(CONFIG, cwd / CONFIG.name)
    with fixed_port(PORT):  # the docs' serve-demo recipe uses it too (another worker)
        if not _port_free(PORT):
            pytest.fail(f"port {PORT} is taken: the 0.1.0 demo config can only reach that port")
        server = start_serve_demo(cwd, PORT)
        try:
            first = server.stdout.readline() if server.stdout else ""
            assert first.startswith("serving"), first + (
                server.stderr.read() if server.stderr else ""
            )
            proc = run_cli(cwd, [CONFIG.name, "-w", "outputs"], offline_env(), timeout=600)
        finally:
            server.terminate()
            server.wait(30)
    stamps = sorted(p for p in (cwd / "outputs").iterdir() if p.is_dir())
    if proc.returncode != 0 or not stamps:
        pytest.fail(f"opencompass failed (rc={proc.returncode}):\n{proc.stdout[-4000:]}")
    return stamps[-1]


def _correct_counts(run_dir: Path) -> list[int]:
    """Correct replies per question, from the saved predictions and the reply format."""
    correct: Counter = Counter()
    seen: Counter = Counter()
    files = sorted((run_dir / "predictions" / MODEL_ABBR).glob(f"{DATASET_ABBR}*.json"))
    assert files, f"no predictions under {run_dir}"
    for path in files:
        for row in json.loads(path.read_text()).values():
            question = (
                row["origin_prompt"]
                if isinstance(row["origin_prompt"], str)
                else (json.dumps(row["origin_prompt"], ensure_ascii=False))
            )
            seen[question] += 1
            correct[question] += f"\\boxed{{{row['gold']}}}" in row["prediction"]
    assert set(seen.values()) == {N}, "every question is asked n = 16 times"
    return [correct[q] for q in seen]


@cache
def _g_pass(c: int, k: int, tau: str) -> float:
    return float(brute_g_pass(N, c, k, tau))


def test_a_0_1_0_config_runs_unchanged_and_its_metrics_are_exact(v010_run):
    results = json.loads((v010_run / "results" / MODEL_ABBR / f"{DATASET_ABBR}.json").read_text())
    counts = _correct_counts(v010_run)
    assert 0 < sum(counts) < N * len(counts), "the demo model is neither always right nor wrong"
    checked = 0
    for key, value in results.items():
        m = re.fullmatch(r"G-Pass@(\d+)_([\d.]+)", key)
        if m is None:
            continue
        k, tau = int(m.group(1)), m.group(2)
        expected = 100 * sum(_g_pass(c, k, tau) for c in counts) / len(counts)
        assert value == pytest.approx(expected, abs=1e-9), key
        checked += 1
    assert checked >= 2 * 2, sorted(results)  # k = 4 and 8, at least two thresholds each
