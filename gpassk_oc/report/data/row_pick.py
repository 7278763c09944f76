"""Picking the one run (row) a path and a model/dataset name mean, and lining two rows up
question by question: what ``compare`` and ``plan`` pair."""

from __future__ import annotations

import numpy as np

from gpassk_oc.report.data.collect import Row, collect, describe_key_difference

__all__ = ["CompareError", "aligned", "same_pair", "select_row"]


class CompareError(Exception):
    """A comparison that cannot be made; the message says why."""


def _candidates(path: str, pool_seeds: bool) -> tuple[list[Row], list[str]]:
    rows, greedy, notes = collect([path], pool_seeds)
    # greedy runs are not table rows but may be compared too
    rows = rows + [Row.of_run(g) for g in greedy]
    return rows, notes


def select_row(
    path: str, model: str | None, dataset: str | None, side: str, pool_seeds: bool = True
) -> tuple[Row, list[str]]:
    """The one run (row) of *path* matching *model* and *dataset*; CompareError otherwise."""
    rows, notes = _candidates(path, pool_seeds)
    if not rows:
        raise CompareError(
            f"{side}: no usable run under {path}" + (f" ({'; '.join(notes)})" if notes else "")
        )
    candidates = rows
    if dataset:
        exact = [r for r in rows if r.dataset_abbr == dataset]
        rows = exact or [r for r in rows if dataset in r.dataset_abbr]
    if model:
        for match in (
            lambda r: r.label == model or any(x.model_abbr == model for x in r.runs),
            lambda r: r.base_model == model,
            lambda r: model in r.label,
        ):
            chosen = [r for r in rows if match(r)]
            if chosen:
                rows = chosen
                break
        else:
            rows = []
    if not rows and model:
        _refuse_copy(candidates, model, path, side)
    if len(rows) != 1:
        # nothing matched: list every run there is, so the user can pick one
        shown = rows or candidates
        found = "; ".join(f"{r.label} on {r.dataset_abbr}" for r in shown)
        flag = f"--model-{side.lower()}"
        asked = " ".join(
            f"{name} {value!r}"
            for name, value in ((flag, model), ("--dataset", dataset))
            if value is not None
        )
        what = (
            f"no run under {path} matches {asked}"
            if not rows
            else (f"{len(rows)} runs under {path} match")
        )
        raise CompareError(
            f"{side}: {what}; choose one with {flag} and/or --dataset (candidates: {found})"
        )
    return rows[0], notes


def _refuse_copy(candidates: list[Row], model: str, path: str, side: str) -> None:
    """CompareError naming the run *model* asks for when it was left out as a byte-identical
    copy of another (the same samples: there is nothing of its own to compare)."""
    for row in candidates:
        for run in row.runs:
            for copy in run.copies:
                if copy.model_abbr == model or model in copy.model_abbr:
                    raise CompareError(
                        f"{side}: {copy.model_abbr} under {path} is a byte-identical copy of "
                        f"{run.model_abbr}'s results file ({copy.path}), so the same samples, "
                        "not another run: nothing of its own to compare"
                    )


def aligned(a: Row, b: Row) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(n_a, c_a, n_b, c_b) in A's question order; CompareError if the sets differ."""
    if set(a.keys) != set(b.keys):
        raise CompareError(
            "refusing a paired comparison: the question sets differ "
            f"(A {describe_key_difference(a.keys, b.keys)}; A={a.label}, B={b.label})"
        )
    order = {key: i for i, key in enumerate(b.keys)}
    idx = np.array([order[key] for key in a.keys])
    return a.n, a.c, b.n[idx], b.c[idx]


def same_pair(a: Row, b: Row, pick: str = "--model-a / --model-b") -> bool:
    """True where A and B hold the same counts on every shared question (flagged);
    CompareError where they are the same results files (a run paired with itself: its
    difference is 0 on every question, whatever the model), naming the flags (*pick*)
    that choose another."""
    files_a = {r.path.resolve() for r in a.runs}
    if files_a == {r.path.resolve() for r in b.runs}:
        shown = ", ".join(sorted(str(f) for f in files_a))
        raise CompareError(
            f"A and B are the same run ({a.label}: {shown}); a paired comparison needs two "
            f"different runs (pick another with {pick})"
        )
    sources_a = {r.summary.source for r in a.runs}
    if None not in sources_a and sources_a == {r.summary.source for r in b.runs}:
        raise CompareError(
            f"A and B are the same run: {', '.join(str(r.path) for r in b.runs)} is a "
            f"byte-identical copy of {', '.join(str(r.path) for r in a.runs)}, so the same "
            "samples; a paired comparison needs two different runs"
        )
    n_a, c_a, n_b, c_b = aligned(a, b)
    return bool(np.array_equal(n_a, n_b) and np.array_equal(c_a, c_b))
