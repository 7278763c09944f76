"""Every bad input, one line, exit 2 (issue 17): the table in tests/bad_inputs.py and
tests/bad_input_files.py run in-process (so 100+ cases take seconds), plus a few through
real subprocesses to prove the exit status and the absence of a traceback end to end.

For each case: exactly one stderr line, ``error: ...`` containing the expected names and
allowed values, nothing on stdout, exit status 2, and the folder byte-identical afterwards
(nothing written). Data files are read inside OpenCompass tasks, not by a CLI: there the
check is one :class:`LiveMathDataError` line naming the file (and line)."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bad_input_files import FILE_CASES
from bad_inputs import COMMAND_CASES, Case
from conftest import offline_env
from report_support import DATASET, N, abbr, questions, run_cli, write_run

from gpassk_oc import configgen
from gpassk_oc.core.data.livemath_data import LiveMathDataError, load_records
from gpassk_oc.log import use_cli_format

ROOT = Path(__file__).resolve().parents[1]
ALL_CASES = COMMAND_CASES + FILE_CASES
MODEL_A, MODEL_B = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def prepare(tmp: Path) -> dict[str, str]:
    """A valid work dir, a plain file and a non-empty folder of the user's."""
    qs = questions()
    for i, model in enumerate((MODEL_A, MODEL_B)):
        write_run(tmp / "work", model, DATASET, [(3 * j + i) % (N + 1) for j in range(len(qs))], N)
    (tmp / "user.txt").write_text("the user's file\n")
    (tmp / "full").mkdir()
    (tmp / "full" / "notes.md").write_text("mine\n")
    for folder, name in (("mine", ".gpassk-oc-written.json"), ("marked", ".gpassk-oc-demo")):
        (tmp / folder).mkdir()
        (tmp / folder / name).write_text("the user's own file\n")
    return {
        "work": str(tmp / "work"),
        "file": str(tmp / "user.txt"),
        "full": str(tmp / "full"),
        "tmp": str(tmp),
        "model_a": MODEL_A,
        "model_b": MODEL_B,
        "mine": str(tmp / "mine"),
        "marked": str(tmp / "marked"),
    }


def invoke(capsys, argv: list[str]) -> tuple[int, str, str]:
    """The CLI in-process; argparse's SystemExit becomes the exit status."""
    try:
        if argv and argv[0] == "SCRIPT":  # dump_opencompass_configs.py
            try:
                code = configgen.main(argv[1:])
            finally:
                use_cli_format(sys.__stderr__)
            out, err = capsys.readouterr()
            return code, out, err
        return run_cli(capsys, *argv)
    except SystemExit as exit_:
        use_cli_format(sys.__stderr__)
        out, err = capsys.readouterr()
        return int(exit_.code or 0), out, err


def argv_of(case: Case, tmp: Path, names: dict[str, str]) -> list[str]:
    if case.kind == "template":
        (tmp / "tpl.py").write_text(case.template, encoding="utf-8")
        return ["dump", "-tc", "tpl.py", "--output-dir", str(tmp / "configs")]
    if case.kind == "results":
        path = tmp / "bad" / "results" / "m" / "LiveMathBench-v202412-k1_2-r1.json"
        path.parent.mkdir(parents=True)
        path.write_bytes(case.content)
        return ["report", str(path)]
    return [a.format(**names) for a in case.argv]


def run_data_case(case: Case, tmp: Path) -> str:
    x = case.extra
    folder = tmp / "data" / x.get("version_dir", "202412")
    folder.mkdir(parents=True)
    (folder / x.get("file_name", "AMC_en.jsonl")).write_bytes(case.content)
    root = tmp / x.get("root", "data")
    before = snapshot(tmp)
    with pytest.raises(LiveMathDataError) as info:
        load_records(
            str(root),
            x.get("splits", ["AMC"]),
            x.get("languages", ["en"]),
            version=x.get("version", "202412"),
        )
    assert snapshot(tmp) == before
    return f"error: {info.value}\n"


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_bad_input_is_one_line_exit_2_nothing_written(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    names = prepare(tmp_path)
    if case.kind == "data":
        err = run_data_case(case, tmp_path)
        code, out = 2, ""
    else:
        argv = argv_of(case, tmp_path, names)
        before = snapshot(tmp_path)
        code, out, err = invoke(capsys, argv)
        assert snapshot(tmp_path) == before, "something was written"
    lines = err.splitlines()
    assert (code, out) == (2, ""), (code, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    assert not re.search(r"\b(at|the|a|an|to|of|in|is) \1\b", lines[0]), "doubled word"
    for want in case.expect:
        assert want.format(**names) in lines[0], (want, lines[0])


def test_the_table_covers_every_cli_and_holds_100_cases():
    assert len(ALL_CASES) >= 100
    assert len({c.id for c in ALL_CASES}) == len(ALL_CASES)
    commands = {c.argv[0] for c in ALL_CASES if c.kind == "cli" and c.argv}
    assert {"dump", "SCRIPT", "report", "compare", "plan", "demo", "serve-demo"} <= commands
    assert {c.kind for c in ALL_CASES} == {"cli", "template", "results", "data"}


# --------------------------------------------------------------------------- end to end
E2E = [
    ["-m", "gpassk_oc.cli", "demo", "--quick", "--port", "70000"],
    ["-m", "gpassk_oc.cli", "report", "{work}", "--resamples", "10000000000000"],
    ["-m", "gpassk_oc.cli", "serve-demo", "--port", "-1"],
    [str(ROOT / "dump_opencompass_configs.py"), "-tc", "nosuch.py"],
    ["-m", "gpassk_oc.cli", "compare", "{work}", "{work}", "--model-a", "nosuch"],
]


@pytest.mark.parametrize(
    "argv", E2E, ids=["demo-port", "report-resamples", "serve", "script", "cmp"]
)
def test_real_process_exit_2_one_line_no_traceback(argv, tmp_path):
    names = prepare(tmp_path)
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [sys.executable, *[a.format(**names) for a in argv]],
        cwd=tmp_path,
        env=offline_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: "), proc.stderr
    assert snapshot(tmp_path) == before
