"""bench/bench_rescore.py: every tool's writer makes files ``rescore`` reads (one results
file per run), and the worker processes change no byte of what rescore writes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import bench_rescore  # noqa: E402

from gpassk_oc.rescore import rescore_command  # noqa: E402
from gpassk_oc.rescore.regrade import Options  # noqa: E402


@pytest.mark.parametrize("tool", sorted(bench_rescore.WRITERS))
def test_each_tool_bench_run_is_rescored(tool, capsys):
    measured = bench_rescore.measure(tool, 1)  # exits non-zero unless 1 results file
    assert measured["wall"] > 0 and measured["cpu"] > 0
    assert "results files: 1;" in capsys.readouterr().out


def test_workers_write_the_same_bytes_as_one_process(tmp_path, monkeypatch):
    work = tmp_path / "work"
    bench_rescore.write_evalscope(work, 3)
    written = {}
    for count in (1, 2):
        monkeypatch.setattr(rescore_command, "_workers", lambda tasks, opts, c=count: c)
        files, _, _ = rescore_command.rescore(work, tmp_path / "out", None, Options())
        written[count] = files
    assert len(written[1]) == 6  # a results file and a sidecar per run
    assert written[1] == written[2]
