"""Independent blocks of numpy work on every core (pure core: numpy and threadpoolctl).

The bootstrap's blocks of columns (a matrix product, the BCa constants, the quantiles) do
not depend on each other and numpy releases the GIL in all three, so threads run them side
by side. BLAS is held to one thread meanwhile: OpenBLAS's own threads on a block this
small spend more time waiting for each other than working (on 2 cores the 240-run JSON
report used 6 s of system time spinning), and each block writes only its own columns, so
the results are the same numbers in any order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from threadpoolctl import threadpool_limits

__all__ = ["in_parallel", "usable_cores", "worker_count"]

T = TypeVar("T")
#: more threads than this gain nothing for blocks of ~30 MB (memory bandwidth)
MAX_WORKERS = 4


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity: a Slurm job's share, not the
    machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def worker_count(tasks: int) -> int:
    """Threads for *tasks* blocks: the cores this process may use, at most
    :data:`MAX_WORKERS` and at most one per task."""
    return max(1, min(usable_cores(), MAX_WORKERS, tasks))


def in_parallel(work: Callable[[T], None], tasks: Sequence[T]) -> None:
    """Call ``work(task)`` for every task, on :func:`worker_count` threads with BLAS on one
    thread each; the first exception is raised after every task has stopped."""
    if not tasks:
        return
    with threadpool_limits(limits=1, user_api="blas"):
        workers = worker_count(len(tasks))
        if workers == 1:
            for task in tasks:
                work(task)
            return
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for future in [pool.submit(work, task) for task in tasks]:
                future.result()
