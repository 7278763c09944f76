"""The ``run`` section of a results file as data (pure core): the run spec (n, k list,
τ list: :class:`~gpassk_oc.core.runs.run_spec.RunSpec`) and how the samples were
checked. Read and checked by :mod:`.results_file`; this module only holds and writes it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.core.vocabulary import CheckMode

__all__ = ["RunInfo"]


@dataclass
class RunInfo:
    """Run metadata: the run spec (samples per question, k list, τ list), how many
    questions, how samples were checked."""

    spec: RunSpec
    num_questions: int
    mg_mode: str = "documented"
    check: CheckMode | str | None = None  # a CheckMode when read; None: not recorded
    judge: dict[str, Any] | None = None  # e.g. {"model": ..., "prompt": ...}
    #: the grader marks rules-mode samples no rule could decide as ``rule_undecided``
    undecided_marked: bool = False
    writer: str | None = None  # e.g. "gpassk_oc 0.1.0"
    #: how replies were read: {"setting", "applied", "why"}; None: not recorded (older files)
    reasoning: dict[str, Any] | None = None

    @property
    def n(self) -> int:
        """Samples per question."""
        return int(self.spec.n or 0)

    @property
    def ks(self) -> list[int]:
        """The k list ([] when an old file recorded none)."""
        return list(self.spec.ks)

    @property
    def thresholds(self) -> list[Fraction]:
        """The τ list, exact."""
        return list(self.spec.thresholds)

    def to_json(self) -> dict[str, Any]:
        spec = self.spec.to_json()
        out: dict[str, Any] = {
            "n": spec["n"],
            "num_questions": self.num_questions,
            "ks": spec["ks"],
            "thresholds": spec["thresholds"],
            "mg_mode": self.mg_mode,
            "check": self.check,
            "judge": self.judge,
            "undecided_marked": self.undecided_marked,
            "writer": self.writer,
        }
        if self.reasoning is not None:  # absent, not null: older readers never see it
            out["reasoning"] = dict(self.reasoning)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunInfo:
        """What :meth:`to_json` wrote (the summary sidecar's copy; already checked)."""
        values = dict(data)
        spec = RunSpec.from_json(values, "run.", lenient=True)
        for name in ("n", "ks", "thresholds"):
            values.pop(name, None)
        return cls(spec=spec, **values)
