"""The one owner of metric names: how a metric key is spelled, and how it is parsed back.

Metric keys (what the results JSON, the report, ``compare`` and the demo all use)::

    G-Pass@{k}_{τ}     G-Pass@k at threshold τ; τ printed as OpenCompass prints it
                       (``repr(float(τ))``: 0.0, 0.25, 0.5, 0.75, 1.0, 0.55 …)
    mG-Pass@{k}        mean G-Pass@k over τ in (0.5, 1]
    pass@{k}           the unbiased pass@k (= G-Pass@k_0)
    gap@{k}            pass@k − G-Pass@k_1.0, the stability gap (report only)
    maj@{k}            majority vote among k samples drawn without replacement, ties
                       split evenly (:mod:`gpassk_oc.core.scoring.majority`); needs the
                       per-sample votes, not only (n, c)
    avg@{n}            mean accuracy over all n samples of each question, OpenCompass's
                       "accuracy (n runs average)" (the value of pass@1; the n says how
                       many samples it averages)
    accuracy           greedy (n = 1) runs: mean accuracy (= pass@1)

pass^k (τ-bench's name) is not a key of its own: it is ``G-Pass@{k}_1.0``
(:data:`PASS_HAT_K`).

A *group* is one split × language subset of a dataset, named ``{split}/{language}``
(e.g. ``AMC/en``); a per-group key is ``{group}/{metric}`` (``AMC/en/G-Pass@16_0.5``),
so the metric is always the part after the last ``/``. ``/`` was chosen over ``_``
because split names may hold underscores while the metric part never holds ``/``, and
OpenCompass's summarizer (``summarizers/default.py``) uses result keys verbatim as row
names — it splits dataset *abbrs* on ``_``, never metric keys. Results files of schema 1
spelled groups ``{split}_{language}``; :func:`legacy_group` reads those.

Pure core: standard library only (τ arrives as a Fraction, int or string; turning user
floats into exact Fractions is :func:`gpassk_oc.core.scoring.metrics.as_fraction`'s job).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "ACCURACY",
    "ALL_TAUS",
    "GROUP_SEP",
    "PASS_AT_1",
    "HEADLINE_TAUS",
    "KINDS",
    "MetricSpec",
    "format_tau",
    "g_pass_key",
    "gap_key",
    "pass_key",
    "group_name",
    "headline_metrics",
    "PASS_HAT_K",
    "avg_key",
    "legacy_group",
    "maj_key",
    "mg_pass_key",
    "parse_metric",
    "parse_result_key",
    "report_metrics",
    "result_key",
    "split_group",
]

GROUP_SEP = "/"
ACCURACY = "accuracy"
#: mean accuracy over judged samples; every results file has it
PASS_AT_1 = "pass@1"  # pass_key(1)
#: metric kinds: G-Pass@k_τ, mG-Pass@k, pass@k, stability gap, majority vote, avg@n
KINDS = ("G", "mG", "pass", "gap", "maj", "avg")
#: pass^k (τ-bench) is an alias, not a key: it is G-Pass@k at τ = 1
PASS_HAT_K = "G-Pass@{k}_1.0"
#: τ of the paper's tables (the headline columns) and every τ OpenCompass reports
HEADLINE_TAUS = (Fraction(1, 2), Fraction(3, 4), Fraction(1))
ALL_TAUS = (Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1))

_EXPECTED = "expected G-Pass@K_TAU, mG-Pass@K, pass@K, gap@K, maj@K or avg@N, e.g. G-Pass@16_0.75"
_KEY_RE = re.compile(
    r"^(?:G-Pass@(?P<gk>\d+)_(?P<tau>[0-9./]+)"
    r"|(?P<kind>mG-Pass|pass|gap|maj|avg)@(?P<k>\d+))$"
)
_KIND_OF = {"mG-Pass": "mG", "pass": "pass", "gap": "gap", "maj": "maj", "avg": "avg"}


def format_tau(tau: Fraction | int | str) -> str:
    """τ as it appears in keys: ``repr(float(τ))`` (Fraction(1, 2) → '0.5', 1 → '1.0')."""
    return repr(float(Fraction(tau)))


def g_pass_key(k: int, tau: Fraction | int | str) -> str:
    """``G-Pass@{k}_{τ}``."""
    return f"G-Pass@{int(k)}_{format_tau(tau)}"


def mg_pass_key(k: int) -> str:
    """``mG-Pass@{k}``."""
    return f"mG-Pass@{int(k)}"


def pass_key(k: int) -> str:
    """``pass@{k}``: at least one of k samples correct (``pass@1`` is mean accuracy)."""
    return f"pass@{int(k)}"


def gap_key(k: int) -> str:
    """``gap@{k}``: the stability gap pass@k − G-Pass@k_1.0."""
    return f"gap@{int(k)}"


def maj_key(k: int) -> str:
    """``maj@{k}``: majority vote among k samples (ties split evenly)."""
    return f"maj@{int(k)}"


def avg_key(n: int) -> str:
    """``avg@{n}``: mean accuracy over the n samples of each question."""
    return f"avg@{int(n)}"


@dataclass(frozen=True)
class MetricSpec:
    """One metric: ``kind`` in :data:`KINDS`, ``k``, and τ for kind "G" as an exact
    Fraction (so grids like i/k never go through a float)."""

    kind: str
    k: int
    tau: Fraction | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"metric kind must be one of {KINDS}, got {self.kind!r}")
        try:
            k = operator.index(self.k)  # ints and numpy integers, never bool/float
        except TypeError:
            k = 0
        if isinstance(self.k, bool) or k < 1:
            raise ValueError(f"metric k must be a positive integer, got {self.k!r}")
        object.__setattr__(self, "k", k)
        if (self.kind == "G") != (self.tau is not None):
            raise ValueError("a threshold τ belongs to G-Pass@k_τ and only to it")
        if self.tau is not None:
            tau = Fraction(self.tau)
            if not 0 <= tau <= 1:
                raise ValueError(f"metric threshold must lie in [0, 1], got {self.tau}")
            object.__setattr__(self, "tau", tau)

    @property
    def key(self) -> str:
        """The metric's key (see the module docstring)."""
        if self.kind == "G":
            assert self.tau is not None  # a G-Pass spec always has its threshold
            return g_pass_key(self.k, self.tau)
        if self.kind == "mG":
            return mg_pass_key(self.k)
        return f"{self.kind}@{self.k}"


def parse_metric(key: str | MetricSpec) -> MetricSpec:
    """``"G-Pass@16_0.5"``, ``"mG-Pass@16"``, ``"pass@16"``, ``"gap@16"``, ``"maj@16"``,
    ``"avg@48"`` → MetricSpec;
    ``accuracy`` is ``pass@1``. ValueError (one line, naming the key) otherwise."""
    if isinstance(key, MetricSpec):
        return key
    text = str(key).strip()
    if text == ACCURACY:
        return MetricSpec("pass", 1)
    match = _KEY_RE.match(text)
    if not match:
        raise ValueError(f"unknown metric {key!r} ({_EXPECTED})")
    try:
        if match["gk"]:
            tau = Fraction(match["tau"])
            return MetricSpec("G", int(match["gk"]), tau)
        return MetricSpec(_KIND_OF[match["kind"]], int(match["k"]))
    except (ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"metric {key!r}: {exc}") from None


def group_name(split: str, language: str) -> str:
    """The split × language group name, ``{split}/{language}`` (e.g. ``AMC/en``); '' when
    both are empty (details that name neither)."""
    if not split and not language:
        return ""
    return f"{split}{GROUP_SEP}{language}"


def split_group(group: str) -> tuple[str, str]:
    """``"AMC/en"`` → ``("AMC", "en")`` (the language never holds ``/``)."""
    split, _, language = group.rpartition(GROUP_SEP)
    return split, language


def legacy_group(prefix: str) -> str:
    """A schema-1 group prefix ``{split}_{language}`` → ``{split}/{language}``; languages
    (en, cn) hold no ``_``, so the last ``_`` is the separator."""
    split, sep, language = prefix.rpartition("_")
    return group_name(split, language) if sep else prefix


def result_key(metric: str | MetricSpec, group: str = "") -> str:
    """The key of *metric* overall (``group=''``) or in one group: ``AMC/en/mG-Pass@16``."""
    name = metric.key if isinstance(metric, MetricSpec) else str(metric)
    return f"{group}{GROUP_SEP}{name}" if group else name


def parse_result_key(key: str) -> tuple[str, MetricSpec]:
    """``"AMC/en/G-Pass@4_0.5"`` → ``("AMC/en", spec)``; ``"pass@1"`` → ``("", spec)``.
    ValueError when the part after the last ``/`` is not a metric."""
    group, _, metric = key.rpartition(GROUP_SEP)
    return group, parse_metric(metric)


def headline_metrics(k: int, taus: Sequence[Fraction] = HEADLINE_TAUS) -> list[str]:
    """The table columns: G-Pass@k at *taus* (the paper's τ = 0.5, 0.75, 1.0, unless the
    runs recorded others) and mG-Pass@k."""
    return [g_pass_key(k, t) for t in taus] + [mg_pass_key(k)]


def report_metrics(k: int, taus: Sequence[Fraction] = ALL_TAUS) -> list[str]:
    """Every metric the report computes per table cell (tables show the headline ones):
    G-Pass@k at *taus* (the τ lists the runs recorded) and the rest."""
    return [g_pass_key(k, t) for t in taus] + [
        mg_pass_key(k),
        pass_key(k),
        PASS_AT_1,
        gap_key(k),
    ]
