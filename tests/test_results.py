"""The results-file contract: metric names, the typed schema (v2 written, v1 still read,
newer refused), and the verdict sensitivity. Expected values are hand-computed fractions
or brute force over every assignment of the samples in doubt."""

from __future__ import annotations

import itertools
import json
import math
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from conftest import brute_g_pass, brute_mg_pass
from test_report import run_cli

from gpassk_oc.core.metrics.metric_keys import (
    group_name,
    legacy_group,
    result_key,
    split_group,
)
from gpassk_oc.core.metrics.registry import MetricSpec, parse_metric, parse_result_key
from gpassk_oc.core.runs.results_file import (
    SCHEMA_VERSION,
    Results,
    ResultsError,
    read_results,
    schema_tag,
)
from gpassk_oc.core.runs.run_scoring import ScoringInput, build_results
from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.report.data.collect import Row
from gpassk_oc.report.data.report_model import sensitivity

FIXTURE = Path(__file__).parent / "fixtures" / "results_schema1"
OLD_MODEL = "m_t0-7_p0-95_k-1_rp1-0_rs0_l512"
OLD_DATASET = "LiveMathBench-v202412-k2-r2"
OLD_FILE = FIXTURE / "20250101_000000" / "results" / OLD_MODEL / f"{OLD_DATASET}.json"


# --------------------------------------------------------------------------- names
def test_metric_names_round_trip_and_refuse_unknown():
    assert parse_metric("G-Pass@16_0.75") == MetricSpec("G", 16, Fraction(3, 4))
    assert parse_metric("G-Pass@12_7/12").key == "G-Pass@12_0.5833333333333334"
    assert parse_metric("accuracy") == parse_metric("pass@1") == MetricSpec("pass", 1)
    assert [parse_metric(k).key for k in ("mG-Pass@8", "pass@4", "gap@16")] == [
        "mG-Pass@8",
        "pass@4",
        "gap@16",
    ]
    for bad in ("G-Pass16", "pass@0", "G-Pass@4_1.5", "rule_checks", "G-Pass@4_x"):
        with pytest.raises(ValueError) as info:
            parse_metric(bad)
        assert "\n" not in str(info.value) and bad in str(info.value)


def test_one_group_name_and_result_keys():
    assert group_name("AMC", "en") == "AMC/en" and group_name("", "") == ""
    assert split_group("AIME_2025/en") == ("AIME_2025", "en")
    assert result_key("mG-Pass@16", "AMC/en") == "AMC/en/mG-Pass@16"
    assert parse_result_key("AMC/en/G-Pass@4_0.5") == ("AMC/en", MetricSpec("G", 4, Fraction(1, 2)))
    assert parse_result_key("pass@1") == ("", MetricSpec("pass", 1))
    # a split holding '_' stays whole; schema-1 prefixes split at their last '_'
    assert parse_result_key("AIME_2025/en/pass@1")[0] == "AIME_2025/en"
    assert legacy_group("AMC_en") == "AMC/en" and legacy_group("AIME_2025_cn") == "AIME_2025/cn"


# --------------------------------------------------------------------------- schema 2
def _rows(groups):
    return [
        dict(question_id=f"q{i}", split=s, language=lang, question="x", answer="1")
        for i, (s, lang) in enumerate(groups)
    ]


def test_written_schema_keeps_counts_out_of_the_summary():
    correct = [[True, False, None, True], [False, False, False, True]]
    result = build_results(
        ScoringInput(
            spec=RunSpec.parse([2]).at_n(4),
            rows=_rows([("AMC", "en"), ("CCEE", "cn")]),
            extracted=[["1", "2", "3", "1"], ["2", None, "5", "1"]],
            correct=correct,
            source=[["rule", "rule", "unjudged", "judge"], ["rule", "no_answer", "rule", "cache"]],
            found=[
                ["boxed", "boxed", "statement", "fallback"],
                ["boxed", "none", "boxed", "boxed"],
            ],
            accounting={"samples": 8, "judge_calls": 2, "rule_checks": 5},
            check="cascade",
            judge={"model": "judge-m", "prompt": "auto"},
        )
    )
    assert result["schema"] == schema_tag() == f"gpassk_oc.results/{SCHEMA_VERSION}"
    # OpenCompass's summarizer shows every top-level int/float: metrics only
    numbers = [k for k, v in result.items() if isinstance(v, (int, float))]
    assert numbers and all(parse_result_key(k) for k in numbers)
    assert "AMC/en/G-Pass@2_1.0" in numbers and not any("_en/" in k for k in numbers)
    assert result["accounting"] == {
        "samples": 8,
        "judge_calls": 2,
        "rule_checks": 5,
        "unjudged": 1,
        "excluded_questions": {"2": 0},
    }
    assert result["run"]["judge"] == {"model": "judge-m", "prompt": "auto"}
    assert result["details"][1]["found"] == ["boxed", "none", "boxed", "boxed"]
    # the typed reader gives the same data back
    back = Results.from_json(json.loads(json.dumps(result)), "mem")
    assert back.schema_version == SCHEMA_VERSION and back.info.check == "cascade"
    assert [(q.c, q.n, q.unjudged) for q in back.questions] == [(2, 3, 1), (1, 4, 0)]
    assert back.questions[0].found == ["boxed", "boxed", "statement", "fallback"]
    assert back.metrics["G-Pass@2_1.0"] == pytest.approx(
        float(100 * (brute_g_pass(3, 2, 2, "1.0") + brute_g_pass(4, 1, 2, "1.0")) / 2)
    )


def test_found_is_optional_and_must_match_the_samples():
    base = build_results(
        ScoringInput(
            spec=RunSpec.parse([2]).at_n(2),
            rows=_rows([("AMC", "en")]),
            extracted=[["1", "1"]],
            correct=[[True, False]],
        )
    )
    assert "found" not in base["details"][0] and "source" not in base["details"][0]
    assert Results.from_json(base).questions[0].found is None
    base["details"][0]["found"] = ["boxed"]
    with pytest.raises(ResultsError, match=r"^mem: details\[0\]\.found: need one entry per sample"):
        Results.from_json(base, "mem")


def test_an_unknown_check_mode_is_refused_in_one_line():
    data = build_results(
        ScoringInput(
            spec=RunSpec.parse([2]).at_n(2),
            rows=_rows([("AMC", "en")]),
            extracted=[["1", "1"]],
            correct=[[True, False]],
        )
    )
    data["run"]["check"] = "vibes"
    with pytest.raises(ResultsError, match=r"^mem: run\.check: 'vibes' is not one of 'rules', "):
        Results.from_json(data, "mem")
    data["run"]["check"] = "rules"
    assert Results.from_json(data, "mem").info.check == "rules"


def test_newer_schema_is_refused_in_one_line(tmp_path, capsys):
    data = json.loads(OLD_FILE.read_text())
    data["schema"] = "gpassk_oc.results/99"
    path = tmp_path / "20250101_000000" / "results" / OLD_MODEL / f"{OLD_DATASET}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError) as info:
        read_results(path)
    assert str(info.value) == (
        f"{path}: schema: written by a newer gpassk_oc (results schema 99; "
        f"this one reads up to {SCHEMA_VERSION}); upgrade gpassk_oc to read it"
    )
    code, _, err = run_cli(capsys, "report", tmp_path)
    assert code == 2 and "results schema 99" in err and "Traceback" not in err


# --------------------------------------------------------------------------- schema 1
def test_previous_release_file_is_read():
    """tests/fixtures/results_schema1 was written by hand in the layout of the previous
    release (top-level n/ks/counts, AMC_en/… groups). Hand values: per question (n, c) =
    (4, 2), (4, 4), (3, 0) with one unjudged sample; G-Pass@2_0.5 = (5/6 + 1 + 0)/3."""
    res = read_results(OLD_FILE)
    assert res.schema_version == 1 and res.notes == []
    assert (res.info.n, res.info.num_questions, res.info.ks, res.info.check) == (
        4,
        3,
        [2],
        "cascade",
    )
    assert res.info.judge == {"model": "judge-m"}
    assert res.metrics["AMC/en/G-Pass@2_0.5"] == pytest.approx(100 * 11 / 12)
    assert res.metrics["G-Pass@2_1.0"] == pytest.approx(100 * 7 / 18)
    assert not [k for k in res.metrics if "_en/" in k or "_cn/" in k]
    assert res.accounting["judge_calls"] == 3 and res.accounting["unjudged"] == 1
    assert "n" not in res.accounting and "check" not in res.accounting
    assert [(q.c, q.n, q.unjudged, q.group) for q in res.questions] == [
        (2, 4, 0, "AMC/en"),
        (4, 4, 0, "AMC/en"),
        (0, 3, 1, "CCEE/cn"),
    ]


def test_report_reads_the_previous_release(tmp_path, capsys):
    work = tmp_path / "work"
    shutil.copytree(FIXTURE, work)
    code, out, err = run_cli(capsys, "report", work, "--format", "json", "--resamples", "200")
    assert code == 0, err
    (row,) = json.loads(out)
    assert "top-level" not in err  # the file's own numbers agree with its details
    assert row["metrics"]["G-Pass@2_0.5"]["value"] == pytest.approx(100 * 11 / 18, abs=1e-4)
    assert row["splits"]["AMC/en"]["metrics"]["mG-Pass@2"]["value"] == pytest.approx(
        100 * 7 / 12, abs=1e-4
    )
    sens = row["sensitivity"]
    # cascade: only the one unjudged sample is in doubt; as right it makes (4, 1) of (3, 0)
    assert (sens["undecided"], sens["unjudged"], sens["undecided_basis"]) == (0, 1, "exact")
    assert sens["metrics"]["G-Pass@2_0.5"] == {
        "low": pytest.approx(100 * 11 / 18, abs=1e-4),
        "high": pytest.approx(100 * 14 / 18, abs=1e-4),
    }
    # the counts are in the report's accounting section, never among the metrics
    assert row["accounting"] == {
        "check": "cascade",
        "samples": 12,
        "rule_decided": 9,
        "no_answer": 1,
        "cache_hits": 0,
        "judged_samples": 2,
        "unjudged": 1,
        "judge_calls": 3,
        "rule_checks": 4,
        "rule_mv_calls": 1,
        "rule_timeouts": 0,
    }
    assert not {"samples", "judge_calls", "rule_checks"} & set(row["metrics"])
    code, out, err = run_cli(capsys, "report", work, "--resamples", "0")
    # no run record in a schema-1 file: the row is its abbr, settings unknown (not parsed)
    abbr = "m_t0-7_p0-95_k-1_rp1-0_rs0_l512"
    assert code == 0 and f"| {abbr} | cascade | 12 | 9 | 1 | 0 | 2 | 1 | 3 | 4 | 1 | 0 |" in out
    assert f"| {abbr} | — | 4 | 3 |" in out and "has no run record" in err


# --------------------------------------------------------------------------- sensitivity
def _metric_of(verdicts: list[bool], key: str) -> Fraction:
    n, c = len(verdicts), sum(verdicts)
    spec = parse_metric(key)
    if spec.kind == "G":
        return brute_g_pass(n, c, spec.k, str(spec.tau))
    if spec.kind == "mG":
        return brute_mg_pass(n, c, spec.k)
    return Fraction(c, n)  # pass@1


def test_sensitivity_is_the_exact_range_over_every_assignment():
    """Per question: decided verdicts, u scored-wrong-undecided and j unjudged samples.
    Brute force: every way the u + j samples could have been right or wrong."""
    questions = [  # (decided correct, decided wrong, undecided-scored-wrong, unjudged)
        (2, 1, 1, 1),
        (0, 3, 2, 0),
        (4, 0, 0, 1),
        (1, 1, 0, 3),
        (0, 0, 1, 4),
    ]
    k = 4
    keys = [f"G-Pass@{k}_0.5", f"G-Pass@{k}_1.0", f"mG-Pass@{k}", "pass@1"]
    n = np.array([c + w + u for c, w, u, _ in questions])
    row = Row(
        "m",
        "d",
        [],
        [(i,) for i in range(len(questions))],
        n,
        np.array([q[0] for q in questions]),
        np.array([q[2] for q in questions]),
        np.array([q[3] for q in questions]),
    )
    row.runs = [type("R", (), {"undecided_basis": "exact"})()]
    sens = sensitivity(row, keys)
    assert (sens.undecided, sens.unjudged) == (4, 9)
    for key in keys:
        per_question = []
        for c, w, u, j in questions:
            values = [
                _metric_of([True] * c + [False] * w + list(flips), key)
                for flips in itertools.product((False, True), repeat=u + j)
            ]
            per_question.append((min(values), max(values)))
        low = sum(lo for lo, _ in per_question) / len(questions)
        high = sum(hi for _, hi in per_question) / len(questions)
        assert sens.ranges[key] == (
            pytest.approx(float(low), abs=1e-12),
            pytest.approx(float(high), abs=1e-12),
        ), key


def test_rules_mode_undecided_samples_are_read_from_source(tmp_path):
    result = build_results(
        ScoringInput(
            spec=RunSpec.parse([2]).at_n(4),
            rows=_rows([("AMC", "en")]),
            extracted=[["1", "x+y", "2", None]],
            correct=[[True, False, False, False]],
            source=[["rule", "rule_undecided", "rule", "no_answer"]],
            check="rules",
        )
    )
    res = Results.from_json(result)
    assert res.undecided_basis == "exact" and res.questions[0].undecided(True) == 1
    # a schema-1 rules-mode file cannot tell undecided from confidently wrong: upper bound
    res.schema_version, res.questions[0].source = 1, ["rule", "rule", "rule", "no_answer"]
    assert res.undecided_basis == "upper bound" and res.questions[0].undecided(False) == 2
    assert math.isfinite(res.metrics["G-Pass@2_0.5"])
