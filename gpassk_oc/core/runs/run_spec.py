"""The run spec: a run's k list, τ list and samples per question, as one frozen object.

Every place a run's settings enter — a template (:mod:`gpassk_oc.configgen`), a dataset
or evaluator config (``k=``, ``thresholds=``, OpenCompass's ``n``), a results file
(``run.ks``, ``run.thresholds``, ``run.n``), a CLI flag — parses them here ONCE into a
:class:`RunSpec`; after that the object travels (generator → evaluator → results file →
report) and nothing re-checks it. The checks and the two derivations live here only:
``max(k) <= n`` (:meth:`RunSpec.at_n`), ``n = replication · max(k)``
(:meth:`RunSpec.of_replication`) and back (:attr:`RunSpec.replication`).

τ is an exact :class:`~fractions.Fraction` inside; it is written as text only at the
edges (:meth:`RunSpec.to_json`, metric keys). Pure core: no OpenCompass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from gpassk_oc.core.metrics.gpass_exact import as_fraction
from gpassk_oc.core.metrics.metric_keys import ALL_TAUS, HEADLINE_TAUS

__all__ = [
    "DEFAULT_THRESHOLDS",
    "RunSpec",
    "RunSpecError",
    "parse_ks",
    "parse_n",
    "parse_thresholds",
]

#: the τ list of a run that sets none: every τ OpenCompass reports
DEFAULT_THRESHOLDS: tuple[Fraction, ...] = ALL_TAUS


class RunSpecError(ValueError):
    """A bad k, τ or n; the message is one line, ``<field>: <problem>``."""

    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def parse_ks(value: Any, field: str = "k", *, increasing: bool = False) -> tuple[int, ...]:
    """A k list (or one k) → a tuple of positive ints; *increasing*: refuse a list that
    is not strictly increasing (templates); otherwise repeats are dropped, order kept."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values or not all(_is_count(k) for k in values):
        raise RunSpecError(
            field, f"need an integer >= 1 or a non-empty list of them, got {value!r}"
        )
    if increasing and any(a >= b for a, b in zip(values, values[1:])):
        raise RunSpecError(field, f"k-list {values} must be strictly increasing")
    return tuple(dict.fromkeys(int(k) for k in values))


def parse_thresholds(value: Any, field: str = "thresholds") -> tuple[Fraction, ...]:
    """A τ list (floats, ints, ``"3/4"`` strings, Fractions) → exact Fractions in [0, 1],
    repeats dropped, order kept."""
    if not isinstance(value, (list, tuple)) or not value:
        raise RunSpecError(field, f"need a non-empty list of τ values in [0, 1], got {value!r}")
    try:
        return tuple(dict.fromkeys(as_fraction(t, field) for t in value))
    except (TypeError, ValueError) as exc:  # as_fraction's message names the field
        problem = str(exc).removeprefix(f"{field} ")
        raise RunSpecError(field, problem) from None


def parse_n(value: Any, field: str = "n") -> int:
    """Samples per question: a positive int."""
    if not _is_count(value):
        raise RunSpecError(field, f"need an integer >= 1, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class RunSpec:
    """A run's k list, τ list (exact) and samples per question (None: not fixed yet, e.g.
    an evaluator before OpenCompass names its dataset's n). Build it with :meth:`parse`,
    :meth:`of_replication` or :meth:`from_json`, which check; the constructor does not.
    ``ks == ()`` only for an old results file that recorded none."""

    ks: tuple[int, ...]
    thresholds: tuple[Fraction, ...] = DEFAULT_THRESHOLDS
    n: int | None = None

    # ------------------------------------------------------------------ entry points
    @classmethod
    def parse(
        cls,
        ks: Any,
        thresholds: Any = DEFAULT_THRESHOLDS,
        n: Any = None,
        *,
        where: str = "",
        increasing: bool = False,
    ) -> RunSpec:
        """Check raw values once; *where* prefixes every field name (``GPassKEvaluator.``)."""
        spec = cls(
            parse_ks(ks, f"{where}k", increasing=increasing),
            parse_thresholds(thresholds, f"{where}thresholds"),
        )
        return spec if n is None else spec.at_n(n, f"{where}n")

    @classmethod
    def of_replication(
        cls,
        ks: Sequence[int],
        replication: int,
        thresholds: Sequence[Fraction] = DEFAULT_THRESHOLDS,
    ) -> RunSpec:
        """``n = replication · max(k)`` (the generator's grid points; *ks* already parsed)."""
        return cls(tuple(ks), tuple(thresholds), parse_n(replication, "replication") * max(ks))

    def at_n(self, n: Any, field: str = "n") -> RunSpec:
        """This spec with its samples per question: ``max(k) <= n`` checked here only; one
        sample per question (greedy) reports k = 1 whatever was asked."""
        n = parse_n(n, field)
        if n == 1:
            return replace(self, ks=(1,), n=1)
        if self.ks and max(self.ks) > n:
            raise RunSpecError(
                field,
                f"max(k) = {max(self.ks)} exceeds n = {n} samples per question "
                "(n = replication x max(k))",
            )
        return replace(self, n=n)

    # ------------------------------------------------------------------ derived
    @property
    def top_k(self) -> int:
        """The largest k (0 when none is recorded)."""
        return max(self.ks, default=0)

    @property
    def replication(self) -> int | None:
        """``n / max(k)`` when n is a multiple of it (the ``-r{r}`` of dataset abbrs)."""
        if self.n is None or not self.ks or self.n % self.top_k:
            return None
        return self.n // self.top_k

    def headline_taus(self) -> tuple[Fraction, ...]:
        """The τ columns a report shows for this run: the paper's (0.5, 0.75, 1.0) for the
        default τ list, else the τ list the run recorded."""
        if set(self.thresholds) == set(DEFAULT_THRESHOLDS):
            return HEADLINE_TAUS
        return tuple(sorted(self.thresholds))

    @property
    def default_thresholds(self) -> bool:
        """Whether the τ list is the default one (generated configs then leave it out)."""
        return self.thresholds == DEFAULT_THRESHOLDS

    # ------------------------------------------------------------------ file edge
    def threshold_values(self) -> list[float | str]:
        """τ as written to configs and results files: the float metric keys spell when it
        reads back exactly (0.25), else the exact fraction text (``"1/3"``)."""
        return [float(t) if as_fraction(float(t)) == t else str(t) for t in self.thresholds]

    def to_json(self) -> dict[str, Any]:
        """``{"n", "ks", "thresholds"}`` as the results file's ``run`` holds them."""
        return {"n": self.n, "ks": list(self.ks), "thresholds": self.threshold_values()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str, *, lenient: bool = False) -> RunSpec:
        """Read ``n``, ``ks``, ``thresholds`` of a results file's ``run`` (*where* names
        it). *lenient* (schema 1): a missing k list or τ list is unrecorded (``()``, the
        default τs), not an error. The n checked against the ks only when both are there."""
        ks_value, taus = data.get("ks"), data.get("thresholds")
        if lenient and not (isinstance(ks_value, list) and ks_value):
            ks: tuple[int, ...] = ()
        else:
            ks = parse_ks(ks_value, f"{where}ks")
        thresholds = parse_thresholds(taus, f"{where}thresholds") if taus else DEFAULT_THRESHOLDS
        return cls(ks, thresholds, parse_n(data.get("n"), f"{where}n"))
