"""Never touch what we did not write: for every writing command (dump, demo, report --out,
report --plots, compare --out) the user's files are byte-identical afterwards (SHA-256
before/after, computed here with hashlib), a refusal writes nothing, and the command's
own unedited files are replaced so reruns just work."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from report_support import abbr, run_cli

from gpassk_oc.demo import run as demo
from gpassk_oc.ownership import MANIFEST

TEMPLATE = """
llm_infos = [('org/model-a', 1, 8)]
temperatures = [{t}]
top_ps = [0.95]
ks = [[4, 8]]
replications = [1]
data_path = '/data/livemathbench'
send_random_seed = True  # no dump note on the seed: stderr is only the refusals
"""


def snapshot(root: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under *root*."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def template(tmp_path: Path, t: float = 0.3) -> Path:
    path = tmp_path / "tpl.py"
    path.write_text(TEMPLATE.format(t=t), encoding="utf-8")
    return path


def dump(capsys, tpl: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    return run_cli(capsys, "dump", "-tc", tpl, "--output-dir", out, *extra)


# --------------------------------------------------------------------------- dump
def test_dump_rewrites_its_own_files_and_follows_template_edits(tmp_path, capsys):
    tpl, out = template(tmp_path), tmp_path / "configs"
    assert dump(capsys, tpl, out, "--grid")[0] == 0
    first = snapshot(out)
    assert dump(capsys, tpl, out, "--grid")[0] == 0
    assert snapshot(out) == first  # rerun: byte-identical
    for path in out.glob("*.py"):  # the last line is the sha256 of everything before it
        body, last = path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)
        assert last == b"# gpassk-oc sha256:" + hashlib.sha256(body + b"\n").hexdigest().encode()
    tpl.write_text(TEMPLATE.format(t=0.3).replace(", 8)]", ", 16)]"), encoding="utf-8")
    code, _, err = dump(capsys, tpl, out, "--grid")
    assert code == 0, err
    changed = snapshot(out)
    assert changed.keys() == first.keys() and changed != first  # same names, new content
    assert all("batch_size=16" in p.read_text() for p in out.glob("*@*.py"))


def test_dump_leaves_edited_and_foreign_files_alone_and_writes_nothing(tmp_path, capsys):
    tpl, out = template(tmp_path), tmp_path / "configs"
    assert dump(capsys, tpl, out, "--grid")[0] == 0
    generated = sorted(out.glob("*.py"))
    config, grid = [p for p in generated if "@" in p.name][0], out / "grid_tpl.py"
    config.write_text(config.read_text() + "# my tweak\n")  # the user edits a generated file
    grid.write_text("# my own grid\n")  # a file of the user's with a generated name
    (out / "mine.py").write_text("# mine\n")
    tpl.write_text(TEMPLATE.format(t="0.3, 0.7"), encoding="utf-8")  # a new grid point too
    before = snapshot(out)
    code, out_text, err = dump(capsys, tpl, out, "--grid")
    assert code == 2 and out_text == ""
    assert sorted(err.splitlines()) == sorted(
        [
            f"error: {config}: edited since gpassk-oc wrote it (its sha256 line no longer "
            "matches); left alone (--force overwrites it)",
            f"error: {grid}: not written by gpassk-oc; left alone (--force overwrites it)",
        ]
    )
    assert snapshot(out) == before  # nothing written, not even the new T=0.7 file
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".configs.tmp")]
    code, _, err = dump(capsys, tpl, out, "--grid", "--force")
    assert code == 0, err
    assert "# my tweak" not in config.read_text() and (out / "mine.py").read_text() == "# mine\n"


# --------------------------------------------------------------------------- demo
def demo_args(out: Path) -> argparse.Namespace:
    return demo.build_parser().parse_args(["--quick", "--output", str(out)])


def test_demo_refuses_a_folder_it_did_not_make(tmp_path, capsys):
    out = tmp_path / "d"
    (out / "configs").mkdir(parents=True)
    (out / "configs" / "mine.py").write_text("# mine\n")
    (out / "opencompass.log").write_text("my log\n")
    before = snapshot(out)
    from gpassk_oc.log import use_cli_format

    use_cli_format()
    assert demo.run(demo_args(out)) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: --output {out.resolve()}: folder is not empty and was not made by gpassk-oc "
        f"demo (no {demo.MARKER} file of the demo's in it); choose a new or empty folder\n"
    )
    assert snapshot(out) == before
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    use_cli_format()
    assert demo.run(demo_args(blocker)) == 2 and blocker.read_text() == "x"


def test_demo_reuses_its_own_folder_but_keeps_the_users_files(tmp_path):
    out = tmp_path / "d"
    demo.claim_output(out)  # an empty folder becomes the demo's
    assert (out / demo.MARKER).is_file()
    configs = out / "configs"
    from gpassk_oc import configgen

    plan = demo.demo_plan(
        configgen.resolve_template("demo.py"), "http://127.0.0.1:9/v1", out / "data", True
    )
    ours = configgen.write_configs(plan.configs, configs)
    edited = ours[0]
    edited.write_text(edited.read_text() + "# tweak\n")
    (configs / "mine.py").write_text("# mine\n")
    keep = {p: p.read_bytes() for p in (edited, configs / "mine.py")}
    demo.claim_output(out)  # reuse: marker present
    demo.remove_stale_configs(configs)
    assert {p: p.read_bytes() for p in keep} == keep
    assert not any(p.exists() for p in ours[1:])  # its own unedited configs: stale, gone


# --------------------------------------------------------------------------- report/compare
def test_report_out_replaces_only_its_own_unedited_file(workdir, capsys, tmp_path):
    root, _ = workdir
    target = tmp_path / "out" / "report.md"
    target.parent.mkdir()
    target.write_text("my notes\n")
    before = snapshot(target.parent)
    code, out, err = run_cli(capsys, "report", root, "--resamples", "0", "--out", target)
    assert (code, out) == (2, "") and err == (
        f"error: {target}: not written by gpassk-oc; left alone (--force overwrites it)\n"
    )
    assert snapshot(target.parent) == before
    target.unlink()
    assert run_cli(capsys, "report", root, "--resamples", "0", "--out", target)[0] == 0
    assert (target.parent / MANIFEST).is_file()
    first = target.read_bytes()
    code, _, err = run_cli(capsys, "report", root, "--resamples", "0", "--out", target)
    assert code == 0 and target.read_bytes() == first, err  # its own file: rerun works
    target.write_bytes(first + b"my edit\n")
    edited = snapshot(target.parent)
    code, _, err = run_cli(capsys, "report", root, "--resamples", "0", "--out", target)
    assert code == 2 and "edited since gpassk-oc wrote it" in err
    assert snapshot(target.parent) == edited
    code, _, _ = run_cli(capsys, "report", root, "--resamples", "0", "--out", target, "--force")
    assert code == 0 and target.read_bytes() == first


def test_report_plots_leave_the_users_figures_alone_and_print_nothing(workdir, capsys, tmp_path):
    root, _ = workdir
    plots = tmp_path / "figs"
    code, _, err = run_cli(capsys, "report", root, "--resamples", "0", "--plots", plots)
    assert code == 0, err
    drawn = sorted(p.name for p in plots.iterdir() if p.name != MANIFEST)
    assert drawn and all(f"wrote {plots / n}" in err for n in drawn)
    victim = plots / drawn[0]
    victim.write_bytes(b"the user's own figure")
    before = snapshot(plots)
    code, out, err = run_cli(capsys, "report", root, "--resamples", "0", "--plots", plots)
    assert (code, out) == (2, "") and err == (
        f"error: {victim}: edited since gpassk-oc wrote it; left alone (--force overwrites it)\n"
    )
    assert snapshot(plots) == before


def test_compare_out_refuses_a_foreign_file(workdir, capsys, tmp_path):
    root, _ = workdir
    target = tmp_path / "cmp.md"
    target.write_text("mine\n")
    argv = ["compare", root, root, "--model-a", abbr("qwen-7b", "0-7")]
    argv += ["--model-b", abbr("llama-8b", "0-7"), "--resamples", "0", "--out", target]
    code, out, err = run_cli(capsys, *argv)
    assert (code, out) == (2, "") and err == (
        f"error: {target}: not written by gpassk-oc; left alone (--force overwrites it)\n"
    )
    assert target.read_text() == "mine\n"
    code, _, err = run_cli(capsys, *argv, "--force")
    assert code == 0 and target.read_text().startswith("#"), err
