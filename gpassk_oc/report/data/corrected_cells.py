"""One corrected value as a table cell, a JSON block and a legend — the text ``report``'s
corrected table and ``compare``'s corrected section both show, so a mark such as ‡ means
the same thing (and appears) in both.

A cell reads ``75.6 [64.0, 84.7]``: the corrected value and, in brackets, the intervals
of the kinds given that were computed (rerun first; ``; `` between kinds), then `` ‡``
where the row's counts reject the correction's model (:attr:`.Corrected.model_rejected`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from gpassk_oc.core.uncertainty.corrected_estimates import MISFIT_LEVEL, Corrected
from gpassk_oc.report.data.numbers import DASH, pct, pct_text

__all__ = [
    "MISFIT_FLAG",
    "computed_kinds",
    "corrected_cell",
    "corrected_json",
    "misfit_note",
]

#: beside a corrected value whose row's counts reject the correction's model
MISFIT_FLAG = "‡"


def _bounds(est: Corrected, kind: str) -> tuple[float, float]:
    return (est.rerun_low, est.rerun_high) if kind == "rerun" else (est.ci_low, est.ci_high)


def computed_kinds(estimates: Iterable[Corrected], kinds: Sequence[str]) -> tuple[str, ...]:
    """The interval kinds of *kinds* that some estimate has (the benchmark interval needs
    resamples: without them only the rerun one is computed, and a column of "—" would
    only say so in every cell)."""
    values = list(estimates)
    return tuple(k for k in kinds if any(np.isfinite(_bounds(e, k)).any() for e in values))


def corrected_cell(est: Corrected | None, kinds: Sequence[str]) -> str:
    """``value [low, high; low, high] ‡`` (see the module docstring); "—" for no value."""
    if est is None:
        return DASH
    if est.status == "not corrected":
        return "not corrected (--audit-classes)"
    if not np.isfinite(est.value):  # a metric undefined at k: no value to mark ‡
        return DASH
    mark = f" {MISFIT_FLAG}" if est.model_rejected else ""
    spans = [_bounds(est, kind) for kind in kinds]
    if not spans or not np.isfinite(spans).any():  # maj@k without an interval
        return pct_text(est.value) + mark
    inner = "; ".join(f"{pct_text(low)}, {pct_text(high)}" for low, high in spans)
    return f"{pct_text(est.value)} [{inner}]{mark}"


def misfit_note(estimates: Iterable[Corrected], subject: str = "that row's") -> str:
    """The legend of :data:`MISFIT_FLAG` (with a leading space), or "" when no estimate
    carries it. *subject* names whose counts were checked ("that row's", "that side's")."""
    if not any(e.model_rejected for e in estimates):
        return ""
    return (
        f" {MISFIT_FLAG}: {subject} counts reject the model the correction assumes "
        "(difficulties Beta-shaped, errors independent per sample): a prior of any shape "
        "fits them better than tables drawn from the fitted model itself do, with "
        f"p < {MISFIT_LEVEL:g}. The value can then be off by more than its interval, "
        "most at τ = 1 and large k (several points for G-Pass@16_1.0); see "
        "docs/verdict-error-and-ranks.md, 'When the model does not fit'."
    )


def corrected_json(est: Corrected) -> dict[str, Any]:
    """A corrected value in the results schema: percent values and bounds (None where not
    computed), its status, the model check (None where none ran) and whether it rejected."""
    return {
        "value": pct(est.value),
        "rerun_low": pct(est.rerun_low),
        "rerun_high": pct(est.rerun_high),
        "ci_low": pct(est.ci_low),
        "ci_high": pct(est.ci_high),
        "status": est.status,
        "model_check": None
        if np.isnan(est.misfit)
        else {"statistic": round(est.misfit, 2), "p": round(est.misfit_p, 4)},
        "model_rejected": est.model_rejected,
    }
