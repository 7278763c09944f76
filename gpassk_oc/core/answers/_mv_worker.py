"""math-verify worker process for :class:`gpassk_oc.core.answers.mv_pool.MathVerifyPool`.

Protocol: one JSON array per line on stdin — ``["ping"]`` → ``"pong"``, ``[pred, gold]`` →
``"equal" | "wrong" | "undecided"`` — one JSON string per line on stdout. math-verify runs
with its SIGALRM timeouts disabled; the parent enforces the deadline by killing us.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from functools import lru_cache


def _closed_value(obj) -> bool:
    """A closed numeric value, or an interval / finite set / union / tuple of them."""
    import sympy

    if isinstance(obj, sympy.Interval):
        return all(_closed_value(a) for a in (obj.start, obj.end))
    if isinstance(obj, (sympy.FiniteSet, sympy.Union, sympy.Tuple)):
        return len(obj.args) > 0 and all(_closed_value(a) for a in obj.args)
    if isinstance(obj, (int, float)):
        return True
    if isinstance(obj, sympy.Expr):
        return not obj.free_symbols and bool(obj.is_number)
    return False


def _exit_with_parent() -> None:
    """Exit when the parent dies (e.g. kill -9) even while sympy is stuck in a computation."""
    import threading
    import time

    parent = os.getppid()
    try:  # Linux: the kernel kills us with the parent even while sympy holds the GIL in C code
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except Exception:
        pass
    if os.environ.get("GPASSK_MV_PARENT") not in (None, str(parent)):
        os._exit(1)  # the parent died before prctl took effect

    def watch() -> None:  # elsewhere, a check between computations is the best we can do
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def main() -> None:
    _exit_with_parent()
    logging.disable(logging.CRITICAL)  # math-verify logs a warning for every disabled timeout
    warnings.simplefilter("ignore")
    from math_verify import parse, verify

    from gpassk_oc.core.answers.canonical import is_plain_math

    @lru_cache(maxsize=4096)
    def parsed(latex: str):
        return parse(f"${latex}$", parsing_timeout=None)

    # the protocol owns the real stdout; anything a library prints goes to stderr instead
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        try:
            msg = json.loads(line)
            if msg == ["ping"]:
                result = "pong"
            else:
                pred, gold = msg
                p, g = parsed(pred), parsed(gold)
                if not p or not g:
                    result = "undecided"
                elif verify(g, p, timeout_seconds=None, allow_set_relation_comp=True):
                    result = "equal"
                elif (
                    is_plain_math(pred)
                    and is_plain_math(gold)
                    and _closed_value(p[0])
                    and _closed_value(g[0])
                ):
                    result = "wrong"
                else:
                    result = "undecided"
        except Exception:  # sympy / antlr errors on odd input: let the judge decide
            result = "undecided"
        out.write(json.dumps(result) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
