"""Persistent, crash-safe, multi-writer cache of judge labels (pure core).

Layout: a directory of append-only JSON-lines files, one per writing process,
``judgements-<host>-<pid>-<uuid8>.jsonl``. Each line is one committed judgement::

    {"key": "<sha256>", "label": "yes"|"no", "task": ..., "time": ...,
     "model": ..., "question": ..., "gold": ..., "answer": ...}

(``key``, ``label``, ``task``, ``time`` always; the rest is the caller's provenance.)

* **Crash-safe**: a label is written, flushed and ``fsync``'d as soon as it arrives, so a
  ``kill -9`` loses at most the judgements still in flight.
* **Concurrent writers** (several eval tasks, also on different Slurm nodes over NFS): no
  file is ever written by two processes and nothing is locked or rewritten, so there is no
  shared state to corrupt. On open every ``judgements-*.jsonl`` file is read;
  :meth:`JudgeCache.refresh` re-reads files written by others since.
* **Torn lines**: a line that is not complete JSON (a writer killed mid-write, or NFS
  showing a partial append) is skipped. Our own file always starts a fresh line.
* Only definite labels are stored; unjudged pairs are retried by the next run.

The key is :func:`judgement_key` = sha256 over (judge model, prompt version, question, gold,
canonical answer). The prompt version (``JudgeConfig.prompt_for``) is the template's name
plus a hash of its exact text, e.g. ``opencompass-en:<16 hex>``: a label is reused only for
the very prompt text that produced it. Keys written before versions carried that hash
(``gpassk-en-v1``…) are still read but never match, so those pairs are judged again.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import threading
import time
import uuid
from pathlib import Path

FILE_GLOB = "judgements-*.jsonl"


def judgement_key(model: str, prompt_version: str, question: str, gold: str, answer: str) -> str:
    """Content hash identifying one judgement (*prompt_version* carries the prompt text's hash)."""
    blob = json.dumps([model, prompt_version, question, gold, answer], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class JudgeCache:
    """Labels by :func:`judgement_key`; ``cache_dir=None`` keeps them in memory only."""

    def __init__(self, cache_dir: str | None, task_id: str | None = None) -> None:
        self.dir = Path(cache_dir) if cache_dir else None
        self.task_id = task_id
        self._labels: dict[str, str] = {}
        self._offsets: dict[Path, int] = {}
        self._lock = threading.Lock()
        self._fh: io.FileIO | None = None  # our own append-only file, opened on first put
        self.own_path: Path | None = None
        self.torn_lines = 0
        if self.dir is not None:
            self.dir.mkdir(parents=True, exist_ok=True)
            self.refresh()

    def __len__(self) -> int:
        return len(self._labels)

    @property
    def location(self) -> str:
        """Human-readable location for messages."""
        return str(self.dir) if self.dir is not None else "(in memory only: no cache_dir)"

    def refresh(self) -> int:
        """Read lines appended to any cache file since the last read; returns the new count."""
        if self.dir is None:
            return 0
        added = 0
        for path in sorted(self.dir.glob(FILE_GLOB)):
            if path == self.own_path:
                continue
            start = self._offsets.get(path, 0)
            try:
                with open(path, "rb") as fh:
                    fh.seek(start)
                    data = fh.read()
            except OSError:
                continue
            # consume complete lines only; an incomplete tail is re-read next time
            end = data.rfind(b"\n") + 1
            for raw in data[:end].splitlines():
                if not raw.strip():
                    continue
                try:
                    rec = json.loads(raw)
                    key, label = rec["key"], rec["label"]
                except (ValueError, KeyError, TypeError):
                    self.torn_lines += 1  # torn / garbled line: skip it
                    continue
                if label in ("yes", "no"):
                    with self._lock:
                        if key not in self._labels:
                            added += 1
                        self._labels[key] = label
            self._offsets[path] = start + end
        return added

    def get(self, key: str) -> str | None:
        """The committed label for *key*, or None."""
        return self._labels.get(key)

    def _open_own(self) -> None:
        host = socket.gethostname().split(".")[0] or "host"
        name = f"judgements-{host}-{os.getpid()}-{uuid.uuid4().hex[:8]}.jsonl"
        self.own_path = self.dir / name  # type: ignore[operator]
        self._fh = open(self.own_path, "ab", buffering=0)

    def put(self, key: str, label: str, **meta: object) -> None:
        """Commit a label durably (write + fsync) before returning."""
        if label not in ("yes", "no"):
            raise ValueError(f"label must be 'yes' or 'no', got {label!r}")
        with self._lock:
            self._labels[key] = label
            if self.dir is None:
                return
            if self._fh is None:
                self._open_own()
            rec: dict[str, object] = {
                "key": key,
                "label": label,
                "task": self.task_id,
                "time": round(time.time(), 3),
            }
            rec.update(meta)
            assert self._fh is not None  # opened just above
            self._fh.write((json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8"))
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        """Close our file (labels stay readable)."""
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None
