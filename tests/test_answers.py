"""Answer extraction, canonical forms and rule equivalence (expected values written by hand)."""

import threading
import time

import pytest

from gpassk_oc.core.answers.canonical import as_rational, canonical_answer, is_plain_math
from gpassk_oc.core.answers.checking import answers_equivalent, check_answer, check_answers
from gpassk_oc.core.answers.extraction import boxed_answers, extract_final_answer
from gpassk_oc.core.answers.mv_pool import MathVerifyPool


@pytest.fixture(scope="module")
def pool():
    with MathVerifyPool(workers=2, timeout=3.0) as p:
        yield p


@pytest.mark.parametrize(
    "text, expected",
    [
        (r"so the answer is \boxed{42}.", "42"),
        (r"\boxed{\frac{1}{2}}", r"\frac{1}{2}"),
        (r"\boxed{\left\{1, \{2\}\right\}}", r"\left\{1, \{2\}\right\}"),  # nested + escaped braces
        (r"\boxed{{7}}", "7"),  # doubled braces
        (r"\fbox{x+1}", "x+1"),
        (r"\boxed 5", "5"),
        ("first \\boxed{1}\nlater \\boxed{2}", "2"),  # last box wins
        (
            "try \\boxed{9}\nThus $x=\\boxed{1}$ and $y=\\boxed{-2}$",
            "1, -2",
        ),  # same last line joined
        (r"\boxed{3} and \fbox{4}", "3, 4"),
        ("The final answer is $\\frac{3}{4}$.", r"\frac{3}{4}"),
        ("Final Answer: 12", "12"),
        ("blah\nThe answer is 7.\nmore text", "7"),
        ("所以答案是 $\\sqrt{3}$。", r"\sqrt{3}"),
        ("最终答案为：北京", "北京"),
        (
            "I computed 1, 2 and finally 42",
            "42",
        ),  # last resort (found='fallback', see test_extraction)
        (r"\boxed{}", None),
        ("", None),
        (None, None),
        (r"\boxed{\text{(A)}}", r"\text{(A)}"),
    ],
)
def test_extract_final_answer(text, expected):
    assert extract_final_answer(text) == expected


def test_boxed_answers_in_order_and_unclosed_box_ignored():
    assert boxed_answers(r"\boxed{a} \fbox{b{c}} \boxed{d") == ["a", "b{c}"]
    # the last box never closed: cut inside its answer, so no answer (the earlier 5 may
    # have been about to be corrected)
    assert extract_final_answer("\\boxed{5}\nthen \\boxed{unclosed") is None
    assert boxed_answers(r"\boxedx{1}") == []  # a different macro


def test_extraction_of_long_text_has_no_catastrophic_backtracking():
    # ~10 ms per call when linear; a backtracking regex would take minutes. The bound only
    # catches that failure mode (speed itself is bench/bench_judge.py's business).
    text = ("lorem ipsum " * 2000 + "\n") * 10 + r"\boxed{\frac{1}{2}}"
    t0 = time.perf_counter()
    for _ in range(20):
        assert extract_final_answer(text) == r"\frac{1}{2}"
    assert time.perf_counter() - t0 < 20


@pytest.mark.parametrize(
    "a, b",
    [
        (r"\dfrac{1}{2}", r"\frac{1}{2}"),
        (r"\frac12", r"\frac{1}{2}"),
        ("$5$.", "5"),
        (r"\left( 1, 2 \right)", "(1,2)"),
        (r"x \, = \; 3", "x=3"),
        (r"\text{ } 4", "4"),
        # LaTeX whose escapes a JSON string ate: \f is a form feed, \b a backspace, \t a tab
        ("\x0crac{1}{2}", r"\frac{1}{2}"),
        ("\x08inom{5}{2}", r"\binom{5}{2}"),
        ("3\times 2", r"3\times2"),
        ("x\text{ cm}", r"x\text{cm}"),
        (r"\\frac{\\pi}{2}", r"\frac{\pi}{2}"),  # escaped twice
        ("2 × 10^(-10)", r"2\times 10^{-10}"),
        ("3<sup>x</sup>", "3^{x}"),
        ("x ≥ 1", r"x\geq 1"),
        ("a＞0", "a>0"),
        (r"x \geqslant 2", r"x\ge2"),
        (r"\text{sin}(x)", r"\sin(x)"),
        (r"\frac{\mathrm{N}_{1}}{\mathrm{~N}}", r"\frac{N_1}{N}"),
        (r"(- \frac {1}{2}, \sqrt {2}.]", r"(-\frac{1}{2},\sqrt{2}]"),  # a stray period
        (r"\[\boxed{\frac{1}{2}}\]", r"\frac{1}{2}"),
        (r"\(x+1\)", "x+1"),
    ],
)
def test_canonical_equal(a, b):
    assert canonical_answer(a) == canonical_answer(b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("12", "1 2x"),
        (r"\frac{1}{2}", r"\frac{2}{1}"),
        ("(1,2)", "[1,2]"),
        ("(1.)", "(1)"),  # a decimal point, not a stray period
        (r"2.6\mathrm{m}", "2.6m"),  # a unit, not the variable m
        ("1\tand 2", r"1\tand2"),  # a tab before a word is whitespace
        (r"x=1\\\text{cm}", r"x=1\\text{cm}"),  # a row break, then \text
        (r"\begin{pmatrix}a\\b\end{pmatrix}", r"\begin{pmatrix}a\b\end{pmatrix}"),
        (r"\boxed{1}+\boxed{2}", "1}+\\boxed{2"),
    ],
)
def test_canonical_different(a, b):
    assert canonical_answer(a) != canonical_answer(b)


def test_as_rational():
    from fractions import Fraction

    assert as_rational("0.5") == Fraction(1, 2)
    assert as_rational(r"-\frac{3}{6}") == Fraction(-1, 2)
    assert as_rational("1/3") == Fraction(1, 3)
    assert as_rational(r"\frac{1}{0}") is None
    assert as_rational("x") is None and as_rational("1,2") is None


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        (r"\frac{1}{2}", "0.5", "undecided"),  # the question may prescribe a notation
        (r"\dfrac12", "1/2", "equal"),
        ("0.50", r"\frac{1}{2}", "undecided"),
        ("0.50", "0.5", "equal"),
        ("2/4", r"\frac{1}{2}", "undecided"),  # not in lowest terms
        ("0.3", r"\frac{1}{3}", "wrong"),  # exact rationals differ: definitive
        (r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}", "equal"),
        (r"2\sqrt{2}", r"\sqrt{8}", "equal"),
        (r"\sqrt{3}", r"\sqrt{2}", "wrong"),  # closed numeric values differ
        ("(1,2]", r"(1, 2]", "equal"),
        (r"(1,2]", "[1,2]", "wrong"),  # intervals differ
        (r"\{1,2,3\}", r"\{3,2,1\}", "equal"),
        (r"\{1,2\}", r"\{1,3\}", "wrong"),  # sets differ
        ("x+1", "1+x", "equal"),
        ("x+2", "x+1", "undecided"),  # symbolic: not confidently wrong
        (r"x^{2} + 5x", "5x+x^2", "equal"),  # identity at generic points
        (r"\frac{x^2-1}{x-1}", "x+1", "equal"),
        (r"\sin^2 x + \cos^2 x", "1", "equal"),  # math-verify (worker)
        (r"\binom{10}{3}", "120", "equal"),
        (r"\binom{10}{3}", "121", "wrong"),  # math-verify (worker)
        ("2x", "2", "undecided"),
        ("5 apples", "6", "wrong"),  # a unit, and no reading of 5 is 6
        ("5 apples", "5", "equal"),
        ("5x", "5", "undecided"),  # one letter is a variable, not a unit
        (r"\text{Monday}", r"\text{Tuesday}", "undecided"),
        ("北京", "北京", "equal"),
        ("北京", "上海", "undecided"),  # Chinese text: judge decides
        ("B", "A", "wrong"),
        ("AC", "A,C", "equal"),  # multiple-choice letters
        (r"\text{obj0a}", "object 0", "undecided"),  # math-verify alone says equal (0 == 0)
        ("obj0a", "object0", "undecided"),
        (r"\text{271}", "271", "equal"),
        ("Tuesday", r"\text{tuesday}", "equal"),
        (None, "3", "wrong"),
        ("  ", "3", "wrong"),
    ],
)
def test_check_answer(pool, pred, gold, expected):
    assert check_answer(pred, gold, pool) == expected


def test_check_answers_dedups(pool):
    calls = []
    orig = pool.check
    pool.check = lambda p, g, timeout=None: calls.append((p, g)) or orig(p, g, timeout)
    try:
        out = check_answers(
            [
                (r"\cot x", r"\cot(x)"),
                (r"\cot  x", r"\cot(x)"),
                ("0.50", "0.5"),
                (r"\cot x", r"\cot(x)"),
            ],
            pool,
        )
    finally:
        del pool.check
    assert out == ["equal", "equal", "equal", "equal"]
    assert calls == [(r"\cotx", r"\cot(x)")]  # one math-verify call for three identical pairs


def test_is_plain_math():
    assert is_plain_math(r"\frac{\sqrt{2}}{2}") and is_plain_math(r"(1,2]\cup[3,\infty)")
    assert not is_plain_math("5apples") and not is_plain_math("x+1") and not is_plain_math("")
    assert is_plain_math(r"[1,2)\cup(3,4]") and is_plain_math(r"\binom{5}{2}+3!")
    assert not is_plain_math(r"\leqx")


def test_pathological_expression_times_out_from_worker_thread():
    """math-verify's SIGALRM timeout cannot work here; the worker process is killed instead."""
    pool = MathVerifyPool(workers=1, timeout=1.5)
    result = {}

    def work():
        t0 = time.monotonic()
        result["outcome"] = pool.check(r"9^{9^{9^{9}}}", "1")
        result["elapsed"] = time.monotonic() - t0
        result["after"] = pool.check("x^2", "x*x")  # a fresh worker replaces it

    try:
        pool.check("1", "1")  # warm up: worker start-up is not part of the deadline
        th = threading.Thread(target=work)
        th.start()
        th.join(30)
        assert not th.is_alive()
        assert result["outcome"] == "undecided"
        assert result["elapsed"] < 5
        assert result["after"] == "equal"
        assert pool.timeouts == 1
    finally:
        pool.close()


def test_answers_equivalent_public_api_from_threads():
    out = [None] * 4
    cases = [
        (r"\frac{1}{2}", "1/2", True),
        ("x^2", "x*x", True),
        ("2", "3", False),
        (None, "1", False),
    ]

    def run(i):
        out[i] = answers_equivalent(cases[i][0], cases[i][1])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert out == [c[2] for c in cases]


@pytest.mark.parametrize(
    "latex, value",
    [
        (r"2\sqrt{3}", 2 * 3**0.5),
        (r"\frac{\sqrt{2}}{2}", 2**0.5 / 2),
        (r"\frac{\pi}{4}", 0.7853981633974483),
        (r"\sqrt[3]{8}", 2.0),
        ("2^{-1}", 0.5),
        ("(1+2)(3)", 9.0),
        (r"-\frac{3}{4}", -0.75),
        ("2^10", None),  # ambiguous in LaTeX (2¹0): not decided by the fast path
        (r"\sqrt{-1}", None),
        (r"\frac{1}{0}", None),
        ("x", None),
        ("1.5.2", None),
        (r"9^{9^{9^{9}}}", None),  # refused, not computed
        (r"\ln 2 + \ln 3", 1.791759469228055),
        (r"\log_2 8", 3.0),
        (r"\log_{3}{27}", 3.0),
        (r"e^{2}", 7.38905609893065),
        (r"\sin\frac{\pi}{6}", 0.5),
        (r"\sin^2(1)+\cos^2(1)", 1.0),
        (r"\log 8", None),  # natural or decimal? refused
        (r"\ln 2x", None),  # ln(2x) or ln(2)·x? refused
        (r"\ln(-1)", None),
    ],
)
def test_numeric_value(latex, value):
    from gpassk_oc.core.answers.numeric import numeric_value

    got = numeric_value(canonical_answer(latex))
    assert got == pytest.approx(value) if value is not None else got is None


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        (r"\frac{1}{\sqrt2}", r"\frac{\sqrt{2}}{2}", "equal"),
        ("0.7071", r"\frac{\sqrt2}{2}", "undecided"),  # rounded: the problem may want it exact
        ("0.7072", r"\frac{\sqrt2}{2}", "undecided"),  # within one unit of the last digit
        ("0.7075", r"\frac{\sqrt2}{2}", "wrong"),
        (r"(0,\frac{1}{2})", "(0,0.5)", "undecided"),  # a decimal for a fraction
        (r"(0,\frac{1}{2})", "(0,1/2)", "equal"),
        (r"(-\infty, 2)", r"(-\infty,2]", "wrong"),
        (r"\{1,2,3\}", r"\{3,2,1\}", "equal"),
        (r"\{1,1,2\}", r"\{1,2\}", None),  # repeated element: leave it to math-verify
        ("x+1", "1+x", "equal"),
        ("x+2", "x+1", "undecided"),
        (r"\sin^2 x+\cos^2 x", "1", "equal"),
        (r"\ln 7", r"\ln 6", "wrong"),
        ("3+4i", "4i+3", "equal"),
        ("3-4i", "3+4i", "wrong"),
        (r"\frac{1+i}{2}", "0.5+0.5i", "undecided"),
        (r"\frac{1+i}{2}", "1/2+i/2", "equal"),
        (
            r"\begin{pmatrix}1&2\\3&4\end{pmatrix}",
            r"\begin{bmatrix}1 & 2\\3 & 4\end{bmatrix}",
            "equal",
        ),
        (r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix}1&2\\3&5\end{pmatrix}", "wrong"),
        (r"\begin{vmatrix}1&2\\3&4\end{vmatrix}", "-2", None),  # a determinant: not read
        (r"\binom{10}{3}", "120", "equal"),
        (r"\dbinom{10}{3}", "121", "wrong"),
        ("5!", "120", "equal"),
        ("5!!", "15", None),  # double factorial: not read
        (r"\frac{n!}{(n-2)!}", "n^2-n", "equal"),
        (r"\binom{n}{2}", r"\frac{n(n-1)}{2}", "equal"),
        (r"\tan^{-1} x", r"\arctan x", "equal"),
        (r"\arccos(1-2a)", r"2\arcsin\sqrt{a}", "equal"),
        (r"\frac{N_1}{N}", r"N_1/N", "equal"),
        (r"x_1+x_2", r"x_2+x_1", "equal"),
        ("x_1", "x_2", "undecided"),
        (r"\pi a^2", r"a^2\pi", "equal"),
        (r"\sqrt{1+8n}", r"\sqrt{8n+1}", "equal"),  # needs n > -1/8
        (r"\phi+1", "2", "undecided"),
        (r"\lambda", r"\frac{3}{2}", "undecided"),
        ("-1<x\\le 2", "(-1,2]", "equal"),
        (r"x \geq 3", r"[3,\infty)", "equal"),
        ("x>3", r"[3,\infty)", "wrong"),
        ("y=3x+2", "3x-y+2=0", "equal"),
        ("y=3x+2", "y=3x-2", "undecided"),
        ("x=5", "5", "equal"),
        ("5", "a_1=5", "equal"),
        ("x=5", "6", "wrong"),
        ("x=5", "y=5", "undecided"),
        (r"\text{Monday}", "monday", "equal"),
        (r"\text{Monday}", r"\text{Friday}", "undecided"),
        ("北京", r"\text{北京}", "equal"),
        ("北京", "上海", "undecided"),
        (r"\sin x", r"\sin(x)", "equal"),
        (r"\sinh x", r"\sin x", None),  # \sinhx is no \sin h·x
        ("y=2x", "2x=y", "equal"),
        ("2^10", "1024", None),
    ],
)
def test_fast_check_without_sympy(pred, gold, expected):
    from gpassk_oc.core.answers.rules import fast_check

    assert fast_check(canonical_answer(pred), canonical_answer(gold)) == expected


def test_worker_start_failure_is_a_clear_error(monkeypatch, tmp_path):
    import sys

    fake = tmp_path / "python"  # an interpreter without math-verify
    fake.write_text(
        "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'math_verify'\" >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake))
    pool = MathVerifyPool(workers=1)
    with pytest.raises(RuntimeError, match="worker failed to start.*No module named 'math_verify'"):
        pool.check("x+1", "1+x")
    pool.close()


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("\\boxed{}fbox 12x$.\n答案是:final answer")), max_size=60)
)
def test_extraction_and_canonical_never_raise(text):
    answer = extract_final_answer(text)
    assert answer is None or (isinstance(answer, str) and answer)
    canon = canonical_answer(answer)
    assert canonical_answer(canon) == canon  # idempotent


def test_stuck_worker_exits_when_its_parent_is_killed(tmp_path):
    """A worker busy in sympy must not outlive an eval process killed with SIGKILL."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import os, sys\n"
        "from gpassk_oc.core.answers.mv_pool import MathVerifyPool\n"
        "pool = MathVerifyPool(workers=1, timeout=600)\n"
        "pool.check('1', '1')\n"
        "print([p.pid for p in pool._procs][0], flush=True)\n"
        "pool.check(r'9^{9^{9^{9}}}', '1')\n"
    )
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root))
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, env=env, text=True
    )
    worker_pid = int(parent.stdout.readline())
    time.sleep(0.5)  # the worker is now stuck in sympy
    parent.send_signal(signal.SIGKILL)
    parent.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(worker_pid, 0)
        except ProcessLookupError:
            break
        # a zombie (exited, not yet reaped by init) counts as gone
        try:
            if open(f"/proc/{worker_pid}/stat").read().split()[2] == "Z":
                break
        except OSError:
            break
        time.sleep(0.2)
    else:
        os.kill(worker_pid, signal.SIGKILL)
        pytest.fail("the math-verify worker outlived its parent")


@pytest.mark.parametrize(
    "pred, gold",
    [
        # values a double cannot tell apart (relative difference < 1e-9): never "equal"
        ("2^{40}+1", "2^{40}"),
        (r"\sqrt{10^{20}+1}", "10^{10}"),
        (r"\pi+10^{-12}", r"\pi"),
        (r"(10^{6}+1)\sqrt{2}", r"10^{6}\sqrt{2}"),
        ("x^{2}+10^{-15}", "x^2"),
    ],
)
def test_fast_check_never_calls_nearly_equal_values_equal(pred, gold):
    from gpassk_oc.core.answers.rules import fast_check

    assert fast_check(canonical_answer(pred), canonical_answer(gold)) != "equal"
