"""The metric registry: one :class:`MetricDef` per metric kind, and typed metric specs.

Everything the package knows about a metric lives in its definition: how its key is
spelled and parsed, its per-question function (of the counts (n, c), or of the vote
profile), how questions aggregate, whether a rerun variance exists, whether the
verdict-error channel can correct it, its display label, whether it is a headline
metric, and whether a larger value is better. Code between the results file and the renderers passes :class:`MetricSpec`
values (``spec.definition`` is the definition) and asks the definition's fields instead
of comparing kind names; keys are written and parsed only at the file and CLI edges
(:func:`parse_metric`, :func:`parse_result_key`). Adding a metric is one definition here
(appended to :data:`METRICS`) plus its test.

Key spelling is generic (``{prefix}@{k}``, plus ``_{τ}`` for a metric with a threshold),
assembled by :func:`gpassk_oc.core.metrics.metric_keys.metric_key`, which also owns
group names and the τ lists. Pure core: numpy and the exact metric modules only.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.gpass_exact import g_pass_at_k, mg_pass_at_k, pass_at_k, threshold_count
from gpassk_oc.core.metrics.majority_vote import Profile, maj_at_k
from gpassk_oc.core.metrics.metric_keys import (
    ACCURACY,
    ALL_TAUS,
    GROUP_SEP,
    HEADLINE_TAUS,
    metric_key,
)

__all__ = [
    "AGREE",
    "AVG",
    "GAP",
    "G_PASS",
    "KINDS",
    "MAJ",
    "METRICS",
    "MG_PASS",
    "PASS",
    "MetricDef",
    "MetricSpec",
    "any_k_defs",
    "definition",
    "headline_metrics",
    "headline_specs",
    "parse_metric",
    "parse_result_key",
    "report_metrics",
    "report_specs",
]

#: (n, counts 0..n, k, τ) -> the per-question estimate for every count (floats)
PerCount = Callable[[int, np.ndarray, int, Fraction | None], np.ndarray]
#: (success rates p, k, τ) -> the per-question value when every sample succeeds w.p. p
Expected = Callable[[np.ndarray, int, Fraction | None], np.ndarray]


@dataclass(frozen=True, eq=False)
class MetricDef:
    """One metric kind. Consumers read these fields; nobody compares kind names. Each
    definition is a single object (equality and hash by identity: specs hash it often)."""

    name: str  # the kind's id (``MetricSpec("G", 16, τ)``): G, mG, pass, gap, maj, avg, …
    prefix: str  # the key before ``@``: ``G-Pass@16_0.5``, ``pass@16``
    label: str  # display label of the kind, with k (and τ) symbolic
    description: str  # one line for docs and help
    #: per-question function of (n, c); None for a metric that needs the vote profile
    per_count: PerCount | None = None
    #: per-question function of a vote profile (maj@k); None for a counts metric
    per_profile: Callable[[Profile, int], float] | None = None
    #: closed form of the per-question value at a known success rate p (simulations)
    expected: Expected | None = None
    has_tau: bool = False  # the key carries a threshold τ
    #: k counts the samples averaged (avg@n), not a subset size: every rule that depends
    #: on a subset size (definedness, n ≥ 2k, kernels) uses the estimator pass@1
    sample_mean: bool = False
    #: how a run's questions combine: the mean over the questions where it is defined
    aggregation: str = "mean over the questions with n ≥ k"
    headline: bool = False  # a column of the paper's tables (G at HEADLINE_TAUS, mG)
    in_report: bool = False  # computed in every report cell (CSV, JSON; tables: headline)
    #: OpenCompass's G-Pass evaluator writes it (``metrics.g_pass_table``)
    opencompass: bool = False
    #: extra k values the report always adds (pass@1 beside pass@k)
    report_ks: tuple[int, ...] = ()
    #: column position in the any-k table (``report --k`` with a list); None: not in it
    any_k: int | None = None
    #: drawn against k in the ``metrics_vs_k`` figure (mG-Pass@k has its own figures)
    k_curve: bool = False
    #: a larger value is the better model (gap@k: a smaller gap is the steadier one);
    #: comparisons ("A better than B"), rank intervals and leaderboard order read it
    higher_is_better: bool = True
    #: the smallest k at which the metric exists; below it every output shows "—" with
    #: :attr:`below_min_k` (the reason) instead of a number, and ``--metrics`` refuses it
    min_k: int = 1
    below_min_k: str = ""

    def __post_init__(self) -> None:
        if (self.per_count is None) == (self.per_profile is None):
            raise ValueError(f"metric {self.name}: needs exactly one per-question function")

    @property
    def needs_votes(self) -> bool:
        """A vote metric: its value needs the answer classes, which (n, c) do not hold."""
        return self.per_profile is not None

    @property
    def rerun_variance(self) -> bool:
        """An unbiased rerun variance exists (from (n, c), where n ≥ 2k)."""
        return self.per_count is not None

    @property
    def correctable(self) -> bool:
        """The verdict-error channel can correct it (it is a function of the counts)."""
        return self.per_count is not None

    def undefined_at(self, k: int) -> str | None:
        """Why the metric does not exist at *k* (one clause), or None where it does."""
        return self.below_min_k if k < self.min_k else None

    def key(self, k: int, tau: Fraction | int | str | None = None) -> str:
        """The metric's key at *k* (and τ)."""
        return metric_key(self.prefix, k, tau if self.has_tau else None)

    def column(self, tau: Fraction | int | str | None = None) -> str:
        """The k-generic name of a column (``pass@k``, ``G-Pass@k_0.5``)."""
        return metric_key(self.prefix, "k", tau if self.has_tau else None)

    def spec(self, k: int, tau: Fraction | int | str | None = None) -> MetricSpec:
        """The typed spec of this metric at *k* (and τ)."""
        return MetricSpec(self, k, None if tau is None else Fraction(tau))


@dataclass(frozen=True)
class MetricSpec:
    """One metric: its :class:`MetricDef`, ``k``, and τ (an exact Fraction) for a metric
    with a threshold. ``definition`` may be given as a kind name (``MetricSpec("G", 4,
    τ)``); it is looked up in :data:`METRICS`."""

    definition: MetricDef
    k: int
    tau: Fraction | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.definition, MetricDef):
            object.__setattr__(self, "definition", definition(self.definition))
        try:
            k = operator.index(self.k)  # ints and numpy integers, never bool/float
        except TypeError:
            k = 0
        if isinstance(self.k, bool) or k < 1:
            raise ValueError(f"metric k must be a positive integer, got {self.k!r}")
        object.__setattr__(self, "k", k)
        if self.definition.has_tau != (self.tau is not None):
            raise ValueError(f"a threshold τ belongs to {_TAU_LABELS} and only to it")
        if self.tau is not None:
            tau = Fraction(self.tau)
            if not 0 <= tau <= 1:
                raise ValueError(f"metric threshold must lie in [0, 1], got {self.tau}")
            object.__setattr__(self, "tau", tau)

    def __hash__(self) -> int:
        # the dataclass's own hash (of the fields), kept once made: a report hashes specs
        # ~300,000 times (cache keys of spec tuples), and a Fraction's hash is slow
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = self.__dict__["_hash"] = hash((self.definition, self.k, self.tau))
        return cached

    def __getstate__(self) -> dict[str, Any]:
        # the definition's hash is this process's (its functions hash by identity)
        return {name: value for name, value in self.__dict__.items() if name != "_hash"}

    @property
    def kind(self) -> str:
        """The kind's id (for display and old callers; branch on ``definition``)."""
        return self.definition.name

    @cached_property  # fields are frozen; a report asks a spec for its key ~100,000 times
    def key(self) -> str:
        """The metric's key (``G-Pass@16_0.5``, ``maj@8``)."""
        return self.definition.key(self.k, self.tau)

    @property
    def undefined(self) -> str | None:
        """Why this metric does not exist at its k (None where it does): its value is
        then "—" (NaN) in every output, never a number."""
        return self.definition.undefined_at(self.k)

    @property
    def estimator(self) -> MetricSpec:
        """The spec whose per-count estimator this metric uses (avg@n is pass@1's c/n)."""
        return PASS.spec(1) if self.definition.sample_mean else self

    def per_c(self, n: int) -> np.ndarray | None:
        """Values for c = 0..n (floats), None when k > n or the metric does not exist at
        its k (:attr:`undefined`); ValueError for a vote metric."""
        fn = self.definition.per_count
        if fn is None:
            raise ValueError(
                f"{self.key} needs per-sample votes: see gpassk_oc.core.metrics.majority_vote"
            )
        spec = self.estimator
        if spec.k > n or n < 1 or self.undefined is not None:
            return None
        return np.asarray(fn(n, np.arange(n + 1), spec.k, spec.tau), dtype=float)


# --------------------------------------------------------------------------- functions
def _g(n: int, cs: np.ndarray, k: int, tau: Fraction | None) -> np.ndarray:
    assert tau is not None  # has_tau
    return np.asarray(g_pass_at_k(n, cs, k, tau), dtype=float)


def _mg(n: int, cs: np.ndarray, k: int, tau: Fraction | None) -> np.ndarray:
    return np.asarray(mg_pass_at_k(n, cs, k), dtype=float)


def _pass(n: int, cs: np.ndarray, k: int, tau: Fraction | None) -> np.ndarray:
    return np.asarray(pass_at_k(n, cs, k), dtype=float)


def _gap(n: int, cs: np.ndarray, k: int, tau: Fraction | None) -> np.ndarray:
    return _pass(n, cs, k, None) - np.asarray(g_pass_at_k(n, cs, k, 1), dtype=float)


def _binom_tail(k: int, p: np.ndarray, m: int) -> np.ndarray:
    """P(Binomial(k, p) ≥ m), by scipy (imported here: its import costs ~1 s)."""
    from scipy.stats import binom

    return np.asarray(binom.sf(m - 1, k, p), dtype=float)


def _g_expected(p: np.ndarray, k: int, tau: Fraction | None) -> np.ndarray:
    assert tau is not None
    return _binom_tail(k, p, threshold_count(k, tau))


def _mg_expected(p: np.ndarray, k: int, tau: Fraction | None) -> np.ndarray:
    tails = [_binom_tail(k, p, i) for i in range(math.ceil(k / 2) + 1, k + 1)]
    return np.asarray(2 / k * sum(tails, np.zeros_like(p)), dtype=float)


def _agree(n: int, cs: np.ndarray, k: int, tau: Fraction | None) -> np.ndarray:
    # all k drawn samples correct or all wrong: (C(c, k) + C(n − c, k)) / C(n, k), one
    # integer ratio per count, rounded once
    total = math.comb(n, k)
    return np.array([(math.comb(c, k) + math.comb(n - c, k)) / total for c in map(int, cs)])


def _maj(prof: Profile, k: int) -> float:
    return float(maj_at_k(prof, k))


G_PASS = MetricDef(
    "G",
    "G-Pass",
    "G-Pass@k_τ",
    "at least ⌈τ·k⌉ of k samples drawn without replacement are correct",
    per_count=_g,
    expected=_g_expected,
    has_tau=True,
    headline=True,
    in_report=True,
    opencompass=True,
    any_k=1,
    k_curve=True,
)
MG_PASS = MetricDef(
    "mG",
    "mG-Pass",
    "mG-Pass@k",
    "mean G-Pass@k over τ in (0.5, 1] (the documented weights)",
    per_count=_mg,
    expected=_mg_expected,
    headline=True,
    # k = 1: the documented sum runs from i = ⌈1/2⌉ + 1 = 2 to 1 — empty, 0 for any model
    min_k=2,
    below_min_k=(
        "not defined at k = 1: the sum (2/k)·Σ_{i=⌈k/2⌉+1}^{k} G-Pass@k_{i/k} is empty "
        "there (i from 2 to 1) and would print 0 for every model; with one sample every τ "
        "in (0.5, 1] asks for the same 1 of 1, so there is no threshold to average over "
        "(the area 2∫ G-Pass@1_τ dτ is pass@1)"
    ),
    in_report=True,
    opencompass=True,
    any_k=2,
)
PASS = MetricDef(
    "pass",
    "pass",
    "pass@k",
    "the unbiased pass@k: at least one of k samples correct (= G-Pass@k_0)",
    per_count=_pass,
    expected=lambda p, k, tau: 1 - (1 - p) ** k,
    in_report=True,
    report_ks=(1,),
    any_k=0,
    k_curve=True,
)
GAP = MetricDef(
    "gap",
    "gap",
    "pass@k − G-Pass@k_1.0",
    "the stability gap: some but not all of k samples correct",
    per_count=_gap,
    expected=lambda p, k, tau: (1 - (1 - p) ** k) - p**k,
    in_report=True,
    higher_is_better=False,
)
MAJ = MetricDef(
    "maj",
    "maj",
    "maj@k",
    "the correct answer wins a vote among k samples (ties split evenly)",
    per_profile=_maj,
    any_k=3,
    k_curve=True,
)
AVG = MetricDef(
    "avg",
    "avg",
    "avg@n",
    "mean accuracy over all n samples of each question (the value of pass@1)",
    per_count=_pass,
    expected=lambda p, k, tau: p,
    sample_mean=True,
)

AGREE = MetricDef(
    "agree",
    "agree",
    "agree@k",
    "all k samples get the same verdict, all correct or all wrong (= 1 − gap@k): the "
    "total agreement rate TAR@k of Atil et al. (2024) on verdicts",
    per_count=_agree,
    expected=lambda p, k, tau: p**k + (1 - p) ** k,
    in_report=True,
)

#: every registered metric, in the order outputs list them
METRICS: tuple[MetricDef, ...] = (G_PASS, MG_PASS, PASS, GAP, MAJ, AVG, AGREE)
#: the kinds' ids (``MetricSpec.kind``)
KINDS = tuple(m.name for m in METRICS)
_BY_NAME = {m.name: m for m in METRICS}
_BY_PREFIX = {m.prefix: m for m in METRICS}
_TAU_LABELS = " / ".join(m.label for m in METRICS if m.has_tau)
_FORMS = [
    f"{m.prefix}@{'N' if m.sample_mean else 'K'}" + ("_TAU" if m.has_tau else "") for m in METRICS
]
_EXPECTED = (
    f"expected {', '.join(_FORMS[:-1])} or {_FORMS[-1]}, e.g. {G_PASS.key(16, Fraction(3, 4))}"
)
_KEY_RE = re.compile(r"^(?P<prefix>[^@/]+)@(?P<k>\d+)(?:_(?P<tau>[0-9./]+))?$")


def definition(name: str) -> MetricDef:
    """The definition of the kind *name* (``"G"``, ``"maj"``, …); ValueError otherwise."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(f"metric kind must be one of {KINDS}, got {name!r}") from None


def parse_metric(key: str | MetricSpec) -> MetricSpec:
    """A metric key (``"G-Pass@16_0.5"``, ``"maj@16"``, …) → MetricSpec; ``accuracy`` is
    ``pass@1``. ValueError (one line, naming the key) otherwise. The file and CLI edges
    call it; everything after them passes the spec."""
    if isinstance(key, MetricSpec):
        return key
    return _parse_key(str(key))


@lru_cache(maxsize=4096)  # a grid's files name the same few hundred keys, each many times
def _parse_key(key: str) -> MetricSpec:
    text = key.strip()
    if text == ACCURACY:
        return PASS.spec(1)
    match = _KEY_RE.match(text)
    found = _BY_PREFIX.get(match["prefix"]) if match else None
    if match is None or found is None or found.has_tau != (match["tau"] is not None):
        raise ValueError(f"unknown metric {key!r} ({_EXPECTED})")
    try:
        tau = Fraction(match["tau"]) if match["tau"] is not None else None
        return MetricSpec(found, int(match["k"]), tau)
    except (ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"metric {key!r}: {exc}") from None


def parse_result_key(key: str) -> tuple[str, MetricSpec]:
    """``"AMC/en/G-Pass@4_0.5"`` → ``("AMC/en", spec)``; ``"pass@1"`` → ``("", spec)``.
    ValueError when the part after the last ``/`` is not a metric."""
    group, _, metric = key.rpartition(GROUP_SEP)
    return group, parse_metric(metric)


def headline_specs(k: int, taus: Sequence[Fraction] = HEADLINE_TAUS) -> list[MetricSpec]:
    """The table columns: G-Pass@k at *taus* (the paper's τ = 0.5, 0.75, 1.0, unless the
    runs recorded others) and mG-Pass@k."""
    out: list[MetricSpec] = []
    for m in METRICS:
        if m.headline:
            out += [m.spec(k, t) for t in taus] if m.has_tau else [m.spec(k)]
    return out


def report_specs(k: int, taus: Sequence[Fraction] = ALL_TAUS) -> list[MetricSpec]:
    """Every metric the report computes per table cell (tables show the headline ones);
    G-Pass@k at *taus* (the τ lists the runs recorded)."""
    out: list[MetricSpec] = []
    for m in METRICS:
        if m.in_report:
            out += [m.spec(k, t) for t in taus] if m.has_tau else [m.spec(k)]
            out += [m.spec(extra) for extra in m.report_ks]
    return out


def any_k_defs() -> list[MetricDef]:
    """The any-k table's metrics, in column order."""
    return sorted((m for m in METRICS if m.any_k is not None), key=lambda m: m.any_k or 0)


def headline_metrics(k: int, taus: Sequence[Fraction] = HEADLINE_TAUS) -> list[str]:
    """The keys of :func:`headline_specs`."""
    return [s.key for s in headline_specs(k, taus)]


def report_metrics(k: int, taus: Sequence[Fraction] = ALL_TAUS) -> list[str]:
    """The keys of :func:`report_specs`."""
    return [s.key for s in report_specs(k, taus)]
