"""The grading cascade end to end against the fault-injecting judge fixture on 127.0.0.1.

Expected labels and pair counts are written by hand from the data below, not computed by
the code under test.
"""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from judge_server import JudgeServer

from gpassk_oc.core.judging.grading import GradingPolicy, UnjudgedError, grade
from gpassk_oc.core.judging.judge import JudgeConfig

ROOT = Path(__file__).resolve().parents[1]
Q1, Q2, Q3 = "Compute 2/4.", "Expand (x+1)^2 - 2x.", "中国的首都是哪里？"


def box(ans: str) -> str:
    return f"Some reasoning.\nSo the answer is $\\boxed{{{ans}}}$."


ITEMS = [
    {
        "question": Q1,
        "gold": r"\frac{1}{2}",
        "language": "en",
        "responses": [
            box("2^{-1}"),
            box(r"\dfrac12"),
            box("1/2"),
            box("0.6"),
            "I give up.",
            box(r"\text{one half}"),
            box(r"\text{one half}"),
        ],
    },
    {
        "question": Q2,
        "gold": "x^2+1",
        "language": "en",
        "responses": [box("1+x^2"), box("x^2+2"), box("x^2+2"), box("2 + x^2"), box(r"x^2 + 1")],
    },
    {
        "question": Q3,
        "gold": "北京",
        "language": "cn",
        "responses": [box("北京"), "答案是 上海。", box("上海"), box("上海"), box("南京")],
    },
    # a replica of Q1: its pair is shared with the first item
    {
        "question": Q1,
        "gold": r"\frac{1}{2}",
        "language": "en",
        "responses": [box(r"\text{one half}"), box("2^{-1}")],
    },
]
# the pairs the rules cannot decide, with the judge's ground truth
TRUTH = {
    (Q1, r"\text{one half}"): True,
    (Q2, "x^2+2"): False,
    (Q2, "2 + x^2"): False,
    (Q3, "上海"): False,
    (Q3, "南京"): False,
    (Q1, "I give up."): False,
}  # no answer found: the judge sees the whole reply
EXPECTED = [
    [True, True, True, False, False, True, True],
    [True, False, False, False, True],
    [True, False, False, False, False],
    [True, True],
]


def policy(url, cache_dir, **kw):
    judge_kw = {k: kw.pop(k) for k in list(kw) if k in JudgeConfig.__dataclass_fields__}
    judge_kw.setdefault("backoff_base", 0.001)
    judge_kw.setdefault("backoff_max", 0.01)
    return GradingPolicy(
        check=kw.pop("check", "cascade"),
        judge=JudgeConfig(urls=[url], model="judge-72b", **judge_kw),
        cache_dir=str(cache_dir) if cache_dir else None,
        progress=False,
        **kw,
    )


def test_cascade_judges_each_unique_undecided_pair_once_and_caches(tmp_path):
    with JudgeServer(TRUTH) as srv:
        res = grade(ITEMS, policy(srv.url, tmp_path))
        assert res.correct == EXPECTED
        assert srv.unknown == []
        assert dict(srv.calls) == {pair: 1 for pair in TRUTH}  # 6 unique undecided pairs
        c = res.counts
        assert (c["samples"], c["unique_pairs"], c["judged"], c["judge_calls"]) == (19, 6, 6, 6)
        # samples decided by the judge: one half ×3, x^2+2 ×2, 2+x^2, 上海 ×3, 南京, I give up
        assert (c["judged_samples"], c["no_answer"], c["rule_decided"], c["unjudged"]) == (
            11,
            0,
            8,
            0,
        )
        assert res.extracted[0][4] is None and res.extracted[2][1] == "上海"
        assert res.source[0][5] == "judge" and res.source[0][0] == "rule"
        assert res.source[0][4] == "judge" and res.found[0][4] == "none"
        assert res.found[2][1] == "statement" and res.found[0][0] == "boxed"
        assert (c["found_boxed"], c["found_statement"], c["found_fallback"], c["found_none"]) == (
            17,
            1,
            0,
            1,
        )

        again = grade(ITEMS, policy(srv.url, tmp_path))  # a rerun: everything from the cache
        assert again.correct == EXPECTED
        assert sum(srv.calls.values()) == 6
        assert (
            again.counts["cache_hits"],
            again.counts["judge_calls"],
            again.counts["judged"],
        ) == (11, 0, 0)


def test_rules_only_and_judge_only(tmp_path):
    res = grade(ITEMS, GradingPolicy(check="rules", progress=False))
    assert res.correct == [
        [True, True, True, False, False, False, False],
        [True, False, False, False, True],
        [True, False, False, False, False],
        [False, True],
    ]
    assert res.counts["rule_decided"] == 19 and res.counts["judge_calls"] == 0
    # what cascade would ask the judge about is scored wrong and marked: the reply without
    # an answer is undecided, the boxed 0.6 against 1/2 is confidently wrong
    assert res.source[0][4] == "rule_undecided" and res.source[0][3] == "rule"
    truth = dict(TRUTH)
    truth.update(
        {
            (Q1, "2^{-1}"): True,
            (Q1, r"\dfrac12"): True,
            (Q1, "1/2"): True,
            (Q1, "0.6"): False,
            (Q2, "1+x^2"): True,
            (Q2, "x^2 + 1"): True,
            (Q3, "北京"): True,
        }
    )
    with JudgeServer(truth) as srv:
        res = grade(ITEMS, policy(srv.url, None, check="judge"))
    assert res.correct == EXPECTED and srv.unknown == []
    # distinct canonical answers: Q1 6 (2^{-1}, \frac{1}{2}, 1/2, 0.6, one half, the reply
    # without an answer), Q2 4 (1+x^2, x^2+2, 2+x^2, x^2+1), Q3 3 (北京, 上海, 南京)
    assert res.counts["judge_calls"] == 13 and res.counts["rule_decided"] == 0


def test_thirty_percent_faults_every_label_resolved(tmp_path):
    items, truth, expected = [], {}, []
    for i in range(40):
        q = f"Question number {i}: name the object."
        answers = [rf"\text{{obj{i}a}}", rf"\text{{obj{i}b}}"]
        truth[(q, answers[0])], truth[(q, answers[1])] = True, i % 3 == 0
        items.append(
            {
                "question": q,
                "gold": f"object {i}",
                "language": "en",
                "responses": [box(answers[0]), box(answers[1]), box(answers[1])],
            }
        )
        expected.append([True, i % 3 == 0, i % 3 == 0])
    with JudgeServer(truth, p_500=0.15, p_disconnect=0.10, p_garbage=0.05, seed=7) as srv:
        res = grade(
            items, policy(srv.url, tmp_path, max_retries=10, unparseable_retries=3, concurrency=6)
        )
    assert res.correct == expected
    assert res.counts["unjudged"] == 0 and res.counts["judged"] == 80
    assert res.counts["judge_calls"] == srv.requests > 80  # faults happened and were retried
    assert sum(res.errors.values()) == srv.requests - 80


def test_endpoint_down_raises_clear_error_and_keeps_cache(tmp_path):
    with JudgeServer(TRUTH) as srv:
        grade(ITEMS[:1], policy(srv.url, tmp_path))  # caches Q1's pair
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    dead = policy("http://127.0.0.1:9", tmp_path, max_retries=1)
    with pytest.raises(UnjudgedError) as info:
        grade(ITEMS, dead)
    msg = str(info.value)
    assert (
        "7 of 19 samples" in msg
    )  # x^2+2 ×2, 2+x^2, 上海 ×3, 南京 and "4 distinct answers" in msg
    assert "127.0.0.1:9/v1/chat/completions: ConnectError ×8" in msg  # 4 pairs × 2 attempts
    assert str(tmp_path) in msg and "rerun the same command" in msg
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # cache intact
    partial = info.value.result
    assert partial.correct[1][1] is None and partial.correct[0][5] is True  # cached label kept
    assert partial.counts["cache_hits"] == 4  # one half ×3, I give up
    with JudgeServer(TRUTH) as srv:  # resume: only the 4 missing pairs are sent
        res = grade(ITEMS, policy(srv.url, tmp_path))
        assert res.correct == EXPECTED and sum(srv.calls.values()) == 4


def test_unjudged_within_allowance_is_none_never_false(tmp_path):
    truth = {k: v for k, v in TRUTH.items() if k != (Q3, "上海")}  # judge cannot answer it
    with JudgeServer(truth) as srv:
        res = grade(ITEMS, policy(srv.url, tmp_path, max_unjudged=0.2))
        with pytest.raises(UnjudgedError):
            grade(ITEMS, policy(srv.url, tmp_path, max_unjudged=0.1))
    assert res.correct[2] == [True, None, None, None, False]
    assert [res.source[2][i] for i in (1, 2, 3)] == ["unjudged"] * 3
    c = res.counts
    assert (c["unjudged"], c["unjudged_pairs"]) == (3, 1)
    assert c["rule_decided"] + c["cache_hits"] + c["judged_samples"] + c["unjudged"] == c["samples"]
    assert res.errors["unparseable reply"] == 2  # one retry, then unjudged


KILL_SCRIPT = """
import json, sys
from gpassk_oc.core.judging.grading import GradingPolicy, grade
from gpassk_oc.core.judging.judge import JudgeConfig
spec = json.load(open(sys.argv[1]))
pol = GradingPolicy(check="cascade", judge=JudgeConfig(urls=[spec["url"]], model="judge-72b",
                    concurrency=3), cache_dir=spec["cache"], progress=False)
res = grade(spec["items"], pol)
json.dump(res.correct, open(spec["out"], "w"))
"""


def _committed(cache_dir: Path) -> set:
    done = set()
    for path in cache_dir.glob("judgements-*.jsonl"):
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            done.add((rec["question"], rec["answer"]))
    return done


def test_kill_9_mid_judging_then_rerun_judges_no_committed_pair_twice(tmp_path):
    items, truth = [], {}
    for i in range(30):
        q = f"Kill test question {i}?"
        a = rf"\text{{k{i}}}"
        truth[(q, a)] = i % 2 == 0
        items.append(
            {"question": q, "gold": f"gold {i}", "language": "en", "responses": [box(a)] * 4}
        )
    expected = [[i % 2 == 0] * 4 for i in range(30)]
    cache = tmp_path / "cache"
    spec = {"items": items, "cache": str(cache), "out": str(tmp_path / "out.json")}
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    with JudgeServer(truth, delay=0.15) as srv:
        spec["url"] = srv.url
        (tmp_path / "spec.json").write_text(json.dumps(spec))
        proc = subprocess.Popen(
            [sys.executable, "-c", KILL_SCRIPT, str(tmp_path / "spec.json")], env=env
        )
        deadline = time.monotonic() + 60
        while len(_committed(cache)) < 6 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        time.sleep(0.3)  # let requests in flight at kill time reach the server
        committed = _committed(cache)
        first_run = Counter(srv.calls)
        assert 6 <= len(committed) < 30, "the kill must land mid-judging"
        assert not (tmp_path / "out.json").exists()

        proc = subprocess.run(
            [sys.executable, "-c", KILL_SCRIPT, str(tmp_path / "spec.json")], env=env, timeout=120
        )
        assert proc.returncode == 0
        resumed = json.loads((tmp_path / "out.json").read_text())
    assert resumed == expected
    for pair in truth:
        if pair in committed:
            assert srv.calls[pair] == 1, pair  # a committed label is never re-sent
        else:
            assert srv.calls[pair] in (1, 2), pair
    repeated = [p for p in truth if srv.calls[p] == 2]
    # only requests in flight at kill time (at most `concurrency` = 3) may repeat
    assert len(repeated) <= 3 and all(first_run[p] == 1 for p in repeated)
    with JudgeServer(truth) as srv2:  # an uninterrupted run gives identical labels
        assert grade(items, policy(srv2.url, tmp_path / "fresh")).correct == resumed


def test_progress_bar_postfix_shows_counts(tmp_path, capsys):
    with JudgeServer(TRUTH) as srv:
        pol = policy(srv.url, tmp_path)
        pol.progress = True
        grade(ITEMS, pol)
    err = capsys.readouterr().err
    assert "rule=" in err and "judged=" in err and "unjudged=" in err and "cache=" in err


def test_policy_validation():
    with pytest.raises(ValueError, match="needs a judge"):
        GradingPolicy(check="cascade")
    with pytest.raises(ValueError, match="check"):
        GradingPolicy(check="llm")
    with pytest.raises(ValueError, match="max_unjudged"):
        GradingPolicy(check="rules", max_unjudged=5)
    pol = GradingPolicy(check="judge", judge={"urls": "http://x", "model": "m"})
    assert isinstance(pol.judge, JudgeConfig) and pol.judge.urls == ["http://x"]


def test_two_concurrent_processes_share_one_cache_dir(tmp_path):
    items = [
        {
            "question": f"Shared question {i}?",
            "gold": f"g{i}",
            "language": "en",
            "responses": [box(rf"\text{{s{i}}}")] * 3,
        }
        for i in range(12)
    ]
    truth = {(it["question"], rf"\text{{s{i}}}"): i % 3 == 0 for i, it in enumerate(items)}
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    with JudgeServer(truth, delay=0.02) as srv:
        procs = []
        for k in range(2):
            spec = {
                "items": items,
                "cache": str(tmp_path / "cache"),
                "url": srv.url,
                "out": str(tmp_path / f"out{k}.json"),
            }
            (tmp_path / f"spec{k}.json").write_text(json.dumps(spec))
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", KILL_SCRIPT, str(tmp_path / f"spec{k}.json")], env=env
                )
            )
        assert [p.wait(120) for p in procs] == [0, 0]
        outs = [json.loads((tmp_path / f"out{k}.json").read_text()) for k in range(2)]
        third = grade(items, policy(srv.url, tmp_path / "cache"))
    expected = [[i % 3 == 0] * 3 for i in range(12)]
    assert outs == [expected, expected] and third.correct == expected
    assert third.counts["judge_calls"] == 0 and third.counts["cache_hits"] == 36
    assert len(list((tmp_path / "cache").glob("judgements-*.jsonl"))) == 2  # one file per writer
    assert all(1 <= n <= 2 for n in srv.calls.values())  # at most once per process


def test_unboxed_responses_reach_the_judge_in_cascade(tmp_path):
    """Issue 11: a response without \\boxed{} and without "the answer is" used to be
    "no answer" → wrong, never judged. Its last-resort answer now decides only when it
    matches; otherwise the judge sees the response's last paragraph. Only a response with
    no math in its last paragraphs has no answer — but a prose answer is still the judge's
    to decide: it too sees the last paragraph."""
    q1, q2 = "How long is the red rope, in centimeters?", "求圆的方程。"
    red_rope_wrong = (
        "The blue rope is 12 cm.\n\nTherefore, the length of the red rope is 20 centimeters."
    )
    red_rope_right = (
        "The blue rope is 12 cm.\n\nTherefore, the length of the red rope is 24 centimeters."
    )
    prose = "We compared both ropes.\n\nSo the red rope is twice as long as the blue one."
    items = [
        {
            "question": q1,
            "gold": "24",
            "language": "en",
            "responses": [red_rope_wrong, red_rope_right, prose],
        },
        {
            "question": q2,
            "gold": "x^2+y^2=2",
            "language": "cn",
            "responses": [
                "【解析】略。<eoe>\n【答案】$x^2+y^2=2$<eoa>",
                "所以圆的方程为 $x^2+y^2=4$。",
            ],
        },
    ]
    # the judge's truth is keyed by what it is shown: the last paragraph for a guess
    truth = {
        (q1, "Therefore, the length of the red rope is 20 centimeters."): False,
        (q1, "So the red rope is twice as long as the blue one."): False,
        (q2, "所以圆的方程为 $x^2+y^2=4$。"): False,
    }
    with JudgeServer(truth) as srv:
        res = grade(items, policy(srv.url, tmp_path))
        assert srv.unknown == [] and dict(srv.calls) == {pair: 1 for pair in truth}
    assert res.found == [["fallback", "fallback", "none"], ["statement", "fallback"]]
    assert res.extracted == [["20", "24", None], ["x^2+y^2=2", "x^2+y^2=4"]]
    assert res.correct == [[False, True, False], [True, False]]
    assert res.source == [["judge", "rule", "judge"], ["rule", "judge"]]
    c = res.counts
    assert (c["found_boxed"], c["found_statement"], c["found_fallback"], c["found_none"]) == (
        0,
        1,
        3,
        1,
    )
    rules = grade(items, GradingPolicy(check="rules", progress=False))  # same extraction
    assert rules.correct == [[False, True, False], [True, False]]
    # scored wrong without a judge: marked as what no rule decided
    assert rules.source == [
        ["rule_undecided", "rule", "rule_undecided"],
        ["rule", "rule_undecided"],
    ]
    assert rules.counts["rule_undecided"] == 3 and rules.counts["no_answer"] == 0
    empty = grade(
        [{"question": q1, "gold": "24", "language": "en", "responses": ["", " \n"]}],
        policy("http://127.0.0.1:9", tmp_path),
    )  # nothing to judge: never sent
    assert empty.source == [["no_answer", "no_answer"]] and empty.correct == [[False, False]]
