"""An audit side that finds no errors: the rate it cannot rule out, stated beside the
corrected values (markdown, html, JSON, CSV). The bound is the (1 + level)/2 point of the
rate under the law its draws come from — per side, the audited errors plus
BetaBinomial(N − m, x + ½, m − x + ½) among the rest — found here by enumerating every
pair of error counts with the pmf written out in log-gammas, not by the package's
bisection over scipy's beta-binomial."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.special import betaln, gammaln

from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit, no_errors_found
from tests.report_support import report_json, run_cli, workdir  # noqa: F401
from tests.test_audit import _add_sources, _label, _sheet


def _log_pmf(n: int, a: float, b: float) -> np.ndarray:
    """log BetaBinomial(n, a, b) at 0..n, written out with log-gammas."""
    k = np.arange(n + 1)
    log_choose = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    return log_choose + betaln(k + a, n - k + b) - betaln(a, b)


def _count_law(x: int, m: int, total: int) -> tuple[np.ndarray, np.ndarray]:
    """A stratum's error count: x plus BetaBinomial(total − m, x + ½, m − x + ½)."""
    if total <= m:
        return np.array([x]), np.array([1.0])
    return x + np.arange(total - m + 1), np.exp(_log_pmf(total - m, x + 0.5, m - x + 0.5))


def _brute_bound(own: tuple[int, int], other: tuple[int, int, int], q: float) -> float:
    """The q point of K / (K + N′ − C) over every pair (K, C), K the errors of the side
    that found none (m of N audited), C those of the other side (x of m′ of N′)."""
    k, pk = _count_law(0, *own)
    c, pc = _count_law(*other)
    rate = (k[:, None] / (k[:, None] + other[2] - c[None, :])).ravel()
    weight = (pk[:, None] * pc[None, :]).ravel()
    order = np.argsort(rate, kind="stable")
    cumulative = np.cumsum(weight[order])
    return float(rate[order][np.searchsorted(cumulative, q * cumulative[-1])])


def test_the_bound_is_the_draws_quantile_turned_into_the_rate():
    # 1000 "correct" verdicts, 50 audited, none wrong; the 50 "wrong" all audited, 5 right
    audit = SourceAudit("judge", 1000, 50, 50, 0, 50, 5)
    (found,) = no_errors_found(audit, 0.95)
    assert (found.source, found.rate, found.audited, found.verdicts) == (
        "judge",
        "fp",
        50,
        "correct",
    )
    _, pmf = _count_law(0, 50, 1000)
    k = int(np.searchsorted(np.cumsum(pmf), 0.975))  # the share's 97.5% point, in errors
    # fp = K / (K + N0 − C) with C = 5 known: exact
    assert found.bound == pytest.approx(float(Fraction(k, k + 45)), rel=1e-9)
    assert found.point == 0.975
    # the Jeffreys bound for 0 of 50 (an unlimited run) is about 4.9%: the share is near it
    assert 0.04 < k / 1000 < 0.05


def test_both_sides_uncertain_by_enumeration():
    audit = SourceAudit("rule", 400, 300, 40, 0, 30, 2)
    (fp,) = no_errors_found(audit, 0.90)
    assert fp.bound == pytest.approx(_brute_bound((40, 400), (2, 30, 300), 0.95), rel=1e-9)
    both = SourceAudit("rule", 250, 200, 25, 0, 20, 0)
    fp, fn = no_errors_found(both, 0.95)
    assert fp.bound == pytest.approx(_brute_bound((25, 250), (0, 20, 200), 0.975), rel=1e-9)
    assert fn.bound == pytest.approx(_brute_bound((20, 200), (0, 25, 250), 0.975), rel=1e-9)
    # the report's draws, drawn many times, put their 97.5% point there too
    draws = both.draws(100_000, np.random.default_rng(0))
    assert np.quantile(draws[:, 0], 0.975) == pytest.approx(fp.bound, rel=0.02)


def test_the_sides_left_out():
    assert no_errors_found(SourceAudit("rule", 40, 300, 40, 0, 30, 2), 0.95) == ()  # all audited
    assert no_errors_found(SourceAudit("rule", 0, 300, 0, 0, 30, 0), 0.95) == ()  # one verdict
    assert no_errors_found(SourceAudit("rule", 400, 300, 40, 1, 30, 3), 0.95) == ()  # errors found


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
        m_other = sum(
            (r["source"], r["verdict"] == "correct") == (f["source"], not verdict) for r in rows
        )
        expected = _brute_bound((m, total), (0, m_other, other), 0.975)
        assert f["audited"] == m
        assert f["upper_bound"] == pytest.approx(expected, rel=1e-9)
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
