"""LLM-judge prompts and a client for OpenAI-compatible chat endpoints (pure core).

Endpoints: anything serving ``POST /v1/chat/completions`` — lmdeploy ``serve api_server``,
vLLM ``serve``, OpenAI. ``JudgeConfig.urls`` may be bases (``http://h:23333`` or
``http://h:23333/v1``) or full ``.../chat/completions`` URLs; requests are spread over them
(the least-busy URL first, ties round-robin).

Prompts (``JudgeConfig.prompt``):

``'en'`` / ``'cn'``
    Our own grading instructions; the judge must end with ``\\boxed{yes}`` or ``\\boxed{no}``.
``'auto'``
    ``'cn'`` for items whose ``language`` is ``'cn'``, else ``'en'``.
``'livemath-judge'``
    A compact prompt (question / reference answer / candidate answer, reply ``yes`` or
    ``no``) for small fine-tuned judges such as LiveMath-Judge, which reply with a bare word;
    :func:`~gpassk_oc.core.verdict.parse_verdict` accepts a bare verdict word. That model was
    fine-tuned on OpenCompass's LiveMathBench judge prompt; to reproduce it exactly pass that
    text as ``JudgeConfig.template`` (placeholders ``{question}``, ``{gold}``, ``{answer}``).

Every prompt carries a version string that is part of the judgement cache key, so editing a
prompt can never reuse labels produced by another prompt.

The API key is read from the environment variable named by ``api_key_env`` only (never from
a config file); without it no ``Authorization`` header is sent (local servers need none).
"""
from __future__ import annotations

import hashlib
import itertools
import os
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .verdict import Verdict, parse_verdict

PROMPT_EN = """You are grading the final answer of a student on a mathematics problem.

Problem:
{question}

Reference answer:
{gold}

Student's final answer:
{answer}

Decide whether the student's final answer is mathematically equivalent to the reference answer.
- Different but equivalent forms count as equal (fractions vs decimals, simplified vs unsimplified radicals, reordered sets, equivalent intervals or expressions).
- If the problem has several parts, every part must match.
- For multiple-choice problems the chosen option(s) must be exactly the reference option(s).
- Do not solve the problem again; only compare the two answers. If unsure, answer no.

Give at most two sentences of reasoning, then end with \\boxed{{yes}} or \\boxed{{no}}."""

PROMPT_CN = """你是一名数学阅卷老师，需要判断学生的最终答案是否正确。

题目：
{question}

标准答案：
{gold}

学生的最终答案：
{answer}

请判断学生的最终答案与标准答案在数学上是否等价。
- 形式不同但等价的答案视为一致（分数与小数、根式化简前后、集合元素顺序不同、等价的区间或表达式）。
- 若题目有多个小问，每一问都必须一致。
- 选择题中所选选项必须与标准答案完全相同。
- 不要重新解题，只比较两个答案。无法确定时判为不一致。

最多用两句话说明理由，最后输出 \\boxed{{yes}}（一致）或 \\boxed{{no}}（不一致）。"""

PROMPT_LIVEMATH = """Question:
{question}

Reference answer:
{gold}

Candidate answer:
{answer}

Is the candidate answer equivalent to the reference answer? Reply with yes or no."""

PROMPTS = {"en": PROMPT_EN, "cn": PROMPT_CN, "livemath-judge": PROMPT_LIVEMATH}
#: bump a version whenever the wording of that prompt changes (part of the cache key)
PROMPT_VERSIONS = {"en": "gpassk-en-v1", "cn": "gpassk-cn-v1", "livemath-judge": "gpassk-lmj-v1"}


@dataclass
class JudgeConfig:
    """Settings of the LLM judge. ``api_key_env`` names an environment variable; no key field.

    Attributes:
        urls: endpoint base URLs or full chat-completions URLs (load-balanced).
        model: model name sent in each request and part of the cache key.
        api_key_env: environment variable holding the API key (optional for local servers).
        prompt: 'en' | 'cn' | 'auto' (by item language) | 'livemath-judge'.
        template: optional custom prompt with ``{question}``, ``{gold}``, ``{answer}``;
            overrides ``prompt`` and is versioned by its content hash.
        concurrency: maximum requests in flight.
        timeout: per-request timeout in seconds.
        max_retries: retries after a transport failure (5xx, 429, timeout, connection error,
            malformed response body) with exponential backoff and full jitter.
        backoff_base, backoff_max: backoff = uniform(0, min(max, base · 2^attempt)) seconds.
        unparseable_retries: extra attempts when the reply has no parseable verdict.
        temperature, max_tokens: sampling settings of the judge request.
    """

    urls: Sequence[str]
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    prompt: str = "auto"
    template: Optional[str] = None
    concurrency: int = 8
    timeout: float = 60.0
    max_retries: int = 5
    backoff_base: float = 0.5
    backoff_max: float = 20.0
    unparseable_retries: int = 1
    temperature: float = 0.0
    max_tokens: int = 512

    def __post_init__(self) -> None:
        if isinstance(self.urls, str):
            self.urls = [self.urls]
        self.urls = list(self.urls)
        if not self.urls:
            raise ValueError("JudgeConfig.urls: at least one endpoint URL is required")
        if self.template is None and self.prompt not in ("en", "cn", "auto", "livemath-judge"):
            raise ValueError(f"JudgeConfig.prompt: unknown prompt {self.prompt!r}; "
                             "use 'en', 'cn', 'auto' or 'livemath-judge'")
        if self.concurrency < 1:
            raise ValueError("JudgeConfig.concurrency must be >= 1")

    def prompt_for(self, language: Optional[str]) -> tuple[str, str]:
        """(template, version) used for an item of the given language."""
        if self.template is not None:
            digest = hashlib.sha256(self.template.encode()).hexdigest()[:12]
            return self.template, f"custom-{digest}"
        name = self.prompt
        if name == "auto":
            name = "cn" if (language or "").lower() in ("cn", "zh", "zh-cn", "chinese") else "en"
        return PROMPTS[name], PROMPT_VERSIONS[name]


def chat_url(url: str) -> str:
    """Normalise an endpoint base URL to its ``/v1/chat/completions`` URL."""
    url = url.rstrip("/")
    if url.endswith("/chat/completions"):
        return url
    if url.endswith("/v1"):
        return url + "/chat/completions"
    return url + "/v1/chat/completions"


@dataclass
class JudgeOutcome:
    """Result of judging one pair: ``label`` is None when no verdict could be obtained."""

    label: Optional[Verdict]
    attempts: int = 0
    errors: Counter = field(default_factory=Counter)


class JudgeClient:
    """Thread-safe client: call :meth:`judge` from up to ``config.concurrency`` threads."""

    def __init__(self, config: JudgeConfig, rng_seed: Optional[int] = None) -> None:
        import httpx  # installed with openai (an OpenCompass dependency)

        self.config = config
        self.urls = [chat_url(u) for u in config.urls]
        key = os.environ.get(config.api_key_env or "", "")
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        limits = httpx.Limits(max_connections=config.concurrency * 2,
                              max_keepalive_connections=config.concurrency)
        self._http = httpx.Client(headers=headers, timeout=config.timeout, limits=limits,
                                  trust_env=False)
        self._httpx = httpx
        self._busy = Counter()
        self._rr = itertools.count()
        self._lock = threading.Lock()
        self._rng = random.Random(rng_seed)
        self.calls = 0  # HTTP attempts, all threads

    def close(self) -> None:
        self._http.close()

    def _pick_url(self) -> str:
        with self._lock:
            start = next(self._rr)
            order = [self.urls[(start + i) % len(self.urls)] for i in range(len(self.urls))]
            url = min(order, key=lambda u: self._busy[u])
            self._busy[url] += 1
            self.calls += 1
            return url

    def _release(self, url: str) -> None:
        with self._lock:
            self._busy[url] -= 1

    def _backoff(self, attempt: int) -> None:
        cap = min(self.config.backoff_max, self.config.backoff_base * (2 ** attempt))
        with self._lock:
            delay = self._rng.uniform(0, cap)
        time.sleep(delay)

    def _post(self, prompt: str) -> tuple[Optional[str], Optional[str]]:
        """One HTTP attempt: (reply text, None) or (None, error kind); error kinds name the URL."""
        url = self._pick_url()
        payload = {"model": self.config.model,
                   "messages": [{"role": "user", "content": prompt}],
                   "temperature": self.config.temperature,
                   "max_tokens": self.config.max_tokens}
        try:
            resp = self._http.post(url, json=payload)
        except self._httpx.TimeoutException:
            return None, f"{url}: timeout"
        except self._httpx.TransportError as exc:  # connection refused / reset / protocol
            return None, f"{url}: {type(exc).__name__}"
        finally:
            self._release(url)
        if resp.status_code >= 400:
            return None, f"{url}: HTTP {resp.status_code}"
        try:
            message = resp.json()["choices"][0]["message"]
            content = message.get("content") or ""
        except Exception:
            return None, f"{url}: malformed response body"
        return content, None

    def judge(self, question: str, gold: str, answer: str,
              language: Optional[str] = None) -> JudgeOutcome:
        """Ask the judge whether *answer* matches *gold*; never raises for endpoint failures."""
        template, _ = self.config.prompt_for(language)
        prompt = template.format(question=question, gold=gold, answer=answer)
        outcome = JudgeOutcome(label=None)
        transport_failures = 0
        unparseable = 0
        while True:
            reply, error = self._post(prompt)
            outcome.attempts += 1
            if error is not None:
                outcome.errors[error] += 1
                # 4xx other than 408/429 will not heal by retrying (bad model name, too long)
                status = error.rsplit("HTTP ", 1)[-1] if "HTTP " in error else ""
                if status.isdigit() and 400 <= int(status) < 500 and status not in ("408", "429"):
                    return outcome
                if transport_failures >= self.config.max_retries:
                    return outcome
                self._backoff(transport_failures)
                transport_failures += 1
                continue
            label = parse_verdict(reply)
            if label is not None:
                outcome.label = label
                return outcome
            outcome.errors["unparseable reply"] += 1
            if unparseable >= self.config.unparseable_retries:
                return outcome
            unparseable += 1
