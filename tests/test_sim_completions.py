"""The simulated endpoint answers like a real server: ``n`` choices, ``max_tokens`` cuts
with ``finish_reason: "length"``, and ``usage`` counts of what it sent.

Real HTTP to a :class:`SimEndpoint` on 127.0.0.1. Expected values are derived
independently: correct replies are counted by the gold in a ``\\boxed{}`` (the responder
is correct in exactly c of every n calls), tokens are recounted with ``str.split()``, a
cut reply is compared with the whole reply a twin endpoint sends without a limit.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest

from gpassk_oc.demo.sim_endpoint import (
    ExactCountsResponder,
    PaddedResponder,
    ProbabilityResponder,
    SimEndpoint,
    SimQuestion,
)

QUESTION = SimQuestion("What is 6 times 7?", "42")
OTHER = SimQuestion("What is 2 plus 2?", "4")


def _post(endpoint: SimEndpoint, body: dict) -> dict:
    request = urllib.request.Request(
        endpoint.url + "chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 direct
    with opener.open(request, timeout=30) as response:
        return json.load(response)


def _ask(question: SimQuestion = QUESTION, **params) -> dict:
    return {
        "model": "sim-model",
        "messages": [{"role": "user", "content": question.text}],
        **params,
    }


def _exact(c: int, n: int) -> ExactCountsResponder:
    return ExactCountsResponder([QUESTION, OTHER], {QUESTION.text: c, OTHER.text: 0}, n)


def _contents(answer: dict) -> list[str]:
    return [choice["message"]["content"] for choice in answer["choices"]]


def test_n_choices_are_n_separate_draws():
    responder = _exact(3, 8)
    with SimEndpoint(responder) as endpoint:
        answer = _post(endpoint, _ask(n=8))
    assert [c["index"] for c in answer["choices"]] == list(range(8))
    assert {c["finish_reason"] for c in answer["choices"]} == {"stop"}
    boxed = [re.findall(r"\\boxed\{([^}]*)\}", text) for text in _contents(answer)]
    # exactly c = 3 of the 8 draws are right: one reply copied 8 times would give 0 or 8
    assert sum(found == ["42"] for found in boxed) == 3
    assert (
        sum(found == [] for found in boxed) + sum(found == ["-987654321"] for found in boxed) == 5
    )
    assert responder.calls(QUESTION.text) == 8 and endpoint.num_requests == 1


def test_one_request_for_n_is_n_requests_for_one():
    """Seeded draws: n choices in one request are the next n draws, the ones n requests
    of one choice each get from a twin endpoint; no n means one choice, as before."""
    table = {"*": {QUESTION.text: 0.5, OTHER.text: 0.5}}
    with SimEndpoint(ProbabilityResponder([QUESTION, OTHER], table, seed=7)) as endpoint:
        together = _contents(_post(endpoint, _ask(n=12)))
    with SimEndpoint(ProbabilityResponder([QUESTION, OTHER], table, seed=7)) as endpoint:
        answers = [_post(endpoint, _ask()) for _ in range(12)]
    assert all(len(a["choices"]) == 1 for a in answers)
    assert together == [_contents(a)[0] for a in answers]
    assert 0 < sum("\\boxed{42}" in text for text in together) < 12  # p = 0.5: both kinds


def _split_count(answer: dict) -> int:
    return sum(
        len(str(choice["message"].get(field) or "").split())
        for choice in answer["choices"]
        for field in ("reasoning_content", "content")
    )


def test_usage_counts_what_was_sent():
    def thinking(model, messages, params):
        return {"reasoning_content": "Six sevens:  7 14 21\n28 35 42.", "content": "So \\boxed{42}"}

    messages = [
        {"role": "system", "content": "Reason step by step,\tthen box the answer."},
        {"role": "user", "content": [{"type": "text", "text": "What is 6 times 7?"}]},
    ]
    with SimEndpoint(PaddedResponder(_exact(1, 3), 5)) as endpoint:
        plain = _post(endpoint, {"model": "m", "messages": messages, "n": 3})
    with SimEndpoint(thinking) as endpoint:
        thought = _post(endpoint, {"model": "m", "messages": messages, "n": 2, "max_tokens": 6})
    for answer in (plain, thought):
        usage = answer["usage"]
        assert usage["prompt_tokens"] == 8 + 5  # "Reason … answer." and "What is 6 times 7?"
        assert usage["completion_tokens"] == _split_count(answer)
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert thought["usage"]["completion_tokens"] == 2 * 6
    assert [c["finish_reason"] for c in thought["choices"]] == ["length", "length"]
    # the budget ran out while thinking: the thought's first 6 tokens, no answer
    assert thought["choices"][0]["message"] == {
        "role": "assistant",
        "reasoning_content": "Six sevens:  7 14 21\n28",
        "content": "",
    }


@pytest.mark.parametrize("limit", [1, 9, 23])
def test_max_tokens_cuts_a_long_reply_exactly(limit):
    with SimEndpoint(PaddedResponder(_exact(2, 4), 30)) as endpoint:
        whole = _contents(_post(endpoint, _ask(n=4)))
    with SimEndpoint(PaddedResponder(_exact(2, 4), 30)) as endpoint:
        cut = _post(endpoint, _ask(n=4, max_tokens=limit))
    assert [c["finish_reason"] for c in cut["choices"]] == ["length"] * 4
    for kept, full in zip(_contents(cut), whole):
        assert len(kept.split()) == limit and len(full.split()) > limit
        assert full.startswith(kept) and kept.split() == full.split()[:limit]
    assert cut["usage"]["completion_tokens"] == 4 * limit


def test_a_reply_that_fits_is_sent_whole_with_stop():
    with SimEndpoint(_exact(1, 1)) as endpoint:
        whole = _contents(_post(endpoint, _ask()))[0]
    size = len(whole.split())
    for limit, reason in ((size, "stop"), (size + 1, "stop"), (size - 1, "length")):
        with SimEndpoint(_exact(1, 1)) as endpoint:
            answer = _post(endpoint, _ask(max_completion_tokens=limit))
        assert answer["choices"][0]["finish_reason"] == reason
        assert (_contents(answer)[0] == whole) == (reason == "stop")


def test_padding_comes_before_the_answer():
    with SimEndpoint(_exact(1, 1)) as endpoint:
        plain = _contents(_post(endpoint, _ask()))[0]
    with SimEndpoint(PaddedResponder(_exact(1, 1), 20)) as endpoint:
        padded = _contents(_post(endpoint, _ask()))[0]
    assert padded.endswith("\n\n" + plain)
    assert len(padded.split()) == len(plain.split()) + 20


@pytest.mark.parametrize(
    "params, field",
    [({"n": 0}, "n"), ({"n": "2"}, "n"), ({"n": 129}, "n"), ({"max_tokens": 0}, "max_tokens")],
)
def test_a_bad_n_or_limit_is_a_400_naming_the_field(params, field):
    with SimEndpoint(_exact(1, 1)) as endpoint:
        with pytest.raises(urllib.error.HTTPError) as raised:
            _post(endpoint, _ask(**params))
        assert raised.value.code == 400
        assert json.load(raised.value)["error"]["message"].startswith(f"{field}:")
