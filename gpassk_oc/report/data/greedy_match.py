"""Which greedy (temperature-0) run stands beside a sampled row in the *Greedy* column:
the same base model on the same dataset family, covering every question of the row."""

from __future__ import annotations

from collections.abc import Sequence

from gpassk_oc.report.data.collect import Row, Run

__all__ = ["pick_greedy"]


def _dataset_family(run: Run | Row) -> str:
    """Runs on one dataset version share a family (the record's); else only their abbr."""
    first = run if isinstance(run, Run) else run.runs[0]
    record = first.setting
    if record is not None and record.dataset_version is not None:
        return f"v{record.dataset_version}"
    return first.dataset_abbr


def pick_greedy(row: Row, greedy: Sequence[Run]) -> tuple[Run | None, str | None]:
    """The temperature-0 run of the row's base model on the same dataset family that
    covers every question of the row (restricted to them later); else a reason."""
    candidates = [
        g
        for g in greedy
        if g.base_model == row.base_model and _dataset_family(g) == _dataset_family(row)
    ]
    if not candidates:
        return None, None
    need = set(row.keys)
    covering = [g for g in candidates if need <= set(g.keys)]
    if not covering:
        best = max(candidates, key=lambda g: len(need & set(g.keys)))
        return None, (
            f"{row.label}: greedy run {best.model_abbr} covers only "
            f"{len(need & set(best.keys))}/{len(need)} of its questions; Greedy not shown"
        )
    # prefer an exact question-set match, then the latest
    covering.sort(key=lambda g: (set(g.keys) == need, g.timestamp))
    return covering[-1], None
