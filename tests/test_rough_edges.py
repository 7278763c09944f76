"""Rough edges a newcomer meets (issue 25), each end to end where a real process matters:
Ctrl-C, the generator script without its dependencies, ``--out`` suffixes, and the
ownership manifest's own file. The one-line refusals are rows of tests/bad_inputs.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import start_cli_as_from_terminal
from report_support import DATASET, N, abbr, questions, run_cli, write_run

from gpassk_oc.ownership import MANIFEST, digest, write_files

ROOT = Path(__file__).resolve().parents[1]


def work_dir(root: Path, runs: int = 2) -> Path:
    qs = questions()
    for i in range(runs):
        cs = [(3 * j + i) % (N + 1) for j in range(len(qs))]
        write_run(root / "work", abbr(f"m{i}", "0-7"), DATASET, cs, N)
    return root / "work"


def test_ctrl_c_mid_report_is_one_line_and_exit_130(tmp_path):
    """SIGINT to the process group, as a terminal's Ctrl-C sends it, while the report is
    bootstrapping (JSON shows the benchmark intervals: 120 runs x 100,000 resamples take
    ~11 s on an idle machine, so 3 s in is well inside the work, not near its end; markdown
    alone no longer bootstraps): no traceback, exit 130."""
    work = work_dir(tmp_path, runs=120)
    proc = start_cli_as_from_terminal(
        tmp_path, ["report", str(work), "--format", "json", "--resamples", "100000"]
    )
    time.sleep(3)
    assert proc.poll() is None, "the report ended before the interrupt; make it longer"
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (130, "", "error: interrupted\n")


def test_generator_script_without_its_dependencies_prints_the_install_command(tmp_path):
    """The script run by a Python that lacks the dependencies (-S: no site-packages, as a
    bare interpreter): one line naming what is missing and the pip command, exit 1."""
    proc = subprocess.run(
        [sys.executable, "-S", "-E", str(ROOT / "dump_opencompass_configs.py"), "-tc", "demo.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and proc.stdout == "", proc
    (line,) = proc.stderr.splitlines()
    assert line.startswith("error: ") and "is not installed" in line, line
    assert f"-m pip install -e {ROOT}" in line, line
    assert not list(tmp_path.iterdir())


def test_out_suffix_chooses_the_format(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    work = work_dir(tmp_path)
    for name, check in (
        ("r.json", lambda text: isinstance(json.loads(text), list)),
        ("r.csv", lambda text: text.splitlines()[0].count(",") > 3),
        ("r.html", lambda text: text.lstrip().lower().startswith("<!doctype html")),
        ("r.md", lambda text: text.lstrip().startswith(("#", "|", "G-Pass", "*"))),
        ("r.txt", lambda text: "|" in text),  # no known suffix: markdown
    ):
        code, _, err = run_cli(capsys, "report", work, "--resamples", "0", "--out", name)
        assert code == 0, err
        assert check((tmp_path / name).read_text(encoding="utf-8")), name
    m0, m1 = abbr("m0", "0-7"), abbr("m1", "0-7")
    argv = ["compare", work, work, "--model-a", m0, "--model-b", m1, "--resamples", "0"]
    code, _, err = run_cli(capsys, *argv, "--out", "c.json")
    assert code == 0, err
    assert json.loads((tmp_path / "c.json").read_text())
    # an explicit --format that agrees with the suffix is fine
    code, _, err = run_cli(capsys, *argv, "--format", "json", "--out", "c2.json")
    assert code == 0 and json.loads((tmp_path / "c2.json").read_text()), err


def test_manifest_carries_its_writer_and_older_manifests_are_still_ours(tmp_path):
    write_files({tmp_path / "a.md": b"one\n"})
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest == {"_gpassk-oc": manifest["_gpassk-oc"], "a.md": digest(b"one\n")}
    # as release 0.1.0 wrote it: entries only, no writer line
    old = tmp_path / "old"
    old.mkdir()
    (old / "b.md").write_bytes(b"two\n")
    (old / MANIFEST).write_text(json.dumps({"b.md": digest(b"two\n")}))
    write_files({old / "b.md": b"three\n"})
    assert (old / "b.md").read_bytes() == b"three\n"
    assert json.loads((old / MANIFEST).read_text())["b.md"] == digest(b"three\n")
