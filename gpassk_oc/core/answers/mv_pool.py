"""A small pool of math-verify worker processes with a per-call deadline (pure core).

math-verify's own SIGALRM timeouts only work in the main thread, and sympy can hang on
pathological input (``9^{9^{9^{9}}}``). Each worker is ``python -m gpassk_oc.core.answers._mv_worker``
speaking JSON lines over pipes; a call past its deadline SIGKILLs its worker ('undecided')
and a fresh one starts for the next call. Workers die with their parent (PR_SET_PDEATHSIG
plus a watchdog thread), even while stuck in C code.

Why not ``pebble.ProcessPool`` (which also kills a task on timeout): it is built on
``multiprocessing``, which cannot start children from a daemonic process
("daemonic processes are not allowed to have children"), re-imports the caller's
``__main__`` under the spawn/forkserver start methods (scripts without a ``__main__`` guard
would run twice) and forks a multi-threaded evaluator under the fork method. Plain
subprocesses have none of these problems, so the pool keeps them.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

Outcome = Literal["equal", "wrong", "undecided"]

_WORKER_ENV_FLAG = "GPASSK_MV_WORKER"


def _package_root() -> str:
    return str(Path(__file__).resolve().parents[3])


class MathVerifyPool:
    """A few worker processes running math-verify with a per-call deadline.

    Each worker is ``python -m gpassk_oc.core.answers._mv_worker`` speaking JSON lines over pipes, so
    it works from any thread, from daemonic worker processes (no ``multiprocessing``) and needs
    no ``__main__`` guard. A call that exceeds ``timeout`` kills its worker (SIGKILL) and yields
    ``'undecided'``; a fresh worker is started lazily for the next call.
    """

    def __init__(self, workers: int = 2, timeout: float = 5.0) -> None:
        self.size = max(1, int(workers))
        self.timeout = float(timeout)
        self._idle: queue.LifoQueue[subprocess.Popen | None] = queue.LifoQueue()
        for _ in range(self.size):
            self._idle.put(None)  # slot without a started process
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self.timeouts = 0
        self._closed = False
        self._spawner: threading.Thread | None = None
        self._spawn_q: queue.Queue = queue.Queue()

    # -- process management
    def _start(self) -> subprocess.Popen:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (_package_root(), env.get("PYTHONPATH", "")) if p
        )
        env[_WORKER_ENV_FLAG] = "1"
        env["GPASSK_MV_PARENT"] = str(os.getpid())
        proc = self._spawn(
            dict(
                args=[sys.executable, "-u", "-m", "gpassk_oc.core.answers._mv_worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                bufsize=0,
            )
        )
        proc._gp_buf = b""  # type: ignore[attr-defined]
        with self._lock:
            self._procs.add(proc)
        return proc

    def _spawn(self, kwargs: dict) -> subprocess.Popen:
        """Start a process from one long-lived thread: the worker's PR_SET_PDEATHSIG follows
        the *thread* that forked it, and executor threads come and go."""
        with self._lock:
            if self._spawner is None:
                self._spawner = threading.Thread(
                    target=self._spawn_loop, daemon=True, name="mv-spawner"
                )
                self._spawner.start()
        box: list = []
        done = threading.Event()
        self._spawn_q.put((kwargs, box, done))
        done.wait()
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    def _spawn_loop(self) -> None:
        while True:
            kwargs, box, done = self._spawn_q.get()
            try:
                box.append(subprocess.Popen(**kwargs))
            except BaseException as exc:  # reported to the caller
                box.append(exc)
            done.set()

    def _kill(self, proc: subprocess.Popen) -> None:
        try:
            proc.kill()
            proc.wait(timeout=5)
        except Exception:
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except Exception:
                pass
        with self._lock:
            self._procs.discard(proc)

    def _readline(self, proc: subprocess.Popen, deadline: float) -> bytes | None:
        fd = proc.stdout.fileno()  # type: ignore[union-attr]
        buf: bytes = proc._gp_buf  # type: ignore[attr-defined]
        while b"\n" not in buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:  # worker died
                raise EOFError
            buf += chunk
        line, _, rest = buf.partition(b"\n")
        proc._gp_buf = rest  # type: ignore[attr-defined]
        return line

    # -- public
    def check(self, pred: str, gold: str, timeout: float | None = None) -> Outcome:
        """math-verify outcome for one pair; 'undecided' on timeout or worker failure."""
        if self._closed:
            raise RuntimeError("MathVerifyPool is closed")
        limit = self.timeout if timeout is None else timeout
        proc = self._idle.get()
        try:
            for _attempt in range(2):  # a worker that died between calls is replaced once
                if proc is None or proc.poll() is not None:
                    if proc is not None:
                        self._kill(proc)
                    proc = self._start()
                    # startup (imports) does not count against the per-call deadline
                    start_deadline = time.monotonic() + 120
                    try:
                        proc.stdin.write(b'["ping"]\n')  # type: ignore[union-attr]
                        started = self._readline(proc, start_deadline) is not None
                    except (BrokenPipeError, EOFError, OSError):
                        started = False
                    if not started:
                        self._kill(proc)
                        proc = None
                        raise RuntimeError(f"math-verify worker failed to start: {_start_error()}")
                try:
                    proc.stdin.write(json.dumps([pred, gold]).encode() + b"\n")  # type: ignore[union-attr]
                    line = self._readline(proc, time.monotonic() + limit)
                except (BrokenPipeError, EOFError, OSError):
                    self._kill(proc)
                    proc = None
                    continue
                if line is None:  # deadline passed: the worker is stuck in sympy
                    self.timeouts += 1
                    self._kill(proc)
                    proc = None
                    return "undecided"
                try:
                    outcome = json.loads(line)
                except ValueError:
                    outcome = "undecided"
                return outcome if outcome in ("equal", "wrong") else "undecided"
            return "undecided"
        finally:
            self._idle.put(proc)

    def check_many(
        self, pairs: Sequence[tuple[str, str]], timeout: float | None = None
    ) -> list[Outcome]:
        """Outcomes for many (pred, gold) pairs, spread over the workers (*timeout* per call,
        as in :meth:`check`)."""
        if not pairs:
            return []
        if self.size == 1 or len(pairs) == 1:
            return [self.check(p, g, timeout) for p, g in pairs]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(self.size) as ex:
            return list(ex.map(lambda pg: self.check(pg[0], pg[1], timeout), pairs))

    def close(self) -> None:
        """Kill every worker."""
        self._closed = True
        with self._lock:
            procs = list(self._procs)
        for proc in procs:
            self._kill(proc)

    def __enter__(self) -> MathVerifyPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _start_error() -> str:
    """Why ``python -m gpassk_oc.core.answers._mv_worker`` cannot start (its import error), briefly."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (_package_root(), env.get("PYTHONPATH", "")) if p
    )
    probe = subprocess.run(
        [sys.executable, "-c", "import math_verify, gpassk_oc.core.answers._mv_worker"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    tail = (probe.stderr or "").strip().splitlines()[-1:] or ["no error on import; timed out"]
    return f"{sys.executable}: {tail[0]}"


_DEFAULT_POOL: MathVerifyPool | None = None
_DEFAULT_POOL_LOCK = threading.Lock()


def default_pool() -> MathVerifyPool:
    """The process-wide pool used by :func:`answers_equivalent` (closed at exit)."""
    global _DEFAULT_POOL
    with _DEFAULT_POOL_LOCK:
        if _DEFAULT_POOL is None:
            # fixed, not read from the environment: a caller that wants another size or
            # deadline makes its own pool and passes it in
            _DEFAULT_POOL = MathVerifyPool(workers=min(2, os.cpu_count() or 1), timeout=5.0)
            atexit.register(_DEFAULT_POOL.close)
        return _DEFAULT_POOL
