"""Shared checks of the rescore importers' tests (tests/test_rescore_<tool>.py).

The real files are in tests/fixtures/harnesses/<tool>/, made by each tool itself (see the
make_fixture.sh and PROVENANCE beside them). Expected values never come from the code
under test: each question's c is counted from the replies the tool saved (a right reply
of the demo's simulated models boxes the gold; a thought never closed is no answer when
the run thinks), then G-Pass@k by brute force over k-subsets (tests/conftest.py).
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import brute_g_pass, brute_mg_pass

from gpassk_oc.cli import main
from gpassk_oc.core.runs.results_file import read_results

HARNESSES = Path(__file__).resolve().parent / "fixtures" / "harnesses"
TAUS = ("0.0", "0.25", "0.5", "0.75", "1.0")


def right(reply: str, gold: str, thinks: bool) -> bool:
    """The demo's right reply boxes the gold; in a thinking run, after its closed thought."""
    if thinks:
        if "</think>" not in reply:
            return "<think>" not in reply and f"\\boxed{{{gold}}}" in reply
        reply = reply.rpartition("</think>")[2]
    return f"\\boxed{{{gold}}}" in reply


def counts(questions: list[tuple[str, list[str]]]) -> list[tuple[int, int]]:
    """(c, n_q) per question from (gold, replies)."""
    thinks = any("</think>" in r for _, replies in questions for r in replies)
    return [(sum(right(r, g, thinks) for r in replies), len(replies)) for g, replies in questions]


def rescore(path: Path, out: Path, *extra: str) -> None:
    code = main(["rescore", str(path), "-o", str(out), *extra])
    assert code == 0


def only_results(out: Path) -> Path:
    files = sorted(out.glob("*/results/*/*.json"))
    assert len(files) == 1, files
    return files[0]


def assert_brute_force(results_path: Path, cn: list[tuple[int, int]]) -> None:
    """The results file's c, n and every G-Pass@k_τ / mG-Pass@k equal brute force over the
    questions with n_q >= k."""
    res = read_results(results_path)
    assert [(q.c, q.n) for q in res.questions] == cn
    judged = [(c, m) for c, m in cn if m]
    mean = sum(Fraction(c, m) for c, m in judged) / len(judged)
    assert res.metrics["pass@1"] == pytest.approx(float(mean * 100), abs=1e-9)
    if res.info.spec.n == 1:  # greedy: accuracy is pass@1, no G-Pass@k
        assert res.metrics["accuracy"] == res.metrics["pass@1"]
        return
    for k in res.info.spec.ks:
        eligible = [(c, m) for c, m in cn if m >= k]
        for tau in TAUS:
            want = sum((brute_g_pass(m, c, k, tau) for c, m in eligible), Fraction(0))
            got = res.metrics[f"G-Pass@{k}_{tau}"]
            assert got == pytest.approx(float(want * 100 / len(eligible)), abs=1e-9)
        if k > 1:
            mg = sum((brute_mg_pass(m, c, k) for c, m in eligible), Fraction(0))
            got = res.metrics[f"mG-Pass@{k}"]
            assert got == pytest.approx(float(mg * 100 / len(eligible)), abs=1e-9)


def report_rows(out: Path, capsys: pytest.CaptureFixture[str], k: int) -> list[dict]:
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json", "--k", str(k), "--resamples", "50"]) == 0
    return json.loads(capsys.readouterr().out)


def sidecar(results_path: Path) -> dict:
    side = results_path.parent.parent.parent / "rescore" / results_path.parent.name
    return json.loads((side / results_path.name).read_text())


def derived(src: Path, tmp: Path) -> Path:
    """A copy of a real fixture under *tmp* for a test to modify (labelled derived)."""
    dst = tmp / f"derived-from-{src.name}"
    shutil.copytree(src, dst)
    return dst
