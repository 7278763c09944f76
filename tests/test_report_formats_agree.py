"""Data before text: what the markdown report prints, the JSON (and CSV) carry with the same
value — here the two places they parted (found by checking every markdown cell of the
demo's report against its JSON under a dozen flag sets)."""

from __future__ import annotations

import csv
import io
import json
import random
import re

from oracles import brute_maj
from report_support import N, abbr, run_cli
from report_support import write_run as write_counts
from test_report_anyk import DATASET, labels_for, write_run

from gpassk_oc.report import build_report, render_markdown, to_json_rows
from gpassk_oc.report.data.collect import run_results
from gpassk_oc.report.data.numbers import pct_text
from gpassk_oc.report.ranking.corrections import attach_corrections, load_rates
from tests.test_audit import _write
from tests.test_audit_spreadsheet import _audit, _labelled, _rules_mode_sources


def _section(markdown: str, title: str) -> list[list[str]]:
    """The body cells of the table under ``## {title}``."""
    part = markdown[markdown.index(f"## {title}") :].split("\n## ")[0]
    rows = [line for line in part.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in line.strip()[2:-2].split(" | ")] for line in rows]


def test_rank_intervals_are_the_same_in_markdown_json_and_csv(workdir, capsys):
    """The markdown with rerun intervals only skips the bootstrap; its rank intervals
    were drawn 4,000 times where the JSON and CSV drew --resamples (here 10) times."""
    root, _ = workdir
    flags = ["report", root, "--resamples", "10"]
    code, md, err = run_cli(capsys, *flags)
    assert code == 0, err
    code, out, err = run_cli(capsys, *flags, "--format", "json")
    assert code == 0, err
    code, text, err = run_cli(capsys, *flags, "--format", "csv")
    assert code == 0, err
    rows = [r for r in json.loads(out) if not r["greedy"]]
    lines = {(x["model"], x["subset"]): x for x in csv.DictReader(io.StringIO(text))}
    dataset = rows[0]["dataset"]
    table = _section(md, f"Ranks — {dataset}")
    header, body = table[0], table[1:]
    checked = 0
    for cells in body:
        (row,) = [r for r in rows if list(r["identity"].values()) == cells[:2]]
        for key, cell in zip(header[2:], cells[2:]):
            rank, low, high = map(int, re.fullmatch(r"(\d+) \((\d+)–(\d+)\)", cell).groups())
            assert row["ranks"][key]["rank"] == rank
            assert row["ranks"][key]["rerun"] == [low, high], (row["model"], key)
            line = lines[(row["model"], "overall")]
            assert [line[f"{key} rank_rerun_low"], line[f"{key} rank_rerun_high"]] == [
                str(low),
                str(high),
            ]
            checked += 1
    assert checked == 16  # 4 rows × 4 headline metrics


def test_corrected_json_carries_the_raw_values_the_table_shows(tmp_path, capsys):
    """The corrected table prints each raw value beside its corrected one; maj@k's raw
    value was in no JSON key (maj@k is not among a row's metrics)."""
    rng = random.Random(5)
    runs = {"qwen-7b_t0-7_p0-95_k-1_rp1-0_rs42_l8192": labels_for(rng, 10)}
    runs["llama-8b_t0-7_p0-95_k-1_rp1-0_rs42_l8192"] = labels_for(rng, 10)
    for model, labels in runs.items():
        write_run(tmp_path, model, labels)
    flags = ["report", tmp_path, "--k", "4", "--verdict-error", "fp=0.02,fn=0.08"]
    code, md, err = run_cli(capsys, *flags, "--resamples", "0")
    assert code == 0, err
    code, out, err = run_cli(capsys, *flags, "--resamples", "0", "--format", "json")
    assert code == 0, err
    rows = {r["model"]: r for r in json.loads(out)}
    table = _section(md, "Corrected for verdict error")
    header = table[0]
    for model, labels in runs.items():
        metrics = rows[model]["corrected"]["metrics"]
        # the vote's raw value, by enumerating every 4-subset of each question's samples
        expect = 100 * sum(brute_maj(row, 4) for row in labels) / len(labels)
        assert metrics["maj@4"]["raw"] == round(float(expect), 4)
        (cells,) = [c for c in table[1:] if c[0] == rows[model]["identity"]["model"]]
        for key, entry in metrics.items():
            shown = cells[header.index(f"{key} raw")]
            assert pct_text(entry["raw"] / 100) == shown, (model, key)
            if key in rows[model]["metrics"]:  # the same number as the row's own
                assert entry["raw"] == rows[model]["metrics"][key]["value"]
    assert DATASET in md


def test_sweep_json_says_why_maj_is_blank(tmp_path, capsys):
    """The any-k table prints maj@k as — for a row whose file records no votes or that
    pools seeds, and its notes say why; the JSON cell was a bare null."""
    rng = random.Random(3)
    old = "old_t0-7_p0-95_k-1_rp1-0_rs42_l8192"
    write_run(tmp_path, old, labels_for(rng, 4), votes=False)
    for seed in (1, 2):
        write_run(tmp_path, f"pooled_t0-7_p0-95_k-1_rp1-0_rs{seed}_l8192", labels_for(rng, 4))
    flags = ["report", tmp_path, "--k", "1,2", "--resamples", "0"]
    code, md, err = run_cli(capsys, *flags)
    assert code == 0, err
    notes = [line[2:] for line in md[md.index("## Notes") :].splitlines() if line[:2] == "- "]
    code, out, err = run_cli(capsys, *flags, "--format", "json")
    assert code == 0, err
    reasons = {}
    for row in json.loads(out):
        for k, metrics in row["k_sweep"]["metrics"].items():
            for key, entry in metrics.items():
                if key.startswith("maj@"):
                    assert entry["value"] is None
                    reasons.setdefault(row["model"], set()).add(entry["not_computed"])
                else:  # computed: nothing to explain
                    assert "not_computed" not in entry, (row["model"], k, key)
    (why_old,) = reasons[old]
    assert "records no votes" in why_old
    assert f"{old} on {DATASET}: {why_old}" in notes
    pooled = [model for model in reasons if model != old]
    assert len(pooled) == 1
    (why_pooled,) = reasons[pooled[0]]
    assert "seeds are pooled" in why_pooled
    assert f"{pooled[0]} on {DATASET}: {why_pooled}" in notes


def test_corrected_json_names_the_sources_left_uncorrected(capsys, workdir, tmp_path):
    """A sheet with labels of a one-verdict source (rules mode's rule_undecided, always
    "wrong"): the corrected table's note says "rule_undecided: one verdict only, not
    corrected"; the JSON said nothing of it."""
    root, _ = workdir
    _rules_mode_sources(root)
    _, rows, _ = _audit(capsys, root, tmp_path / "sheet.csv")
    report = build_report([root], n_boot=0)
    (run,) = [run for row in report.rows for run in row.runs]
    # seven rule_undecided samples, labelled as an older sheet (or the page's export) would
    ids = [
        f"{run.model_abbr}/{run.dataset_abbr}/{q.split}/{q.language}/{q.index}/{i}"
        for q in run_results(run).questions
        for i, source in enumerate(q.source or [])
        if source == "rule_undecided"
    ][:7]
    extra = [
        {**rows[0], "sample_id": i, "source": "rule_undecided", "verdict": "wrong"} for i in ids
    ]
    sheet = tmp_path / "old.csv"
    _write(sheet, _labelled(rows) + [{**r, "label": "no"} for r in extra])
    # one report (the correction with the audit's rate draws is the slow part), both texts
    attach_corrections(report, load_rates([run], sheet, []))
    md = render_markdown(report)
    (row,) = [r for r in to_json_rows(report) if not r["greedy"]]
    skipped = row["corrected"]["skipped_sources"]
    assert [s["source"] for s in skipped] == ["rule_undecided"]
    (note,) = [line for line in md.splitlines() if line.startswith("Raw values and values")]
    assert f"rule_undecided: {skipped[0]['reason']};" in note
    assert "one verdict only" in skipped[0]["reason"]


def test_corrected_metric_undefined_at_k_says_why(tmp_path, capsys):
    """At k = 1 mG-Pass@1 does not exist: the corrected table printed `— ‡` (a model-check
    mark on no value) and its JSON cell lacked the `undefined` reason every other JSON
    cell of that metric carries."""
    # a third of the questions always right, a third never, a third half: no Beta fits
    # that, so the model check rejects the rows and their corrected cells carry ‡
    labels = [[[0] * 8, [1] * 8, [0] * 4 + [1] * 4][i % 3] for i in range(30)]
    for model in ("qwen-7b", "llama-8b"):
        write_run(tmp_path, f"{model}_t0-7_p0-95_k-1_rp1-0_rs42_l8192", labels)
    flags = ["report", tmp_path, "--k", "1", "--verdict-error", "fp=0.02,fn=0.08"]
    code, md, err = run_cli(capsys, *flags, "--resamples", "0")
    assert code == 0, err
    code, out, err = run_cli(capsys, *flags, "--resamples", "0", "--format", "json")
    assert code == 0, err
    table = _section(md, "Corrected for verdict error")
    column = table[0].index("mG-Pass@1 corrected†")
    for cells in table[1:]:
        assert cells[column] == "—"
        assert cells[table[0].index("pass@1 corrected†")].endswith(" ‡")  # the row's mark
    for row in json.loads(out):
        entry = row["corrected"]["metrics"]["mG-Pass@1"]
        assert entry["value"] is None
        assert entry["undefined"] == row["metrics"]["mG-Pass@1"]["undefined"]
        assert "not defined at k = 1" in entry["undefined"]


def test_published_json_says_why_a_published_model_has_no_value(tmp_path, capsys):
    """A published model run on other questions (here two splits of the four) gets a line
    under *Published numbers* saying why it has no published value; its JSON row said
    only ``"published": null``, as for a model never published."""
    qs = [(s, "en", i, f"[{s}] q{i}") for s in ("AMC", "CCEE") for i in range(6)]
    r1, mine = abbr("DeepSeek-R1", "0-6"), abbr("mine", "0-6")
    for model in (r1, mine):
        write_counts(tmp_path, model, "LiveMathBench-v202412-k4_8_16-r3", [N // 2] * 12, N, qs=qs)
    flags = ["report", tmp_path, "--published", "--resamples", "50"]
    code, md, err = run_cli(capsys, *flags)
    assert code == 0, err
    code, out, err = run_cli(capsys, *flags, "--format", "json")
    assert code == 0, err
    rows = {r["model"]: r for r in json.loads(out)}
    assert rows[r1]["published"] is None and rows[mine]["published"] is None
    assert "published_unmatched" not in rows[mine]  # never published: nothing to explain
    why = rows[r1]["published_unmatched"]
    assert why.startswith("published as DeepSeek-R1, but its questions are not")
    section = md[md.index("## Published numbers") :].split("\n## ")[0]
    assert f"- {r1} (LiveMathBench-v202412-k4_8_16-r3): {why}" in section.splitlines()


def _published_work(root) -> None:
    """DeepSeek-R1 (a published model) and an unpublished one on every split of
    LiveMathBench 202412 (3 questions each)."""
    splits = [(s, lang) for s in ("AMC", "CCEE", "CNMO", "WLPMC") for lang in ("en", "cn")]
    qs = [(s, lang, i, f"[{s}/{lang}] q{i}") for s, lang in splits for i in range(3)]
    r1, mine = abbr("DeepSeek-R1", "0-6"), abbr("mine", "0-6")
    for model, c in ((r1, 30), (mine, 10)):
        counts = [c + 3 * (i % 6) for i in range(len(qs))]  # questions differ: intervals
        write_counts(root, model, "LiveMathBench-v202412-k4_8_16-r3", counts, N, qs=qs)


def test_published_json_bounds_are_the_rows_own(tmp_path, capsys):
    """The published values' benchmark bounds are the row's benchmark intervals, rounded
    to 4 decimals like every JSON number (they were raw floats: 52.386866807731494)."""
    _published_work(tmp_path)
    flags = ["report", tmp_path, "--published", "--resamples", "200", "--format", "json"]
    code, out, err = run_cli(capsys, *flags)
    assert code == 0, err
    (row,) = [r for r in json.loads(out) if r["published"] is not None]
    compared = 0
    for column, entry in row["published"]["values"].items():
        if entry["inside"] is None:  # no interval to compare with
            continue
        bench = row["metrics"][column]["benchmark"]
        assert [entry["benchmark_low"], entry["benchmark_high"]] == [bench["low"], bench["high"]]
        compared += 1
    assert compared >= 2


def test_page_shows_the_published_values(tmp_path, capsys):
    """``--published --format html``: the markdown's Published column and its notes, and
    the JSON's ``published`` values, were nowhere on the page."""
    _published_work(tmp_path)
    flags = ["report", tmp_path, "--published", "--resamples", "200"]
    code, page, err = run_cli(capsys, *flags, "--format", "html")
    assert code == 0, err
    code, out, err = run_cli(capsys, *flags, "--format", "json")
    assert code == 0, err
    published = {r["identity"]["model"]: r["published"] for r in json.loads(out)}
    part = page[page.index("<h2>Published numbers — LiveMathBench-v202412-k4_8_16-r3</h2>") :]
    part = part[: part.index("</table>")]
    cells = dict(re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td></tr>", part))
    assert cells["mine"] == "—" and published["mine"] is None
    mark = {True: "✓", False: "✗", None: "?"}
    values = published["DeepSeek-R1"]["values"].values()
    bang = {"unreliable": "!"}  # after ✓/✗: the interval compared with is marked !
    texts = [
        f"{v['value']:.1f}{mark[v['inside']]}{bang.get(v['benchmark_status'], '')}" for v in values
    ]
    assert cells["DeepSeek-R1"] == " ".join(texts)
    assert "arXiv:2412.13147" in part  # the source, as the markdown's notes name it
