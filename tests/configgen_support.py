"""Shared helpers and fixtures of test_configgen.py, tests/test_configgen_cli.py, tests/test_configgen_e2e.py (registered in conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from mmengine.config import Config

from gpassk_oc import configgen
from gpassk_oc.configgen import build

ROOT = Path(__file__).resolve().parents[1]


TEMPLATES = ROOT / "opencompass_config_templates"


SHIPPED = ["nono1.py", "o1.py", "close.py", "demo.py"]


EXAMPLE = (
    "deepseek-math-7b-rl_t0-3_p0-8_k50_rp1-0_rs42_l8192"
    "@LiveMathBench-v202412-k4_8_16-r3.py"
)  # verbatim from the issue


SECRET = "sk-test-0123456789abcdef-do-not-leak"


def write(tmp_path: Path, body: str, name: str = "tpl.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def load(path: Path) -> dict:
    """Read a generated file the way `opencompass FILE` does (lazy imports -> dotted
    strings); importing gpassk_oc.datasets is never attempted."""
    return Config.fromfile(str(path), format_python_code=False).to_dict()


def dump_here(argv: list[str], capsys) -> tuple[int, str, str]:
    """``dump_opencompass_configs.py ARGV`` in this process: (exit status, stdout, stderr)."""
    from gpassk_oc.log import use_cli_format

    try:
        code = configgen.main(argv)
    finally:
        use_cli_format()
    out, err = capsys.readouterr()
    return code, out, err


def dump(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, str(ROOT / "dump_opencompass_configs.py"), *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


BASE = """
llm_infos = [('deepseek-ai/deepseek-math-7b-rl', 8, 64)]
temperatures = [0.3]
top_ps = [0.8]
ks = [[4, 8, 16]]
replications = [3]
top_k = 50; repetition_penalty = 1.0; random_seed = 42; max_out_len = 8192
version = '202412'
"""


GRID = """
llm_infos = [('org/model-a', 1, 8), ('other/model-b', 2, 16)]
api_models = [dict(path='served-c', openai_api_base='http://127.0.0.1:9/v1')]
temperatures = {temps}
top_ps = [0.8, 0.95]
ks = [[4, 8], [4, 8, 16]]
replications = [1, 2]
"""


def _all_shipped(tmp_path: Path, grid: bool = False) -> list[Path]:
    files = []
    for name in SHIPPED:
        out = tmp_path / name
        plan = build(TEMPLATES / name)
        configgen.write_configs(plan.configs + ([plan.grid] if grid else []), out)
        files += sorted(out.glob("*.py"))
    return files
