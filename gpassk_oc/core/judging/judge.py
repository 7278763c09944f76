"""LLM-judge prompts and a client for OpenAI-compatible chat endpoints (pure core).

Endpoints: anything serving ``POST /v1/chat/completions`` — lmdeploy ``serve api_server``,
vLLM ``serve``, OpenAI. ``JudgeConfig.urls`` may be bases (``http://h:23333`` or
``http://h:23333/v1``) or full ``.../chat/completions`` URLs; requests are spread over them
(the least-busy URL first, ties round-robin).

Prompts (``JudgeConfig.prompt``); each is a pair of templates, English and Chinese, picked
per item by its ``language`` (``'cn'``/``'zh'``… → Chinese, anything else → English):

``'opencompass'``
    OpenCompass's own LiveMathBench judge prompts (``JUDGE_PROMPT_EN``/``JUDGE_PROMPT_CN``
    of ``opencompass.datasets.livemathbench.prompts``), read as OpenCompass reads them
    (:func:`~gpassk_oc.core.judging.verdict.parse_opencompass_verdict`). The paper's tables were
    judged with them, and LiveMath-Judge was fine-tuned on them. This module ships no copy:
    the texts come in ``JudgeConfig.prompt_texts`` (``gpassk_oc.evaluators`` loads them from
    the installed OpenCompass). Requests ask for up to 8192 tokens, as OpenCompass does.
``'gpassk'``
    Our own grading instructions; the judge ends with ``\\boxed{yes}`` or ``\\boxed{no}``,
    read by :func:`~gpassk_oc.core.judging.verdict.parse_verdict` (tolerant of ``\\text{Yes}``,
    ``是``…). ``'en'`` / ``'cn'`` force its English / Chinese template for every item.
``'auto'`` (default)
    ``'opencompass'`` when the judge model's name names LiveMath-Judge (case, ``-``, ``_``,
    ``/`` and spaces ignored: ``LiveMath-Judge``, ``opencompass/LiveMath-Judge-7B``,
    ``livemath_judge``), else ``'gpassk'``.

A custom ``JudgeConfig.template`` (placeholders ``{question}``, ``{gold}`` or
``{gold_answer}``, ``{answer}``) overrides ``prompt`` and is read by ``parse_verdict``.

The judgement cache key carries each template's :attr:`JudgePrompt.version`, the family
name plus a hash of the exact template text, so a changed prompt text (another OpenCompass
version, an edited template) never reuses labels produced by another text.

The API key is read from the environment variable named by ``api_key_env`` only (never from
a config file); without it no ``Authorization`` header is sent (local servers need none).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from gpassk_oc.core.judging import judge_checks as checks
from gpassk_oc.core.judging.judge_checks import PROMPT_NAMES as PROMPT_NAMES  # re-exported
from gpassk_oc.core.judging.verdict import Verdict, parse_opencompass_verdict, parse_verdict

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

#: our own templates by language
GPASSK_PROMPTS = {"en": PROMPT_EN, "cn": PROMPT_CN}
#: request size per family when ``max_tokens`` is not set (OpenCompass asks for 8192; its
#: prompt asks for an analysis before the verdict, which 512 tokens can cut off)
DEFAULT_MAX_TOKENS = {"opencompass": 8192}
_DEFAULT_MAX_TOKENS = 512
_CN_LANGUAGES = ("cn", "zh", "zh-cn", "chinese")
_FORMAT_PROBE = dict(question="Q", gold="G", gold_answer="G", answer="A")


def names_livemath_judge(model: str) -> bool:
    """True when a judge model name names LiveMath-Judge (case and separators ignored)."""
    return "livemathjudge" in re.sub(r"[^a-z0-9]", "", str(model).lower())


def resolve_prompt(prompt: str, model: str) -> str:
    """The prompt family used for *prompt* and judge *model* ('auto' → see module docstring)."""
    if prompt != "auto":
        return prompt
    return "opencompass" if names_livemath_judge(model) else "gpassk"


def prompt_language(language: str | None) -> str:
    """'cn' for Chinese items, else 'en' (OpenCompass's LiveMathBench items are 'en'/'cn')."""
    return "cn" if (language or "").lower() in _CN_LANGUAGES else "en"


@dataclass(frozen=True)
class JudgePrompt:
    """One judge prompt template and the reader of the replies it asks for.

    ``name`` is ``'opencompass-en'``, ``'opencompass-cn'``, ``'gpassk-en'``, ``'gpassk-cn'``
    or ``'custom'``.
    """

    name: str
    template: str
    read: Callable[[str | None], Verdict | None]

    @property
    def version(self) -> str:
        """Family name and a hash of the exact template text (part of the cache key)."""
        digest = hashlib.sha256(self.template.encode("utf-8")).hexdigest()[:16]
        return f"{self.name}:{digest}"

    def render(self, question: str, gold: str, answer: str) -> str:
        """The template filled in (``{gold}`` and OpenCompass's ``{gold_answer}`` both work)."""
        return self.template.format(question=question, gold=gold, gold_answer=gold, answer=answer)


def _check_template(where: str, template: object) -> None:
    """One-line ValueError unless *template* is a string that formats with our placeholders."""
    if not isinstance(template, str) or not template.strip():
        raise ValueError(f"{where}: need a non-empty prompt text, got {template!r}")
    try:
        template.format(**_FORMAT_PROBE)
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(
            f"{where}: not a usable template ({type(exc).__name__}: {exc}); "
            "placeholders are {question}, {gold} or {gold_answer}, {answer}, "
            "literal braces are doubled"
        ) from None


@dataclass
class JudgeConfig:
    """Settings of the LLM judge. ``api_key_env`` names an environment variable; no key field.

    Attributes:
        urls: endpoint base URLs or full chat-completions URLs (load-balanced).
        model: model name sent in each request and part of the cache key.
        api_key_env: environment variable holding the API key (optional for local servers).
        prompt: 'auto' | 'opencompass' | 'gpassk' | 'en' | 'cn' (see the module docstring).
        template: optional custom prompt with ``{question}``, ``{gold}`` (or
            ``{gold_answer}``), ``{answer}``; overrides ``prompt``.
        prompt_texts: ``{'en': ..., 'cn': ...}``, the templates of prompt 'opencompass'
            (OpenCompass's ``JUDGE_PROMPT_EN``/``JUDGE_PROMPT_CN``); required when the prompt
            resolves to 'opencompass', unused otherwise. ``gpassk_oc.evaluators`` fills it.
        concurrency: maximum requests in flight.
        timeout: per-request timeout in seconds.
        max_retries: retries after a transport failure (5xx, 429, timeout, connection error,
            malformed response body) with exponential backoff and full jitter.
        backoff_base, backoff_max: backoff = uniform(0, min(max, base · 2^attempt)) seconds.
        unparseable_retries: extra attempts when the reply has no readable verdict.
        temperature: sampling temperature of the judge request.
        max_tokens: reply size limit; None = 8192 for 'opencompass' (as OpenCompass), else 512.
    """

    urls: Sequence[str]
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    prompt: str = "auto"
    template: str | None = None
    prompt_texts: Mapping[str, str] | None = None
    concurrency: int = 8
    timeout: float = 60.0
    max_retries: int = 5
    backoff_base: float = 0.5
    backoff_max: float = 20.0
    unparseable_retries: int = 1
    temperature: float = 0.0
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        # the same checks as the generator's eval_* variables (:mod:`.judge_checks`)
        where = "JudgeConfig."
        self.urls = checks.urls(
            where + "urls", [self.urls] if isinstance(self.urls, str) else self.urls
        )
        self.model = checks.model_name(where + "model", self.model)
        checks.optional_text(where + "api_key_env", self.api_key_env)
        checks.optional_text(where + "template", self.template)
        if self.template is None:
            self.prompt = checks.prompt_name(where + "prompt", self.prompt)
        else:
            checks.optional_text(where + "prompt", self.prompt)
        for name, least in (("concurrency", 1), ("max_retries", 0), ("unparseable_retries", 0)):
            checks.count(where + name, getattr(self, name), least)
        if self.max_tokens is not None:
            checks.count(where + "max_tokens", self.max_tokens, 1)
        self.timeout = checks.seconds(where + "timeout", self.timeout, positive=True)
        for name in ("backoff_base", "backoff_max", "temperature"):
            setattr(self, name, checks.seconds(where + name, getattr(self, name)))
        if self.template is not None:
            _check_template(where + "template", self.template)
        elif self.prompt_name == "opencompass":
            self._check_prompt_texts()

    def _check_prompt_texts(self) -> None:
        texts = self.prompt_texts
        why = (
            f"prompt='auto' picks 'opencompass' for judge model {self.model!r}, which"
            if self.prompt == "auto"
            else "prompt 'opencompass'"
        )
        if not isinstance(texts, Mapping) or set(texts) != {"en", "cn"}:
            raise ValueError(
                f"JudgeConfig.prompt_texts: {why} needs OpenCompass's LiveMathBench judge "
                "prompts as {'en': JUDGE_PROMPT_EN, 'cn': JUDGE_PROMPT_CN} (from "
                "opencompass.datasets.livemathbench.prompts; GPassKEvaluator passes them), "
                f"got {texts if texts is None else sorted(texts)!r}; or set prompt='gpassk'"
            )
        for lang in ("en", "cn"):
            _check_template(f"JudgeConfig.prompt_texts[{lang!r}]", texts[lang])
        self.prompt_texts = {lang: texts[lang] for lang in ("en", "cn")}

    @property
    def prompt_name(self) -> str:
        """The prompt family in use: 'opencompass', 'gpassk', 'en', 'cn' or 'custom'."""
        return "custom" if self.template is not None else resolve_prompt(self.prompt, self.model)

    @property
    def request_max_tokens(self) -> int:
        """``max_tokens`` sent with each request (see the attribute)."""
        if self.max_tokens is not None:
            return self.max_tokens
        return DEFAULT_MAX_TOKENS.get(self.prompt_name, _DEFAULT_MAX_TOKENS)

    def judge_prompt(self, language: str | None) -> JudgePrompt:
        """The prompt used for an item of the given language."""
        name = self.prompt_name
        if name == "custom":
            return JudgePrompt("custom", self.template, parse_verdict)  # type: ignore[arg-type]
        if name == "opencompass":
            lang = prompt_language(language)
            return JudgePrompt(
                f"opencompass-{lang}",
                self.prompt_texts[lang],  # type: ignore[index]
                parse_opencompass_verdict,
            )
        lang = name if name in ("en", "cn") else prompt_language(language)
        return JudgePrompt(f"gpassk-{lang}", GPASSK_PROMPTS[lang], parse_verdict)

    def prompt_for(self, language: str | None) -> tuple[str, str]:
        """(template, version) used for an item of the given language; the version goes
        into the judgement cache key."""
        prompt = self.judge_prompt(language)
        return prompt.template, prompt.version


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

    label: Verdict | None
    attempts: int = 0
    errors: Counter = field(default_factory=Counter)


class JudgeClient:
    """Thread-safe client: call :meth:`judge` from up to ``config.concurrency`` threads."""

    def __init__(self, config: JudgeConfig, rng_seed: int | None = None) -> None:
        import httpx  # installed with openai (an OpenCompass dependency)

        self.config = config
        self.urls = [chat_url(u) for u in config.urls]
        key = os.environ.get(config.api_key_env or "", "")
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        limits = httpx.Limits(
            max_connections=config.concurrency * 2, max_keepalive_connections=config.concurrency
        )
        self._http = httpx.Client(
            headers=headers, timeout=config.timeout, limits=limits, trust_env=False
        )
        self._httpx = httpx
        self._busy: Counter[str] = Counter()
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
        cap = min(self.config.backoff_max, self.config.backoff_base * (2**attempt))
        with self._lock:
            delay = self._rng.uniform(0, cap)
        time.sleep(delay)

    def _post(self, prompt: str) -> tuple[str | None, str | None]:
        """One HTTP attempt: (reply text, None) or (None, error kind); error kinds name the URL."""
        url = self._pick_url()
        payload = {
            "model": self.config.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.config.temperature,
            "max_tokens": self.config.request_max_tokens,
        }
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

    def judge(
        self, question: str, gold: str, answer: str, language: str | None = None
    ) -> JudgeOutcome:
        """Ask the judge whether *answer* matches *gold*; never raises for endpoint failures."""
        judge_prompt = self.config.judge_prompt(language)
        prompt = judge_prompt.render(question, gold, answer)
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
            label = judge_prompt.read(reply)
            if label is not None:
                outcome.label = label
                return outcome
            outcome.errors["unparseable reply"] += 1
            if unparseable >= self.config.unparseable_retries:
                return outcome
            unparseable += 1
