"""The typed parts of a report that are attached after it is built: the any-k sweep
(:mod:`.sweep`), the published values (:mod:`.published_section`), rank intervals and
verdict-error rates and corrections (:mod:`gpassk_oc.report.ranking.corrections`). They
are data only; :class:`~.report_model.Report` holds them, the outputs read them."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from gpassk_oc.core.uncertainty.metric_intervals import Estimate
from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit

__all__ = [
    "ClassRates",
    "Entry",
    "ErrorRates",
    "PublishedCell",
    "PublishedView",
    "RankCell",
    "Sweep",
    "unused_line",
]


@dataclass
class Sweep:
    """Estimates for every k of ``ks``: ``cells[(row label, dataset)][metric key]``."""

    ks: list[int]
    taus: list[Fraction]
    cells: dict[tuple[str, str], dict[str, Estimate]] = field(default_factory=dict)
    #: why a row's vote metrics (maj@k) were not computed, per (row label, dataset)
    not_computed: dict[tuple[str, str], str] = field(default_factory=dict)


@dataclass(frozen=True)
class Entry:
    """One published column beside the run: value (percent), the run's benchmark interval
    (percent; None when it has none) and whether the value lies inside it."""

    column: str
    published: float
    low: float | None
    high: float | None
    inside: bool | None
    #: the status of the run's benchmark interval ('ok', 'unreliable': marked ! beside the
    #: comparison too, 'off', 'no width', …; None: the run has no such metric)
    status: str | None = None


@dataclass
class PublishedCell:
    model: str  # the published name
    benchmark: str
    entries: list[Entry]
    flags: list[str] = field(default_factory=list)


@dataclass
class PublishedView:
    source: str
    columns: list[str]  # the published columns, in order
    cells: dict[tuple[str, str], PublishedCell]  # (row label, dataset abbr) -> cell
    unmatched: list[str] = field(default_factory=list)  # rows without a published value
    #: why a row whose model is published has no published value, per (label, dataset)
    why_unmatched: dict[tuple[str, str], str] = field(default_factory=dict)


@dataclass
class ErrorRates:
    """Verdict error rates per source (:data:`ALL_SOURCES` = every source)."""

    points: dict[str, tuple[float, float]]
    draws: dict[str, np.ndarray] | None  # posterior draws (R × 2) per source; None: known
    origin: str  # "audit SHEET" or "stated"
    #: audited sources that gave one verdict only: not corrected (SourceAudit.one_verdict)
    skipped: list[str] = field(default_factory=list)
    #: the audits the rates came from (none for stated rates): which sides found no error
    audits: list[SourceAudit] = field(default_factory=list)
    #: stated sources no sample of the report's rows came from: why each corrects nothing
    unused: dict[str, str] = field(default_factory=dict)

    def unused_lines(self) -> list[str]:
        """The notes (markdown *Notes*, stderr, the CSV's ``corrected_note``) of :attr:`unused`."""
        return [unused_line(source, why) for source, why in self.unused.items()]


def unused_line(source: str, reason: str) -> str:
    """The note of a stated source whose rates correct nothing (*reason*: why)."""
    return f"--verdict-error by={source}: {reason}"


@dataclass
class ClassRates:
    """Class-level verdict error rates per source from an audit by class: (e1, e0) =
    (graded correct but not the gold, graded wrong but the gold), weighted by each
    class's chance to win (:mod:`gpassk_oc.core.uncertainty.corrected_majority`)."""

    points: dict[str, tuple[float, float]]
    draws: dict[str, np.ndarray]  # posterior draws (R × 2) per source
    origin: str  # "class audit SHEET"


@dataclass(frozen=True)
class RankCell:
    """A row's rank by one metric and its interval under each kind (None: not given)."""

    rank: int
    intervals: dict[str, tuple[int, int] | None] = field(default_factory=dict)
