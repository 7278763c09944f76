"""Collecting runs for ``report`` and ``compare``: find results files, read them through
the typed schema (:mod:`gpassk_oc.core.runs.results_file`), cross-check them, and group them.

Reading: ``{work_dir}/{timestamp}/results/{model_abbr}/{dataset_abbr}.json``. Any of a
work dir, a timestamp dir, a ``results`` dir or a results JSON may be given.

Settings come only from each file's run record (:class:`~gpassk_oc.core.runs.run_record.
RunRecord`, results schema 3), never from names: a file without a record (schema 1 or 2)
has unknown settings (a note says so) and is a row of its own.

Grouping: one row per sampling setting (the record's settings without the seed) × dataset
abbr. Runs of one setting that differ only in seed are pooled per question (``c`` and ``n``
summed — i.i.d. samples, so the estimator stays unbiased with a larger n) when their
question sets are identical; otherwise they are shown as separate rows with a note. The
same abbr found under several timestamps is a rerun: the latest timestamp wins. A results
file byte-identical to another (a folder copied under another seed or model name) is left
out with a note: it holds the same samples, not new ones.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.majority_vote import maj_table
from gpassk_oc.core.metrics.metric_keys import group_name
from gpassk_oc.core.metrics.question_scorer import metric_means
from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.runs.drill_fragment import save_drill
from gpassk_oc.core.runs.gc_pause import gc_paused
from gpassk_oc.core.runs.results_file import Results, ResultsError, read_results
from gpassk_oc.core.runs.results_summary import (
    RunSummary,
    quick_summary,
    read_summary,
    save_summary,
)
from gpassk_oc.core.runs.run_record import RunRecord
from gpassk_oc.report.data.health_warnings import health_warnings

# the work dir's layout has one owner (workdir); find_result_files is still importable here
from gpassk_oc.workdir import find_result_files, timestamp_of
from gpassk_oc.worker_pool import Workers

QuestionKey = tuple  # (split, language, index, question-hash or None)
#: top-level values that differ from the recomputation by more than this (percent points)
#: are reported, so a stale or differently computed summary is visible.
CROSS_CHECK_TOLERANCE = 0.05
#: first reads worth worker processes: fewer files (~60 ms each at grid size) cost less
#: than starting the workers (~0.3 s)
COLD_FILES_FOR_WORKERS = 8


# --------------------------------------------------------------------------- data
@dataclass
class Run:
    """One results file: its summary (no samples) and per-question counts of the questions
    with a judged sample (``keys``, ``n``, ``c``… aligned)."""

    model_abbr: str
    dataset_abbr: str
    path: Path
    timestamp: str
    setting: RunRecord | None  # the file's run record; None: settings unknown
    keys: list[QuestionKey]
    n: np.ndarray
    c: np.ndarray
    undecided: np.ndarray
    unjudged: np.ndarray
    summary: RunSummary
    notes: list[str] = field(default_factory=list)
    #: run-health warnings (see :mod:`gpassk_oc.report.data.health_warnings`)
    warnings: list[str] = field(default_factory=list)
    #: byte-identical copies of this results file, left out of the rows (:func:`group_runs`)
    copies: list[Run] = field(default_factory=list)

    @property
    def base_model(self) -> str:
        return self.setting.model if self.setting else self.model_abbr

    @property
    def undecided_basis(self) -> str:
        """'exact', 'upper bound' or 'unknown' (see Results.undecided_basis)."""
        return self.summary.undecided_basis

    @property
    def is_greedy(self) -> bool:
        """Greedy = one sample per question, or temperature 0 on a k=[1] dataset. A
        temperature-0 run with many samples stays a table row (its G-Pass is meaningful)."""
        if bool(len(self.n)) and int((self.n + self.unjudged).max()) <= 1:
            return True
        return (
            self.setting is not None
            and self.setting.temperature == 0
            and self.summary.info.ks == [1]
        )


@dataclass
class Row:
    """A table row: one sampling setting on one dataset (possibly several pooled seeds)."""

    label: str
    dataset_abbr: str
    runs: list[Run]
    keys: list[QuestionKey]
    n: np.ndarray
    c: np.ndarray
    undecided: np.ndarray
    unjudged: np.ndarray
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of_run(cls, run: Run) -> Row:
        return cls(
            run.model_abbr,
            run.dataset_abbr,
            [run],
            run.keys,
            run.n,
            run.c,
            run.undecided,
            run.unjudged,
            list(run.notes),
        )

    @property
    def setting(self) -> RunRecord | None:
        return self.runs[0].setting

    @property
    def base_model(self) -> str:
        return self.runs[0].base_model

    @property
    def warnings(self) -> list[str]:
        """The run-health warnings of every pooled run."""
        return [w for r in self.runs for w in r.warnings]

    @property
    def seeds(self) -> list[Any]:
        """The recorded seeds of the pooled runs (numbers, 'not sent' or None: unknown)."""
        values = list(dict.fromkeys(r.setting.seed for r in self.runs if r.setting))
        return sorted(values, key=lambda v: (not isinstance(v, (int, float)), str(v)))

    @property
    def undecided_basis(self) -> str:
        """The weakest basis of the pooled runs."""
        bases = {r.undecided_basis for r in self.runs}
        return next(b for b in ("unknown", "upper bound", "exact") if b in bases)


def question_key(split: str, language: str, index: int, text: str | None) -> QuestionKey:
    """(split, language, index, hash of the question text) — the hash catches two runs
    whose indices agree but whose questions differ (another dataset version)."""
    digest = hashlib.sha1(text.encode()).hexdigest()[:12] if text is not None else None
    return (split, language, index, digest)


def run_results(run: Run) -> Results:
    """The run's whole results file, every sample included: for the tools that need the
    samples themselves (``audit``, verdict-error corrections by source). The tables read
    only the summary; this re-reads the file, so callers keep one run's at a time."""
    return read_results(run.path)


def subset_name(key: QuestionKey) -> str:
    """The split × language group of a question key ('' when the file names neither)."""
    return group_name(key[0], key[1])


def subset_masks(keys: Sequence[QuestionKey], overall: str = "overall") -> dict[str, np.ndarray]:
    """Boolean masks over *keys*: *overall* (every question), then one per split × language
    group, in name order."""
    names = [subset_name(k) for k in keys]
    masks = {overall: np.ones(len(keys), dtype=bool)}
    for name in sorted(set(names) - {""}):
        masks[name] = np.array([n == name for n in names], dtype=bool)
    return masks


def _run_notes(summary: RunSummary, where: str, unjudged_all: int) -> list[str]:
    """The notes of a run read from *summary*: the file's own, what its run record does
    not know, the questions without a judged sample."""
    notes = list(summary.notes)
    if summary.record is None:
        notes.append(
            f"{where}: results schema {summary.schema_version} has no run record: "
            "temperature, top_p, top_k, repetition_penalty, seed and max_out_len unknown "
            "(re-evaluate with this gpassk_oc to record them; names are not read)"
        )
    elif summary.record.unknown():
        notes.append(
            f"{where}: the run record does not know {', '.join(summary.record.unknown())} "
            f"(source: {summary.record.source})"
        )
    if unjudged_all:
        notes.append(f"{where}: {unjudged_all} questions with no judged sample excluded")
    return notes


def load_run(path: Path, summary: RunSummary | None = None) -> tuple[Run | None, list[str]]:
    """Read one results file's summary (:func:`~gpassk_oc.core.runs.results_summary.read_summary`:
    from its sidecar when that matches the file, else parsed and cross-checked; see
    :func:`keep_summaries`), or use *summary* when the caller has read it already; None
    (with a one-line note) when it cannot be used."""
    model_abbr, dataset_abbr = path.parent.name, path.stem
    where = f"{model_abbr}/{dataset_abbr}"
    if summary is None:
        try:
            summary = read_summary(path)
        except ResultsError as exc:
            return None, [f"{where}: skipped: {exc}"]
    judged = [i for i, n in enumerate(summary.n) if n > 0]
    keys = [
        question_key(summary.splits[i], summary.languages[i], summary.indices[i], summary.texts[i])
        for i in judged
    ]
    notes = _run_notes(summary, where, len(summary) - len(judged))
    if len(set(keys)) != len(keys):
        return None, notes + [f"{where}: duplicate question ids in details; skipped"]
    if not keys:
        return None, notes + [f"{where}: no usable question in details; skipped"]
    n, c, u, j = (
        np.array([getattr(summary, name)[i] for i in judged], dtype=np.int64)
        for name in ("n", "c", "undecided", "unjudged")
    )
    run = Run(
        model_abbr,
        dataset_abbr,
        path,
        timestamp_of(path),
        summary.record,
        keys,
        n,
        c,
        u,
        j,
        summary,
        notes,
        health_warnings(summary, where),
    )
    if summary.checks is None:  # a fresh read: checked once, kept by keep_summaries
        summary.checks = cross_check(run)
        # a sidecar without checks (an older writer's) is saved again with them, or
        # every later report would check that file anew
        summary.resave = True
    return run, []


def keep_summaries(runs: Iterable[Run]) -> int:
    """Write the summary sidecar of every run read from its results file this time, and the
    drill-down share made this time (``save_summary``, ``save_drill``), for the next report.
    Called after a command succeeded: a refused command writes nothing. Returns how many
    summaries were written."""
    written = 0
    for run in runs:
        if not run.summary.from_sidecar or run.summary.resave:
            written += save_summary(run.path, run.summary)
        fragment = run.summary.drill
        if fragment is not None and not fragment.from_sidecar:
            save_drill(run.path, fragment)
    return written


def maj_values(run: Run, ks: Sequence[int]) -> np.ndarray:
    """(questions × ks) maj@k of the run's questions (aligned with ``run.keys``); NaN where
    the file has no votes for a question or k exceeds its judged samples."""
    profiles = [p for p, n in zip(run.summary.profiles, run.summary.n) if n > 0]
    out = np.full((len(profiles), len(ks)), np.nan)
    present = {i: p for i, p in enumerate(profiles) if p is not None}
    if present:
        out[list(present)] = maj_table(list(present.values()), ks)
    return out


def _recomputed(run: Run, mask: np.ndarray, specs: Sequence[MetricSpec]) -> dict[str, float]:
    """The percent values of *specs* over the masked questions, by the evaluator's own
    scorer (:func:`~gpassk_oc.core.metrics.question_scorer.metric_means`, all ks and τs in one call)
    from the recorded counts; metrics the evaluator never writes (pass@k > 1, gap@k) by the
    report's statistics."""
    info = run.summary.info
    ks = sorted({s.k for s in specs if s.definition.opencompass})
    taus = sorted({s.tau for s in specs if s.tau is not None})
    # questions share (n, c): the scorer sees each distinct pair once, with its count
    pairs = Counter(zip(run.n[mask].tolist(), run.c[mask].tolist()))
    n, c = [p[0] for p in pairs], [p[1] for p in pairs]
    means = metric_means(info.n, n, c, ks, taus, info.mg_mode, weights=list(pairs.values()))
    missing = [s for s in specs if s.key not in means]
    if missing:
        # the values alone: an interval would fit difficulty priors per group, for nothing
        # (imported here: a worker reading files needs the interval code only for these)
        from gpassk_oc.core.uncertainty.metric_intervals import point_means

        rest = point_means(run.n[mask], run.c[mask], missing)
        means.update({key: 100 * value for key, value in rest.items()})
    return means


def cross_check(run: Run) -> list[str]:
    """Compare the file's top-level metrics (overall and per split × language group) with
    the recomputation from the details (one scorer call and one vote table per group)."""
    by_group = subset_masks(run.keys, overall="")  # result keys spell overall as no group
    parsed = [p for p in run.summary.metric_specs() if p[2] in by_group]
    maj_ks = sorted({spec.k for *_, spec in parsed if spec.definition.needs_votes})
    votes = maj_values(run, maj_ks) if maj_ks else None
    mine_of: dict[str, dict[str, float]] = {}
    for group in {p[2] for p in parsed}:
        specs = [spec for _, _, g, spec in parsed if g == group and not spec.definition.needs_votes]
        mine_of[group] = _recomputed(run, by_group[group], specs) if specs else {}
    out = []
    for key, value, group, spec in parsed:
        if spec.definition.needs_votes:  # a vote needs the classes, not (n, c)
            assert votes is not None
            values = votes[by_group[group], maj_ks.index(spec.k)]
            values = values[~np.isnan(values)]
            mine = 100 * float(values.mean()) if values.size else math.nan
        else:
            mine = mine_of[group].get(spec.key, math.nan)
        if math.isfinite(mine) and abs(mine - value) > CROSS_CHECK_TOLERANCE:
            out.append(
                f"{run.model_abbr}/{run.dataset_abbr}: top-level {key} = "
                f"{value:.2f} but the details give {mine:.2f}"
            )
    return out


# --------------------------------------------------------------------------- grouping
def _pooled_label(abbrs: Sequence[str]) -> str:
    """One label for pooled runs: their common head and tail with the differing middles
    joined by '+' (``m_rs1_l8`` + ``m_rs2_l8`` → ``m_rs1+2_l8``); display only."""
    if len(set(abbrs)) <= 1:
        return abbrs[0]
    head = len(os.path.commonprefix(list(abbrs)))
    tail = len(os.path.commonprefix([a[head:][::-1] for a in abbrs]))
    middles = [a[head : len(a) - tail] for a in abbrs]
    return abbrs[0][:head] + "+".join(middles) + abbrs[0][len(abbrs[0]) - tail :]


def describe_key_difference(a: Sequence[QuestionKey], b: Sequence[QuestionKey]) -> str:
    """How two question sets differ, for refusal messages."""
    sa, sb = set(a), set(b)
    return f"{len(sa)} vs {len(sb)} questions, {len(sa - sb)} only in the first, {len(sb - sa)} only in the second"


def _pooled_row(members: list[Run], dataset_abbr: str) -> Row:
    """One row of the seeds *members* (same questions): their counts per question summed."""
    first = members[0]
    order = {k: i for i, k in enumerate(first.keys)}
    n, c, u, j = (np.zeros(len(first.keys), dtype=np.int64) for _ in range(4))
    for m in members:
        idx = np.array([order[k] for k in m.keys])
        n[idx] += m.n
        c[idx] += m.c
        u[idx] += m.undecided
        j[idx] += m.unjudged
    row_notes = [note for m in members for note in m.notes]
    row_notes.append(
        f"pooled {len(members)} seeds ({', '.join(m.model_abbr for m in members)}): "
        "samples per question combined"
    )
    return Row(
        _pooled_label([m.model_abbr for m in members]),
        dataset_abbr,
        members,
        list(first.keys),
        n,
        c,
        u,
        j,
        row_notes,
    )


def group_runs(runs: Sequence[Run], pool_seeds: bool = True) -> tuple[list[Row], list[Run]]:
    """Rows (sampled runs) and greedy runs; see the module docstring for the rules. What
    grouping decided is noted on the runs and rows it concerns (so JSON rows carry it)."""
    latest: dict[tuple[str, str], Run] = {}
    for run in sorted(runs, key=lambda r: (r.timestamp, str(r.path))):
        key = (run.model_abbr, run.dataset_abbr)
        if key in latest:
            # a run note, so it reaches the row (and its JSON ``notes``), not only stderr
            run.notes.append(
                f"{run.model_abbr}/{run.dataset_abbr}: found in several timestamps; "
                f"using {run.timestamp or run.path} over {latest[key].timestamp or latest[key].path}"
            )
        latest[key] = run
    kept = _without_copies(list(latest.values()))
    greedy = [r for r in kept if r.is_greedy]
    groups: dict[tuple[Any, str], list[Run]] = {}
    for run in kept:
        if run.is_greedy:
            continue
        setting_key = run.setting.sampling_key() if (run.setting and pool_seeds) else run.model_abbr
        groups.setdefault((setting_key, run.dataset_abbr), []).append(run)
    rows: list[Row] = []
    for (_, dataset_abbr), members in groups.items():
        members.sort(key=lambda r: (str(r.setting.seed) if r.setting else "", r.model_abbr))
        first = members[0]
        if len(members) == 1:
            rows.append(Row.of_run(first))
            continue
        differing = [m for m in members[1:] if set(m.keys) != set(first.keys)]
        if differing:
            why = (
                f"{first.model_abbr} and {len(members) - 1} other seed(s) on {dataset_abbr}: NOT pooled "
                f"because their question sets differ ({describe_key_difference(first.keys, differing[0].keys)}); "
                "shown as separate rows"
            )
            for m in members:
                rows.append(Row.of_run(m))
                rows[-1].notes.append(why)
            continue
        rows.append(_pooled_row(members, dataset_abbr))
    return rows, greedy


def _without_copies(runs: list[Run]) -> list[Run]:
    """*runs* without byte-identical copies of an earlier run on the same dataset abbr (in
    timestamp, then path order).
    A results folder copied under another seed or model name is the same samples, not new
    ones: pooled like a seed it would double n and narrow every interval on no new data.
    The kept run's notes name each copy left out."""
    first_of: dict[tuple[str, tuple[int, str]], Run] = {}
    kept: list[Run] = []
    for run in runs:
        # within one dataset abbr: only there would a copy be pooled or ranked as a rival
        source = (run.dataset_abbr, run.summary.source) if run.summary.source else None
        original = first_of.get(source) if source is not None else None
        if original is None:
            if source is not None:
                first_of[source] = run
            kept.append(run)
            continue
        original.copies.append(run)
        original.notes.append(
            f"{original.model_abbr}/{original.dataset_abbr}: {run.path} is a byte-identical "
            "copy of this results file, so the same samples, not another run: left out"
        )
    return kept


def collect(
    paths: Sequence[str | Path], pool_seeds: bool = True, workers: int | Workers = 1
) -> tuple[list[Row], list[Run], list[str]]:
    """Find, load, cross-check and group every results file under *paths*. Files whose
    summary sidecar is current are read here; the others (a first read parses the whole
    file) in up to *workers* processes (a count, or the caller's :class:`gpassk_oc.worker_pool.
    Workers`): the same runs either way."""
    files, notes = find_result_files(paths)
    with gc_paused():  # every run's summary: many containers, no cycle (see gc_pause)
        quick = {path: quick_summary(path) for path in files}
        cold = [path for path in files if quick[path] is None]
        with nullcontext(workers) if isinstance(workers, Workers) else Workers(workers) as pool:
            first_reads = dict(zip(cold, pool.map(load_run, cold, least=COLD_FILES_FOR_WORKERS)))
        runs: list[Run] = []
        for path in files:
            summary = quick[path]
            run, run_notes = load_run(path, summary) if summary else first_reads[path]
            notes += run_notes
            if run is not None:
                runs.append(run)
                notes += run.summary.checks or []
    rows, greedy = group_runs(runs, pool_seeds)
    return rows, greedy, notes
