"""G-Pass@k_τ depends on τ only through m = max(⌈τ·k⌉, 1): at k = 1 G-Pass@1_0.5, _0.75
and _1.0 are all pass@1, at k = 2 τ = 0.75 and 1.0 both ask for 2 of 2. ``report --k 1``
printed three identical columns (values and intervals) in every table, and ``compare
--k 1`` three identical rows: a reader took them for three measurements. The human views
now show such keys as one column (row) named by all of them, with a legend line saying
why; the machine formats keep every key and the JSON says which keys are one metric.

Expected columns come from ⌈τ·k⌉ computed here with exact fractions; expected values
from the oracle of the fixture's counts (:func:`report_support.oracle_mean`), and the
machine formats' per-τ values."""

from __future__ import annotations

import html
import json
import math
import re
from fractions import Fraction

from report_support import abbr, oracle_mean, run_cli

from gpassk_oc.core.metrics.metric_keys import ALL_TAUS
from gpassk_oc.core.metrics.registry import G_PASS, MG_PASS

TAUS = (Fraction(1, 2), Fraction(3, 4), Fraction(1))


def _need(k: int, tau: Fraction) -> int:
    return max(math.ceil(tau * k), 1)


def _key(k: int, tau: Fraction) -> str:
    return f"G-Pass@{k}_{float(tau)!r}"


def _groups(k: int, taus=TAUS) -> list[list[str]]:
    """The G-Pass@k keys of *taus* (increasing) that ask for as many draws, together."""
    out: dict[int, list[str]] = {}
    for tau in taus:
        out.setdefault(_need(k, tau), []).append(_key(k, tau))
    return list(out.values())


def _mg_equal(k: int) -> int | None:
    """The draws of k that mG-Pass@k asks for where it is one G-Pass@k_τ: its sum
    (2/k)·Σ_{i=⌈k/2⌉+1}^{k} G-Pass@k_{i/k} then has one term, of weight 1 (None: a mean)."""
    terms = range(math.ceil(Fraction(k, 2)) + 1, k + 1)
    return terms[0] if len(terms) == 1 and Fraction(2, k) == 1 else None


def _groups_mg(k: int, taus=TAUS) -> list[list[str]]:
    """:func:`_groups` with mG-Pass@k: in the group asking for as many draws, or its own."""
    need = _mg_equal(k)
    groups = _groups(k, taus)
    home = [
        g for g in groups if need is not None and _need(k, Fraction(g[0].split("_")[1])) == need
    ]
    if home:
        home[0].append(MG_PASS.spec(k).key)
        return groups
    return groups + [[MG_PASS.spec(k).key]]


def _header(group: list[str]) -> str:
    return " = ".join([group[0]] + ["_" + key.split("_")[1] for key in group[1:]])


def _out(capsys, *argv) -> str:
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    return out


def _table(markdown: str, first: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the first markdown table after the line starting *first*."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    start = next(i for i in range(start, len(lines)) if lines[i].startswith("| "))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if line.startswith("| "):
            rows.append([c.strip() for c in line.strip()[2:-2].split(" | ")])
    return rows[0], rows[1:]


def _number(cell: str) -> float:
    return float(cell.split(" ")[0].rstrip("*+!"))


def test_grouping_is_the_threshold_count():
    from gpassk_oc.core.metrics.same_metric import same_metric_groups  # new in this change

    for k in range(1, 9):
        taus = sorted({Fraction(i, 8) for i in range(9)} | set(ALL_TAUS))
        specs = [G_PASS.spec(k, t) for t in taus] + [MG_PASS.spec(k)]
        got = [[s.key for s in g] for g in same_metric_groups(specs)]
        assert got == _groups_mg(k, taus)
    assert _mg_equal(2) == 2 and all(_mg_equal(k) is None for k in (1, 3, 4, 8))


def test_report_k1_shows_each_metric_once(workdir, capsys):
    root, counts = workdir
    flags = ["report", root, "--k", "1", "--resamples", "0"]
    md = _out(capsys, *flags, "--verdict-error", "fp=0.05,fn=0.1")
    rows = [r for r in json.loads(_out(capsys, *flags, "--format", "json")) if not r["greedy"]]
    (group,) = _groups(1)  # every τ asks for 1 of 1
    assert len(group) == 3
    header, body = _table(md, "## LiveMathBench-v202412-k4_8_16-r3 — overall")
    g_cols = [i for i, h in enumerate(header) if h.startswith("G-Pass@")]
    assert [header[i].split(" [")[0] for i in g_cols] == [_header(group)]
    assert len(body) == len(rows)
    for line, row in zip(body, rows):
        model = row["runs"][0].split("/")[-2]
        value = _number(line[g_cols[0]])
        for key in group:  # every per-τ value of the JSON, and the oracle's
            assert abs(value - row["metrics"][key]["value"]) <= 0.05 + 1e-9
        truth = oracle_mean(group[-1], [(48, int(c)) for c in counts[model]])
        assert abs(value - truth) <= 0.05 + 1e-9
    legend = [line for line in md.splitlines() if line.startswith(f"- {_header(group)}:")]
    assert len(legend) == 1 and "1 of 1" in legend[0]
    for title in ("## Verdict sensitivity", "## Ranks", "## Corrected for verdict error"):
        header, _ = _table(md, title)
        named = [h for h in header if h.startswith("G-Pass@")]
        assert named and all(h.startswith(_header(group)) for h in named), (title, header)
    for row in rows:  # the machine format keeps every key, and says they are one metric
        assert {_key(1, t) for t in ALL_TAUS} <= set(row["metrics"])
        every = _groups(1, ALL_TAUS)[0]
        assert row["same_as"] == {
            every[-1]: {"keys": every[:-1], "reason": row["same_as"][every[-1]]["reason"]}
        }


def test_report_k_list_marks_cells_of_one_metric(workdir, capsys):
    root, _ = workdir
    flags = ["report", root, "--k", "1,2", "--resamples", "0"]
    md = _out(capsys, *flags)
    rows = [r for r in json.loads(_out(capsys, *flags, "--format", "json")) if not r["greedy"]]
    header, body = _table(md, "## Any k")
    cols = {h.split(" [")[0]: i for i, h in enumerate(header)}
    assert body
    for line, row in zip(body, [r for r in rows for _ in (1, 2)]):
        k = int(line[cols["k"]])
        for group in _groups_mg(k):
            if group == [MG_PASS.spec(k).key]:
                continue  # a mean of its own
            first = _key(k, Fraction(group[0].split("_")[1]))
            value = line[cols[f"G-Pass@k_{group[0].split('_')[1]}"]]
            assert abs(_number(value) - row["k_sweep"]["metrics"][str(k)][first]["value"]) <= 0.05
            for key in group[1:]:  # k = 2: mG-Pass@2 is G-Pass@2_1.0, its column says so
                column = "mG-Pass@k" if key.startswith("mG") else f"G-Pass@k_{key.split('_')[1]}"
                assert line[cols[column]] == f"= {first}"
        if k == 2:
            assert line[cols["mG-Pass@k"]] == "= G-Pass@2_0.75"
    assert "A cell '= G-Pass@k_τ' is that column's metric" in md
    want = {}
    for k in (1, 2):
        want.update({g[-1]: g[:-1] for g in _groups_mg(k) if len(g) > 1})
    for row in rows:
        assert {key: entry["keys"] for key, entry in row["same_as"].items()} == want


def test_page_k1_has_one_column_per_metric(workdir, capsys):
    root, _ = workdir
    page = _out(capsys, "report", root, "--k", "1", "--resamples", "0", "--format", "html")
    blob = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', page, re.S)
    data = json.loads(html.unescape(blob.group(1)))
    (group,) = _groups(1)
    assert data["columns"] == ["Greedy", _header(group), "mG-Pass@1"]
    assert any(note.startswith(f"{_header(group)}:") for note in data["notes"])
    json_rows = json.loads(
        _out(capsys, "report", root, "--k", "1", "--resamples", "0", "--format", "json")
    )
    by_label = {r["model"]: r for r in json_rows if not r["greedy"]}
    for row in data["datasets"][0]["rows"]:
        value = row["cells"]["overall"]["values"][_header(group)]["value"]
        assert all(value == by_label[row["label"]]["metrics"][key]["value"] for key in group)
    assert f"<th>{html.escape(_header(group))}</th>" in page  # the sensitivity table


def test_compare_k1_shows_each_metric_once(workdir, capsys):
    root, counts = workdir
    a, b = abbr("qwen-7b", "0-7"), abbr("llama-8b", "0-7")
    flags = ["compare", root, root, "--model-a", a, "--model-b", b, "--k", "1"]
    flags += ["--resamples", "0", "--verdict-error", "fp=0.05,fn=0.1"]
    md = _out(capsys, *flags)
    data = json.loads(_out(capsys, *flags, "--format", "json"))
    (group,) = _groups(1)
    _, body = _table(md, "## overall")
    assert [line[0] for line in body] == [_header(group), "pass@1"]
    for side, model in (("a", a), ("b", b)):
        value = float(body[0][1 if side == "a" else 2])
        for key in group:
            assert abs(value - data["metrics"][key][side]) <= 0.05 + 1e-9
        truth = oracle_mean(group[0], [(48, int(c)) for c in counts[model]])
        assert abs(value - truth) <= 0.05 + 1e-9
    for title in ("## P(A better than B)", "## Corrected for verdict error"):
        _, rows = _table(md, title)
        assert [line[0] for line in rows] == [_header(group), "pass@1"], title
    assert sum(line.startswith(f"- {_header(group)}:") for line in md.splitlines()) == 1


def test_distinct_thresholds_keep_their_columns(workdir, capsys):
    """At k = 4 the headline τ ask for 2, 3 and 4 of 4: three metrics, three columns (the
    tables are as before). The JSON's same_as names only what the JSON carries twice: τ = 0
    and 0.25 both ask for 1 of 4."""
    root, _ = workdir
    flags = ["report", root, "--k", "4", "--resamples", "0"]
    md = _out(capsys, *flags)
    groups = _groups(4)
    assert all(len(g) == 1 for g in groups)
    header, _ = _table(md, "## LiveMathBench-v202412-k4_8_16-r3 — overall")
    assert [h.split(" [")[0] for h in header if h.startswith("G-Pass@")] == [g[0] for g in groups]
    rows = [r for r in json.loads(_out(capsys, *flags, "--format", "json")) if not r["greedy"]]
    want = {g[-1]: g[:-1] for g in _groups(4, ALL_TAUS) if len(g) > 1}
    assert want == {"G-Pass@4_0.25": ["G-Pass@4_0.0"]}
    for row in rows:
        assert {key: e["keys"] for key, e in row.get("same_as", {}).items()} == want


def test_one_tau_beside_mg_pass_2_says_why():
    """``compare --metrics G-Pass@2_0.75 mG-Pass@2`` groups a single G-Pass key with
    mG-Pass@2: the reason names its threshold (τ is a Fraction; formatting it crashed)."""
    from gpassk_oc.core.metrics.same_metric import same_metric_lines

    specs = [G_PASS.spec(2, Fraction(3, 4)), MG_PASS.spec(2)]
    (line,) = same_metric_lines(specs)
    assert line.startswith("G-Pass@2_0.75 = mG-Pass@2: one metric")
    assert f"τ = 0.75 asks for {_need(2, Fraction(3, 4))} of 2 draws right" in line
