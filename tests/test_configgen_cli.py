"""Tests of the config generator (gpassk_oc.configgen, dump_opencompass_configs.py):
names, grid expansion, file contents, the grid config, determinism, the CLI, OpenCompass.

Expected names and counts are computed here independently of the generator: the exact
file name is the literal string from issue 4, counts come from itertools.product over the
template's own lists. Contents are checked on the config *data*; the rendered text is read
back with mmengine exactly as the `opencompass` CLI reads it and must equal that data.
Validation: test_configgen_schema.py; GPassK-style templates: test_configgen_gpassk.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from configgen_support import (
    BASE,
    EXAMPLE,
    GRID,
    ROOT,
    SECRET,
    SHIPPED,
    TEMPLATES,
    _all_shipped,
    dump,
    write,
)

from gpassk_oc import cli, configgen
from gpassk_oc.configgen import TemplateError, generate, resolve_template


def test_byte_identical_reruns_across_processes(tmp_path):
    outs = []
    for seed in ("1", "2"):  # different hash seeds catch set/dict-order dependence
        out = tmp_path / f"out{seed}"
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed)
        for name in SHIPPED:
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "dump_opencompass_configs.py"),
                    "-tc",
                    name,
                    "--output-dir",
                    str(out),
                    "--grid",
                ],
                env=env,
                check=True,
                capture_output=True,
                timeout=120,
            )
        outs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert outs[0] == outs[1]
    assert len(outs[0]) == sum(len(generate(TEMPLATES / n)) + 1 for n in SHIPPED)


def test_rerun_into_same_directory_is_identical(tmp_path):
    out = tmp_path / "out"
    configgen.write_configs(generate(TEMPLATES / "nono1.py"), out)
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    configgen.write_configs(generate(TEMPLATES / "nono1.py"), out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging dir left


def test_no_secret_and_no_unstated_path_in_output(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)
    files = _all_shipped(tmp_path / "shipped", grid=True)
    configgen.write_configs(
        generate(write(tmp_path, GRID.format(temps=[0, 1.0]))), tmp_path / "grid"
    )
    files += sorted((tmp_path / "grid").glob("*.py"))
    forbidden = [SECRET, str(tmp_path), str(ROOT), str(Path.home()), os.getcwd()]
    for path in files:
        text = path.read_text()
        for needle in forbidden:
            assert needle not in text, (path.name, needle)
        assert not re.search(r"""['"]/""", text), path.name  # no absolute path literal
        assert "key='ENV'" in text or "OpenAICompatible" not in text


def test_api_model_with_literal_key_is_refused(tmp_path):
    path = write(
        tmp_path,
        BASE.replace(
            "llm_infos = [('deepseek-ai/deepseek-math-7b-rl', 8, 64)]",
            f"api_models = [dict(path='m', key='{SECRET}', openai_api_base='http://x/v1')]",
        ),
    )
    with pytest.raises(TemplateError, match="never carry keys"):
        generate(path)


def test_bare_name_resolves_to_the_repo_templates(tmp_path):
    assert resolve_template("nono1.py", cwd=tmp_path) == TEMPLATES / "nono1.py"
    assert resolve_template("o1", cwd=tmp_path) == TEMPLATES / "o1.py"
    assert (
        resolve_template("opencompass_config_templates/close.py", cwd=tmp_path)
        == TEMPLATES / "close.py"
    )


def test_cwd_file_wins_over_the_shipped_template(tmp_path):
    local = write(tmp_path, BASE, "nono1.py")
    assert resolve_template("nono1.py", cwd=tmp_path) == local


def test_cli_bare_name_from_another_directory(tmp_path):
    result = dump(["--config_template_file", "demo.py"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = sorted(p.name for p in (tmp_path / "opencompass_configs").iterdir())
    lines = result.stdout.splitlines()
    assert lines[-1] == "4 config(s) from demo.py written to ./opencompass_configs"
    assert sorted(Path(line).name for line in lines[:-1]) == written
    assert len(written) == 4


def test_dry_run_writes_nothing(tmp_path):
    result = dump(["-tc", "nono1.py", "--dry-run"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []
    names = result.stdout.splitlines()[:-1]
    assert names == [c.name for c in generate(TEMPLATES / "nono1.py")]
    assert result.stdout.splitlines()[-1].startswith(f"{len(names)} config(s) from nono1.py")


def test_gpassk_oc_dump_subcommand(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["dump", "-tc", str(write(tmp_path, BASE)), "--output-dir", str(out)]) == 0
    assert [p.name for p in out.iterdir()] == [EXAMPLE]
    assert capsys.readouterr().out.splitlines()[-1].startswith("1 config(s) from tpl.py")


def test_write_failure_leaves_nothing_half_written(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.py").write_text("old\n")
    configs = generate(TEMPLATES / "demo.py")
    real_open = open
    calls = []

    def failing_open(file, mode="r", *args, **kwargs):
        if "w" in mode:
            calls.append(file)
            if len(calls) == 3:
                raise OSError("disk full")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", failing_open)
    with pytest.raises(OSError, match="disk full"):
        configgen.write_configs(configs, out)
    monkeypatch.undo()
    assert sorted(p.name for p in out.iterdir()) == ["keep.py"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_new_output_directory_has_normal_permissions(tmp_path):
    out = tmp_path / "fresh"
    configgen.write_configs(generate(write(tmp_path, BASE)), out)
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask
