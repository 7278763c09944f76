"""The metric registry: every registered metric's key round-trips, its per-question
function matches k-subset enumeration, and no module outside the registry compares metric
kinds by name or parses keys away from the file and CLI edges."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from gpassk_oc.core.metrics import metric_keys as metric_names
from gpassk_oc.core.metrics.registry import (
    KINDS,
    METRICS,
    MetricDef,
    MetricSpec,
    headline_metrics,
    parse_metric,
    parse_result_key,
    report_metrics,
)

PACKAGE = Path(__file__).resolve().parents[1] / "gpassk_oc"


def _on_k_draws(name: str, k: int, i: int, tau: Fraction | None) -> Fraction:
    """The metric's value on one draw of k samples with i correct, from its definition in
    the docs (not from the package)."""
    if name == "G":
        assert tau is not None
        return Fraction(i >= max(math.ceil(tau * k), 1))
    if name == "mG":  # (2/k) Σ_{j=⌈k/2⌉+1..k} 1[i ≥ j]
        return Fraction(2, k) * sum(1 for j in range(math.ceil(k / 2) + 1, k + 1) if i >= j)
    if name == "pass":
        return Fraction(i >= 1)
    if name == "gap":
        return Fraction(1 <= i < k)
    if name == "avg":
        return Fraction(i, k)
    if name == "agree":  # every draw gets the same verdict
        return Fraction(i in (0, k))
    raise KeyError(name)


#: the kinds :func:`_on_k_draws` defines (enumerated by :func:`brute`); vote kinds: test_majority
ORACLES = {"G", "mG", "pass", "gap", "avg", "agree"}
VOTE_KINDS = {"maj"}


def brute(name: str, n: int, c: int, k: int, tau: Fraction | None) -> Fraction:
    """Mean over every k-subset of n samples (the first c correct) of the metric."""
    values = [
        _on_k_draws(name, k, sum(1 for s in subset if s < c), tau)
        for subset in combinations(range(n), k)
    ]
    return sum(values, Fraction(0)) / len(values)


def specs_of(d: MetricDef, k: int) -> list[MetricSpec]:
    taus = [Fraction(0), Fraction(3, 5), Fraction(1, 2), Fraction(1)] if d.has_tau else [None]
    return [d.spec(k, t) for t in taus]


def test_every_registered_metric_has_an_oracle():
    """A new metric is one definition plus its test: this table must name it."""
    assert set(KINDS) == set(ORACLES) | VOTE_KINDS
    assert len(set(KINDS)) == len(KINDS) and len({m.prefix for m in METRICS}) == len(METRICS)


@pytest.mark.parametrize("d", METRICS, ids=lambda d: d.name)
def test_keys_round_trip(d):
    for k in (1, 4, 16):
        for spec in specs_of(d, k):
            assert parse_metric(spec.key) == spec
            assert parse_result_key(f"AMC/en/{spec.key}") == ("AMC/en", spec)
            assert MetricSpec(d.name, spec.k, spec.tau) == spec
    with pytest.raises(ValueError, match="one line|positive integer"):
        d.spec(0)


def test_built_in_spellings_are_the_documented_keys():
    tau = Fraction(3, 4)
    assert parse_metric("G-Pass@16_0.75").key == metric_names.g_pass_key(16, tau)
    assert [parse_metric(f"{p}@8").key for p in ("mG-Pass", "pass", "gap", "maj", "avg")] == [
        metric_names.mg_pass_key(8),
        metric_names.pass_key(8),
        metric_names.gap_key(8),
        metric_names.maj_key(8),
        metric_names.avg_key(8),
    ]
    assert headline_metrics(4) == ["G-Pass@4_0.5", "G-Pass@4_0.75", "G-Pass@4_1.0", "mG-Pass@4"]
    assert report_metrics(4)[:9] == [
        "G-Pass@4_0.0",
        "G-Pass@4_0.25",
        "G-Pass@4_0.5",
        "G-Pass@4_0.75",
        "G-Pass@4_1.0",
        "mG-Pass@4",
        "pass@4",
        "pass@1",
        "gap@4",
    ]
    for bad in ("G-Pass@4", "pass@4_0.5", "nope@4", "maj@x"):
        with pytest.raises(ValueError, match="unknown metric"):
            parse_metric(bad)


@pytest.mark.parametrize("d", [m for m in METRICS if not m.needs_votes], ids=lambda d: d.name)
def test_per_question_function_matches_enumeration(d):
    for n in (1, 3, 6, 7):
        for k in range(1, n + 1):
            for spec in specs_of(d, k):
                got = spec.per_c(n)
                if spec.undefined is not None:  # no such metric at k (mG-Pass@1): no values
                    assert got is None and k < d.min_k
                    continue
                assert got is not None
                k_est = 1 if d.sample_mean else k  # avg@n averages every sample: c/n
                want = [float(brute(d.name, n, c, k_est, spec.tau)) for c in range(n + 1)]
                assert got == pytest.approx(want, abs=1e-12), (spec.key, n)
        assert specs_of(d, n + 1)[0].per_c(n) is None or d.sample_mean


@pytest.mark.parametrize("d", [m for m in METRICS if m.expected], ids=lambda d: d.name)
def test_closed_form_at_known_rates(d):
    """The value at a known success rate p is E over c ~ Binomial(n, p) of the estimate."""
    p = np.array([0.0, 0.2, 0.55, 1.0])
    assert d.expected is not None
    for k in (1, 3, 5):
        n = 2 * k
        for spec in specs_of(d, k):
            if spec.undefined is not None:  # mG-Pass@1 (test_undefined_metrics.py)
                continue
            per_c = spec.per_c(n)
            assert per_c is not None
            pmf = np.array(
                [[math.comb(n, c) * q**c * (1 - q) ** (n - c) for c in range(n + 1)] for q in p]
            )
            got = d.expected(p, spec.estimator.k, spec.tau)
            assert got == pytest.approx(pmf @ per_c, abs=1e-12), spec.key


@pytest.mark.parametrize("d", [m for m in METRICS if m.rerun_variance], ids=lambda d: d.name)
def test_rerun_variance_is_unbiased_for_every_counts_metric(d):
    """The generic rerun machinery (kernel → unbiased V(c)) holds for every registered
    counts metric: E[V(c)] = Var f(c) under c ~ Binomial(n, p), for n ≥ 2k."""
    from gpassk_oc.core.uncertainty.rerun_variance import unbiased_variance_per_c

    for k in (1, 2, 3):
        for spec in specs_of(d, k):
            n = 2 * spec.estimator.k + 1
            f, v = spec.per_c(n), unbiased_variance_per_c(spec, n)
            if spec.undefined is not None:  # no metric, no variance
                assert f is None and v is None
                continue
            assert f is not None and v is not None
            for q in (0.2, 0.7):
                pmf = np.array([math.comb(n, c) * q**c * (1 - q) ** (n - c) for c in range(n + 1)])
                assert pmf @ v == pytest.approx(pmf @ f**2 - (pmf @ f) ** 2, abs=1e-12), spec.key


@pytest.mark.parametrize("d", METRICS, ids=lambda d: d.name)
def test_higher_is_better_points_to_a_perfect_model(d):
    """A model whose every sample is correct scores a metric's best value: the largest
    when higher is better, the smallest otherwise (gap@k: all k correct is no gap). The
    values come from the docs' definitions (:func:`_on_k_draws`), or the vote itself."""
    k = 4
    if d.name in VOTE_KINDS:  # k votes, i for the correct answer, the rest for one other
        values = [
            Fraction(d.per_profile((i, (k - i,) if i < k else (), 0), k)) for i in range(k + 1)
        ]
    else:
        tau = Fraction(1, 2) if d.has_tau else None
        values = [_on_k_draws(d.name, k, i, tau) for i in range(k + 1)]
    best = max(values) if d.higher_is_better else min(values)
    assert values[k] == best and len(set(values)) > 1, values


def test_vote_metrics_refuse_counts():
    for d in METRICS:
        if d.needs_votes:
            assert not d.rerun_variance and not d.correctable
            with pytest.raises(ValueError, match="votes"):
                d.spec(4).per_c(8)


# --------------------------------------------------------------------------- the grep
#: modules where a metric key may be parsed: the registry, the results file and its
#: summary, the CLI flags (--metrics), OpenCompass's own results file (rescore) and the
#: sidecar text rescore prints; the Python API functions that accept a user's key
#: (stats, known_rates, planning, corrected, the demo's truth) parse it on entry
PARSE_EDGES = {
    "core/metrics/registry.py",
    "core/runs/results_file.py",
    "core/runs/results_summary.py",
    "report/commands/compare_command.py",
    "report/commands/plan_command.py",
    "rescore/reported.py",
    "rescore/rescore_command.py",
    "core/uncertainty/metric_intervals.py",
    "core/uncertainty/known_rates.py",
    "core/uncertainty/sample_size.py",
    "core/uncertainty/corrected_estimates.py",
    "core/uncertainty/corrected_classes.py",
    "demo/simulation.py",
}


def _names() -> str:
    words = {m.name for m in METRICS} | {m.prefix for m in METRICS}
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


def kind_compares(text: str) -> list[str]:
    """Lines comparing something with a metric kind's name or key prefix as a string."""
    names = _names()
    patterns = [
        rf"""(==|!=|\bin\b)\s*\(?\s*["']({names})(@[^"']*)?["']""",
        rf"""["']({names})(@[^"']*)?["']\s*(==|!=)""",
        rf"""startswith\(\s*["']({names})@""",
        rf"""MetricSpec\(\s*["']({names})["']""",
    ]
    found = re.compile("|".join(f"(?:{p})" for p in patterns))
    return [line.strip() for line in text.splitlines() if found.search(line)]


def key_parses(text: str) -> list[str]:
    found = re.compile(r"\b(parse_metric|parse_result_key)\(|_KEY_RE\b")
    return [
        line.strip()
        for line in text.splitlines()
        if found.search(line) and not line.lstrip().startswith(("def ", "#", '"', "'"))
    ]


def _package_files() -> dict[str, str]:
    return {
        p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_the_greps_can_fail():
    assert kind_compares('if spec.kind == "maj":') and kind_compares("x in ('G', 'mG')")
    assert kind_compares('keys = [k for k in m if not k.startswith("maj@")]')
    assert kind_compares('MetricSpec("gap", 4)') and kind_compares('col == "maj@k"')
    assert not kind_compares('if kind == "rerun":') and not kind_compares("d.needs_votes")
    assert key_parses("spec = parse_metric(key)") and not key_parses("def parse_metric(x):")


def test_no_kind_compares_outside_the_registry():
    hits = {
        rel: lines
        for rel, text in _package_files().items()
        if rel != "core/metrics/registry.py" and (lines := kind_compares(text))
    }
    assert hits == {}


def test_no_key_parses_away_from_the_edges():
    hits = {
        rel: lines
        for rel, text in _package_files().items()
        if rel not in PARSE_EDGES and (lines := key_parses(text))
    }
    assert hits == {}


def test_the_metrics_page_lists_every_metric():
    text = (PACKAGE.parent / "docs" / "metrics.md").read_text(encoding="utf-8")
    for m in METRICS:
        form = f"{m.prefix}@{'N' if m.sample_mean else 'K'}" + ("_TAU" if m.has_tau else "")
        assert f"| `{form}` |" in text, form
