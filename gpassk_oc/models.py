"""Offline-safe OpenAI-compatible API model: ``gpassk_oc.models.OpenAICompatible``.

OpenCompass's ``OpenAISDK`` builds a tokenizer eagerly in ``__init__``
(``AutoTokenizer.from_pretrained(tokenizer_path or path)``, then tiktoken's 'gpt-4'
BPE, which is *downloaded*), so an offline task crashes before sending a request.
This subclass, registered in ``MODELS`` as ``GPassKOpenAICompatible``:

* never downloads: with ``tokenizer_path`` it loads that tokenizer with
  ``local_files_only=True`` (a local directory or an already cached hub id) and fails
  clearly if it cannot; without it, token counts are *approximated* by
  :func:`approx_token_count` (used only for OpenCompass's max_seq_len bookkeeping);
* passes sampling settings to every request: ``temperature`` (as OpenAISDK does),
  ``top_p`` and ``seed`` as standard OpenAI fields, ``top_k`` and
  ``repetition_penalty`` in ``extra_body`` (understood by vLLM, LMDeploy, SGLang);
* keeps what the server says about each reply — ``finish_reason`` and ``usage``'s
  prompt/completion token counts — in a sidecar next to the predictions file
  (:mod:`gpassk_oc.core.runs.reply_facts`), keyed by (prompt, reply): the prediction
  OpenCompass stores is unchanged, and the evaluator reads truncation from the server's
  word instead of guessing it from characters.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

from gpassk_oc._plugin import guarded_import, missing_name_hook
from gpassk_oc.core.runs.reply_facts import ReplyFacts, facts_line, reply_key, sidecar_path
from gpassk_oc.core.runs.run_health import approx_token_count  # one owner: run health counts too

try:
    from opencompass.models import OpenAISDK
    from opencompass.registry import MODELS
except ImportError as _exc:  # surface the real cause in the task log (see _plugin)
    raise guarded_import(__name__, _exc) from _exc

__all__ = ["OpenAICompatible", "approx_token_count"]


@MODELS.register_module(name="GPassKOpenAICompatible", force=False)
class OpenAICompatible(OpenAISDK):
    """``OpenAISDK`` that works offline and forwards top_p / top_k / seed / repetition_penalty.

    Args (beyond OpenAISDK's, e.g. ``path``, ``openai_api_base``, ``key``,
    ``query_per_second``, ``retry``, ``max_seq_len``, ``timeout``):
        tokenizer_path: local tokenizer directory (or cached hub id); loaded with
            ``local_files_only=True``. None → :func:`approx_token_count`.
        temperature, top_p, seed: sent as request fields when not None.
        top_k, repetition_penalty: sent in ``extra_body`` when not None.
    """

    def __init__(
        self,
        path: str = "gpt-3.5-turbo",
        *,
        tokenizer_path: str | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        top_k: int | None = None,
        repetition_penalty: float | None = None,
        seed: int | None = None,
        extra_body: dict[str, Any] | None = None,
        openai_extra_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        # read by _init_tokenizer, which OpenAI.__init__ calls
        self._local_tokenizer_path = tokenizer_path
        # the last response of each worker thread (set by the client _create_fresh_client
        # wraps, read by _generate in the same thread) and the facts of the current batch
        self._last_response = threading.local()
        self._batch_facts: list[str] = []
        self._facts_lock = threading.Lock()
        body = dict(extra_body or {})
        if top_k is not None:
            body["top_k"] = int(top_k)
        if repetition_penalty is not None:
            body["repetition_penalty"] = float(repetition_penalty)
        request = dict(openai_extra_kwargs or {})
        if top_p is not None:
            request["top_p"] = float(top_p)
        if seed is not None:
            request["seed"] = int(seed)
        super().__init__(
            path=path,
            tokenizer_path=tokenizer_path,
            temperature=None if temperature is None else float(temperature),
            extra_body=body or None,
            openai_extra_kwargs=request or None,
            **kwargs,
        )
        self.top_p, self.top_k, self.seed = top_p, top_k, seed
        self.repetition_penalty = repetition_penalty

    def _init_tokenizer(self) -> None:
        """Replaces OpenAI._init_tokenizer: local tokenizer or approximation, no network."""
        path = getattr(self, "_local_tokenizer_path", None)
        if not path:
            self.tokenizer, self.tokenizer_type = None, "approx"
            return
        from transformers import AutoTokenizer

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(
                path, local_files_only=True, trust_remote_code=True
            )
        except Exception as exc:
            raise ValueError(
                f"OpenAICompatible: cannot load tokenizer_path={path!r} from local files "
                f"({type(exc).__name__}: {exc}); give a local tokenizer directory or "
                "leave tokenizer_path unset to use the approximate token count"
            ) from exc
        self.tokenizer_type = "hf"

    # ------------------------------------------------------------ reply facts
    def _create_fresh_client(self) -> Any:
        """OpenAISDK's client, its ``chat.completions.create`` wrapped to keep the response
        (OpenAISDK._generate reads only the text; finish reason and usage are dropped)."""
        client = super()._create_fresh_client()
        completions = client.chat.completions
        create = completions.create
        holder = self._last_response

        def create_and_keep(*args: Any, **kwargs: Any) -> Any:
            holder.response = None
            response = create(*args, **kwargs)
            holder.response = response
            return response

        completions.create = create_and_keep
        return client

    def _generate(self, input: Any, max_out_len: int, temperature: float) -> str:
        """OpenAISDK's request, plus the reply's facts for the sidecar."""
        self._last_response.response = None
        text = super()._generate(input, max_out_len, temperature)
        facts = response_facts(getattr(self._last_response, "response", None))
        line = facts_line(reply_key(input, text), facts)
        with self._facts_lock:
            self._batch_facts.append(line)
        return text

    def generate(self, inputs: list[Any], max_out_len: int = 512, **kwargs: Any) -> list[str]:
        """OpenAISDK.generate; then the batch's reply facts are appended to the sidecar of the
        predictions file being written (found from the calling inferencer: none → not kept)."""
        with self._facts_lock:
            self._batch_facts = []
        results = super().generate(inputs, max_out_len=max_out_len, **kwargs)
        target = _predictions_file()
        with self._facts_lock:
            lines, self._batch_facts = self._batch_facts, []
        if target is not None and lines:
            with open(sidecar_path(target), "a", encoding="utf-8") as sink:
                sink.write("".join(lines))
        return results

    def get_token_len(self, prompt: str) -> int:
        """Token count of *prompt*: exact with a local tokenizer, else approximate."""
        if self.tokenizer_type == "hf" and self.tokenizer is not None:
            return len(self.tokenizer(prompt).input_ids)
        return approx_token_count(prompt)


def response_facts(response: Any) -> ReplyFacts:
    """Finish reason and token counts of a chat-completion response (None where absent)."""
    choices = getattr(response, "choices", None) or []
    reason = getattr(choices[0], "finish_reason", None) if choices else None
    usage = getattr(response, "usage", None)
    return ReplyFacts.from_json(
        {
            "finish_reason": reason,
            "prompt_tokens": getattr(usage, "prompt_tokens", None),
            "completion_tokens": getattr(usage, "completion_tokens", None),
        }
    )


def _predictions_file() -> Path | None:
    """The predictions file the calling inferencer writes: OpenCompass's inferencers hold it
    as the locals ``output_json_filepath`` / ``output_json_filename`` of ``inference``."""
    frame: Any = sys._getframe(1)
    while frame is not None:
        where = frame.f_locals.get("output_json_filepath")
        name = frame.f_locals.get("output_json_filename")
        if isinstance(where, str) and isinstance(name, str) and where and name:
            return Path(where) / name
        frame = frame.f_back
    return None


__getattr__ = missing_name_hook(__name__, __all__)
