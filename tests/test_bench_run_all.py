"""bench/run_all.sh: a benchmark that prints no RESULT line (or fails) is named, loudly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run_all(bench_dir: Path, out: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "BENCH_DIR": str(bench_dir),
        "BENCHMARKS_OUT": str(out),
        "PYTHON": sys.executable,
    }
    return subprocess.run(
        ["bash", str(ROOT / "bench" / "run_all.sh")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def test_a_bench_without_result_line_is_named_and_fails(tmp_path):
    benches = tmp_path / "benches"
    benches.mkdir()
    (benches / "bench_quiet.py").write_text("print('worked hard, reported nothing')\n")
    (benches / "bench_good.py").write_text("print('RESULT answer=42 speed=1.5')\n")
    (benches / "bench_crash.py").write_text("raise SystemExit(3)\n")
    out = tmp_path / "BENCH.md"
    proc = _run_all(benches, out)
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert any("bench_quiet.py" in e and "no RESULT line" in e for e in errors), proc.stderr
    assert any("bench_crash.py" in e and "exit 3" in e for e in errors), proc.stderr
    assert not any("bench_good.py" in e for e in errors)
    table = out.read_text()  # still written, saying which failed
    assert "| `bench_good` | `answer=42 speed=1.5` |" in table
    assert "`FAILED (exit 0 but no RESULT line)`" in table
    assert "`FAILED (exit 3), no RESULT line`" in table


def test_all_benches_with_results_pass(tmp_path):
    benches = tmp_path / "benches"
    benches.mkdir()
    (benches / "bench_one.py").write_text("print('noise')\nprint('RESULT a=1')\n")
    (benches / "bench_two.py").write_text("print('RESULT b=2')\nprint('RESULT c=3')\n")
    out = tmp_path / "BENCH.md"
    proc = _run_all(benches, out)
    assert proc.returncode == 0, proc.stderr
    assert "error:" not in proc.stderr
    table = out.read_text()
    assert "| `bench_one` | `a=1` |" in table
    assert "| `bench_two` | `b=2; c=3` |" in table


def test_an_empty_bench_dir_is_an_error(tmp_path):
    proc = _run_all(tmp_path, tmp_path / "BENCH.md")
    assert proc.returncode == 2
    assert "no bench_*.py" in proc.stderr
    assert not (tmp_path / "BENCH.md").exists()
