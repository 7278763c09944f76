"""``gpassk-oc report``: the paper's G-Pass@k tables, with error bars, from OpenCompass
work dirs.

Everything is recomputed from the per-question ``details`` our evaluator writes
(``c`` correct out of ``n`` judged samples per question) with the exact metric core;
the top-level numbers of a results file are only cross-checked. Uncertainty comes from
:mod:`gpassk_oc.core.stats`.

Reading: ``{work_dir}/{timestamp}/results/{model_abbr}/{dataset_abbr}.json``. Any of a
work dir, a timestamp dir, a ``results`` dir or a results JSON may be given.

Grouping: one row per sampling setting (the model abbr without its seed) × dataset abbr.
Runs of one setting that differ only in seed are pooled per question (``c`` and ``n``
summed — i.i.d. samples, so the estimator stays unbiased with a larger n) when their
question sets are identical; otherwise they are shown as separate rows with a note. The
same abbr found under several timestamps is a rerun: the latest timestamp wins.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import html
import io
import json
import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from .core.naming import DatasetSetting, ModelSetting, parse_dataset_abbr, parse_model_abbr
from .core.stats import DEFAULT_LEVEL, DEFAULT_RESAMPLES, Estimate, MetricSpec, parse_metric, summarize

QuestionKey = tuple  # (split, language, index, question-hash or None)
TABLE_TAUS = ("0.5", "0.75", "1.0")
ALL_TAUS = ("0.0", "0.25", "0.5", "0.75", "1.0")
DASH = "—"
#: top-level values that differ from the recomputation by more than this (percent points)
#: are reported, so a stale or differently computed summary is visible.
CROSS_CHECK_TOLERANCE = 0.05


# --------------------------------------------------------------------------- data
@dataclass
class Run:
    """One results file: per-question (n, c) aligned with question keys."""

    model_abbr: str
    dataset_abbr: str
    path: Path
    timestamp: str
    setting: ModelSetting | None
    dataset: DatasetSetting | None
    keys: list[QuestionKey]
    n: np.ndarray
    c: np.ndarray
    top: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @property
    def base_model(self) -> str:
        return self.setting.model if self.setting else self.model_abbr

    @property
    def is_greedy(self) -> bool:
        """Greedy = one sample per question, or temperature 0 on a k=[1] dataset. A
        temperature-0 run with many samples stays a table row (its G-Pass is meaningful)."""
        if bool(len(self.n)) and int(self.n.max()) <= 1:
            return True
        return (self.setting is not None and self.setting.temperature == 0
                and self.dataset is not None and self.dataset.ks == (1,))


@dataclass
class Row:
    """A table row: one sampling setting on one dataset (possibly several pooled seeds)."""

    label: str
    dataset_abbr: str
    runs: list[Run]
    keys: list[QuestionKey]
    n: np.ndarray
    c: np.ndarray
    notes: list[str] = field(default_factory=list)

    @property
    def setting(self) -> ModelSetting | None:
        return self.runs[0].setting

    @property
    def base_model(self) -> str:
        return self.runs[0].base_model

    @property
    def seeds(self) -> list[int]:
        return sorted({r.setting.seed for r in self.runs if r.setting})


def question_key(detail: dict[str, Any], position: int) -> QuestionKey:
    """(split, language, index, hash of the question text) — the hash catches two runs
    whose indices agree but whose questions differ (another dataset version)."""
    text = detail.get("question")
    digest = hashlib.sha1(str(text).encode()).hexdigest()[:12] if text is not None else None
    index = detail.get("index", position)
    return (str(detail.get("split", "")), str(detail.get("language", "")), index, digest)


def _timestamp_of(path: Path) -> str:
    """The ``{timestamp}`` dir above ``results/`` ('' when the layout is not standard)."""
    parts = path.parts
    if len(parts) >= 4 and parts[-3] == "results":
        return parts[-4]
    return ""


def find_result_files(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """Every ``results/{model}/{dataset}.json`` under the given paths (or the JSON files
    themselves), plus notes for paths that hold none."""
    found: list[Path] = []
    notes: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.append(path)
            continue
        if not path.is_dir():
            notes.append(f"{path}: no such file or directory")
            continue
        hits = [p for p in sorted(path.rglob("*.json"))
                if p.parent.parent.name == "results" or (path.name == "results" and p.parent.parent == path)]
        if not hits:
            notes.append(f"{path}: no results/{{model}}/{{dataset}}.json files found")
        found.extend(hits)
        notes.extend(_missing_results(path))
    return list(dict.fromkeys(p.resolve() for p in found)), notes


def _missing_results(path: Path) -> list[str]:
    """Predictions without results: the evaluation step failed or never ran."""
    notes = []
    for pred_dir in sorted(path.rglob("predictions")):
        if not pred_dir.is_dir():
            continue
        results_dir = pred_dir.parent / "results"
        for model_dir in sorted(p for p in pred_dir.iterdir() if p.is_dir()):
            missing: set[str] = set()
            for pred in model_dir.glob("*.json"):
                if pred.name.startswith("tmp_"):  # inference still running / interrupted
                    continue
                head, _, tail = pred.stem.rpartition("_")
                names = {pred.stem} | ({head} if head and tail.isdigit() else set())  # shards: _0, _1…
                if not any((results_dir / model_dir.name / f"{name}.json").exists() for name in names):
                    missing.add(min(names, key=len))
            for dataset in sorted(missing):
                notes.append(f"{pred_dir.parent.name}: predictions for {model_dir.name}/{dataset} "
                             "but no results file (evaluation missing or failed)")
    return notes


def load_run(path: Path) -> tuple[Run | None, list[str]]:
    """Read one results JSON; None (with a note) when it cannot be used."""
    model_abbr, dataset_abbr = path.parent.name, path.stem
    where = f"{model_abbr}/{dataset_abbr}"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        return None, [f"{where}: unreadable results file {path} ({exc})"]
    if not isinstance(data, dict):
        return None, [f"{where}: results file {path} is not a JSON object"]
    details = data.get("details")
    if not isinstance(details, list) or not details:
        return None, [f"{where}: no per-question details in {path}; skipped (top-level numbers "
                      "are not used — re-run the evaluation with gpassk_oc's evaluator)"]
    keys: list[QuestionKey] = []
    ns: list[int] = []
    cs: list[int] = []
    notes: list[str] = []
    mismatched = unjudged_all = malformed = 0
    for position, detail in enumerate(details):
        if not isinstance(detail, dict):
            malformed += 1
            continue
        correct = detail.get("correct")
        if isinstance(correct, list):
            # the raw judgements are primary; None = unjudged, excluded from n
            c = sum(1 for x in correct if x is True)
            n = sum(1 for x in correct if x is not None)
            if ("c" in detail and detail["c"] != c) or ("n" in detail and detail["n"] != n):
                mismatched += 1
        elif isinstance(detail.get("c"), int) and isinstance(detail.get("n"), int):
            c, n = detail["c"], detail["n"]
        else:
            malformed += 1
            continue
        if not 0 <= c <= n:
            malformed += 1
            continue
        if n == 0:
            unjudged_all += 1
            continue
        keys.append(question_key(detail, position))
        ns.append(n)
        cs.append(c)
    if mismatched:
        notes.append(f"{where}: {mismatched} questions' c/n fields disagree with their 'correct' "
                     "lists; the lists were used")
    if malformed:
        notes.append(f"{where}: {malformed} malformed detail entries skipped")
    if unjudged_all:
        notes.append(f"{where}: {unjudged_all} questions with no judged sample excluded")
    if len(set(keys)) != len(keys):
        notes.append(f"{where}: duplicate question ids in details; skipped")
        return None, notes
    if not keys:
        notes.append(f"{where}: no usable question in details; skipped")
        return None, notes
    expected = data.get("num_questions")
    if isinstance(expected, int) and expected != len(details):
        notes.append(f"{where}: num_questions={expected} but details hold {len(details)} questions")
    run = Run(model_abbr, dataset_abbr, path, _timestamp_of(path), parse_model_abbr(model_abbr),
              parse_dataset_abbr(dataset_abbr), keys, np.array(ns), np.array(cs), data, notes)
    return run, []


def subset_name(key: QuestionKey) -> str:
    """``split/language`` of a question ('' when the details carry neither)."""
    return f"{key[0]}/{key[1]}" if (key[0] or key[1]) else ""


def cross_check(run: Run) -> list[str]:
    """Compare the file's top-level metrics (overall, and ``{split}_{lang}/…`` per split
    and language) with the recomputation from the details."""
    by_prefix: dict[str, np.ndarray] = {"": np.ones(len(run.keys), dtype=bool)}
    for name in sorted({(k[0], k[1]) for k in run.keys}):
        by_prefix[f"{name[0]}_{name[1]}"] = np.array([(k[0], k[1]) == name for k in run.keys])
    wanted: dict[str, dict[str, MetricSpec]] = {}
    for key, value in run.top.items():
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        prefix, _, metric = key.rpartition("/")
        if prefix not in by_prefix:
            continue
        try:
            wanted.setdefault(prefix, {})[key] = parse_metric(metric)
        except ValueError:
            continue
    out = []
    for prefix, specs in wanted.items():
        mask = by_prefix[prefix]
        est = summarize(run.n[mask], run.c[mask], list(specs.values()), n_boot=0)
        for key, spec in specs.items():
            mine = 100 * est[spec.key].value
            if math.isfinite(mine) and abs(mine - float(run.top[key])) > CROSS_CHECK_TOLERANCE:
                out.append(f"{run.model_abbr}/{run.dataset_abbr}: top-level {key} = "
                           f"{float(run.top[key]):.2f} but the details give {mine:.2f}")
    return out


# --------------------------------------------------------------------------- grouping
def _setting_label(run: Run, seeds: Sequence[int] | None = None) -> str:
    if run.setting is None or seeds is None or len(seeds) <= 1:
        return run.model_abbr
    head, _, tail = run.model_abbr.rpartition(f"_rs{run.setting.seed}_")
    return f"{head}_rs{'+'.join(str(s) for s in seeds)}_{tail}"


def describe_key_difference(a: Sequence[QuestionKey], b: Sequence[QuestionKey]) -> str:
    """How two question sets differ, for refusal messages."""
    sa, sb = set(a), set(b)
    return f"{len(sa)} vs {len(sb)} questions, {len(sa - sb)} only in the first, {len(sb - sa)} only in the second"


def group_runs(runs: Sequence[Run], pool_seeds: bool = True) -> tuple[list[Row], list[Run], list[str]]:
    """Rows (sampled runs) and greedy runs; see the module docstring for the rules."""
    notes: list[str] = []
    latest: dict[tuple[str, str], Run] = {}
    for run in sorted(runs, key=lambda r: (r.timestamp, str(r.path))):
        key = (run.model_abbr, run.dataset_abbr)
        if key in latest:
            notes.append(f"{run.model_abbr}/{run.dataset_abbr}: found in several timestamps; "
                         f"using {run.timestamp or run.path} over {latest[key].timestamp or latest[key].path}")
        latest[key] = run
    greedy = [r for r in latest.values() if r.is_greedy]
    groups: dict[tuple[Any, str], list[Run]] = {}
    for run in latest.values():
        if run.is_greedy:
            continue
        setting_key = replace(run.setting, seed=0) if (run.setting and pool_seeds) else run.model_abbr
        groups.setdefault((setting_key, run.dataset_abbr), []).append(run)
    rows: list[Row] = []
    for (_, dataset_abbr), members in groups.items():
        members.sort(key=lambda r: r.setting.seed if r.setting else 0)
        first = members[0]
        if len(members) == 1:
            rows.append(Row(first.model_abbr, dataset_abbr, members, first.keys, first.n, first.c,
                            list(first.notes)))
            continue
        differing = [m for m in members[1:] if set(m.keys) != set(first.keys)]
        if differing:
            notes.append(
                f"{first.model_abbr} and {len(members) - 1} other seed(s) on {dataset_abbr}: NOT pooled "
                f"because their question sets differ ({describe_key_difference(first.keys, differing[0].keys)}); "
                "shown as separate rows")
            for m in members:
                rows.append(Row(m.model_abbr, dataset_abbr, [m], m.keys, m.n, m.c, list(m.notes)))
            continue
        order = {k: i for i, k in enumerate(first.keys)}
        n = np.zeros(len(first.keys), dtype=np.int64)
        c = np.zeros(len(first.keys), dtype=np.int64)
        for m in members:
            idx = np.array([order[k] for k in m.keys])
            n[idx] += m.n
            c[idx] += m.c
        row_notes = [note for m in members for note in m.notes]
        row_notes.append(f"pooled {len(members)} seeds ({', '.join(m.model_abbr for m in members)}): "
                         "samples per question combined")
        rows.append(Row(_setting_label(first, [m.setting.seed for m in members]), dataset_abbr,
                        members, list(first.keys), n, c, row_notes))
    return rows, greedy, notes


def _dataset_family(abbr: str) -> str:
    parsed = parse_dataset_abbr(abbr)
    return f"{parsed.name}-v{parsed.version}" if parsed else abbr


def pick_greedy(row: Row, greedy: Sequence[Run]) -> tuple[Run | None, str | None]:
    """The temperature-0 run of the row's base model on the same dataset family that
    covers every question of the row (restricted to them later); else a reason."""
    candidates = [g for g in greedy if g.base_model == row.base_model
                  and _dataset_family(g.dataset_abbr) == _dataset_family(row.dataset_abbr)]
    if not candidates:
        return None, None
    need = set(row.keys)
    covering = [g for g in candidates if need <= set(g.keys)]
    if not covering:
        best = max(candidates, key=lambda g: len(need & set(g.keys)))
        return None, (f"{row.label}: greedy run {best.model_abbr} covers only "
                      f"{len(need & set(best.keys))}/{len(need)} of its questions; Greedy not shown")
    # prefer an exact question-set match, then the latest
    covering.sort(key=lambda g: (set(g.keys) == need, g.timestamp))
    return covering[-1], None


# --------------------------------------------------------------------------- computation
@dataclass
class Cell:
    """Estimates of one row on one question subset (overall or one split × language)."""

    num_questions: int
    metrics: dict[str, Estimate]
    greedy: Estimate | None


@dataclass
class Report:
    k: int
    level: float
    n_boot: int
    seed: int
    rows: list[Row]
    greedy_runs: dict[tuple[str, str], str | None]  # (row label, dataset) -> greedy abbr
    cells: dict[tuple[str, str, str], Cell]  # (row label, dataset, subset) -> Cell
    subsets: dict[str, list[str]]  # dataset -> subset names ("overall", "AMC/en", …)
    notes: list[str]


def metric_keys(k: int) -> list[str]:
    """All metrics reported per cell (the table shows a subset)."""
    return ([f"G-Pass@{k}_{t}" for t in ALL_TAUS] + [f"mG-Pass@{k}", f"pass@{k}", "pass@1",
                                                     f"gap@{k}"])


def table_columns(k: int) -> list[str]:
    return ["Greedy"] + [f"G-Pass@{k}_{t}" for t in TABLE_TAUS] + [f"mG-Pass@{k}"]


def default_k(rows: Sequence[Row]) -> int | None:
    """The largest k any row's dataset declares (from ``ks`` or the abbr), else max n."""
    best = None
    for row in rows:
        ks: list[int] = []
        for run in row.runs:
            top_ks = run.top.get("ks")
            if isinstance(top_ks, list):
                ks += [int(k) for k in top_ks if isinstance(k, int)]
            elif run.dataset:
                ks += list(run.dataset.ks)
        candidate = max(ks) if ks else int(row.n.min())
        best = candidate if best is None else max(best, candidate)
    return best


def collect(paths: Sequence[str | Path], pool_seeds: bool = True) -> tuple[list[Row], list[Run], list[str]]:
    """Find, load, cross-check and group every results file under *paths*."""
    files, notes = find_result_files(paths)
    runs: list[Run] = []
    for path in files:
        run, run_notes = load_run(path)
        notes += run_notes
        if run is not None:
            runs.append(run)
            notes += cross_check(run)
    rows, greedy, group_notes = group_runs(runs, pool_seeds)
    return rows, greedy, notes + group_notes


def build_report(paths: Sequence[str | Path], k: int | None = None, *, level: float = DEFAULT_LEVEL,
                 n_boot: int = DEFAULT_RESAMPLES, seed: int = 0, pool_seeds: bool = True) -> Report:
    """Read, group and compute everything the outputs need."""
    rows, greedy, notes = collect(paths, pool_seeds)
    if k is None:
        k = default_k(rows) or 1
    specs = metric_keys(k)
    cells: dict[tuple[str, str, str], Cell] = {}
    greedy_runs: dict[tuple[str, str], str | None] = {}
    subsets: dict[str, list[str]] = {}

    by_dataset: dict[str, list[Row]] = {}
    for row in rows:
        by_dataset.setdefault(row.dataset_abbr, []).append(row)
    for dataset_abbr, members in by_dataset.items():
        union = set().union(*(set(r.keys) for r in members))
        for row in members:
            missing = union - set(row.keys)
            if missing:
                row.notes.append(f"covers {len(row.keys)}/{len(union)} questions of {dataset_abbr} "
                                 f"(missing {_describe(missing)}): not comparable with complete rows")
            n_min = int(row.n.min())
            if n_min < k:
                undefined = int((row.n < k).sum())
                if undefined == len(row.n):
                    row.notes.append(f"has n={int(row.n.max())} samples per question < k={k}: "
                                     f"G-Pass@{k} unavailable (largest possible k: {int(row.n.max())})")
                else:
                    row.notes.append(f"{undefined} questions have fewer than k={k} judged samples; "
                                     f"@{k} metrics average the other {len(row.n) - undefined}")
        # per split × language tables only when the details name them
        subsets[dataset_abbr] = ["overall"] + sorted({subset_name(q) for q in union} - {""})
        for row in members:
            g_run, why = pick_greedy(row, greedy)
            if why:
                row.notes.append(why)
            greedy_runs[(row.label, dataset_abbr)] = g_run.model_abbr if g_run else None
            g_lookup = ({key: (n, c) for key, n, c in zip(g_run.keys, g_run.n, g_run.c)}
                        if g_run else {})
            for subset in subsets[dataset_abbr]:
                if subset == "overall":
                    mask = np.ones(len(row.keys), dtype=bool)
                else:
                    mask = np.array([subset_name(q) == subset for q in row.keys], dtype=bool)
                if not mask.any():
                    continue
                est = summarize(row.n[mask], row.c[mask], specs, n_boot=n_boot, level=level, seed=seed)
                g_est = None
                if g_run is not None:
                    g_nc = np.array([g_lookup[q] for q, m in zip(row.keys, mask) if m])
                    g_est = summarize(g_nc[:, 0], g_nc[:, 1], ["pass@1"], n_boot=n_boot,
                                      level=level, seed=seed)["pass@1"]
                cells[(row.label, dataset_abbr, subset)] = Cell(int(mask.sum()), est, g_est)
    used_greedy = set(greedy_runs.values())
    for g in greedy:
        if g.model_abbr not in used_greedy:
            notes.append(f"{g.model_abbr}/{g.dataset_abbr}: greedy run not matched to any sampled row")
    for g in greedy:
        notes += g.notes
    for row in rows:
        prefixes = tuple(f"{r.model_abbr}/" for r in row.runs)  # run notes name their file already
        notes += [note if note.startswith(prefixes) else f"{row.label} on {row.dataset_abbr}: {note}"
                  for note in row.notes]
    return Report(k, level, n_boot, seed, rows, greedy_runs, cells, subsets, notes)


def _describe(keys: Iterable[QuestionKey]) -> str:
    counts: dict[str, int] = {}
    for key in keys:
        name = f"{key[0]}/{key[1]}"
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{v} in {k}" for k, v in sorted(counts.items()))


def sorted_rows(report: Report, dataset_abbr: str, subset: str = "overall",
                descending: bool = False) -> list[Row]:
    """Rows of a dataset ordered by mG-Pass@k (ascending, like the paper); rows without
    a value go last."""
    key = f"mG-Pass@{report.k}"
    members = [r for r in report.rows if r.dataset_abbr == dataset_abbr
               and (r.label, dataset_abbr, subset) in report.cells]

    def sort_key(row: Row) -> tuple[bool, float]:
        value = report.cells[(row.label, dataset_abbr, subset)].metrics[key].value
        if not math.isfinite(value):
            return (True, 0.0)
        return (False, -value if descending else value)

    return sorted(members, key=sort_key)


# --------------------------------------------------------------------------- output
def _pct(x: float) -> float | None:
    return round(100 * x, 4) if math.isfinite(x) else None


def _estimate_json(est: Estimate) -> dict[str, Any]:
    return {"value": _pct(est.value), "ci_low": _pct(est.ci_low), "ci_high": _pct(est.ci_high),
            "sampling_se": _pct(est.sampling_se), "n_questions": est.n_questions}


def _cell_metrics(cell: Cell) -> dict[str, Any]:
    out = {"Greedy": _estimate_json(cell.greedy) if cell.greedy else None}
    out.update({key: _estimate_json(est) for key, est in cell.metrics.items()})
    return out


def _setting_json(row: Row) -> dict[str, Any] | None:
    s = row.setting
    if s is None:
        return None
    return {"model": s.model, "temperature": s.temperature, "top_p": s.top_p, "top_k": s.top_k,
            "repetition_penalty": s.repetition_penalty, "seeds": row.seeds,
            "max_out_len": s.max_out_len}


def to_json_rows(report: Report, descending: bool = False) -> list[dict[str, Any]]:
    """The JSON output: one entry per row (percent values)."""
    out = []
    for dataset_abbr, subsets in report.subsets.items():
        for row in sorted_rows(report, dataset_abbr, descending=descending):
            overall = report.cells[(row.label, dataset_abbr, "overall")]
            out.append({
                "model": row.label,
                "dataset": dataset_abbr,
                "base_model": row.base_model,
                "setting": _setting_json(row),
                "runs": [str(r.path) for r in row.runs],
                "greedy_run": report.greedy_runs.get((row.label, dataset_abbr)),
                "k": report.k,
                "n": int(row.n.max()),
                "n_min": int(row.n.min()),
                "num_questions": overall.num_questions,
                "confidence_level": report.level,
                "resamples": report.n_boot,
                "metrics": _cell_metrics(overall),
                "splits": {s: {"num_questions": report.cells[(row.label, dataset_abbr, s)].num_questions,
                               "metrics": _cell_metrics(report.cells[(row.label, dataset_abbr, s)])}
                           for s in subsets[1:] if (row.label, dataset_abbr, s) in report.cells},
                "notes": row.notes,
            })
    return out


def _fmt(est: Estimate | None, ci: bool) -> str:
    if est is None or not math.isfinite(est.value):
        return DASH
    text = f"{100 * est.value:.1f}"
    if ci and math.isfinite(est.ci_low):
        text += f" [{100 * est.ci_low:.1f}, {100 * est.ci_high:.1f}]"
    return text


def _setting_text(row: Row) -> str:
    s = row.setting
    if s is None:
        return DASH
    seeds = ",".join(str(x) for x in row.seeds)
    return (f"T={s.temperature:g} top_p={s.top_p:g} top_k={s.top_k} rp={s.repetition_penalty:g} "
            f"seed={seeds} len={s.max_out_len}")


def table_rows(report: Report, dataset_abbr: str, subset: str, ci: bool = True,
               descending: bool = False) -> tuple[list[str], list[list[str]]]:
    """Header and string cells of one table."""
    header = ["Model", "Setting", "n", "Q"] + table_columns(report.k)
    body = []
    for row in sorted_rows(report, dataset_abbr, subset, descending):
        cell = report.cells[(row.label, dataset_abbr, subset)]
        values = [_fmt(cell.greedy, ci)] + [_fmt(cell.metrics.get(key), ci)
                                            for key in table_columns(report.k)[1:]]
        body.append([row.base_model if row.setting else row.label, _setting_text(row),
                     str(int(row.n.max())), str(cell.num_questions)] + values)
    return header, body


def _title(dataset_abbr: str, subset: str) -> str:
    return f"{dataset_abbr} — {subset}"


def _ci_note(report: Report) -> str:
    return (f"Values in percent; [low, high] = {100 * report.level:g}% percentile bootstrap over "
            f"questions ({report.n_boot} resamples, seed {report.seed}). n = samples per question, "
            f"Q = questions. Rows sorted by mG-Pass@{report.k}. Greedy: temperature-0 run of the "
            f"same base model ({DASH} when absent).")


def render_markdown(report: Report, ci: bool = True, descending: bool = False) -> str:
    out = [f"# G-Pass@{report.k} report", "", _ci_note(report), ""]
    for dataset_abbr, subsets in report.subsets.items():
        for subset in subsets:
            header, body = table_rows(report, dataset_abbr, subset, ci, descending)
            if not body:
                continue
            out += [f"## {_title(dataset_abbr, subset)}", "",
                    "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            out += ["| " + " | ".join(cells) + " |" for cells in body]
            out.append("")
    if report.notes:
        out += ["## Notes", ""] + [f"- {note}" for note in report.notes] + [""]
    return "\n".join(out)


def render_html(report: Report, ci: bool = True, descending: bool = False) -> str:
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
           f"<title>G-Pass@{report.k} report</title>",
           "<style>body{font-family:sans-serif}table{border-collapse:collapse;margin-bottom:1.5em}"
           "td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
           "td:first-child,td:nth-child(2){text-align:left}</style></head><body>",
           f"<h1>G-Pass@{report.k} report</h1>", f"<p>{esc(_ci_note(report))}</p>"]
    for dataset_abbr, subsets in report.subsets.items():
        for subset in subsets:
            header, body = table_rows(report, dataset_abbr, subset, ci, descending)
            if not body:
                continue
            out.append(f"<h2>{esc(_title(dataset_abbr, subset))}</h2><table>")
            out.append("<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>")
            out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>" for cells in body]
            out.append("</table>")
    if report.notes:
        out.append("<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>")
    out.append("</body></html>")
    return "\n".join(out)


def render_csv(report: Report, descending: bool = False) -> str:
    """Long CSV: one line per row × subset; value, CI and sampling SE per metric."""
    metrics = ["Greedy"] + metric_keys(report.k)
    header = ["model", "base_model", "temperature", "top_p", "top_k", "repetition_penalty", "seeds",
              "max_out_len", "dataset", "subset", "n", "num_questions"]
    for key in metrics:
        header += [key, f"{key} ci_low", f"{key} ci_high", f"{key} sampling_se"]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for dataset_abbr, subsets in report.subsets.items():
        for subset in subsets:
            for row in sorted_rows(report, dataset_abbr, subset, descending):
                cell = report.cells[(row.label, dataset_abbr, subset)]
                s = row.setting
                line: list[Any] = [row.label, row.base_model]
                line += ([s.temperature, s.top_p, s.top_k, s.repetition_penalty,
                          " ".join(map(str, row.seeds)), s.max_out_len] if s else [""] * 6)
                line += [dataset_abbr, subset, int(row.n.max()), cell.num_questions]
                for key in metrics:
                    est = cell.greedy if key == "Greedy" else cell.metrics[key]
                    if est is None:
                        line += [""] * 4
                    else:
                        line += ["" if v is None else v for v in
                                 (_pct(est.value), _pct(est.ci_low), _pct(est.ci_high), _pct(est.sampling_se))]
                writer.writerow(line)
    return buf.getvalue()


def render(report: Report, fmt: str, ci: bool = True, descending: bool = False) -> str:
    if fmt == "json":
        return json.dumps(to_json_rows(report, descending), indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return render_csv(report, descending)
    if fmt == "html":
        return render_html(report, ci, descending)
    return render_markdown(report, ci, descending)


# --------------------------------------------------------------------------- CLI
def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``report`` and ``compare``."""
    parser.add_argument("--k", type=int, default=None,
                        help="k for G-Pass@k (default: the largest k the runs declare)")
    parser.add_argument("--level", type=float, default=DEFAULT_LEVEL,
                        help="confidence level of the bootstrap intervals (default 0.95)")
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                        help="bootstrap resamples (default 10000; 0 disables the intervals)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--no-pool-seeds", action="store_true",
                        help="one row per seed instead of pooling the samples of seeds that share "
                             "a sampling setting")
    parser.add_argument("--out", type=Path, default=None, help="write here instead of stdout")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="OpenCompass work dir(s), timestamp dir(s), results dir(s) or results JSON files")
    parser.add_argument("--format", choices=("markdown", "csv", "json", "html"), default="markdown")
    parser.add_argument("--plots", type=Path, default=None, metavar="DIR",
                        help="also write figures (PNG + SVG + the plotted data as JSON) to DIR")
    parser.add_argument("--no-ci", action="store_true",
                        help="markdown/html: values only, like the paper's tables")
    parser.add_argument("--descending", action="store_true",
                        help="sort rows by mG-Pass@k descending (default ascending, like the paper)")
    add_common_arguments(parser)


def write_output(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)


def run(args: argparse.Namespace) -> int:
    if args.k is not None and args.k < 1:
        print("error: --k must be >= 1", file=sys.stderr)
        return 2
    report = build_report(args.paths, args.k, level=args.level, n_boot=args.resamples,
                          seed=args.seed, pool_seeds=not args.no_pool_seeds)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    if not report.rows:
        print("error: no usable sampled runs found under " + ", ".join(map(str, args.paths)),
              file=sys.stderr)
        return 2
    write_output(render(report, args.format, ci=not args.no_ci, descending=args.descending), args.out)
    if args.plots is not None:
        from .plots import write_all

        for path in write_all(report, args.plots):
            print(f"wrote {path}", file=sys.stderr)
    return 0
