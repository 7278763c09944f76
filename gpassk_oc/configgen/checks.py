"""Value checks for template variables: small combinators that validate and normalise one
value and raise :class:`TemplateError` as one ``<field>: <problem>`` line. Pure."""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from gpassk_oc.core.data.livemath_data import KNOWN_VERSIONS
from gpassk_oc.core.data.naming import format_value
from gpassk_oc.core.judging import judge_checks
from gpassk_oc.core.runs.run_spec import RunSpecError, parse_ks, parse_thresholds

__all__ = [
    "TemplateError",
    "REQUIRED",
    "MAX_OUT_LEN",
    "MAX_SEQ_LEN",
    "Check",
    "suggest",
    "boolean",
    "integer",
    "optional",
    "number",
    "text",
    "list_of",
    "urls",
    "k_list",
    "k_lists",
    "thresholds",
    "version",
]

REQUIRED = object()  # default of a variable that must be set

#: bounds of a template's (or a model entry's) max_out_len / max_seq_len: far above any
#: real setting, so a value beyond one is a typo (``max_out_len = 10**9``)
MAX_OUT_LEN = 2**20
MAX_SEQ_LEN = 2**24


class TemplateError(Exception):
    """A template cannot be expanded. ``str(exc)`` is one line: ``<field>: <problem>``
    (or just the problem when no single field is at fault)."""

    def __init__(self, message: str, field: str | None = None):
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}" if field else message)


# ------------------------------------------------------------------------- checks
# A check takes (field, value) and returns the normalised value or raises TemplateError.
Check = Callable[[str, Any], Any]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def suggest(name: str, candidates: Iterable[str]) -> str:
    """'; did you mean 'x'?' for the closest candidate (ignoring case), or ''."""
    folded = {c.casefold(): c for c in sorted(candidates)}
    close = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=0.6)
    return f"; did you mean {folded[close[0]]!r}?" if close else ""


def boolean(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TemplateError(f"must be True or False, got {value!r}", field)
    return value


def integer(lo: int | None = None, hi: int | None = None, why: str = "") -> Check:
    """An integer >= *lo*; above *hi* it is refused with the bound and *why* (a typo such
    as ``10**9`` is far likelier than a plan)."""

    def check(field: str, value: Any) -> int:
        if not _is_int(value) or (lo is not None and value < lo):
            want = "an integer" if lo is None else f"an integer >= {lo}"
            raise TemplateError(f"must be {want}, got {value!r}", field)
        if hi is not None and value > hi:
            reason = f" ({why})" if why else ""
            raise TemplateError(f"{value:,} exceeds the bound of {hi:,}{reason}", field)
        return value

    return check


def exited(code: object) -> TemplateError:
    """A template that called ``sys.exit`` / ``exit()``: said in one line, not obeyed."""
    shown = "" if code is None else repr(code)
    return TemplateError(f"the template called sys.exit({shown}); a template only sets variables")


def optional(inner: Check) -> Check:
    return lambda field, value: None if value is None else inner(field, value)


def number(
    lo: float, hi: float | None, lo_open: bool, hi_open: bool = False, what: str = ""
) -> Check:
    """A finite number in an interval that can be written in a file name."""
    shown = (
        ("(" if lo_open else "[")
        + f"{lo:g}, "
        + ("inf" if hi is None else f"{hi:g}")
        + (")" if hi_open or hi is None else "]")
    )

    def check(field: str, value: Any) -> float:
        if not _is_number(value):
            raise TemplateError(f"{what}{value!r} is not a number", field)
        low_ok = value > lo if lo_open else value >= lo
        high_ok = hi is None or (value < hi if hi_open else value <= hi)
        if not (low_ok and high_ok):
            raise TemplateError(f"{what}{value!r} is not in {shown}", field)
        try:
            format_value(float(value))
        except ValueError:
            raise TemplateError(
                f"{what}{value!r} cannot be written in a config name", field
            ) from None
        return float(value)

    return check


def text(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        raise TemplateError(f"must be a non-empty one-line string, got {value!r}", field)
    return value


def list_of(item: Check, what: str = "") -> Check:
    """A non-empty list without duplicates, each item checked."""

    def check(field: str, value: Any) -> list:
        if not isinstance(value, (list, tuple)):
            raise TemplateError(f"must be a list, got {type(value).__name__}", field)
        if not value:
            raise TemplateError("is empty", field)
        out = [item(field, v) for v in value]
        for i, v in enumerate(out):
            if v in out[:i]:
                raise TemplateError(f"lists {what}{value[i]!r} twice", field)
        return out

    return check


def _judge_check(check: Callable[..., Any], **options: Any) -> Check:
    """A check of :mod:`gpassk_oc.core.judging.judge_checks` (the ones JudgeConfig runs)."""

    def run(field: str, value: Any) -> Any:
        try:
            return check(field, value, **options)
        except judge_checks.JudgeSettingError as exc:
            raise TemplateError(exc.problem, field) from None

    return run


#: judge endpoints: a list of http(s) URLs, empty for rule-based checking
urls = _judge_check(judge_checks.urls, allow_empty=True)
#: the judge model's name
judge_model = _judge_check(judge_checks.model_name)
#: a judge prompt family
judge_prompt = _judge_check(judge_checks.prompt_name)


def k_list(field: str, value: Any) -> tuple[int, ...]:
    """One k-list of the template: a list, strictly increasing (read by the run spec)."""
    if not isinstance(value, (list, tuple)):
        raise TemplateError(
            f"k-list {value!r} must be a non-empty list of positive integers", field
        )
    try:
        return parse_ks(value, field, increasing=True)
    except RunSpecError as exc:
        raise TemplateError(exc.problem, field) from None


def thresholds(field: str, value: Any) -> tuple[Fraction, ...]:
    """The τ list, exact (read by the run spec)."""
    try:
        return parse_thresholds(value, field)
    except RunSpecError as exc:
        raise TemplateError(exc.problem, field) from None


def k_lists(field: str, value: Any) -> list[tuple[int, ...]]:
    if isinstance(value, (list, tuple)) and value and all(_is_int(k) for k in value):
        raise TemplateError(
            f"{list(value)} is one k-list, but {field} is a list of "
            f"k-lists; did you mean [{list(value)}]?",
            field,
        )
    return list_of(k_list, "k-list ")(field, value)


def version(field: str, value: Any) -> str:
    if not isinstance(value, str) or value not in KNOWN_VERSIONS:
        raise TemplateError(
            f"unknown LiveMathBench version {value!r} (known: "
            f"{', '.join(repr(v) for v in KNOWN_VERSIONS)})",
            field,
        )
    return value
