"""Verdict parsing, prompts, judge client against the 127.0.0.1 fixture, and the JSONL
judgement cache."""

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_server import JudgeServer
from opencompass.datasets.livemathbench.prompts import JUDGE_PROMPT_CN, JUDGE_PROMPT_EN
from opencompass.datasets.livemathbench.utils import extract_judge_label

from gpassk_oc.core.judging.grading import GradingPolicy, grade
from gpassk_oc.core.judging.judge import (
    PROMPT_CN,
    PROMPT_EN,
    JudgeClient,
    JudgeConfig,
    chat_url,
    names_livemath_judge,
)
from gpassk_oc.core.judging.judge_cache import JudgeCache, judgement_key
from gpassk_oc.core.judging.verdict import parse_opencompass_verdict, parse_verdict
from gpassk_oc.evaluators import validate_judge

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- verdicts
@pytest.mark.parametrize(
    "reply, expected",
    [
        (r"\boxed{yes}", "yes"),
        (r"\boxed{no}", "no"),
        (r"\boxed{\text{Yes}}", "yes"),  # the known bug
        (r"\boxed{\textbf{NO}}.", "no"),
        (r"\boxed{{yes}}", "yes"),
        (r"\boxed{ YES. }", "yes"),
        (r"\boxed{是}", "yes"),
        (r"\boxed{否}", "no"),
        (r"\boxed{正确}", "yes"),
        (r"\boxed{错误}", "no"),
        ("The candidate wrote \\boxed{yes}? No: \\boxed{no}", "no"),  # last box wins
        (r"\boxed{no} ... on reflection \boxed{yes}", "yes"),
        (r"\boxed{A}", "yes"),
        (r"\boxed{B}", "no"),
        ("A", None),  # a letter outside a box is ignored
        ("Answer A is correct, yes indeed.", None),  # words outside a box are ignored
        ("yes", "yes"),
        ("No.", "no"),
        ("是", "yes"),  # a reply that *is* one verdict word
        (r"\boxed{maybe}", None),
        (r"\boxed{}", None),
        ("", None),
        (None, None),
        ("garbage \\boxed{yes", None),  # unclosed box
    ],
)
def test_parse_verdict(reply, expected):
    assert parse_verdict(reply) == expected


# ----------------------------------------------------------------------------- client
def test_chat_url():
    assert chat_url("http://h:1") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"


def test_prompts_by_language_and_versions():
    cfg = JudgeConfig(urls=["http://x"], model="m", prompt="auto")
    assert cfg.prompt_name == "gpassk"
    assert cfg.prompt_for("cn")[0] is PROMPT_CN and cfg.prompt_for("en")[0] is PROMPT_EN
    assert cfg.prompt_for("zh")[0] is PROMPT_CN and cfg.prompt_for("unknown")[0] is PROMPT_EN
    assert cfg.prompt_for("cn")[1] != cfg.prompt_for("en")[1]
    forced = JudgeConfig(urls=["http://x"], model="m", prompt="cn")
    assert forced.prompt_for("en")[0] is PROMPT_CN
    custom = JudgeConfig(urls=["http://x"], model="m", template="Q {question} G {gold} A {answer}")
    assert custom.prompt_name == "custom" and custom.prompt_for("cn")[1].startswith("custom:")
    with pytest.raises(ValueError, match="prompt"):
        JudgeConfig(urls=["http://x"], model="m", prompt="fr")
    with pytest.raises(ValueError, match="JudgeConfig.template: not a usable template"):
        JudgeConfig(urls=["http://x"], model="m", template="Q {question} {reference}")


# ----------------------------------------------------------------------------- OpenCompass's prompt
OC_TEXTS = {"en": JUDGE_PROMPT_EN, "cn": JUDGE_PROMPT_CN}


def oc_config(**kw):
    return JudgeConfig(
        urls=kw.pop("urls", ["http://x"]),
        model=kw.pop("model", "m"),
        prompt="opencompass",
        prompt_texts=kw.pop("texts", OC_TEXTS),
        **kw,
    )


def sha16(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_opencompass_prompt_formats_to_what_opencompass_sends():
    cfg = oc_config()
    en = cfg.judge_prompt("en").render("What is 2+2?", "4", "four")
    cn = cfg.judge_prompt("cn").render("2加2等于几？", "4", "四")
    # the tails, read off OpenCompass's template by hand; the doubled braces became single
    assert en.endswith(
        "Original Question: What is 2+2?\nStandard Answer: 4\n"
        "Examinee's Answer: four\n\nAnalysis:\n"
    )
    assert cn.endswith("原问题：2加2等于几？\n标准答案：4\n考生答案：四\n\n分析：\n")
    assert "output \\boxed{yes}, otherwise output \\boxed{no}" in en
    assert "输出\\boxed{yes}, 否则输出\\boxed{no}" in cn
    # exactly what LiveMathBenchEvaluator.judge formats (livemathbench.py)
    assert en == JUDGE_PROMPT_EN.format(answer="four", gold_answer="4", question="What is 2+2?")
    assert cn == JUDGE_PROMPT_CN.format(answer="四", gold_answer="4", question="2加2等于几？")
    assert "{" not in en.replace("\\boxed{yes}", "").replace("\\boxed{no}", "")


@pytest.mark.parametrize(
    "reply, expected",
    [
        (r"Analysis: same value. \boxed{yes}", "yes"),
        (r"\boxed{no}", "no"),
        ("They match.\n\\boxed{no}\nOn reflection \\boxed{yes}", "yes"),  # the last box wins
        (r"\boxed{yes} at first, but \boxed{no}", "no"),
        (r"\boxed{No}", "no"),
        (r"\boxed{ no }", "no"),
        (r"\boxed{no.}", "no"),
        (r"\boxed{\text{no}}", "no"),
        (r"\boxed{{no}}", "no"),  # OpenCompass: 0, and so it is
        (r"\boxed{Yes}", None),  # OpenCompass scores 0 although the judge said yes
        (r"\boxed{\text{yes}}", None),  # the lazy match reads '\text{yes' → 0 in OpenCompass
        (r"\boxed{ yes}", None),
        (r"\boxed{{yes}}", None),
        (r"\boxed{是}", None),
        (r"\boxed{A}", None),
        (r"\boxed{maybe}", None),
        ("yes", None),  # no box: OpenCompass scores 0, the judge did not say no
        ("\\boxed{\nyes\n}", None),  # '.' does not cross a line break in OpenCompass's regex
        ("", None),
        (None, None),
        (r"\boxed{}", None),
    ],
)
def test_parse_opencompass_verdict(reply, expected):
    assert parse_opencompass_verdict(reply) == expected
    # never disagrees with OpenCompass's own reader where we give a verdict
    label = extract_judge_label(reply)
    if expected == "yes":
        assert label == "yes"
    elif expected == "no":
        assert label != "yes"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["\\boxed{", "}", "{", "yes", "no", "Yes", " ", "\n", ".", "\\text{", "A", "是", "x"]
        ),
        max_size=14,
    ).map("".join)
)
def test_opencompass_reading_agrees_with_opencompass(reply):
    """Random replies: OpenCompass's 1s are exactly our yes; our no is always its 0."""
    ours = parse_opencompass_verdict(reply)
    theirs = 1 if extract_judge_label(reply) == "yes" else 0
    assert (ours == "yes") == (theirs == 1)
    if ours == "no":
        assert theirs == 0


@pytest.mark.parametrize(
    "model, picked",
    [
        ("LiveMath-Judge", "opencompass"),
        ("opencompass/LiveMath-Judge-7B", "opencompass"),
        ("livemath_judge", "opencompass"),
        ("LIVEMATHJUDGE", "opencompass"),
        ("/models/Live Math Judge", "opencompass"),
        ("Qwen/Qwen2.5-72B-Instruct", "gpassk"),
        ("livemath", "gpassk"),
        ("math-judge", "gpassk"),
    ],
)
def test_auto_prompt_by_judge_model_name(model, picked):
    assert names_livemath_judge(model) == (picked == "opencompass")
    cfg = validate_judge(dict(urls=["http://x"], model=model))  # the adapter supplies texts
    assert cfg.prompt_name == picked
    assert cfg.request_max_tokens == (8192 if picked == "opencompass" else 512)
    if picked == "opencompass":
        assert cfg.prompt_texts == {"en": JUDGE_PROMPT_EN, "cn": JUDGE_PROMPT_CN}
        assert cfg.prompt_for("en")[0] is JUDGE_PROMPT_EN
        assert cfg.prompt_for("cn")[0] is JUDGE_PROMPT_CN
    # an explicit prompt always wins over the name
    assert (
        validate_judge(dict(urls=["http://x"], model=model, prompt="gpassk")).prompt_name
        == "gpassk"
    )
    assert (
        validate_judge(dict(urls=["http://x"], model=model, max_tokens=100)).request_max_tokens
        == 100
    )


def test_core_without_opencompass_texts_fails_with_one_line():
    for kw in (dict(prompt="opencompass", model="m"), dict(model="LiveMath-Judge-7B")):
        with pytest.raises(ValueError, match="JudgeConfig.prompt_texts") as err:
            JudgeConfig(urls=["http://x"], **kw)
        assert "\n" not in str(err.value) and "JUDGE_PROMPT_EN" in str(err.value)
    with pytest.raises(ValueError, match="picks 'opencompass' for judge model 'LiveMath-Judge-7B'"):
        JudgeConfig(urls=["http://x"], model="LiveMath-Judge-7B")
    with pytest.raises(ValueError, match="JudgeConfig.prompt_texts"):
        oc_config(texts={"en": JUDGE_PROMPT_EN})
    with pytest.raises(ValueError, match=r"JudgeConfig.prompt_texts\['cn'\]: not a usable"):
        oc_config(texts={"en": JUDGE_PROMPT_EN, "cn": "{question} {yes}"})
    with pytest.raises(ValueError, match="'livemath-judge' was removed.*prompt='opencompass'"):
        JudgeConfig(urls=["http://x"], model="m", prompt="livemath-judge")
    with pytest.raises(ValueError, match="judge.prompt_texts: filled from the installed"):
        validate_judge(dict(urls=["http://x"], model="m", prompt_texts=OC_TEXTS))


def test_prompt_version_carries_the_text_hash():
    base = oc_config()
    edited = oc_config(texts={"en": JUDGE_PROMPT_EN + " ", "cn": JUDGE_PROMPT_CN})
    # the version is the family plus the hash of the exact text, per language
    assert base.prompt_for("en")[1] == f"opencompass-en:{sha16(JUDGE_PROMPT_EN)}"
    assert base.prompt_for("cn")[1] == f"opencompass-cn:{sha16(JUDGE_PROMPT_CN)}"
    assert edited.prompt_for("en")[1] == f"opencompass-en:{sha16(JUDGE_PROMPT_EN + ' ')}"
    assert edited.prompt_for("cn")[1] == base.prompt_for("cn")[1]
    gpassk = JudgeConfig(urls=["http://x"], model="m", prompt="gpassk")
    assert gpassk.prompt_for("en")[1] == f"gpassk-en:{sha16(PROMPT_EN)}"
    # so the judgement cache key changes with the text
    keys = {
        judgement_key("m", cfg.prompt_for(lang)[1], "q", "g", "a")
        for cfg in (base, edited, gpassk)
        for lang in ("en", "cn")
    }
    assert len(keys) == 5  # edited and base share only the cn text


@pytest.mark.parametrize("language", ["en", "cn"])
def test_judge_receives_exactly_opencompass_prompt(language):
    q = "What is 1/2 + 0?" if language == "en" else "1/2 加 0 等于多少？"
    truth = {(q, "0.5"): True, (q, "0.6"): False}
    with JudgeServer(truth) as srv:
        client = JudgeClient(oc_config(urls=[srv.url], model="LiveMath-Judge"))
        assert client.judge(q, r"\frac{1}{2}", "0.5", language).label == "yes"
        assert client.judge(q, r"\frac{1}{2}", "0.6", language).label == "no"
        client.close()
    template = JUDGE_PROMPT_EN if language == "en" else JUDGE_PROMPT_CN
    assert srv.received == [
        ("LiveMath-Judge", template.format(question=q, gold_answer=r"\frac{1}{2}", answer=a), 8192)
        for a in ("0.5", "0.6")
    ]


def test_opencompass_unreadable_verdict_is_unjudged_never_wrong(tmp_path):
    # every reply lacks a box: OpenCompass would score these 0; here they stay unjudged
    q = "Which day comes after Monday?"
    with JudgeServer({(q, "Tuesday"): True}, p_garbage=1.0) as srv:
        policy = GradingPolicy(
            check="judge",
            judge=oc_config(urls=[srv.url]),
            cache_dir=str(tmp_path),
            max_unjudged=1.0,
            progress=False,
        )
        result = grade(
            [
                {
                    "question": q,
                    "gold": r"\text{Tuesday}",
                    "language": "en",
                    "responses": [r"\boxed{Tuesday}"] * 3,
                }
            ],
            policy,
        )
    assert result.correct == [[None, None, None]] and result.source == [["unjudged"] * 3]
    assert result.counts["unjudged"] == 3 and result.errors["unparseable reply"] == 2
    assert srv.requests == 2  # one pair: a first try and unparseable_retries=1
    assert not list(tmp_path.glob("judgements-*.jsonl"))  # nothing cached


def test_grade_with_opencompass_prompt_caches_under_its_version(tmp_path):
    q_en, q_cn = "Which day comes after Monday?", "星期一的下一天是星期几？"
    truth = {(q_en, "Tuesday"): True, (q_cn, "星期三"): False}
    items = [
        {
            "question": q_en,
            "gold": r"\text{Tuesday}",
            "language": "en",
            "responses": [r"\boxed{Tuesday}", r"\boxed{Tuesday}"],
        },
        {
            "question": q_cn,
            "gold": r"\text{星期二}",
            "language": "cn",
            "responses": [r"\boxed{星期三}"],
        },
    ]
    cfg = oc_config(model="LiveMath-Judge")
    with JudgeServer(truth) as srv:
        cfg.urls = [srv.url]
        policy = GradingPolicy(check="judge", judge=cfg, cache_dir=str(tmp_path), progress=False)
        first = grade(items, policy)
        again = grade(items, policy)
    assert first.correct == again.correct == [[True, True], [False]]
    assert srv.requests == 2 and again.counts["cache_hits"] == 3
    records = [
        json.loads(line)
        for f in tmp_path.glob("judgements-*.jsonl")
        for line in f.read_text().splitlines()
    ]
    expected = {
        judgement_key(
            "LiveMath-Judge",
            f"opencompass-en:{sha16(JUDGE_PROMPT_EN)}",
            q_en,
            r"\text{Tuesday}",
            "Tuesday",
        ),
        judgement_key(
            "LiveMath-Judge",
            f"opencompass-cn:{sha16(JUDGE_PROMPT_CN)}",
            q_cn,
            r"\text{星期二}",
            "星期三",
        ),
    }
    assert {r["key"] for r in records} == expected


@pytest.mark.parametrize(
    "prompt, language, marker",
    [
        ("en", "en", "Reference answer:"),
        ("cn", "cn", "标准答案："),
        ("auto", "cn", "标准答案："),
        ("gpassk", "en", "Student's final answer:"),
    ],
)
def test_client_prompts_reach_the_endpoint(prompt, language, marker):
    truth = {("What is 1/2 + 0?", "0.5"): True, ("What is 1/2 + 0?", "0.6"): False}
    with JudgeServer(truth) as srv:
        client = JudgeClient(JudgeConfig(urls=[srv.url], model="judge-m", prompt=prompt))
        assert client.judge("What is 1/2 + 0?", r"\frac{1}{2}", "0.5", language).label == "yes"
        assert client.judge("What is 1/2 + 0?", r"\frac{1}{2}", "0.6", language).label == "no"
        client.close()
    assert len(srv.received) == 2 and all(marker in p for _m, p, _t in srv.received)
    assert srv.models == {"judge-m": 2} and {t for *_x, t in srv.received} == {512}


def test_client_retries_5xx_and_disconnects_then_succeeds():
    truth = {(f"q{i}", "1"): i % 2 == 0 for i in range(40)}
    with JudgeServer(truth, p_500=0.2, p_disconnect=0.1, p_garbage=0.1, seed=3) as srv:
        cfg = JudgeConfig(
            urls=[srv.url],
            model="m",
            backoff_base=0.001,
            backoff_max=0.01,
            max_retries=8,
            unparseable_retries=3,
        )
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
    client = JudgeClient(
        JudgeConfig(urls=["http://127.0.0.1:9"], model="m", max_retries=2, backoff_base=0.001)
    )
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
        from gpassk_oc.core.judging.judge_cache import JudgeCache
        c = JudgeCache({str(tmp_path)!r}); [c.put(f"k{{i}}", "yes") for i in range(50)]
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen([sys.executable, "-c", script.replace("k{i}", f"p{j}k{{i}}")], env=env)
        for j in range(3)
    ]
    assert all(p.wait(60) == 0 for p in procs)
    assert reader.refresh() == 150 and len(reader) == 150
    assert len(list(tmp_path.glob("judgements-*.jsonl"))) == 3
