"""An audit side that finds no errors: the rate it cannot rule out, stated beside the
corrected values (markdown, html, JSON, CSV). The bound is the (1 + level)/2 point of the
law the rate draws come from — at x = 0 errors among m audited of N verdicts, the share is
BetaBinomial(N − m, ½, m + ½) / N — derived here from the beta-binomial pmf written out
with log-gammas, not with the scipy quantile the package uses."""

from __future__ import annotations

import csv
import io
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit, no_errors_found
from tests.report_support import report_json, run_cli, workdir  # noqa: F401
from tests.test_audit import _add_sources, _label, _sheet


def _quantile_count(total: int, m: int, q: float) -> int:
    """The smallest k with P(K ≤ k) ≥ q, K ~ BetaBinomial(total − m, ½, m + ½)."""
    n, a, b = total - m, 0.5, m + 0.5
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    cdf = 0.0
    for k in range(n + 1):
        log_choose = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        log_b = math.lgamma(k + a) + math.lgamma(n - k + b) - math.lgamma(n + a + b)
        cdf += math.exp(log_choose + log_b - log_beta)
        if cdf >= q:
            return k
    return n


def test_the_bound_is_the_draws_quantile_turned_into_the_rate():
    # 1000 "correct" verdicts, 50 audited, none wrong; 1200 "wrong", 50 audited, 5 right
    audit = SourceAudit("judge", 1000, 1200, 50, 0, 50, 5)
    (found,) = no_errors_found(audit, 0.95)
    assert (found.source, found.rate, found.audited, found.verdicts) == (
        "judge",
        "fp",
        50,
        "correct",
    )
    k = _quantile_count(1000, 50, 0.975)
    # fp = N1·e1 / (N1·e1 + N0·(1 − e0)) with e1 = k/N1, e0 = 5/50
    expected = Fraction(k) / (k + 1200 * Fraction(45, 50))
    assert found.bound == pytest.approx(float(expected), rel=1e-12)
    assert found.point == 0.975
    # the Jeffreys bound for 0 of 50 (an unlimited run) is about 4.9%: the share is near it
    assert 0.04 < k / 1000 < 0.05


def test_both_sides_and_the_sides_left_out():
    audit = SourceAudit("rule", 400, 300, 40, 0, 30, 0)
    fp, fn = no_errors_found(audit, 0.90)
    k1, k0 = _quantile_count(400, 40, 0.95), _quantile_count(300, 30, 0.95)
    assert fp.bound == pytest.approx(k1 / (k1 + 300), rel=1e-12)  # e0 at its point, 0
    assert fn.bound == pytest.approx(k0 / (k0 + 400), rel=1e-12)  # e1 at its point, 0
    assert no_errors_found(SourceAudit("rule", 40, 300, 40, 0, 30, 2), 0.95) == []  # all audited
    assert no_errors_found(SourceAudit("rule", 0, 300, 0, 0, 30, 0), 0.95) == []  # one verdict
    assert no_errors_found(SourceAudit("rule", 400, 300, 40, 1, 30, 3), 0.95) == []  # errors found


def _verdict_counts(root: Path) -> dict[tuple[str, bool], int]:
    """(source, verdict) → how many samples of every results file carry it."""
    out: dict[tuple[str, bool], int] = {}
    for path in root.rglob("results/*/*.json"):
        for row in json.loads(path.read_text()).get("details", []):
            for v, s in zip(row["correct"], row["source"]):
                if v is not None:
                    out[(s, bool(v))] = out.get((s, bool(v)), 0) + 1
    return out


def test_every_output_states_the_rate_an_error_free_audit_allows(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    _add_sources(root)
    sheet = tmp_path / "sheet.csv"
    rows = _sheet(capsys, root, 120, sheet)
    _label(sheet, rows)  # every label agrees with its verdict: no errors anywhere
    counts = _verdict_counts(root)
    audited = {(r["source"], r["verdict"]) for r in rows}
    data, _ = report_json(capsys, root, "--audit", sheet)
    found = data[0]["corrected"]["no_errors_found"]
    assert {(f["source"], f["rate"]) for f in found} == {
        (s, "fp" if v == "correct" else "fn") for s, v in audited
    }
    for f in found:
        verdict = f["rate"] == "fp"
        m = sum((r["source"], r["verdict"] == "correct") == (f["source"], verdict) for r in rows)
        total, other = counts[(f["source"], verdict)], counts[(f["source"], not verdict)]
        k = _quantile_count(total, m, 0.975)
        assert f["audited"] == m
        assert f["upper_bound"] == pytest.approx(k / (k + other), rel=1e-12)  # other e: 0
        assert f"{100 * f['upper_bound']:.2f}%" in f["note"]
    note = found[0]["note"]
    assert "no errors among" in note and "wider than needed if the true" in note
    code, out, err = run_cli(capsys, "report", root, "--audit", sheet, "--resamples", "200")
    assert code == 0, err
    assert note in out
    code, out, err = run_cli(capsys, "report", root, "--audit", sheet, "--format", "csv")
    assert code == 0, err
    lines = list(csv.DictReader(io.StringIO(out)))
    noted = [line["corrected_note"] for line in lines if line["subset"] == "overall"]
    assert any(noted) and all(note in text for text in noted if text)
    code, out, err = run_cli(capsys, "report", root, "--audit", sheet, "--format", "html")
    assert code == 0, err
    assert "wider than needed if the true" in out
