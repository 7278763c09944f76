"""Reading many results files with the cyclic garbage collector paused (pure core).

A results file parses into ~20,000 containers (a dict per question, a list per sample
field) and the summary, the drill-down share and the run built from it add as many; none
of them forms a reference cycle, so reference counting frees them all. The cyclic
collector does not know that: every 700 new containers it walks the young ones, and as
the runs pile up it walks them all again and again (a 240-run grid's first report spent
about 1 s of its 15 s in one process there). :func:`gc_paused` turns it off for the read
and back on after, as it was; anything cyclic made meanwhile waits for its next pass.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block (nested blocks: the outermost
    turns it back on), on again after it if it was on before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
