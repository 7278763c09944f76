"""gpassk-oc report / compare / plots on synthetic OpenCompass work dirs written in
tmp_path. Expected table values are recomputed here from the synthetic c's with an
independent Fraction oracle."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from report_support import (
    DATASET,
    GREEDY_DATASET,
    N,
    abbr,
    questions,
    report_json,
    run_cli,
    write_run,
)


# --------------------------------------------------------------------------- bad inputs
def test_level_as_percentage_equals_fraction_and_bad_levels_fail_in_one_line(workdir, capsys):
    root, _ = workdir
    as_fraction, _ = report_json(capsys, root, "--level", "0.9")
    as_percent, _ = report_json(capsys, root, "--level", "90")
    assert as_percent == as_fraction and as_percent[0]["confidence_level"] == 0.9
    for bad in ("150", "0", "100", "-0.5", "1"):
        code, out, err = run_cli(capsys, "report", root, "--level", bad)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, (bad, err)
        assert err.startswith(f"error: --level {float(bad):g}: need a confidence level")


def test_negative_resamples_fail_and_zero_says_no_intervals(workdir, capsys):
    root, _ = workdir
    code, out, err = run_cli(capsys, "report", root, "--resamples", "-5")
    assert (code, out, err) == (
        2,
        "",
        "error: --resamples -5: need 0 (no benchmark interval) to 100,000 (memory grows with "
        "resamples x questions; 10,000 is already precise)\n",
    )
    # 0 resamples turns the benchmark interval off; the rerun interval needs none
    code, out, _ = run_cli(capsys, "report", root, "--resamples", "0", "--interval", "benchmark")
    assert code == 0 and "[benchmark 95%]: off (--resamples 0)" in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "Model" not in line]
    assert rows and not any(re.search(r"\d \[", line) for line in rows)  # no bracket
    code, out, _ = run_cli(capsys, "report", root, "--resamples", "0", "--format", "json")
    metric = json.loads(out)[0]["metrics"]["mG-Pass@16"]
    # n = 48 = 3k < 4k: the unbiased variances are combined with the fitted ones
    assert metric["benchmark"]["status"] == "off" and metric["rerun"]["status"] == "posterior"


def test_interval_kind_is_checked_and_named_in_the_header(workdir, capsys):
    root, _ = workdir
    with pytest.raises(SystemExit) as info:
        run_cli(capsys, "report", root, "--interval", "bayes")
    out, err = capsys.readouterr()
    assert info.value.code == 2 and out == "" and len(err.splitlines()) == 1
    assert "--interval: invalid choice: 'bayes'" in err
    for kind, header in [
        ("rerun", "mG-Pass@16 [rerun 95%] |"),
        ("benchmark", "mG-Pass@16 [benchmark 95%] |"),
        ("both", "mG-Pass@16 [rerun 95%] [benchmark 95%] |"),
    ]:
        code, out, _ = run_cli(capsys, "report", root, "--interval", kind, "--resamples", "300")
        assert code == 0 and header in out, kind


def test_one_rounding_rule_everywhere(tmp_path, capsys):
    """17 of 80 correct = 21.25 %: every table shows 21.3 (half up), none 21.2."""
    qs = [("AMC", "en", i, f"q{i}") for i in range(20)]
    c = [1] * 17 + [0] * 3  # n = 4: pass@1 = 17/80
    write_run(tmp_path, abbr("m", "0-7"), DATASET, c, 4, qs=qs)
    greedy = [1] * 17 + [0] * 63
    write_run(
        tmp_path,
        abbr("m", "0-0", top_p="1-0"),
        GREEDY_DATASET,
        greedy,
        1,
        qs=[("AMC", "en", i, f"g{i}") for i in range(80)],
    )
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "0", "--k", "4")
    assert code == 0, err
    sens_part = out[out.index("## Verdict sensitivity") :]
    sens_line = next(line for line in sens_part.splitlines() if line.startswith("| m |"))
    greedy_line = next(line for line in out.splitlines() if "LiveMathBench-v202412-k1-r1" in line)
    assert sens_line.split(" | ")[-1].startswith("21.3") and greedy_line.endswith("| 21.3 |")
    assert "21.2" not in out
    # compare refuses a run with itself (issue 35): B is the same counts saved by seed 43
    write_run(tmp_path, abbr("m", "0-7", seed=43), DATASET, c, 4, qs=qs)
    code, out, _ = run_cli(
        capsys,
        "compare",
        tmp_path,
        tmp_path,
        "--model-a",
        abbr("m", "0-7"),
        "--model-b",
        abbr("m", "0-7", seed=43),
        "--no-pool-seeds",
        "--metrics",
        "pass@1",
    )
    assert code == 0 and "| pass@1 | 21.3 | 21.3 | 0.0 |" in out  # exactly 0: no side
    # the demo's leaderboard writes estimates with the report's own cell text
    from gpassk_oc.core.uncertainty.metric_intervals import Estimate
    from gpassk_oc.report.data.tables import estimate_text

    est = Estimate(value=0.2125, ci_low=0.2125, ci_high=0.2135, sampling_se=0.0, n_questions=20)
    assert estimate_text(est, ci=True) == "21.3 [21.3, 21.4]"


def test_a_ci_without_spread_says_so_instead_of_zero_width(tmp_path, capsys):
    qs = questions()
    write_run(tmp_path, abbr("m", "0-7"), DATASET, [0] * len(qs), N)  # never correct
    code, out, _ = run_cli(capsys, "report", tmp_path, "--resamples", "200")
    assert code == 0 and "0.0 [no width]" in out and "[0.0, 0.0]" not in out
    rows, _ = report_json(capsys, tmp_path)
    metric = rows[0]["metrics"]["mG-Pass@16"]
    assert (metric["value"], metric["ci_low"], metric["ci_high"], metric["ci"]) == (
        0.0,
        None,
        None,
        "no width",
    )


def test_bad_flag_values_are_one_line_too(workdir, capsys):
    root, _ = workdir
    code, out, err = run_cli(capsys, "report", root, "--seed", "-1")
    assert (code, out, err) == (2, "", "error: --seed -1: need a non-negative integer\n")
    code, out, err = run_cli(capsys, "report", root, "--k", "sixteen")  # report: --k is a list
    assert (code, out, err) == (
        2,
        "",
        "error: --k sixteen: need an integer >= 1 or a comma-separated list, e.g. 1,2,4,8\n",
    )
    with pytest.raises(SystemExit) as info:
        run_cli(capsys, "compare", root, root, "--k", "sixteen")
    err = capsys.readouterr().err
    assert info.value.code == 2 and err == (
        "error: gpassk-oc compare: argument --k: invalid int value: 'sixteen'\n"
    )


def test_unwritable_outputs_are_one_line(workdir, capsys, tmp_path):
    """--out or --plots onto something that is not a writable folder/file: one line, exit 2."""
    root, _ = workdir
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, out, err = run_cli(capsys, "report", root, "--resamples", "0", "--out", tmp_path)
    assert (code, out) == (
        2,
        "",
    ) and err == f"error: --out {tmp_path}: is a folder; need a file name\n"
    code, out, err = run_cli(
        capsys, "report", root, "--resamples", "0", "--plots", blocker / "figures"
    )
    assert (
        code == 2
        and err
        == f"error: --plots {blocker / 'figures'}: {blocker} is a file, not a folder; need a "
        "folder for the figures\n"
    )
    models = sorted(
        {p.parent.name for p in root.glob("*/results/*/*.json") if "t0-0" not in p.parent.name}
    )
    code, out, err = run_cli(
        capsys,
        "compare",
        root,
        root,
        "--model-a",
        models[0],
        "--model-b",
        models[1],
        "--resamples",
        "0",
        "--out",
        tmp_path,
    )
    assert (code, out) == (2, "") and err.splitlines()[
        -1
    ] == f"error: --out {tmp_path}: is a folder; need a file name"


def _report_imports() -> dict[str, set[str]]:
    """{report module (dotted, below gpassk_oc.report): the report modules it imports,
    at the top or inside a function}."""
    import ast

    package = Path(__file__).parents[1] / "gpassk_oc" / "report"
    graph = {}
    for f in package.rglob("*.py"):
        name = ".".join(f.relative_to(package).with_suffix("").parts).removesuffix("__init__")
        found = set()
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("gpassk_oc.report"):
                rest = (n.module or "").removeprefix("gpassk_oc.report").lstrip(".")
                found |= {rest} if rest else {a.name for a in n.names}
        graph[name.rstrip(".") or "__init__"] = found
    return graph


def test_model_never_imports_its_renderers_or_plots():
    """Plots and renderers depend on the model, never the reverse (no import cycle)."""
    graph = _report_imports()
    assert "data.report_model" in graph["formats.html"]  # the graph is read, not empty
    model = [d for m, d in graph.items() if m.startswith("data.")]
    above = ("formats", "page", "commands", "ranking", "auditing", "planning")
    assert not [i for d in model for i in d if i.startswith(above)]
    assert not {"page.plots", "commands.report_command"} & graph["__init__"]  # draws nothing


def test_no_command_module_is_imported_by_another_module():
    """A subcommand's module is its entry point only (the CLI loads it by name); what the
    commands share lives in commands/cli_common.py and the library folders."""
    graph = _report_imports()
    commands = {m for m in graph if m.startswith("commands.") and m.endswith("_command")}
    assert len(commands) == 4
    assert not [(m, i) for m, d in graph.items() for i in d if i in commands]


def test_report_is_at_most_five_layers_deep():
    """With each sub-package one layer (and the top-level modules one each), the longest
    import chain inside report/ is at most 5, and the sub-packages import in one direction."""
    graph = _report_imports()

    def part(module: str) -> str:
        return module.split(".")[0]

    parts: dict[str, set[str]] = {}
    for module, deps in graph.items():
        if module != "__init__":
            parts.setdefault(part(module), set()).update(
                part(d) for d in deps if part(d) != part(module)
            )

    def floor(p: str, seen: tuple[str, ...] = ()) -> int:
        assert p not in seen, f"sub-packages import each other: {seen + (p,)}"
        return 1 + max((floor(d, seen + (p,)) for d in parts.get(p, ())), default=0)

    assert max(floor(p) for p in parts) <= 5, {p: floor(p) for p in parts}


def test_csv_tells_posterior_and_missing_rerun_intervals_apart(tmp_path, capsys):
    """n = 16 < 2k = 32 for the k = 16 metrics: with several questions the rerun interval
    comes from posterior variances (bounds given; 'unreliable' for G-Pass@16_1.0, which
    needs all 16 draws right: Atoms.unchecked, else 'posterior'); a single question cannot
    fit a Beta ('n < 2k', bounds empty). k = 4 (the any-k columns) has n = 4k: unbiased
    variances ('unreliable' for the single question: fewer than 4 vary), but where some
    question has c = 0 or n (the many-question run) its unbiased variance 0 is replaced by
    the posterior one ('posterior')."""
    import csv
    import io

    qs = questions()
    many = write_run(
        tmp_path / "many", abbr("m", "0-7"), DATASET, [i % 17 for i in range(len(qs))], 16
    )
    one = write_run(tmp_path / "one", abbr("m", "0-7"), DATASET, [9], 16, qs=qs[:1])
    expect = {many: ("unreliable", True), one: ("n < 2k", False)}
    for path, (status, bounded) in expect.items():
        code, out, err = run_cli(
            capsys, "report", path.parents[2], "--k", "4,16", "--format", "csv"
        )
        assert code == 0, err
        line = next(r for r in csv.DictReader(io.StringIO(out)) if r["subset"] == "overall")
        assert line["G-Pass@16_1.0 rerun_status"] == status
        assert (line["G-Pass@16_1.0 rerun_low"] != "") == bounded
        # one question: an unbiased interval, but resting on 1 varying question
        assert line["G-Pass@4_0.5 rerun_status"] == ("posterior" if bounded else "unreliable")
        assert line["G-Pass@4_0.5 ci_status"] == ("ok" if bounded else "no width")
