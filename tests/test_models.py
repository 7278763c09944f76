"""OpenAICompatible (offline, sampling params) and the simulated endpoint."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter

import pytest

from gpassk_oc import models
from gpassk_oc.core.answers import extract_final_answer
from gpassk_oc.demo.sim_endpoint import (
    WRONG_ANSWER,
    ExactCountsResponder,
    ProbabilityResponder,
    SimEndpoint,
    SimQuestion,
    questions_from_records,
)
from gpassk_oc.models import OpenAICompatible

QUESTIONS = [
    SimQuestion("Compute 7 + 5.", "12"),
    SimQuestion("Compute 7 + 5. Then double it.", "24"),
    SimQuestion("Half?", r"\frac{1}{2}", (r"\frac{1}{2}", "0.5")),
]


def chat(question: str):
    return [{"role": "user", "content": f"Solve: {question}"}]


# --------------------------------------------------------------------------- token count
@pytest.mark.parametrize(
    "text, count", [("", 0), ("abc", 1), ("abcd", 2), ("你好", 2), ("你好abc", 3), ("x" * 30, 10)]
)
def test_approx_token_count(text, count):
    assert models.approx_token_count(text) == count


# --------------------------------------------------------------------------- model
def _no_network(monkeypatch):
    import tiktoken
    import transformers

    def refuse(*args, **kwargs):
        raise AssertionError("tokenizer download attempted")

    monkeypatch.setattr(tiktoken, "encoding_for_model", refuse)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", refuse)


def test_init_never_touches_tiktoken_or_the_hub(monkeypatch):
    _no_network(monkeypatch)
    model = OpenAICompatible(path="gpt-4", key="k", openai_api_base="http://127.0.0.1:9/v1/")
    assert model.tokenizer_type == "approx"
    assert model.get_token_len("abcdef") == 2


def test_missing_local_tokenizer_fails_clearly(tmp_path):
    with pytest.raises(ValueError, match="cannot load tokenizer_path"):
        OpenAICompatible(
            path="m",
            key="k",
            tokenizer_path=str(tmp_path / "nope"),
            openai_api_base="http://127.0.0.1:9/v1/",
        )


def test_local_tokenizer_directory_is_used(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers import models as tok_models
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, "hello": 1, "world": 2}
    tok = Tokenizer(tok_models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(tmp_path)
    model = OpenAICompatible(
        path="m", key="k", tokenizer_path=str(tmp_path), openai_api_base="http://127.0.0.1:9/v1/"
    )
    assert model.tokenizer_type == "hf"
    assert model.get_token_len("hello world zzzzzzzzzzzzzzzz") == 3


def test_generate_sends_sampling_params(monkeypatch):
    _no_network(monkeypatch)
    responder = ExactCountsResponder(QUESTIONS, {q.text: 1 for q in QUESTIONS}, n=1)
    with SimEndpoint(responder) as endpoint:
        model = OpenAICompatible(
            path="sim-model",
            key="k",
            openai_api_base=endpoint.url,
            temperature=0.3,
            top_p=0.8,
            top_k=40,
            seed=7,
            repetition_penalty=1.05,
            query_per_second=50,
            retry=1,
        )
        out = model.generate(["Solve: Compute 7 + 5."], max_out_len=64)
    assert extract_final_answer(out[0]) == "12"
    body = endpoint.requests[0]
    assert (body["temperature"], body["top_p"], body["seed"]) == (0.3, 0.8, 7)
    assert (body["top_k"], body["repetition_penalty"]) == (40, 1.05)  # extra_body fields
    assert body["model"] == "sim-model" and body["max_tokens"] == 64


def test_registered_under_distinct_name():
    from opencompass.registry import MODELS

    assert MODELS.get("GPassKOpenAICompatible") is OpenAICompatible
    assert MODELS.get("OpenAISDK") is not OpenAICompatible


# --------------------------------------------------------------------------- endpoint
def test_exact_counts_under_concurrency():
    n = 12
    counts = {QUESTIONS[0].text: 5, QUESTIONS[1].text: 0, QUESTIONS[2].text: 12}
    responder = ExactCountsResponder(QUESTIONS, counts, n=n)
    results: Counter = Counter()
    lock = threading.Lock()

    def worker(question):
        reply = responder("m", chat(question.text), {})
        ok = extract_final_answer(reply) not in (None, WRONG_ANSWER)
        with lock:
            results[(question.text, ok)] += 1

    threads = [threading.Thread(target=worker, args=(q,)) for q in QUESTIONS for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for question in QUESTIONS:  # the longer question containing the shorter is not confused
        assert results[(question.text, True)] == counts[question.text]
        assert results[(question.text, False)] == n - counts[question.text]
        assert responder.calls(question.text) == n


def test_probability_responder_is_reproducible():
    def outcomes(order):
        responder = ProbabilityResponder(QUESTIONS, {"*": {q.text: 0.5 for q in QUESTIONS}}, seed=3)
        return Counter(
            (q.text, extract_final_answer(responder("m", chat(q.text), {})) == q.gold)
            for q in order
        )

    order = [q for q in QUESTIONS for _ in range(20)]
    assert outcomes(order) == outcomes(list(reversed(order)))
    assert 0 < outcomes(order)[(QUESTIONS[0].text, True)] < 20


def test_http_routes():
    responder = ExactCountsResponder(QUESTIONS, {q.text: 0 for q in QUESTIONS}, n=1)
    with SimEndpoint(responder, models=["a", "b"]) as endpoint:
        with urllib.request.urlopen(endpoint.url + "models") as resp:
            assert [m["id"] for m in json.load(resp)["data"]] == ["a", "b"]
        request = urllib.request.Request(
            endpoint.url + "chat/completions",
            method="POST",
            data=json.dumps({"model": "a", "messages": chat("unknown?")}).encode(),
        )
        with pytest.raises(urllib.error.HTTPError) as exc:
            urllib.request.urlopen(request)
        assert exc.value.code == 500
        request = urllib.request.Request(
            endpoint.url + "chat/completions",
            method="POST",
            data=json.dumps({"model": "a", "messages": chat("Half?")}).encode(),
        )
        with urllib.request.urlopen(request) as resp:
            body = json.load(resp)
        assert body["choices"][0]["message"]["role"] == "assistant"
        assert endpoint.num_requests == 2


def test_questions_from_records_and_probability_extremes(livemath_dir):
    from gpassk_oc.core.data.livemath_data import load_records

    records = load_records(str(livemath_dir), ["AMC"], ["en"])
    questions = questions_from_records(records + records)
    assert [q.text for q in questions] == [r["question"] for r in records]
    probs = {"good": {q.text: 1.0 for q in questions}, "bad": {q.text: 0.0 for q in questions}}
    responder = ProbabilityResponder(questions, probs, seed=1)
    for q in questions:
        assert extract_final_answer(responder("good", chat(q.text), {})) == q.gold
        assert extract_final_answer(responder("bad", chat(q.text), {})) in (None, WRONG_ANSWER)
