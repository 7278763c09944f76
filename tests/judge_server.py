"""A fault-injecting OpenAI-compatible judge endpoint on 127.0.0.1 (test / bench fixture).

``JudgeServer(truth)`` serves ``POST /v1/chat/completions``. It finds which
(question, answer) of its ground-truth table a prompt is about *without knowing our prompt
wording*: the question is the longest known question contained in the prompt, and the
answer is the last line of the prompt that is a known answer of that question, either the
whole line or what follows its first colon (``Examinee's Answer: 12``, ``考生答案：12``);
prompts put the candidate after the reference answer. It replies
``\\boxed{yes}``/``\\boxed{no}`` from the table.

Faults, drawn per request from a seeded RNG: ``p_500`` (HTTP 503), ``p_garbage`` (a reply
without verdict), ``p_disconnect`` (connection closed without a response), plus a fixed
``delay`` before answering. ``calls[(question, answer)]`` counts requests per pair,
``answered[(question, answer)]`` successful verdict replies; ``received`` lists every
request as (model, prompt, max_tokens), in arrival order.

Used in-process (a daemon thread) by the tests and by bench/bench_judge.py; subprocesses
under test reach it through its URL.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class JudgeServer:
    """Threaded fake judge; use as a context manager or call start()/stop()."""

    def __init__(
        self,
        truth: Mapping[tuple[str, str], bool],
        *,
        p_500: float = 0.0,
        p_garbage: float = 0.0,
        p_disconnect: float = 0.0,
        delay: float = 0.0,
        seed: int = 0,
        status: int | None = None,
    ) -> None:
        self.truth = dict(truth)
        self.by_question: dict[str, list[str]] = {}
        for q, a in self.truth:
            self.by_question.setdefault(q, []).append(a)
        self.p_500, self.p_garbage, self.p_disconnect = p_500, p_garbage, p_disconnect
        self.delay, self.status = delay, status
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.calls: Counter = Counter()
        self.answered: Counter = Counter()
        self.unknown: list[str] = []
        self.requests = 0
        self.models: Counter = Counter()
        self.received: list[tuple[str | None, str, int | None]] = []
        self.httpd: ThreadingHTTPServer | None = None

    # -- lookup
    def find_pair(self, prompt: str) -> tuple[str, str] | None:
        questions = [q for q in self.by_question if q in prompt]
        if not questions:
            return None
        q = max(questions, key=len)
        known = {a.strip(): a for a in self.by_question[q]}
        # a multi-line candidate (a response's last paragraph) first: its lines are no
        # answers, and the reference answer line would be found before it
        multi = [a for a in known if "\n" in a and a in prompt]
        if multi:
            return q, known[max(multi, key=len)]
        # the candidate is the *last* line that is a known answer: prompts quote the
        # reference answer (which may itself be a known answer form) before the candidate
        for line in reversed(prompt.splitlines()):
            for text in (
                line,
                *(line.split(colon, 1)[1] for colon in (":", "：") if colon in line),
            ):
                if text.strip() in known:
                    return q, known[text.strip()]
        return None

    def _handler(server_self):  # noqa: N805 - closure over the JudgeServer
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                prompt = body["messages"][-1]["content"]
                pair = server_self.find_pair(prompt)
                with server_self.lock:
                    server_self.requests += 1
                    server_self.models[body.get("model")] += 1
                    server_self.received.append((body.get("model"), prompt, body.get("max_tokens")))
                    if pair is None:
                        server_self.unknown.append(prompt)
                    else:
                        server_self.calls[pair] += 1
                    roll = server_self.rng.random()
                if server_self.delay:
                    time.sleep(server_self.delay)
                if server_self.status is not None:
                    return self._send(server_self.status, {"error": "injected"})
                if roll < server_self.p_disconnect:
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                roll -= server_self.p_disconnect
                if roll < server_self.p_500:
                    return self._send(503, {"error": "overloaded (injected)"})
                roll -= server_self.p_500
                if pair is None:
                    text = "I cannot find the answer in this prompt."
                elif roll < server_self.p_garbage:
                    text = "The answer A looks plausible but I am not sure."
                else:
                    text = (
                        "Both are the same value.\n\\boxed{yes}"
                        if server_self.truth[pair]
                        else "They differ.\n\\boxed{no}"
                    )
                    with server_self.lock:
                        server_self.answered[pair] += 1
                self._send(
                    200,
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                    },
                )

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    @property
    def url(self) -> str:
        assert self.httpd is not None
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> JudgeServer:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
