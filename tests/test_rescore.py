"""``gpassk-oc rescore`` on hand-built OpenCompass work dirs (fast; no OpenCompass run).

Each work dir is written in OpenCompass 0.5.4's layout (tests/rescore_support.py) from
replies built to be right (the gold boxed) or wrong (another number boxed), so the true
per-question counts c are known by construction; G-Pass@k_τ is then enumerated over
k-subsets (conftest.brute_g_pass), and the reasons rescore names are counted from the same
construction.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from conftest import brute_g_pass
from rescore_support import (
    ABBR,
    LMB_EVALUATOR,
    MODEL,
    QUESTIONS,
    TS,
    dataset_cfg,
    right,
    snapshot,
    write_data,
    write_oc_workdir,
    wrong,
)

from gpassk_oc.cli import main
from gpassk_oc.core.runs.results_file import SCHEMA_VERSION, read_results
from gpassk_oc.rescore.sidecar import read_sidecar

N = 4
KS = [2, 4]
#: per question: which replicas are right (c = 3, 1, 4, 0, 2)
PATTERN = [
    [1, 1, 0, 1],
    [0, 1, 0, 0],
    [1, 1, 1, 1],
    [0, 0, 0, 0],
    [0, 1, 1, 0],
]
JUDGE_EVAL = {"type": LMB_EVALUATOR, "model_name": "judge", "url": ["http://127.0.0.1:9/v1"]}


def _replies(pattern=PATTERN):
    return [
        [right(QUESTIONS[q][3]) if ok else wrong(QUESTIONS[q][3]) for ok in row]
        for q, row in enumerate(pattern)
    ]


def _reused_labels(pattern=PATTERN):
    """What OpenCompass's judge path reports: replica 0's label on every replica."""
    return [[row[0]] * len(row) for row in pattern]


def _truth_percent(k: int, tau: str, pattern=PATTERN) -> float:
    values = [brute_g_pass(len(row), sum(row), k, tau) for row in pattern]
    return float(sum(values, Fraction(0)) * 100 / len(values))


def _rescore(work, out, *extra) -> int:
    return main(["rescore", str(work), "-o", str(out), *map(str, extra)])


def _results(out, abbr=ABBR):
    return read_results(out / TS / "results" / MODEL / f"{abbr}.json")


def _sidecar(out, abbr=ABBR):
    data = read_sidecar(out / TS / "rescore" / MODEL / f"{abbr}.json")
    assert data is not None
    return data


def _kinds(sidecar):
    return {r["kind"]: r for r in sidecar["reasons"]}


@pytest.fixture
def judged_run(tmp_path):
    """A judge-path run whose OpenCompass labels were reused across replicas."""
    work = tmp_path / "oc"
    write_oc_workdir(
        work,
        _replies(),
        dataset=dataset_cfg(N, KS, evaluator=JUDGE_EVAL),
        labels=_reused_labels(),
        reported={"G-Pass@4_0.5": 40.0, "G-Pass@4_1.0": 40.0, "mG-Pass@4": 40.0},
    )
    return work


def test_rescore_gives_brute_force_values_and_names_label_reuse(judged_run, tmp_path):
    before = snapshot(judged_run)
    out = tmp_path / "out"
    assert _rescore(judged_run, out) == 0
    assert snapshot(judged_run) == before  # nothing written inside the work dir
    res = _results(out)
    assert res.schema_version == SCHEMA_VERSION and res.info.writer.startswith("gpassk_oc ")
    assert [q.c for q in res.questions] == [sum(row) for row in PATTERN]
    for k in KS:
        for tau in ("0.0", "0.25", "0.5", "0.75", "1.0"):
            assert res.metrics[f"G-Pass@{k}_{tau}"] == pytest.approx(_truth_percent(k, tau))
    assert res.record is not None and res.record.temperature == 0.7
    assert res.record.source.startswith("rescore")
    side = _sidecar(out)
    reused = _kinds(side)["labels_reused"]
    # samples r > 0 whose truth differs from replica 0's: counted from the pattern
    changed = sum(1 for row in PATTERN for v in row[1:] if v != row[0])
    assert reused["changed"] == changed == side["disagreements"]["by_kind"]["reused_label"]
    assert reused["questions"] == len(PATTERN) and reused["samples"] == len(PATTERN) * N
    shown = {m["metric"]: m for m in side["metrics"]}
    assert shown["G-Pass@4_0.5"]["opencompass"] == 40.0
    assert shown["G-Pass@4_0.5"]["rescored"] == pytest.approx(_truth_percent(4, "0.5"))


def test_report_shows_opencompass_beside_rescored(judged_run, tmp_path, capsys):
    out = tmp_path / "out"
    assert _rescore(judged_run, out) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    assert "OpenCompass reported vs re-scored" in text
    assert "labels reused across replicas" in text
    want = f"{_truth_percent(4, '0.5'):.2f}"
    assert f"| G-Pass@4_0.5 | 40.00 | {want} |" in text


def test_console_says_checker_reasons_with_counts_and_where(judged_run, tmp_path, capsys):
    """Per run: the checker (rules, though the run had a judge), each reason with its count,
    the results file and the full comparison; a success is no warning."""
    out = tmp_path / "out"
    data = write_data(tmp_path / "LiveMathBench")
    capsys.readouterr()
    assert main(["rescore", str(judged_run), "-o", str(out), "--data", str(data)]) == 0
    err = capsys.readouterr().err
    assert "warning" not in err
    assert "graded by the rules where the run had a judge" in err
    assert "split × language from --data" in err
    side = json.loads(next((out).glob("*/rescore/*/*.json")).read_text())
    reused = next(r for r in side["reasons"] if r["kind"] == "labels_reused")
    assert f"differs ({reused['changed']}): labels reused across replicas" in err
    assert f"full comparison: {next(out.glob('*/rescore/*/*.json'))}" in err


def test_rule_path_without_results_file_rescored_from_predictions(tmp_path):
    work = tmp_path / "oc"
    write_oc_workdir(work, _replies(), dataset=dataset_cfg(N, KS))  # no results: a crash
    out = tmp_path / "out"
    assert _rescore(work, out) == 0
    res = _results(out)
    assert res.metrics["G-Pass@2_0.75"] == pytest.approx(_truth_percent(2, "0.75"))
    kinds = _kinds(_sidecar(out))
    assert "no_results" in kinds and "labels_reused" not in kinds
    assert "groups_dropped" in kinds  # two splits × two languages, no --data


def test_data_recovers_split_and_language(tmp_path):
    work = tmp_path / "oc"
    write_oc_workdir(work, _replies(), dataset=dataset_cfg(N, KS))
    data = write_data(tmp_path / "LiveMathBench")
    out = tmp_path / "out"
    assert _rescore(work, out, "--data", data) == 0
    res = _results(out)
    got = [(q.split, q.language, q.question) for q in res.questions]
    assert got == [(s, lang, text) for s, lang, text, _ in QUESTIONS]
    amc_en = [PATTERN[0], PATTERN[1]]
    assert res.metrics["AMC/en/G-Pass@4_0.5"] == pytest.approx(_truth_percent(4, "0.5", amc_en))
    assert res.questions[2].question_id == "AMC_cn_0"
    assert "groups_dropped" not in _kinds(_sidecar(out))


def test_data_found_by_text_when_order_differs(tmp_path):
    work = tmp_path / "oc"
    write_oc_workdir(work, _replies(), dataset=dataset_cfg(N, KS))
    data = write_data(tmp_path / "LiveMathBench", list(reversed(QUESTIONS)))
    out = tmp_path / "out"
    assert _rescore(work, out, "--data", data) == 0
    assert [q.split for q in _results(out).questions] == [q[0] for q in QUESTIONS]


def test_shards_read_in_order_like_one_file(tmp_path):
    outs = []
    for shards in (1, 3):
        work = tmp_path / f"oc{shards}"
        write_oc_workdir(work, _replies(), dataset=dataset_cfg(N, KS), shards=shards)
        out = tmp_path / f"out{shards}"
        assert _rescore(work, out) == 0
        outs.append([q.correct for q in _results(out).questions])
    assert outs[0] == outs[1]


def test_truncated_thought_graded_by_opencompass_is_named(tmp_path):
    # reasoning replies (the opening tag sits in the prompt, as with R1 distills): one per
    # question never closes its thinking, a box inside it
    replies = [
        [f"draft \\boxed{{{g}}}</think>{right(g)}" for _ in range(N - 1)]
        + [f"so far \\boxed{{{g}}} but"]
        for _, _, _, g in QUESTIONS
    ]
    labels = [[1] * N for _ in QUESTIONS]  # OpenCompass's rule path: the last box counts
    work = tmp_path / "oc"
    write_oc_workdir(work, replies, dataset=dataset_cfg(N, KS), labels=labels)
    out = tmp_path / "out"
    assert _rescore(work, out) == 0
    assert [q.c for q in _results(out).questions] == [N - 1] * len(QUESTIONS)
    side = _sidecar(out)
    assert side["reasoning"]["applied"] is True and side["reasoning"]["why"].startswith("auto")
    truncated = _kinds(side)["truncated_graded"]
    assert truncated == {
        "kind": "truncated_graded",
        "truncated": len(QUESTIONS),
        "opencompass_correct": len(QUESTIONS),
    }
    assert side["disagreements"]["by_kind"]["truncated_graded"] == len(QUESTIONS)
    # forced off, the unfinished thought is read whole: its box counts
    out2 = tmp_path / "out2"
    assert _rescore(work, out2, "--reasoning", "false") == 0
    assert [q.c for q in _results(out2).questions] == [N] * len(QUESTIONS)


def test_greedy_math_verify_run(tmp_path):
    ev = {"type": "opencompass.evaluator.math_evaluator.MATHVerifyEvaluator"}
    pattern = [[1], [0], [1], [1], [0]]
    work = tmp_path / "oc"
    labels = [[1], [1], [1], [1], [0]]  # OpenCompass's labels: one disagrees
    write_oc_workdir(
        work,
        _replies(pattern),
        dataset=dataset_cfg(1, 1, evaluator=ev),
        labels=labels,
        reported={"accuracy": 80.0},
    )
    out = tmp_path / "out"
    assert _rescore(work, out) == 0
    res = _results(out)
    assert res.metrics["accuracy"] == pytest.approx(60.0)
    side = _sidecar(out)
    assert side["task"]["evaluator"] == "MATHVerifyEvaluator"
    assert side["task"]["judge_configured"] is False
    assert side["disagreements"]["by_kind"]["opencompass_only_correct"] == 1
    assert {m["metric"]: m["opencompass"] for m in side["metrics"]}["accuracy"] == 80.0


@pytest.mark.parametrize(
    "evaluator",
    [
        "opencompass.evaluator.cascade_evaluator.CascadeEvaluator",
        "opencompass.evaluator.generic_llm_evaluator.GenericLLMEvaluator",
    ],
)
def test_llm_evaluators_count_as_judged(tmp_path, evaluator):
    work = tmp_path / "oc"
    write_oc_workdir(
        work,
        _replies(),
        dataset=dataset_cfg(N, KS, evaluator={"type": evaluator}),
        labels=_reused_labels(),
    )
    out = tmp_path / "out"
    assert _rescore(work, out) == 0
    side = _sidecar(out)
    assert side["task"]["judge_configured"] is True
    assert "labels_reused" in _kinds(side)


def test_unfinished_task_is_named_and_skipped(tmp_path, capsys):
    work = tmp_path / "oc"
    other = dataset_cfg(N, KS, abbr="LiveMathBench_hard")
    run = write_oc_workdir(work, _replies(), dataset=dataset_cfg(N, KS), extra_datasets=[other])
    tmp = run / "predictions" / MODEL / "tmp_LiveMathBench_hard.json"
    tmp.write_text("{}")
    out = tmp_path / "out"
    assert _rescore(work, out) == 0
    err = capsys.readouterr().err
    assert str(tmp) in err and "unfinished" in err
    assert not (out / TS / "results" / MODEL / "LiveMathBench_hard.json").exists()


def test_rerun_overwrites_its_own_files_but_not_others(judged_run, tmp_path, capsys):
    out = tmp_path / "out"
    assert _rescore(judged_run, out) == 0
    assert _rescore(judged_run, out) == 0  # its own files, unchanged: rewritten
    target = out / TS / "results" / MODEL / f"{ABBR}.json"
    target.write_text(target.read_text().replace('"n": 4', '"n": 4 '))
    before = snapshot(out)
    capsys.readouterr()
    assert _rescore(judged_run, out) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(target) in err and "--force" in err
    assert snapshot(out) == before
    assert _rescore(judged_run, out, "--force") == 0


def test_results_files_are_read_by_compare_and_plan(judged_run, tmp_path, capsys):
    out = tmp_path / "out"
    assert _rescore(judged_run, out) == 0
    # the only run there, compared with itself: compare reads it and refuses (issue 35)
    assert main(["compare", str(out), str(out), "--resamples", "200"]) == 2
    assert "A and B are the same run" in capsys.readouterr().err
    data = json.loads((out / TS / "results" / MODEL / f"{ABBR}.json").read_text())
    assert data["schema"] == "gpassk_oc.results/4" and data["run"]["n"] == N
    assert not {"ks", "thresholds", "n", "replication"} & set(data["record"])  # stored once


def test_cascade_with_judge_url_uses_the_cache_under_out(tmp_path):
    from judge_server import JudgeServer

    questions = [("AMC", "en", "Which day comes right after Monday?", r"\text{Tuesday}")]
    replies = [[r"So it is \boxed{Tuesday is the day}"] * 3 + [r"So it is \boxed{Friday}"]]
    truth = {
        (questions[0][2], "Tuesday is the day"): True,
        (questions[0][2], "Friday"): False,
    }
    work = tmp_path / "oc"
    write_oc_workdir(
        work,
        replies,
        questions=questions,
        dataset=dataset_cfg(N, KS, splits=["AMC"], langs=["en"]),
    )
    with JudgeServer(truth) as judge:
        argv = ["--judge-url", judge.url, "--judge-model", "j", "--judge-prompt", "gpassk"]
        assert _rescore(work, tmp_path / "out", *argv) == 0
        first = judge.requests
        assert _rescore(work, tmp_path / "out2", *argv) == 0  # another OUT: its own cache
        assert _rescore(work, tmp_path / "out", *argv) == 0  # the same OUT: cached
        assert judge.requests == 2 * first
    res = _results(tmp_path / "out")
    assert res.info.check == "cascade" and res.questions[0].c == 3
    assert res.questions[0].split == "AMC"  # one split and language configured: known
    assert (tmp_path / "out" / ".gpassk_judge_cache").is_dir()
    assert first >= 1


def test_judge_log_entries_are_counted(judged_run, tmp_path):
    # OpenCompass's LiveMathBenchEvaluator keeps tmp_judge.json in its output dir
    log = judged_run / TS / "results" / MODEL / ABBR / "tmp_judge.json"
    log.parent.mkdir(parents=True)
    log.write_text(json.dumps({str(i): {"prompt": "p"} for i in range(len(QUESTIONS))}))
    out = tmp_path / "out"
    assert _rescore(judged_run, out) == 0
    assert _kinds(_sidecar(out))["labels_reused"]["judge_log_entries"] == len(QUESTIONS)
