"""The cold read's fast paths (per-sample work done in C) against plain loops written here.

A grid's first ``report`` reads ~3 million samples; counting verdicts, checking votes,
finding marked samples, profiling votes and summing the cross-check's means were each
rewritten to run in C or in plain integers. Each fast path is compared with the rule it
implements, spelled out sample by sample below (never with the code under test), on
random inputs that include the odd cases (unjudged samples, bad votes, non-bool verdicts).
"""

from __future__ import annotations

import pickle
import random
from fractions import Fraction

import pytest

from gpassk_oc.core.metrics.gpass_exact import g_pass_table
from gpassk_oc.core.metrics.majority_vote import judged_profile
from gpassk_oc.core.metrics.question_scorer import count_verdicts, metric_means
from gpassk_oc.core.metrics.registry import parse_metric
from gpassk_oc.core.runs.drill_fragment import make_fragment
from gpassk_oc.core.runs.results_file import QuestionResult, ResultsError
from gpassk_oc.core.runs.token_stats import token_stats
from gpassk_oc.core.runs.vote_fields import read_votes


def verdicts(rng: random.Random, size: int) -> list[bool | None]:
    return [rng.choice([True, False, False, None]) for _ in range(size)]


def questions(seed: int, count: int, most: int = 10):
    """*count* random ``(rng, size, verdicts)`` of 1..*most* samples, from *seed*."""
    rng = random.Random(seed)
    for _ in range(count):
        size = rng.randint(1, most)
        yield rng, size, verdicts(rng, size)


@pytest.mark.parametrize("seed", range(3))
def test_count_verdicts_is_the_loop(seed):
    for _, _, row in questions(seed, 300, most=12):
        c = sum(1 for v in row if v is True)
        unjudged = sum(1 for v in row if v is None)
        assert tuple(count_verdicts(row)) == (c, len(row) - unjudged, unjudged)
        assert tuple(count_verdicts(tuple(row))) == (c, len(row) - unjudged, unjudged)


def test_count_verdicts_counts_only_true_itself():
    # 1 and 1.0 equal True, but only True is a correct verdict
    assert tuple(count_verdicts([True, 1, 1.0, None, False])) == (1, 4, 1)
    assert tuple(count_verdicts([])) == (0, 0, 0)


@pytest.mark.parametrize("seed", range(3))
def test_marked_undecided_is_the_loop(seed):
    for rng, size, correct in questions(seed, 300):
        sources = [rng.choice(["rule", "rule_undecided", "judge"]) for _ in range(size)]
        q = QuestionResult(0, "q", "", "", "", None, None, [None] * size, correct, sources)
        want = sum(1 for s, v in zip(sources, correct) if s == "rule_undecided" and v is False)
        assert q.undecided(exact=True) == want


def vote_rule(vote, mine, correct) -> str | None:
    """The documented rule, sample by sample: the first offence's message, else None."""
    for v, verdict in zip(vote, correct):
        if verdict is None and v is not None:
            return "an unjudged sample (correct null) has a vote"
        if (verdict is True) != (v is not None and v == mine):
            return f"the class vote_correct={mine!r} must hold exactly"
    return None


@pytest.mark.parametrize("seed", range(3))
def test_vote_checks_are_the_rule(seed):
    for rng, size, correct in questions(seed, 600, most=8):
        mine = rng.choice([None, 0, 1])
        vote = [None if v is None else (mine if v else rng.choice([1, 2])) for v in correct]
        if rng.random() < 0.5:  # break it somewhere, or not
            vote[rng.randrange(size)] = rng.choice([None, 0, 1, 2])
        want = vote_rule(vote, mine, correct)
        entry = {"vote": vote, "vote_correct": mine}
        if want is None:
            assert read_votes(entry, correct, "f", ResultsError) == (vote, mine)
        else:
            with pytest.raises(ResultsError, match=want.replace("(", r"\(").replace(")", r"\)")):
                read_votes(entry, correct, "f", ResultsError)


@pytest.mark.parametrize("seed", range(3))
def test_judged_profile_is_the_count(seed):
    for rng, size, correct in questions(seed, 300):
        vote = [None if rng.random() < 0.2 else rng.randrange(4) for _ in range(size)]
        mine = rng.choice([None, 0, 1])
        judged = [v for v, verdict in zip(vote, correct) if verdict is not None]
        if not judged:
            assert judged_profile(vote, mine, correct) is None
            continue
        sizes: dict[int, int] = {}
        for v in judged:
            if v is not None:
                sizes[v] = sizes.get(v, 0) + 1
        a = sizes.pop(mine, 0) if mine is not None else 0
        want = (a, tuple(sorted(sizes.values(), reverse=True)), judged.count(None))
        assert judged_profile(vote, mine, correct) == want


@pytest.mark.parametrize("seed", range(3))
def test_metric_means_are_exact_means_of_the_doubles(seed):
    """Every mean is the exact mean of the per-question doubles, rounded once."""
    rng = random.Random(seed)
    ks, taus = [2, 4, 8], [0.0, 0.5, Fraction(3, 4), 1.0]
    ns = [rng.choice([0, 3, 4, 8, 9]) for _ in range(40)]
    cs = [rng.randint(0, n) for n in ns]
    got = metric_means(9, ns, cs, ks, taus, "documented")
    sums: dict[str, Fraction] = {}
    counts: dict[str, int] = {}
    for n, c in zip(ns, cs):
        if not n:
            continue
        eligible = [k for k in ks if k <= n]
        table = g_pass_table(n, [c], ks=eligible, thresholds=taus, mg_mode="documented")
        for key, column in table.per_question.items():
            sums[key] = sums.get(key, Fraction(0)) + Fraction(float(column[0]))
            counts[key] = counts.get(key, 0) + 1
    for key, total in sums.items():
        assert got[key] == float(total * 100 / counts[key]), key
    assert set(sums) <= set(got)
    judged = [(n, c) for n, c in zip(ns, cs) if n]
    pass1 = sum(Fraction(c, n) for n, c in judged) * 100 / len(judged)
    assert got["pass@1"] == got["avg@9"] == float(pass1)
    # the same means from the distinct (n, c) pairs with their multiplicities
    pairs: dict[tuple[int, int], int] = {}
    for pair in zip(ns, cs):
        pairs[pair] = pairs.get(pair, 0) + 1
    weighted = metric_means(
        9,
        [p[0] for p in pairs],
        [p[1] for p in pairs],
        ks,
        taus,
        "documented",
        list(pairs.values()),
    )
    assert weighted == got
    # τ given as 0.5 or as Fraction(1, 2): the same keys
    assert metric_means(9, ns, cs, ks, [Fraction(1, 2)], "documented") == metric_means(
        9, ns, cs, ks, [0.5], "documented"
    )


def test_token_stats_without_counts_is_none():
    q = QuestionResult(0, "q", "", "", "", None, None, [None] * 3, [True, False, None])
    assert token_stats([q, q]) is None
    counted = QuestionResult(
        0, "q", "", "", "", None, None, [None] * 3, [True, False, None], output_tokens=[5, 7, 9]
    )
    assert token_stats([q, counted])["counted"] == 3


def test_drill_codes_number_names_by_first_appearance():
    rows = [["boxed", "boxed", "none"], ["last", "boxed", "none"], ["none", "last", "new"]]
    questions = [
        QuestionResult(i, f"q{i}", "", "", "", None, None, ["x"] * 3, [True] * 3, found=r)
        for i, r in enumerate(rows)
    ]
    fragment = make_fragment(type("R", (), {"questions": questions})())
    assert fragment.found == ["boxed", "none", "last", "new"]
    codes = [pickle.loads(pickle.dumps(q.samples)) for q in fragment.questions]
    assert codes[2].startswith(b'[["x","x","x"],[1,2,3]')


def test_spec_hash_is_the_fields_hash_and_stays_home():
    spec = parse_metric("G-Pass@16_0.5")
    assert hash(spec) == hash((spec.definition, spec.k, spec.tau))
    copy = pickle.loads(pickle.dumps(spec))
    assert "_hash" not in copy.__dict__  # made again where it is used
    assert hash(copy) == hash((copy.definition, copy.k, copy.tau))
    assert copy.key == "G-Pass@16_0.5"


def test_gc_pause_restores_the_collector():
    import gc

    from gpassk_oc.core.runs.gc_pause import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still holds it
    assert gc.isenabled()
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # off before: stays off
    finally:
        gc.enable()


def test_a_reading_worker_imports_no_checking_and_no_format():
    """A ``report`` worker unpickles ``collect.load_run``: the answer checkers and the
    output formats stay unloaded, and the packages still give every public name."""
    import subprocess
    import sys

    code = (
        "import sys, gpassk_oc.report.data.collect\n"
        "heavy = [m for m in sys.modules if m.startswith(('gpassk_oc.core.answers.rules',"
        " 'gpassk_oc.core.answers.checking', 'gpassk_oc.report.formats', 'mpmath'))]\n"
        "assert not heavy, heavy\n"
        "import gpassk_oc.core.answers as answers, gpassk_oc.report as report\n"
        "assert set(answers.__all__) <= set(dir(answers)) and set(report.__all__) <= set(dir(report))\n"
        "assert all(callable(getattr(answers, n)) or n == 'DEFAULT_THINK_TAGS' for n in answers.__all__)\n"
        "assert all(getattr(report, n) is not None for n in report.__all__)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
