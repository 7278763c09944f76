"""Worker processes for ``report``: the first read of many results files, and drawing the
figures while the report goes on (tools layer; loky's process pool).

A cold read parses, summarises and cross-checks every results file in Python, which holds
the GIL: threads cannot share that work, processes can (240 files of a research grid:
14.5 s in one process, about half on 2 cores; ``bench/bench_report_grid.py``). Matplotlib
holds the GIL too, so the figures are drawn in a worker while this process computes rank
intervals and writes the page's drill-down files.

Why loky and not :mod:`multiprocessing`: its workers start by fork + exec, so they never
run the caller's ``__main__`` again (spawn does, and a script without a ``__main__`` guard
would run twice) and never copy a process with threads (fork does, and OpenBLAS's threads
are always there); a worker that dies raises an error instead of hanging the pool; and
:meth:`Workers.__exit__` can kill the workers at once.

Ctrl-C: the terminal sends SIGINT to every process of the foreground group. Workers ignore
it from their start, so the only message is the command's one ``error: interrupted`` line;
the command's ``KeyboardInterrupt`` kills the workers on its way out, and leaving
:class:`Workers` ends them in every case, so no work outlives the command.

Results are the same numbers with or without workers: a worker runs the same function on
the same input and sends its result back pickled (floats travel bit for bit).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from multiprocessing import resource_tracker
from typing import Any, Generic, Protocol, TypeVar

from gpassk_oc.core.uncertainty.block_threads import usable_cores

__all__ = ["DEFAULT_WORKERS_MAX", "Mapper", "Pending", "Workers", "default_workers", "in_process"]

T = TypeVar("T")
R = TypeVar("R")


class Mapper(Protocol):
    """``[func(x) for x in items]`` in order, anywhere: :meth:`Workers.map`, for one."""

    def __call__(self, func: Callable[[T], R], items: Sequence[T], /) -> list[R]: ...


def in_process(func: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """The :class:`Mapper` without workers: ``[func(x) for x in items]`` here."""
    return [func(x) for x in items]


#: ``report --workers`` default: the usable cores, at most this many (a login node's 64
#: cores gain little over 8 for a few hundred files and cost a worker's memory each)
DEFAULT_WORKERS_MAX = 8
#: no idle timeout: the workers live as long as the command's :class:`Workers` block. With
#: loky's default (10 s), a grid whose report works alone for longer after the first read
#: (rank intervals, drill-down files) saw its idle workers quit on their own, and the
#: figures' submit then had loky's manager thread start new ones racing the command's
#: exit: loky warned "A worker stopped while some jobs were given to the executor", and
#: sometimes its resource tracker "1 leaked semlock objects" (a new worker's exit lock)
IDLE_TIMEOUT = None
#: :meth:`Workers.map` sends each worker about this many chunks of its items
CHUNKS_PER_WORKER = 8


def default_workers() -> int:
    """Worker processes when the user does not say: the usable cores, at most
    :data:`DEFAULT_WORKERS_MAX`."""
    return min(usable_cores(), DEFAULT_WORKERS_MAX)


def _ignore_sigint() -> None:
    """A worker's initializer: the command in front decides what Ctrl-C means."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # ignored now, so unblocking it is harmless
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def _ctrl_c_after() -> Iterator[None]:
    """Ctrl-C waits until the block is done, then raises :class:`KeyboardInterrupt`.

    Interrupted between starting a worker and sending it its instructions, the worker would
    print its failure; so this process notes a SIGINT meanwhile and acts on it after.
    (Blocking SIGINT in this thread is not enough: another thread, such as one of
    OpenBLAS's, takes the signal, and Python still raises here.)"""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    ):
        yield  # not ours to defer: another thread's, or ignored already (nohup, &)
        return
    seen: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if seen:
        raise KeyboardInterrupt


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread: the processes started meanwhile start with it blocked
    (a mask survives fork and exec, and loky's manager thread, started with the first
    workers, passes it on to those it starts later). A worker then ignores it
    (:func:`_ignore_sigint`): Ctrl-C while one imports cannot print a traceback."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks to inherit
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextmanager
def _stderr_to_devnull() -> Iterator[None]:
    """This process's stderr (fd 2) is /dev/null meanwhile, so the resource trackers
    started here inherit it. A tracker removes what killed workers leave (after Ctrl-C or
    an error, :meth:`Workers.__exit__`), a semaphore a worker killed while starting had
    not yet unregistered, and warns of each "leaked semlock" as it does: after the
    command's one ``error: interrupted`` line (seen 1 in about 5 runs of the Ctrl-C
    test). The cleanup is the tracker's job; its warning is not the user's business."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


class Pending(Generic[R]):
    """The result of one call, computed in a worker (or already, in this process)."""

    def __init__(
        self, workers: Workers | None, future: Future | None, func: Callable[..., R], args: tuple
    ) -> None:
        self._workers, self._future, self._func, self._args = workers, future, func, args
        self._value: R | None = func(*args) if future is None else None

    def result(self) -> R:
        """The call's value; its own exception re-raised. A worker that died (killed for
        memory, say) costs time, not the result: the call runs again in this process."""
        if self._future is None:
            return self._value  # type: ignore[return-value]
        from loky.process_executor import BrokenProcessPool

        try:
            return self._future.result()
        except BrokenProcessPool:
            if self._workers is not None:
                self._workers.broken()
            return self._func(*self._args)


class Workers:
    """At most *count* worker processes, started on first use; ``count <= 1`` runs every
    call in this process. A context manager: leaving it ends every worker (killed, busy or
    not), so none outlives the command, Ctrl-C or an error return included."""

    def __init__(self, count: int) -> None:
        self.count = max(1, int(count))
        self._executor: Any = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self._executor is not None:
            # after an error or Ctrl-C busy workers work for nobody: kill them. After a
            # normal exit every result was taken and they are idle: let them leave on
            # their own, so each tells the resource tracker its semaphores are gone (a
            # killed one sometimes had not, and the tracker warned of a "leaked semlock").
            # Waiting either way lets loky release its own semaphores before we exit
            self._executor.shutdown(wait=True, kill_workers=exc_type is not None)
        self._executor = None

    def broken(self) -> None:
        """A worker died: the next call starts fresh ones."""
        self._executor = None

    def _pool(self) -> Any:
        if self._executor is None:
            from loky import get_reusable_executor

            with _stderr_to_devnull():
                self._executor = get_reusable_executor(
                    max_workers=self.count, timeout=IDLE_TIMEOUT, initializer=_ignore_sigint
                )
                # the two resource trackers (loky's, started above, and the standard
                # library's, which loky starts with its first worker) unblock SIGINT when
                # they start, so both run before any submit; running, they leave it alone
                resource_tracker.ensure_running()
        return self._executor

    def submit(self, func: Callable[..., R], *args: Any) -> Pending[R]:
        """``func(*args)`` in a worker; with one worker allowed, here and now."""
        if self.count <= 1:
            return Pending(None, None, func, args)
        with _ctrl_c_after():
            pool = self._pool()  # before the mask: it may start the resource trackers
            with _sigint_blocked():  # a submit starts any worker missing
                future = pool.submit(func, *args)
        return Pending(self, future, func, args)

    def map(self, func: Callable[[T], R], items: Iterable[T], least: int = 2) -> list[R]:
        """``[func(x) for x in items]``, in order; in workers when there are at least
        *least* items (fewer cost more to send than to do here)."""
        todo: Sequence[T] = list(items)
        if self.count <= 1 or len(todo) < max(2, least):
            return [func(x) for x in todo]
        # several chunks per worker: uneven files and late-starting workers even out (the
        # last chunk is the time one worker may wait for the other: 8 per worker keep it
        # near 0.4 s on a 240-run grid's first read), and each chunk is one message.
        # Not executor.map: on Ctrl-C it cancels the futures that loky's manager thread
        # is about to fail, and that thread then prints a traceback
        size = max(1, len(todo) // (CHUNKS_PER_WORKER * self.count))
        chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
        pending = [self.submit(_each, func, chunk) for chunk in chunks]
        return [value for part in pending for value in part.result()]


def _each(func: Callable[[T], R], chunk: Sequence[T]) -> list[R]:
    """One worker message's share of :meth:`Workers.map`."""
    return [func(x) for x in chunk]
