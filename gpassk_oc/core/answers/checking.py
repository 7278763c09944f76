"""The one rule-checking pipeline: distinct (answer, gold) pairs, cheap rules, then
math-verify in a pool the caller passes in (pure core).

Grading (:mod:`gpassk_oc.core.judging.decisions`), the tests and the answer benchmark all
check answers through :func:`check_pairs`; :func:`~.rules.check_answer` and
:func:`~.rules.check_answers` are thin conveniences over it. What the rules decide is
documented in :mod:`.rules`; the knobs are one frozen :class:`RuleConfig`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from gpassk_oc.core.answers import notation
from gpassk_oc.core.answers.arguments import ArgumentTypeError, answer_text, optional_answer_text
from gpassk_oc.core.answers.canonical import canonical_answer
from gpassk_oc.core.answers.mv_pool import MathVerifyPool, default_pool
from gpassk_oc.core.answers.numeric import Outcome
from gpassk_oc.core.answers.rules import DEFAULT_TOLERANCES, Tolerances, fast_check

__all__ = [
    "DEFAULT_RULES",
    "RuleChecks",
    "RuleConfig",
    "answers_equivalent",
    "check_answer",
    "check_answers",
    "check_pairs",
    "math_verify_outcomes",
]


@dataclass(frozen=True)
class RuleConfig:
    """How answers are checked by rules.

    Attributes:
        mv_timeout: per-call math-verify deadline in seconds (a timeout is 'undecided').
        tolerances: the closeness bounds of the cheap rules (:class:`.rules.Tolerances`).
    """

    mv_timeout: float = 5.0
    tolerances: Tolerances = field(default_factory=lambda: DEFAULT_TOLERANCES)

    def __post_init__(self) -> None:
        if isinstance(self.mv_timeout, bool) or not self.mv_timeout > 0:
            raise ValueError(f"RuleConfig.mv_timeout: need seconds > 0, got {self.mv_timeout!r}")


DEFAULT_RULES = RuleConfig()


@dataclass
class RuleChecks:
    """The outcome of every distinct canonical (answer, gold) pair, and what it took.

    ``checks`` counts the distinct pairs with a non-empty answer (an empty answer is
    'wrong' without a check), ``mv_calls`` those that needed math-verify and ``timeouts``
    the math-verify calls that hit the deadline.
    """

    outcomes: dict[tuple[str, str], Outcome]
    checks: int = 0
    mv_calls: int = 0
    timeouts: int = 0

    def outcome(self, answer: str, gold: str) -> Outcome:
        """The outcome of canonical *answer* against canonical *gold* ('wrong' if empty)."""
        return self.outcomes[(answer, gold)] if answer else "wrong"


def check_pairs(
    pairs: Iterable[tuple[str, str]],
    pool: MathVerifyPool,
    config: RuleConfig = DEFAULT_RULES,
) -> RuleChecks:
    """Check every distinct canonical (answer, gold) pair once: the cheap rules first
    (:func:`.rules.fast_check`), the rest in *pool* with ``config.mv_timeout``."""
    outcomes: dict[tuple[str, str], Outcome] = {}
    slow: list[tuple[str, str]] = []
    for key in pairs:
        if not key[0] or key in outcomes:
            continue
        quick = fast_check(key[0], key[1], config.tolerances)
        outcomes[key] = quick if quick is not None else "undecided"
        if quick is None:
            slow.append(key)
    result = RuleChecks(outcomes, checks=len(outcomes), mv_calls=len(slow))
    if slow:
        before = pool.timeouts
        try:
            outcomes.update(zip(slow, math_verify_outcomes(slow, pool, config.mv_timeout)))
        finally:
            result.timeouts = pool.timeouts - before
    return result


def math_verify_outcomes(
    pairs: Sequence[tuple[str, str]], pool: MathVerifyPool, timeout: float
) -> list[Outcome]:
    """math-verify's outcome of each canonical (answer, gold) pair the cheap rules left
    open, under the same notation policy as the rules (:func:`.notation.settle`)."""
    found = pool.check_many(pairs, timeout)
    return [notation.settle(a, g, o) or "undecided" for (a, g), o in zip(pairs, found)]


def check_answers(
    pairs: Iterable[tuple[str | None, str]],
    pool: MathVerifyPool | None = None,
    config: RuleConfig = DEFAULT_RULES,
) -> list[Outcome]:
    """Raw (answer, gold) pairs canonicalised and checked by :func:`check_pairs` (*pool*
    None: the process-wide :func:`~.mv_pool.default_pool`); a missing answer is 'wrong'."""
    keys = [_key(pair, i) for i, pair in enumerate(pairs)]
    checked = check_pairs(keys, pool or default_pool(), config)
    return [checked.outcome(*key) for key in keys]


def _key(pair: object, i: int) -> tuple[str, str]:
    """The canonical (answer, gold) of the *i*-th raw pair; numbers are accepted as text."""
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ArgumentTypeError(f"pairs[{i}] must be an (answer, gold) pair, got {pair!r}")
    p = optional_answer_text(pair[0], f"pairs[{i}] answer")
    g = answer_text(pair[1], f"pairs[{i}] gold")
    return (canonical_answer(p) if p and p.strip() else "", canonical_answer(g))


def check_answer(
    prediction: str | float | Fraction | None,
    gold: str | float | Fraction,
    pool: MathVerifyPool | None = None,
    config: RuleConfig = DEFAULT_RULES,
) -> Outcome:
    """'equal', 'wrong' (confidently wrong) or 'undecided' for one extracted answer.
    Numbers are accepted as what they write (``check_answer(3, 3)`` is 'equal'); other
    types raise :class:`~gpassk_oc.core.answers.arguments.ArgumentTypeError` (a TypeError)."""
    answer = optional_answer_text(prediction, "prediction")
    return check_answers([(answer, answer_text(gold, "gold"))], pool, config)[0]


def answers_equivalent(
    prediction: str | float | Fraction | None, gold: str | float | Fraction
) -> bool:
    """True when *prediction* is equal to *gold* by the rules (exact forms or math-verify).

    Safe to call from any thread or process; a pathological expression times out (5 s)
    and counts as not equivalent.
    """
    return check_answer(prediction, gold) == "equal"
