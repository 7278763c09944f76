"""Verdict parsing, judge client against the 127.0.0.1 fixture, and the JSONL judgement cache."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpassk_oc.core.judge import (PROMPT_CN, PROMPT_EN, JudgeClient, JudgeConfig, chat_url)
from gpassk_oc.core.judge_cache import JudgeCache, judgement_key
from gpassk_oc.core.verdict import parse_verdict

from judge_server import JudgeServer

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- verdicts
@pytest.mark.parametrize("reply, expected", [
    (r"\boxed{yes}", "yes"),
    (r"\boxed{no}", "no"),
    (r"\boxed{\text{Yes}}", "yes"),                 # the known bug
    (r"\boxed{\textbf{NO}}.", "no"),
    (r"\boxed{{yes}}", "yes"),
    (r"\boxed{ YES. }", "yes"),
    (r"\boxed{是}", "yes"), (r"\boxed{否}", "no"), (r"\boxed{正确}", "yes"), (r"\boxed{错误}", "no"),
    ("The candidate wrote \\boxed{yes}? No: \\boxed{no}", "no"),  # last box wins
    (r"\boxed{no} ... on reflection \boxed{yes}", "yes"),
    (r"\boxed{A}", "yes"), (r"\boxed{B}", "no"),
    ("A", None),                                    # a letter outside a box is ignored
    ("Answer A is correct, yes indeed.", None),     # words outside a box are ignored
    ("yes", "yes"), ("No.", "no"), ("是", "yes"),   # a reply that *is* one verdict word
    (r"\boxed{maybe}", None), (r"\boxed{}", None), ("", None), (None, None),
    ("garbage \\boxed{yes", None),                  # unclosed box
])
def test_parse_verdict(reply, expected):
    assert parse_verdict(reply) == expected


# ----------------------------------------------------------------------------- client
def test_chat_url():
    assert chat_url("http://h:1") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"


def test_prompts_by_language_and_versions():
    cfg = JudgeConfig(urls=["http://x"], model="m", prompt="auto")
    assert cfg.prompt_for("cn")[0] is PROMPT_CN and cfg.prompt_for("en")[0] is PROMPT_EN
    assert cfg.prompt_for("cn")[1] != cfg.prompt_for("en")[1]
    custom = JudgeConfig(urls=["http://x"], model="m", template="Q {question} G {gold} A {answer}")
    assert custom.prompt_for("cn")[1].startswith("custom-")
    with pytest.raises(ValueError, match="prompt"):
        JudgeConfig(urls=["http://x"], model="m", prompt="fr")


@pytest.mark.parametrize("prompt, language, marker", [
    ("en", "en", "Reference answer:"), ("cn", "cn", "标准答案："), ("auto", "cn", "标准答案："),
    ("livemath-judge", "en", "Reply with yes or no"),
])
def test_client_prompts_reach_the_endpoint(prompt, language, marker):
    truth = {("What is 1/2 + 0?", "0.5"): True, ("What is 1/2 + 0?", "0.6"): False}
    with JudgeServer(truth, bare=(prompt == "livemath-judge")) as srv:
        seen = []
        orig = srv.find_pair
        srv.find_pair = lambda p: seen.append(p) or orig(p)
        client = JudgeClient(JudgeConfig(urls=[srv.url], model="judge-m", prompt=prompt))
        assert client.judge("What is 1/2 + 0?", r"\frac{1}{2}", "0.5", language).label == "yes"
        assert client.judge("What is 1/2 + 0?", r"\frac{1}{2}", "0.6", language).label == "no"
        client.close()
    assert all(marker in p for p in seen) and len(seen) == 2
    assert srv.models == {"judge-m": 2}


def test_client_retries_5xx_and_disconnects_then_succeeds():
    truth = {(f"q{i}", "1"): i % 2 == 0 for i in range(40)}
    with JudgeServer(truth, p_500=0.2, p_disconnect=0.1, p_garbage=0.1, seed=3) as srv:
        cfg = JudgeConfig(urls=[srv.url], model="m", backoff_base=0.001, backoff_max=0.01,
                          max_retries=8, unparseable_retries=3)
        client = JudgeClient(cfg)
        labels = [client.judge(q, "1", a).label for (q, a) in truth]
        client.close()
    assert labels == ["yes" if v else "no" for v in truth.values()]
    assert client.calls == srv.requests > len(truth)  # faults were injected and retried


def test_client_unparseable_gets_one_retry_then_none():
    with JudgeServer({("q", "1"): True}, p_garbage=1.0) as srv:
        client = JudgeClient(JudgeConfig(urls=[srv.url], model="m"))
        out = client.judge("q", "1", "1")
        client.close()
    assert out.label is None and out.attempts == 2 and out.errors["unparseable reply"] == 2


def test_client_endpoint_down_reports_connection_errors():
    client = JudgeClient(JudgeConfig(urls=["http://127.0.0.1:9"], model="m", max_retries=2,
                                     backoff_base=0.001))
    out = client.judge("q", "1", "1")
    client.close()
    assert out.label is None and out.attempts == 3
    assert sum(out.errors.values()) == 3 and "ConnectError" in next(iter(out.errors))


def test_client_does_not_retry_400():
    with JudgeServer({("q", "1"): True}, status=400) as srv:
        client = JudgeClient(JudgeConfig(urls=[srv.url], model="m", backoff_base=0.001))
        out = client.judge("q", "1", "1")
        client.close()
    assert out.label is None and out.attempts == 1 and "HTTP 400" in next(iter(out.errors))


def test_client_load_balances_over_urls():
    truth = {(f"q{i}", "1"): True for i in range(20)}
    with JudgeServer(truth) as a, JudgeServer(truth) as b:
        client = JudgeClient(JudgeConfig(urls=[a.url, b.url], model="m"))
        for q, ans in truth:
            assert client.judge(q, "1", ans).label == "yes"
        client.close()
    assert a.requests == b.requests == 10


def test_api_key_from_env_only(monkeypatch):
    monkeypatch.setenv("MY_JUDGE_KEY", "sekret")
    client = JudgeClient(JudgeConfig(urls=["http://x"], model="m", api_key_env="MY_JUDGE_KEY"))
    assert client._http.headers["Authorization"] == "Bearer sekret"
    client.close()
    monkeypatch.delenv("MY_JUDGE_KEY")
    client = JudgeClient(JudgeConfig(urls=["http://x"], model="m", api_key_env="MY_JUDGE_KEY"))
    assert "Authorization" not in client._http.headers
    client.close()


# ----------------------------------------------------------------------------- cache
def test_cache_key_depends_on_every_field():
    base = ("m", "v1", "q", "g", "a")
    keys = {judgement_key(*base)}
    for i in range(5):
        changed = list(base)
        changed[i] += "x"
        keys.add(judgement_key(*changed))
    assert len(keys) == 6


def test_cache_persists_and_tolerates_torn_lines(tmp_path):
    c1 = JudgeCache(str(tmp_path), task_id="t1")
    c1.put("k1", "yes")
    c1.put("k2", "no")
    c1.close()
    files = list(tmp_path.glob("judgements-*.jsonl"))
    assert len(files) == 1 and files[0].name.count("-") >= 3
    # a process killed mid-write leaves a torn last line; a garbled line sits in the middle
    with open(tmp_path / "judgements-other-1-abc.jsonl", "w") as fh:
        fh.write(json.dumps({"key": "k3", "label": "yes"}) + "\n{not json}\n")
        fh.write('{"key": "k4", "label": "y')
    c2 = JudgeCache(str(tmp_path))
    assert (c2.get("k1"), c2.get("k2"), c2.get("k3"), c2.get("k4")) == ("yes", "no", "yes", None)
    assert c2.torn_lines == 1
    c2.put("k5", "no")
    assert len(list(tmp_path.glob("judgements-*.jsonl"))) == 3  # its own new file
    with pytest.raises(ValueError):
        c2.put("k6", "maybe")


def test_cache_refresh_sees_concurrent_writers(tmp_path):
    reader = JudgeCache(str(tmp_path))
    assert reader.get("k") is None
    script = textwrap.dedent(f"""
        from gpassk_oc.core.judge_cache import JudgeCache
        c = JudgeCache({str(tmp_path)!r}); [c.put(f"k{{i}}", "yes") for i in range(50)]
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", script.replace("k{i}", f"p{j}k{{i}}")], env=env)
             for j in range(3)]
    assert all(p.wait(60) == 0 for p in procs)
    assert reader.refresh() == 150 and len(reader) == 150
    assert len(list(tmp_path.glob("judgements-*.jsonl"))) == 3
