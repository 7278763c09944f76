"""A simulated OpenAI-compatible chat endpoint for offline runs and tests (pure core).

``SimEndpoint`` serves ``POST /v1/chat/completions`` and ``GET /v1/models`` on
127.0.0.1 (port 0 = any free port) from a :class:`http.server.ThreadingHTTPServer`
in a daemon thread; what it answers is decided by a pluggable *responder*, a callable
``(model, messages, params) -> str``.

Two responders simulate models on a known question set:

* :class:`ExactCountsResponder` answers question q correctly in exactly ``c_q`` of
  every ``n`` calls for it, whatever the order or concurrency of the calls, so the
  expected G-Pass@k of a run is known in advance;
* :class:`ProbabilityResponder` answers correctly with a per-model, per-question
  probability, reproducibly (the draw for the j-th call is seeded by
  ``(seed, model, question, j)``).

:class:`PaddedResponder` makes any responder's replies longer, so that a request's
``max_tokens`` cuts them. What one request gets back (``n`` choices, cuts at
``max_tokens`` with ``finish_reason: "length"``, ``usage`` counts) is
:mod:`gpassk_oc.demo.sim_completions`'s job.

A responder may return a dict instead of a string: the assistant message's fields, e.g.
``{"content": "...", "reasoning_content": "..."}`` as vLLM / LMDeploy / SGLang reasoning
parsers and DeepSeek's API send them.

Questions are recognised as substrings of the last user message (the longest match
wins, so a question that contains another is not confused with it).
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from gpassk_oc.demo.sim_completions import BadRequest, chat_completion

__all__ = [
    "ExactCountsResponder",
    "PaddedResponder",
    "ProbabilityResponder",
    "SimEndpoint",
    "SimQuestion",
    "WRONG_ANSWER",
    "questions_from_records",
]

Responder = Callable[[str, list, dict], "str | dict[str, Any]"]

#: The wrong final answer simulated models give; equal to no gold in our data.
WRONG_ANSWER = "-987654321"
#: What a simulated model writes when it gives no final answer (a judge would say no).
NO_ANSWER_REPLY = "I am not sure how to finish this problem."


@dataclass(frozen=True)
class SimQuestion:
    """A question the simulated model recognises, its gold answer, and its behaviour.

    ``correct_forms`` are the ways a correct answer is written (cycled per call), e.g.
    ``("\\frac{1}{2}", "\\dfrac{1}{2}")``; by default the gold itself.
    """

    text: str
    gold: str
    correct_forms: tuple[str, ...] = ()

    def forms(self) -> tuple[str, ...]:
        return self.correct_forms or (self.gold,)


def questions_from_records(records: Sequence[Mapping[str, Any]]) -> list[SimQuestion]:
    """SimQuestions from LiveMathBench rows (``question``/``answer``), e.g. the output of
    :func:`gpassk_oc.core.data.livemath_data.load_records`; duplicates are dropped."""
    seen: dict[str, SimQuestion] = {}
    for row in records:
        text = str(row["question"])
        seen.setdefault(text, SimQuestion(text=text, gold=str(row["answer"])))
    return list(seen.values())


def _last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(list(messages)):
        if message.get("role") == "user":
            content = message.get("content", "")
            if isinstance(content, list):  # multimodal parts
                return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content)
    return ""


class _QuestionMatcher:
    def __init__(self, questions: Sequence[SimQuestion]):
        self._by_text = {q.text: q for q in questions}
        # longest first: a question that contains another must win
        self._order = sorted(self._by_text, key=len, reverse=True)

    def match(self, prompt: str) -> SimQuestion | None:
        for text in self._order:
            if text in prompt:
                return self._by_text[text]
        return None


def _answer(correct: bool, question: SimQuestion, call: int) -> str:
    if correct:
        forms = question.forms()
        return f"Working step by step we find the result.\n\nFinal: $\\boxed{{{forms[call % len(forms)]}}}$"
    if call % 2:  # half of the wrong answers state no boxed answer at all
        return NO_ANSWER_REPLY
    return f"After some algebra the answer is $\\boxed{{{WRONG_ANSWER}}}$."


class ExactCountsResponder:
    """Correct in exactly ``counts[text]`` of every ``n`` calls for a question.

    Call j (0-based, per question, counted under a lock) is correct iff ``j % n <
    c_q``; over n calls that is exactly c_q correct answers regardless of which
    thread arrives first. A prompt with no known question raises (HTTP 500).
    """

    def __init__(self, questions: Sequence[SimQuestion], counts: Mapping[str, int], n: int):
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        self.n = n
        self.counts = dict(counts)
        for q in questions:
            c = self.counts.get(q.text)
            if c is None or not 0 <= c <= n:
                raise ValueError(f"count for {q.text[:40]!r} must lie in [0, {n}], got {c!r}")
        self._matcher = _QuestionMatcher(questions)
        self._calls: Counter = Counter()
        self._lock = threading.Lock()

    def calls(self, text: str) -> int:
        """How many calls question *text* has received."""
        with self._lock:
            return self._calls[text]

    def __call__(self, model: str, messages: list, params: dict) -> str:
        question = self._matcher.match(_last_user_text(messages))
        if question is None:
            raise LookupError("prompt contains no known question")
        with self._lock:
            call = self._calls[question.text]
            self._calls[question.text] += 1
        return _answer(call % self.n < self.counts[question.text], question, call)


class ProbabilityResponder:
    """Correct with probability ``probabilities[model][text]`` (seeded, reproducible).

    The j-th call for (model, question) draws from ``random.Random(f"{seed}|{model}|
    {text}|{j}")``, so the multiset of outcomes does not depend on call order. A model
    missing from *probabilities* uses the ``"*"`` entry if present.
    """

    def __init__(
        self,
        questions: Sequence[SimQuestion],
        probabilities: Mapping[str, Mapping[str, float]],
        seed: int = 0,
    ):
        self.probabilities = {m: dict(p) for m, p in probabilities.items()}
        self.seed = seed
        self._matcher = _QuestionMatcher(questions)
        self._calls: Counter = Counter()
        self._lock = threading.Lock()

    def __call__(self, model: str, messages: list, params: dict) -> str:
        question = self._matcher.match(_last_user_text(messages))
        if question is None:
            raise LookupError("prompt contains no known question")
        table = self.probabilities.get(model, self.probabilities.get("*"))
        if table is None:
            raise LookupError(f"no probabilities for model {model!r}")
        with self._lock:
            call = self._calls[(model, question.text)]
            self._calls[(model, question.text)] += 1
        draw = random.Random(f"{self.seed}|{model}|{question.text}|{call}").random()
        return _answer(draw < float(table.get(question.text, 0.0)), question, call)


#: the working a padded reply repeats (9 tokens, each a word)
PADDING_WORDS = tuple("We check the next case and update the count.".split())


class PaddedResponder:
    """A responder whose replies are *tokens* tokens longer: that many words of working
    (:data:`PADDING_WORDS` repeated) and a blank line before what *inner* says, in the
    first generated field (``reasoning_content`` if the reply has one, else ``content``).

    A long reply is what a ``max_tokens`` below its length cuts (``finish_reason:
    "length"``), e.g. to see how a harness reports a truncated reply. Tokens as in
    :mod:`gpassk_oc.demo.sim_completions`: runs of non-whitespace characters.
    """

    def __init__(self, inner: Responder, tokens: int):
        if tokens < 0:
            raise ValueError(f"tokens must be >= 0, got {tokens}")
        self.inner = inner
        self.padding = " ".join(PADDING_WORDS[i % len(PADDING_WORDS)] for i in range(tokens))

    def __call__(self, model: str, messages: list, params: dict) -> str | dict[str, Any]:
        reply = self.inner(model, messages, params)
        if not self.padding:
            return reply
        if not isinstance(reply, dict):
            return f"{self.padding}\n\n{reply}"
        field = "reasoning_content" if reply.get("reasoning_content") else "content"
        return {**reply, field: f"{self.padding}\n\n{reply.get(field) or ''}"}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    endpoint: SimEndpoint


class _Handler(BaseHTTPRequestHandler):
    """The HTTP side: routes, JSON bodies, status codes; the answers come from
    :func:`gpassk_oc.demo.sim_completions.chat_completion`."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in (("Content-Type", "application/json"), ("Content-Length", len(data))):
            self.send_header(name, str(value))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str) -> None:
        self._send(status, {"error": {"message": message, "type": kind}})

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        if self.path.rstrip("/") != "/v1/models":
            self._error(404, f"no route {self.path}", "not_found")
            return
        models = [
            {"id": m, "object": "model", "owned_by": "gpassk-sim"}
            for m in self.server.endpoint.models
        ]
        self._send(200, {"object": "list", "data": models})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._error(400, "malformed JSON body", "invalid_request_error")
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._error(404, f"no route {self.path}", "not_found")
            return
        endpoint = self.server.endpoint
        number = endpoint.record(body)
        try:
            answer = chat_completion(endpoint.responder, body, f"chatcmpl-sim-{number}")
        except BadRequest as exc:
            self._error(400, str(exc), "invalid_request_error")
            return
        except Exception as exc:  # the client sees a 500 with the reason
            self._error(500, f"{type(exc).__name__}: {exc}", "server_error")
            return
        self._send(200, answer)


class SimEndpoint:
    """OpenAI-compatible HTTP endpoint on 127.0.0.1 backed by a responder.

    Use as a context manager (or call :meth:`start` / :meth:`stop`). ``url`` is the
    ``openai_api_base`` to configure (``http://127.0.0.1:PORT/v1/``); ``requests``
    records every chat request body (thread-safe) so callers can check what a client
    sent, e.g. its temperature and top_p. A request's ``n``, ``max_tokens`` and the
    ``usage`` it gets back behave as :mod:`gpassk_oc.demo.sim_completions` describes.
    """

    def __init__(
        self,
        responder: Responder,
        host: str = "127.0.0.1",
        port: int = 0,
        models: Sequence[str] = ("sim-model",),
    ):
        self.responder = responder
        self.models = list(models)
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._server = _Server((host, port), _Handler)
        self._server.endpoint = self
        self._thread: threading.Thread | None = None

    def record(self, body: dict) -> int:
        """Keep a request body; its 1-based number."""
        with self._lock:
            self.requests.append(body)
            return len(self.requests)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        host = self._server.server_address[0]
        return f"http://{host if isinstance(host, str) else host.decode()}:{self.port}/v1/"

    @property
    def num_requests(self) -> int:
        with self._lock:
            return len(self.requests)

    def start(self) -> SimEndpoint:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever, name="gpassk-sim-endpoint", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> SimEndpoint:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
