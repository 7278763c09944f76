"""Data before text, the leftovers: what the markdown report's *Notes* (and stderr) or its
tables say of rows, the JSON rows (and the CSV lines) carry too — found by reading each
``report.notes`` entry and each markdown column against the other formats."""

from __future__ import annotations

import csv
import io
import json
import random

import numpy as np
import pytest
from report_support import DATASET as COUNTS_DATASET
from report_support import N, abbr, oracle_mean, questions, run_cli
from report_support import write_run as write_counts
from test_report_anyk import DATASET, labels_for, write_run
from test_report_formats_agree import _published_work

RULE_AND_JUDGE = ["--verdict-error", "fp=0.02,fn=0.08,by=rule"]
RULE_AND_JUDGE += ["--verdict-error", "fp=0.01,fn=0.5,by=judge"]


def _out(capsys, *argv) -> str:
    """The command's output (it must succeed)."""
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    return out


def _notes(markdown: str) -> list[str]:
    return [
        line[2:] for line in markdown[markdown.index("## Notes") :].splitlines() if line[:2] == "- "
    ]


def _table(markdown: str, header: str) -> list[list[str]]:
    """The cells of the first markdown table whose header line holds *header*."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line[:2] == "| " and header in line)
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if line.startswith("| "):  # not the |---| line
            rows.append([c.strip() for c in line.strip()[2:-2].split(" | ")])
    return rows


def _rows(tmp_path, sizes: dict[str, int]) -> None:
    rng = random.Random(11)
    for model, q in sizes.items():
        write_run(tmp_path, f"{model}_t0-7_p0-95_k-1_rp1-0_rs42_l8192", labels_for(rng, q))


def test_a_stated_source_that_corrects_nothing_is_in_every_row(tmp_path, capsys):
    """``by=judge`` (and here ``by=rule``) when no sample came from it: the note said so in the markdown's *Notes*
    and on stderr only; the JSON rows' ``corrected`` block and the CSV said nothing."""
    _rows(tmp_path, {"qwen-7b": 10, "llama-8b": 10})
    flags = ["report", tmp_path, "--k", "4", "--resamples", "0", *RULE_AND_JUDGE]
    md = _out(capsys, *flags)
    notes = [n for n in _notes(md) if n.startswith("--verdict-error by=")]
    assert len(notes) == 2  # write_run's samples name no source: neither rates correct
    out = _out(capsys, *flags, "--format", "json")
    rows = json.loads(out)
    assert len(rows) == 2
    for row in rows:
        unused = row["corrected"]["unused_sources"]
        assert [u["source"] for u in unused] == ["rule", "judge"]
        assert notes == [f"--verdict-error by={u['source']}: {u['reason']}" for u in unused]
        assert row["corrected"]["not_corrected"] is None
    text = _out(capsys, *flags, "--format", "csv")
    for line in csv.DictReader(io.StringIO(text)):
        assert line["corrected_note"] == (" ".join(notes) if line["subset"] == "overall" else "")


def test_a_row_too_small_to_correct_says_why_in_its_json(tmp_path, capsys):
    """A row of one question cannot fit the correction's difficulty prior: the report's
    *Notes* said "not corrected: …" but its JSON row had no ``corrected`` key at all, as
    if no rates had been given."""
    _rows(tmp_path, {"qwen-7b": 10, "tiny-1b": 1})
    flags = ["report", tmp_path, "--k", "4", "--resamples", "0"]
    flags += ["--verdict-error", "fp=0.02,fn=0.08", "--no-pool-seeds"]
    md = _out(capsys, *flags)
    tiny = "tiny-1b_t0-7_p0-95_k-1_rp1-0_rs42_l8192"
    (note,) = [n for n in _notes(md) if n.startswith(f"{tiny} on {DATASET}: not corrected: ")]
    out = _out(capsys, *flags, "--format", "json")
    rows = {r["model"]: r for r in json.loads(out)}
    why = rows[tiny]["corrected"]["not_corrected"]
    assert note == f"{tiny} on {DATASET}: not corrected: {why}"
    assert "2 questions" in why  # the Beta fit's own reason: one question is too few
    assert rows["qwen-7b_t0-7_p0-95_k-1_rp1-0_rs42_l8192"]["corrected"]["not_corrected"] is None
    text = _out(capsys, *flags, "--format", "csv")
    lines = {(x["model"], x["subset"]): x for x in csv.DictReader(io.StringIO(text))}
    assert lines[(tiny, "overall")]["corrected_note"] == f"not corrected: {why}"


def test_a_cross_check_finding_is_in_its_rows_json_notes(tmp_path, capsys):
    """A results file whose top-level mG-Pass@16 is not what its details give: the
    report's *Notes* said so, the JSON row's ``notes`` did not (the finding is about that
    row's file)."""
    cs = np.random.default_rng(2).integers(0, N + 1, len(questions()))
    mg = oracle_mean("mG-Pass@16", [(N, int(c)) for c in cs])
    model = abbr("m", "0-7")
    write_counts(tmp_path, model, COUNTS_DATASET, cs, N, top={"mG-Pass@16": mg + 5})
    flags = ["report", tmp_path, "--resamples", "0"]
    md = _out(capsys, *flags)
    (note,) = [n for n in _notes(md) if "top-level mG-Pass@16" in n]
    assert note.startswith(f"{model}/{COUNTS_DATASET}: ") and "details give" in note
    out = _out(capsys, *flags, "--format", "json")
    (row,) = json.loads(out)
    assert note in row["notes"]


def _cell(line: dict[str, str], key: str) -> str:
    """The corrected table's cell rebuilt from a CSV line (rerun interval only, as the
    table shows under the default --interval)."""
    if line[f"{key} corrected_status"] == "not corrected":
        return "not corrected (--audit-classes)"
    text = f"{float(line[f'{key} corrected']):.1f}"
    low, high = line[f"{key} corrected_rerun_low"], line[f"{key} corrected_rerun_high"]
    if low:
        text += f" [{float(low):.1f}, {float(high):.1f}]"
    return text + (" ‡" if line[f"{key} corrected_model_rejected"] == "1" else "")


def test_every_corrected_table_cell_is_in_the_csv(tmp_path, capsys):
    """The corrected table prints maj@k's raw value, "not corrected" and ‡: the CSV had no
    ``maj@k raw`` column, an empty maj@k cell for "not corrected" and no ‡ anywhere."""
    # thirds never, always and half right: no Beta fits, so the model check rejects (‡)
    labels = [[[0] * 8, [1] * 8, [0] * 4 + [1] * 4][i % 3] for i in range(30)]
    for model in ("qwen-7b", "llama-8b"):
        write_run(tmp_path, f"{model}_t0-7_p0-95_k-1_rp1-0_rs42_l8192", labels)
    flags = ["report", tmp_path, "--k", "4", "--resamples", "0"]
    flags += ["--verdict-error", "fp=0.02,fn=0.08"]
    md = _out(capsys, *flags)
    text = _out(capsys, *flags, "--format", "csv")
    lines = {x["model"]: x for x in csv.DictReader(io.StringIO(text)) if x["subset"] == "overall"}
    part = md[md.index("## Corrected for verdict error") :].split("\n## ")[0]
    table = [
        [c.strip() for c in r.strip()[2:-2].split(" | ")]
        for r in part.splitlines()
        if r[:2] == "| "
    ]
    header, body = table[0], table[1:]
    first = header.index("Dataset") + 1
    assert "maj@4 raw" in header and len(body) == 2
    marks = set()
    for cells in body:
        (line,) = [x for x in lines.values() if x["model"].startswith(cells[0] + "_")]
        for name, shown in zip(header[first:], cells[first:]):
            key, which = name.rsplit(" ", 1)
            if which == "raw":
                assert f"{float(line[f'{key} raw']):.1f}" == shown, (key, shown)
                continue
            errors = "independent" if which == "corrected†" else "by class"
            assert line[f"{key} corrected_errors"] == errors
            assert _cell(line, key) == shown, (key, shown)
            marks.add(shown.split(" ")[-1])
    assert {"‡", "(--audit-classes)"} <= marks  # both marks were checked


def test_published_value_is_compared_with_an_unreliable_interval_and_says_so(tmp_path, capsys):
    """24 questions: the benchmark intervals of G-Pass@16_1.0 and mG-Pass@16 print with
    ``!`` (too few questions), yet the published column compared nothing with them and
    read ``?`` ("no interval"). Now it compares and keeps the ``!``, in every format."""
    _published_work(tmp_path)
    flags = ["report", tmp_path, "--published", "--resamples", "200", "--interval", "benchmark"]
    md = _out(capsys, *flags)
    out = _out(capsys, *flags, "--format", "json")
    text = _out(capsys, *flags, "--format", "csv")
    (row,) = [r for r in json.loads(out) if r["published"] is not None]
    (line,) = [x for x in csv.DictReader(io.StringIO(text)) if x["published_model"]]
    table = _table(md, "| Published (")
    (cells,) = [r for r in table if r[0] == row["identity"]["model"]]
    marks = []
    unreliable = 0
    for column, entry in row["published"]["values"].items():
        bench = (row["metrics"].get(column) or {}).get("benchmark")
        if bench is None:  # Greedy: no greedy run here
            assert entry["inside"] is None
            marks.append(f"{entry['value']:.1f}?")
            continue
        assert entry["benchmark_status"] == bench["status"]
        assert line[f"published {column} benchmark_status"] == bench["status"]
        low, high = bench["low"], bench["high"]
        assert low is not None  # every metric here prints a benchmark interval
        expect = low - 0.05 <= entry["value"] <= high + 0.05
        assert entry["inside"] is expect
        assert line[f"published {column} inside"] == str(int(expect))
        mark = "!" if bench["status"] == "unreliable" else ""
        beside = cells[table[0].index(f"{column} [benchmark 95%]")]
        assert beside.endswith("]" + mark), (column, beside)  # the ! the cell beside shows
        unreliable += bool(mark)
        marks.append(f"{entry['value']:.1f}{'✓' if expect else '✗'}{mark}")
    assert unreliable == 2  # G-Pass@16_1.0 and mG-Pass@16 over 24 questions
    assert cells[-1] == " ".join(marks)
    assert "! after ✓ or ✗" in md


def test_plan_at_k_1_plans_g_pass_once_and_says_why(capsys):
    """``plan --k 1`` printed G-Pass@1_0.5, _0.75 and _1.0 as three identical rows of
    every table: at k = 1 each τ asks for the one draw to be right. Asked for by name
    they still are identical, which is why the default plan keeps one."""
    flags = ["plan", "--beta", "0.6,0.6", "--questions", "40", "--n", "8"]
    md = _out(capsys, *flags, "--k", "1")
    rows = [line for line in md.splitlines() if line.startswith("| G-Pass@1_")]
    assert rows and all(line.startswith("| G-Pass@1_1.0 |") for line in rows)
    note = "G-Pass@1_1.0 stands for G-Pass@1_0.5, G-Pass@1_0.75: at k = 1 every τ asks"
    assert f"- {note}" in md
    out = _out(capsys, *flags, "--k", "1", "--format", "json")
    plan = json.loads(out)
    assert plan["metrics"] == ["G-Pass@1_1.0"]
    assert plan["same_as"]["G-Pass@1_1.0"]["keys"] == ["G-Pass@1_0.5", "G-Pass@1_0.75"]
    assert any(w.startswith(note) for w in plan["warnings"])
    named = ["--metrics", "G-Pass@1_0.5", "G-Pass@1_1.0", "--format", "json"]
    out = _out(capsys, *flags, *named)
    both = json.loads(out)
    assert both["same_as"] == {}  # named metrics are planned as asked
    assert both["split"]["G-Pass@1_0.5"] == both["split"]["G-Pass@1_1.0"]
    assert both["grid"]["G-Pass@1_0.5"] == both["grid"]["G-Pass@1_1.0"]


def test_compare_by_split_gives_p_a_better_per_split(capsys, tmp_path):
    """``compare --by-split`` printed A − B, its intervals and p per split × language but
    P(A better than B) for the overall table only (markdown and JSON)."""
    rng = np.random.default_rng(7)
    qs = questions()
    p = rng.beta(0.5, 0.5, len(qs))
    a, b = abbr("a", "0-7"), abbr("b", "0-7")
    write_counts(tmp_path, a, COUNTS_DATASET, rng.binomial(N, np.clip(p + 0.08, 0, 1)), N)
    write_counts(tmp_path, b, COUNTS_DATASET, rng.binomial(N, p), N)
    argv = ["compare", tmp_path, tmp_path, "--model-a", a, "--model-b", b, "--by-split"]
    argv += ["--metrics", "pass@1", "G-Pass@8_1.0", "--resamples", "300"]
    out = _out(capsys, *argv, "--format", "json")
    md = _out(capsys, *argv)
    data = json.loads(out)
    per_split = data["p_a_better_splits"]
    assert set(per_split) == set(data["splits"]) and len(per_split) >= 2
    table = {(r[0], r[1]): r[2:] for r in _table(md, "| Split | Metric | rerun |")[1:]}
    checked = 0
    for name, metrics in data["splits"].items():
        for key, m in metrics.items():
            for j, kind in enumerate(("rerun", "benchmark")):
                pv, got = m[kind]["p_value"], per_split[name][key][kind]
                if pv is None:
                    assert got is None and table[(name, key)][j] == "—"
                    continue
                # read off this split's own p, on the side of this split's A − B
                want = 1 - pv / 2 if m["diff"] > 0 else pv / 2 if m["diff"] < 0 else 0.5
                assert got == pytest.approx(want, abs=1e-12), (name, key, kind)
                shown = table[(name, key)][j]
                assert shown[0] in "<>" or abs(float(shown) - got) < 5e-4, (name, key, shown)
                checked += 1
    assert checked >= 4


def test_rank_of_a_metric_undefined_at_k_is_an_explicit_entry(tmp_path, capsys):
    """``report --k 1``: the rank table prints mG-Pass@1 as "—" (the Notes say why) while
    the JSON ``ranks`` had no mG-Pass@1 key at all."""
    _rows(tmp_path, {"qwen-7b": 10, "llama-8b": 10})
    flags = ["report", tmp_path, "--k", "1", "--resamples", "0"]
    md = _out(capsys, *flags)
    table = _table(md, "| mG-Pass@1 |")
    column = table[0].index("mG-Pass@1")
    assert [r[column] for r in table[1:]] == ["—", "—"]
    (note,) = [n for n in _notes(md) if n.startswith("mG-Pass@1 shows —: ")]
    out = _out(capsys, *flags, "--format", "json")
    for row in json.loads(out):
        entry = row["ranks"]["mG-Pass@1"]
        assert entry["rank"] is None
        assert note == f"mG-Pass@1 shows —: {entry['reason']}"
        assert entry["reason"] == row["metrics"]["mG-Pass@1"]["undefined"]
        assert row["ranks"]["G-Pass@1_1.0"]["rank"] in (1, 2)  # a metric that exists


def test_compare_says_in_its_output_which_metric_it_left_out(capsys, tmp_path):
    """``compare --k 1`` leaves mG-Pass@1 out (it does not exist at k = 1) and said so on
    stderr only: neither its markdown nor its JSON told a reader why it is missing."""
    rng = np.random.default_rng(3)
    a, b = abbr("a", "0-7"), abbr("b", "0-7")
    for model in (a, b):
        write_counts(tmp_path, model, COUNTS_DATASET, rng.integers(0, N + 1, len(questions())), N)
    argv = ["compare", tmp_path, tmp_path, "--model-a", a, "--model-b", b, "--k", "1"]
    argv += ["--resamples", "0"]
    data = json.loads(_out(capsys, *argv, "--format", "json"))
    assert "mG-Pass@1" not in data["metrics"]
    (note,) = data["notes"]
    assert note.startswith("mG-Pass@1 left out: not defined at k = 1")
    md = _out(capsys, *argv)
    assert note in _notes(md)


def test_compare_names_a_stated_source_that_corrects_nothing(capsys, tmp_path):
    """``compare --verdict-error …,by=judge`` with no judged sample warned on stderr only;
    its corrected section and JSON ``corrected`` now say so too."""
    rng = random.Random(2)
    a, b = "qwen-7b_t0-7_p0-95_k-1_rp1-0_rs42_l8192", "llama-8b_t0-7_p0-95_k-1_rp1-0_rs42_l8192"
    for model in (a, b):
        write_run(tmp_path, model, labels_for(rng, 10))
    argv = ["compare", tmp_path, tmp_path, "--model-a", a, "--model-b", b, "--k", "4"]
    argv += ["--resamples", "0", "--metrics", "pass@1", *RULE_AND_JUDGE]
    data = json.loads(_out(capsys, *argv, "--format", "json"))
    unused = data["corrected"]["unused_sources"]
    assert [u["source"] for u in unused] == ["rule", "judge"]  # no sample names a source
    (rates,) = [line for line in _out(capsys, *argv).splitlines() if line.startswith("Rates: ")]
    for u in unused:
        assert f" --verdict-error by={u['source']}: {u['reason']}." in rates
