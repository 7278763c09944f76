"""`compare`'s P(A better than B) agrees with the interval and p-value beside A − B.

P was read off another construction than the interval and p of its kind (rerun: Φ(diff /
se) beside a t interval; benchmark: the raw share of resamples with A ahead beside a BCa
interval), so with few questions the three could disagree: p 0.0033 beside P 0.97, or
P 0.98 beside p 0.053. Now P = 1 − p/2 on the side of the observed difference: beyond
0.975 (or below 0.025) exactly when p < 0.05, i.e. when the 95% interval leaves 0 out.

Checked on small crafted pairs (12 questions, the counts of two models a few points
apart), every metric and kind of the JSON, and the markdown's cells."""

from __future__ import annotations

import json

import numpy as np
import pytest
from report_support import DATASET, abbr, questions, run_cli, write_run

N = 16
Q = 12
METRICS = ["pass@1", "G-Pass@4_0.5", "G-Pass@8_1.0", "mG-Pass@8"]


def _pair(root, seed: int) -> tuple[str, str]:
    rng = np.random.default_rng(seed)
    p = rng.beta(0.5, 0.5, Q)
    shift = rng.normal(0, 0.1)
    a, b = abbr(f"a{seed}", "0-7"), abbr(f"b{seed}", "0-7")
    qs = questions()[:Q]
    write_run(root, a, DATASET, rng.binomial(N, np.clip(p + shift, 0, 1)), N, qs=qs)
    write_run(root, b, DATASET, rng.binomial(N, p), N, qs=qs)
    return a, b


def _compare(capsys, root, a: str, b: str, *extra) -> str:
    argv = ["compare", root, root, "--model-a", a, "--model-b", b, "--metrics", *METRICS]
    code, out, err = run_cli(capsys, *argv, "--resamples", "1000", *extra)
    assert code == 0, err
    return out


@pytest.mark.parametrize("seed", range(10))
def test_p_a_better_agrees_with_the_interval_and_p(capsys, tmp_path, seed):
    a, b = _pair(tmp_path, seed)
    data = json.loads(_compare(capsys, tmp_path, a, b, "--format", "json"))
    for key, m in data["metrics"].items():
        for kind in ("rerun", "benchmark"):
            p, got = m[kind]["p_value"], data["p_a_better"][key][kind]
            if p is None:
                assert got is None
                continue
            low, high = m[kind]["low"], m[kind]["high"]
            assert (low > 0 or high < 0) == (p < 0.05), (key, kind, m[kind])
            assert (got > 0.975 or got < 0.025) == (p < 0.05), (key, kind, p, got)
            want = 1 - p / 2 if m["diff"] > 0 else p / 2 if m["diff"] < 0 else 0.5
            assert got == pytest.approx(want, abs=1e-12), (key, kind)


def _cells(markdown: str, table: str) -> dict[str, list[str]]:
    section = markdown.split(f"\n## {table}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ")]
    return {r[0].strip(): [c.strip() for c in r[1:]] for r in rows[1:]}


def _side(text: str, mark: float) -> int:
    """-1, 0 or +1: the printed number against *mark* ("<x" / ">x" read as beyond it)."""
    if text[0] in "<>":
        return -1 if text[0] == "<" else 1
    value = float(text)
    return (value > mark) - (value < mark)


@pytest.mark.parametrize("seed", [0, 3])
def test_markdown_shows_the_side_of_p_and_p_a_better(capsys, tmp_path, seed):
    """Printed with the digits that show their side: p of 0.05, P of 0.025 and 0.975."""
    a, b = _pair(tmp_path, seed)
    markdown = _compare(capsys, tmp_path, a, b)
    diffs, probs = _cells(markdown, "overall"), _cells(markdown, "P(A better than B)")
    for key in METRICS:
        for kind, p_text, got in zip(
            ("rerun", "benchmark"), (diffs[key][4], diffs[key][6]), probs[key]
        ):
            if p_text == "—":
                assert got == "—", (key, kind)
                continue
            significant = _side(p_text, 0.05) < 0
            beyond = _side(got, 0.975) > 0 or _side(got, 0.025) < 0
            assert significant == beyond, (key, kind, p_text, got)


def test_without_resamples_the_benchmark_kind_says_it_was_not_computed(capsys, tmp_path):
    """--resamples 0: the legend described a "paired BCa bootstrap over questions, 0
    resamples" beside columns of "—"; it says the kind was not computed, and P's JSON
    gives that reason."""
    a, b = _pair(tmp_path, 1)
    argv = ["compare", tmp_path, tmp_path, "--model-a", a, "--model-b", b, "--resamples", "0"]
    code, markdown, err = run_cli(capsys, *argv)
    assert code == 0, err
    legend = markdown.split("\n## ", 1)[0]
    assert "0 resamples" not in legend
    assert "over questions: not computed, — throughout, as --resamples 0 asks)" in legend
    code, out, err = run_cli(capsys, *argv, "--format", "json")
    for p in json.loads(out)["p_a_better"].values():
        assert p["benchmark"] is None and p["reason"]["benchmark"] == "not computed (--resamples 0)"
        assert p["rerun"] is not None and p["reason"]["rerun"] is None


def test_corrected_section_says_the_difference_above_is_raw(capsys, tmp_path):
    """--verdict-error corrects each side's values, not A − B: the section says the table
    of A − B and P above are of the raw verdicts (they are the same numbers as without
    the flag), so no one reads their p-values as corrected."""
    a, b = _pair(tmp_path, 2)
    plain = json.loads(_compare(capsys, tmp_path, a, b, "--format", "json"))
    rates = ("--verdict-error", "fp=0.02,fn=0.08")
    fixed = json.loads(_compare(capsys, tmp_path, a, b, *rates, "--format", "json"))
    assert fixed["metrics"] == plain["metrics"] and fixed["p_a_better"] == plain["p_a_better"]
    section = _compare(capsys, tmp_path, a, b, *rates).split("## Corrected for verdict error")[1]
    assert "P(A better than B) above are of the raw verdicts" in section
