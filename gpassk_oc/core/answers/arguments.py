"""Arguments of the public Python API: numbers where a user passes numbers, and a
:class:`ArgumentTypeError` naming the argument for everything else (pure, stdlib + numpy).

Answers and golds are text to the checker, but ``check_answer(3, 3)`` or a gold read from
a JSON number is what a user writes: an int, a Fraction, a Decimal or a finite float
becomes its plain writing (``3``, ``1/2``, ``0.5``) before checking. A bool, None where an
answer is required, a list or a dict is refused with the argument's name.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np

__all__ = ["ArgumentTypeError", "answer_text", "optional_answer_text", "integer_arg"]


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type, named in the message. A TypeError; also a
    ValueError, which release 0.1.0 raised for some of these, so old handlers still work."""


def optional_answer_text(value: object, name: str) -> str | None:
    """:func:`answer_text`, with None kept (no answer found)."""
    return None if value is None else answer_text(value, name)


def answer_text(value: object, name: str) -> str:
    """*value* as answer text: a str as is, a number as it is written (an int ``3``, a
    Fraction ``1/2``, a float by its shortest repr)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{name} must be a string or a number, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, Fraction):
        return str(value)  # '1/2', or '3' for a whole number
    if isinstance(value, (Decimal, float, np.floating)):
        if not math.isfinite(value):
            raise ArgumentTypeError(f"{name} must be a finite number, got {value!r}")
        return str(value) if isinstance(value, Decimal) else repr(float(value))
    raise ArgumentTypeError(
        f"{name} must be a string or a number, got {type(value).__name__} {value!r}"[:200]
    )


def integer_arg(value: object, name: str) -> int:
    """*value* as an int (Python or numpy integer); else :class:`ArgumentTypeError`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"{name} must be an integer, got {value!r}")
    return int(value)
