"""The demo's report stage: the leaderboard with the *true* value of every metric beside
each estimate (markdown, JSON, CSV, terminal text) and the figures.

Split from :mod:`gpassk_oc.demo.run` (the pipeline), which re-exports what it used to hold.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gpassk_oc.core.metrics.metric_keys import PASS_AT_1, gap_key, group_name, pass_key
from gpassk_oc.core.metrics.registry import headline_metrics

if TYPE_CHECKING:  # the report is imported where it is used (the CLI starts faster)
    from gpassk_oc.report.data.collect import Row
    from gpassk_oc.report.data.report_model import Report

from gpassk_oc.demo.simulation import (
    SHAKY,
    STEADY,
    TEMPERATURE_PULL,
    question_probability,
    true_metrics,
)

SIMULATION_BANNER = (
    "SIMULATION — the two models are simulated by a local endpoint with known "
    "per-question success probabilities; no real LLM was evaluated."
)


class DemoError(RuntimeError):
    """A stage failed; the message is the one line the user sees."""


def _row_probabilities(row: Row) -> np.ndarray:
    """True p of each question of a report row. Row keys carry (split, language, index)
    and only a hash of the text; the texts come from the runs' typed results."""
    from gpassk_oc.report import question_key

    texts: dict[tuple, str] = {
        question_key(*q): q[3] or ""
        for run in row.runs
        for q in zip(
            run.summary.splits, run.summary.languages, run.summary.indices, run.summary.texts
        )
    }
    s = row.setting
    assert s is not None  # the demo's runs carry their run record
    t = float(s.temperature or 0)
    return np.array([question_probability(s.model, texts[key], t) for key in row.keys])


def attach_truth(report: Report, rows_json: list[dict]) -> list[dict]:
    """Add ``truth`` (overall and per split × language) and the simulation's ``p`` to the
    report's JSON rows; keys are the report's own metric keys."""
    from gpassk_oc.report.data.collect import subset_masks

    by_label = {(r.label, r.dataset_abbr): r for r in report.rows}
    keys = report.computed_specs()
    for entry in rows_json:
        row = by_label[(entry["model"], entry["dataset"])]
        p = _row_probabilities(row)
        setting = row.setting
        assert setting is not None  # the demo's runs carry their run record
        entry["simulation"] = {
            "model": setting.model,
            "temperature": setting.temperature,
            "p": {
                f"{group_name(split, lang)}/{index}": round(float(q), 6)
                for (split, lang, index, _), q in zip(row.keys, p)
            },
        }
        entry["truth"] = true_metrics(keys, p, row.n)
        masks = subset_masks(row.keys)
        for subset, block in entry["splits"].items():
            block["truth"] = true_metrics(keys, p[masks[subset]], row.n[masks[subset]])
    return rows_json


def _pct_text(value: float | None) -> str:
    """A percent value (the truth, unrounded) as text, by the report's one rounding rule."""
    from gpassk_oc.report.data.numbers import pct_text

    return pct_text(None if value is None else value / 100)


def _estimate(report: Report, entry: Mapping[str, Any], metric: str) -> str:
    """The estimate of *metric* for a leaderboard row, as every report table writes it
    (from the report's own Estimate, not the JSON's rounded copy: one rounding only)."""
    from gpassk_oc.report.data.tables import estimate_text

    cell = report.cells.get((entry["model"], entry["dataset"], "overall"))
    # the truth is each metric on these questions, so the rerun interval is the one that
    # should cover it (the benchmark interval answers a question about new questions)
    return estimate_text(cell.metrics.get(metric) if cell else None, ci=True, kinds=("rerun",))


def shown_metrics(k: int) -> list[str]:
    """The leaderboard's metrics: the headline ones, pass@k and the stability gap."""
    return headline_metrics(k) + [pass_key(k), gap_key(k)]


def truth_markdown(report: Report, rows_json: Sequence[dict]) -> str:
    """Leaderboard (overall) with the truth beside each estimate."""
    from gpassk_oc.report.formats.markdown import legend_lines

    metrics = shown_metrics(report.k)
    header = ["Model", "T", "n", "Q"] + [h for m in metrics for h in (m, "truth")]
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for entry in rows_json:
        s = entry["setting"] or {}
        cells = [
            entry["base_model"],
            f"{s.get('temperature', '')}",
            str(entry["n"]),
            str(entry["num_questions"]),
        ]
        for m in metrics:
            cells += [_estimate(report, entry, m), _pct_text(entry["truth"][m]["value"])]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", *legend_lines(_truth_legend(report, metrics))]
    return "\n".join(out)


def _truth_legend(report: Report, metrics: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The leaderboard's legend: its layout, then each mark a cell of the table shows (the
    reason "n < 2k" for '!' only where a row has n < 2k)."""
    from gpassk_oc.report.data.tables import no_width_note, unreliable_reasons, wide_clause

    overall = [cell for (_, _, subset), cell in report.cells.items() if subset == "overall"]
    shown = {c.metrics[m].rerun for c in overall for m in metrics if m in c.metrics}
    wide = wide_clause(shown)
    varying, short, guessed = unreliable_reasons()
    short_rows = any(row.n.min() < 2 * report.k for row in report.rows)
    reasons = [varying, short, guessed] if short_rows else [varying, guessed]
    marks: list[tuple[str, list[str], bool]] = [
        (
            "* = approximate: some question's variance comes from a difficulty model fitted "
            "to the questions (a Beta; the shape-free grid fit for G-Pass@k_τ with "
            "2 ≤ ⌈τk⌉ < k), as at n = 2k.",
            [],
            "posterior" in shown,
        ),
        (wide.removesuffix("; ") + ".", [], bool(wide)),
        (
            "! = unreliable, for one of these reasons:",
            [f"{r}." for r in reasons],
            "unreliable" in shown,
        ),
        (f"[no width]: {no_width_note('rerun')}.", [], "no width" in shown),
    ]
    layout = (
        f"Estimates in percent with {100 * report.level:g}% rerun intervals (the same "
        "questions sampled again); *truth* = the simulated model's exact value on these "
        "questions (binomial closed form), which the rerun interval should cover at its "
        "level. gap = pass@k − G-Pass@k_1.0."
    )
    return [(layout, [])] + [(text, items) for text, items, show in marks if show]


def truth_text(report: Report, rows_json: Sequence[dict]) -> str:
    """The terminal version: one block per row, metric | estimate [CI] | truth."""
    k = report.k
    out = []
    for entry in rows_json:
        s = entry["setting"] or {}
        out.append(
            f"{entry['base_model']}  T={s.get('temperature')}  "
            f"({entry['num_questions']} questions x n={entry['n']} samples)"
        )
        for m in shown_metrics(k) + [PASS_AT_1]:
            out.append(
                f"  {m:<15} {_estimate(report, entry, m):<22} "
                f"truth {_pct_text(entry['truth'][m]['value']):>5}"
            )
    return "\n".join(out + [_marks_line(report, rows_json)])


#: the terminal's word for each mark the leaderboard's legend explains in full
_MARK_WORDS = {
    "posterior": "* = approximate",
    "wide": "+ = wider than needed",
    "unreliable": "! = unreliable",
    "no width": "[no width] = no interval from these counts",
}


def _marks_line(report: Report, rows_json: Sequence[dict]) -> str:
    """How many rerun intervals hold the truth, and the marks shown (in a word each; the
    leaderboard's legend says why): what "match the truth" rests on, counted, not claimed."""
    held = total = 0
    statuses = set()
    for entry in rows_json:
        cell = report.cells.get((entry["model"], entry["dataset"], "overall"))
        for m in shown_metrics(report.k) + [PASS_AT_1]:
            est = cell.metrics.get(m) if cell else None
            if est is None:
                continue
            statuses.add(est.rerun)
            truth = entry["truth"][m]["value"] / 100
            if est.rerun_low == est.rerun_low:  # an interval was given
                total += 1
                held += est.rerun_low - 1e-9 <= truth <= est.rerun_high + 1e-9
    marks = "; ".join(word for status, word in _MARK_WORDS.items() if status in statuses)
    why = f" Marks: {marks} (why: the legend in leaderboard.md)." if marks else ""
    return f"{held} of {total} rerun intervals hold the truth.{why}"


SIMULATION_DOC = f"""\
## How the simulation works

Two models are served by `gpassk_oc.demo.sim_endpoint.SimEndpoint` on 127.0.0.1. A
request's model name and temperature fix the probability p that its answer is correct;
correct answers contain the gold answer in `\\boxed{{}}`, wrong ones a wrong number or no
boxed answer. Draws are seeded (`--seed`), so a rerun gives the same counts.

* **{SHAKY}** (strong but unstable): p = 0.50, 0.55, …, 0.85 on the 8 problems of each
  split (both languages alike).
* **{STEADY}** (weaker but stable): p = 0.97 on the first 3 problems of each split, 0.03
  on the other 5.
* **Temperature**: p(T) = p + min(1, {TEMPERATURE_PULL}·T)·(0.5 − p) — hotter sampling
  pulls every question toward 0.5, the least stable value.

*Truth*: for k independent samples X ~ Binomial(k, p), so G-Pass@k_τ = P(X ≥ max(⌈τk⌉, 1)),
mG-Pass@k = (2/k)·Σ_(i=⌈k/2⌉+1..k) P(X ≥ i), pass@k = 1 − (1 − p)^k, averaged over
questions. The report's estimators (hypergeometric, from c of n samples) are unbiased for
exactly these values.

Answer checking is by rules only. Half of the simulated wrong replies state no answer ("I am
not sure how to finish this problem."). Such a reply is not empty, so no rule can call it
wrong: it is *undecided* — scored wrong and counted as `rule_undecided` in the accounting,
whose `no_answer` counts only empty or cut-off replies (0 here). The *verdict sensitivity*
table of the full report puts a range beside each value, `value (low–high)`: high is the
value if every undecided sample were right instead. It bounds how far the checker, not sampling,
could move a number; it is not a confidence interval. Here every undecided reply is wrong
by construction, so the value (the range's low end) is the right one.

Figures (`plots/`): their bands are the {{level}} *benchmark* intervals (a BCa bootstrap
over questions: what new questions like these would give), wider than the rerun intervals
of the table above, which are the ones the truth on these questions should fall in.

How to read it: pass@k says "solved at least once in k tries" — the shaky model wins it.
G-Pass@k_1.0 says "solved in all k tries": the steady model wins, and its stability gap
(pass@k − G-Pass@k_1.0) is far smaller. mG-Pass@k summarises τ from 0.5 to 1.
"""


def _demote_headings(markdown: str) -> str:
    """Nest a whole markdown document one heading level down."""
    return "\n".join("#" + line if line.startswith("#") else line for line in markdown.splitlines())


def _leaderboard_markdown(report: Report, rows_json: Sequence[dict]) -> str:
    """leaderboard.md: the banner, the truth table, the simulation's description and the
    full report (:func:`gpassk_oc.report.formats.markdown.render_markdown`)."""
    from gpassk_oc import report as report_mod

    return "\n".join(
        [
            f"# gpassk-oc demo — G-Pass@{report.k} leaderboard",
            "",
            f"**{SIMULATION_BANNER}**",
            "",
            truth_markdown(report, rows_json),
            "",
            SIMULATION_DOC.replace("{level}", f"{100 * report.level:g}%"),
            "---",
            "",
            "The full report (`gpassk-oc report`, per split × language):",
            "",
            _demote_headings(report_mod.render_markdown(report)),
        ]
    )


def _truth_json(report: Report, rows_json: list[dict], run_dir: Path) -> str:
    """report.json: the rows with their truth, marked as a simulation."""
    return (
        json.dumps(
            {
                "simulation": True,
                "description": SIMULATION_BANNER,
                "k": report.k,
                "confidence_level": report.level,
                "run_dir": str(run_dir),
                "rows": rows_json,
                "notes": report.notes,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )


def write_reports(run_dir: Path, out: Path, seed: int) -> tuple[list[dict], Report, list[Path]]:
    """Leaderboard + truth (markdown, JSON), the standard CSV, the leaderboard page (html)
    and the figures."""
    from gpassk_oc import report as report_mod
    from gpassk_oc.report.page import plots

    report = report_mod.build_report([run_dir], seed=seed)
    from gpassk_oc.report.data.report_model import report_warnings

    for line in report_warnings(report, [run_dir]):  # run health, as `gpassk-oc report` says it
        print(f"warning: {line}", flush=True)
    if not report.rows:
        raise DemoError(f"no usable results under {run_dir}: " + "; ".join(report.notes[:3]))
    rows_json = attach_truth(
        report, [r for r in report_mod.to_json_rows(report) if not r["greedy"]]
    )
    report_dir = out / "report"
    report_dir.mkdir(parents=True, exist_ok=True)
    markdown = _leaderboard_markdown(report, rows_json)
    files = [
        report_dir / "leaderboard.md",
        report_dir / "report.json",
        report_dir / "report.csv",
        report_dir / "leaderboard.html",
    ]
    files[0].write_text(markdown + "\n", encoding="utf-8")
    files[1].write_text(_truth_json(report, rows_json, run_dir), encoding="utf-8")
    files[2].write_text(report_mod.render_csv(report), encoding="utf-8")
    # the leaderboard page, as `gpassk-oc report RUN_DIR --format html --out …` writes it:
    # the page and, beside it, the per-row drill-down scripts it loads on a click
    from gpassk_oc.report.formats.format_registry import RenderOptions, render
    from gpassk_oc.report.page.drilldown import drill_files, drill_folder

    for path, body in drill_files(report, files[3]).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
    page = render(report, "html", RenderOptions(drill=drill_folder(files[3]).name))
    files[3].write_text(page, encoding="utf-8")
    files += plots.write_all(report, out / "plots", title_note="SIMULATED models")
    return rows_json, report, files
