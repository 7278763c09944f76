"""Benchmark of the grading cascade on a synthetic but realistic prediction set.

* Judge economy: ``--questions`` (default 1,000) × 48 samples graded with ``check='cascade'``
  against a local fake judge (tests/judge_server.py on 127.0.0.1, started here); reports
  judge calls per generated sample and checks every label against the generator's truth.
* Rule-scoring speed: ``--rule-questions`` (default 10,000, i.e. 480k predictions) graded
  with ``check='rules'`` in chunks of 1,000 questions (like per-dataset evaluator calls),
  compared with OpenCompass's ``math_postprocess_v2`` + ``MATHEvaluator.is_equiv`` timed per
  sample on a random subsample of the same predictions and scaled to all of them.

Answer diversity mimics real models: per question an accuracy drawn from Beta(0.7, 0.7),
answer kinds: integers, fractions, radicals, logs, complex numbers, intervals, sets,
matrices, inequalities, line equations, binomials, polynomials, words (EN/CN) and choice letters; correct samples spread over several LaTeX forms of the gold value (``\\frac{1}{2}``,
``0.5``, ``\\dfrac12``, ``1/2`` …) with one dominant form, wrong samples concentrated on 1–4
distractors (Zipf weights) plus 4 % one-off answers, 3 % truncated responses without a final
answer, and 10 % of responses with an intermediate box on an earlier line. Responses have
10–30 lines of mixed prose/LaTeX (≈1–3 kB; real reasoning traces are usually longer).

Prints ``RESULT judge_calls_per_sample=<x> rule_scoring_speedup=<y>`` and the figures behind it.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gpassk_oc.core.answers.extraction import extract_answer  # noqa: E402
from gpassk_oc.core.judging.grading import GradingPolicy, grade  # noqa: E402
from gpassk_oc.core.judging.judge import JudgeConfig  # noqa: E402

FILLER = [
    r"Let $f(x) = x^2 - 3x + 2$, so $f(1) = 0$ and $f(2) = 0$.",
    "We first simplify the expression by collecting like terms.",
    r"By the AM-GM inequality, $\frac{a+b}{2} \ge \sqrt{ab}$ with equality iff $a=b$.",
    "Substituting back into the original equation gives a consistent result.",
    r"Hence $\triangle ABC$ is isosceles with $AB = AC$.",
    r"Consider the sum $\sum_{k=1}^{n} k = \frac{n(n+1)}{2}$.",
    "Now we check the boundary cases separately to make sure nothing is missed.",
    r"Squaring both sides, $(\sqrt{x+1})^2 = x + 1$.",
    "Wait, let me double-check this step: the sign is indeed positive.",
    r"The discriminant is $\Delta = b^2 - 4ac = 9 - 8 = 1 > 0$.",
    "因此我们需要分类讨论。",
    r"Taking logarithms, $\log_2 8 = 3$.",
]
WORDS = [
    "Monday",
    "Tuesday",
    "red",
    "blue",
    "north",
    "south",
    "circle",
    "square",
    "even",
    "odd",
    "Alice",
    "Bob",
    "prime",
    "composite",
    "left",
    "right",
]
CN_WORDS = ["北京", "上海", "南京", "正方形", "圆", "奇数", "偶数", "甲", "乙", "丙"]
KINDS = [
    ("int", 24),
    ("line", 1),
    ("comb", 1),
    ("func", 3),
    ("complex", 3),
    ("matrix", 2),
    ("ineq", 1),
    ("frac", 15),
    ("sqrt", 10),
    ("interval", 7),
    ("set", 5),
    ("expr", 10),
    ("text", 10),
    ("choice", 8),
]


def _frac_forms(f: Fraction) -> list[str]:
    a, b = f.numerator, f.denominator
    sign = "-" if a < 0 else ""
    a = abs(a)
    forms = [rf"{sign}\frac{{{a}}}{{{b}}}", rf"{sign}\dfrac{{{a}}}{{{b}}}", f"{sign}{a}/{b}"]
    if a < 10 and b < 10:
        forms.append(rf"{sign}\dfrac{a}{b}")
    d = b
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:
        forms.append(f"{float(f):g}")
    return forms


def _value(kind: str, rng: random.Random) -> tuple[str, list[str], callable]:
    """(gold, correct forms with the dominant one first, generator of wrong answers)."""
    if kind == "int":
        v = rng.randint(-20, 2000)
        return (
            str(v),
            [str(v), f"{v}.0", rf"\text{{{v}}}", f"x = {v}"],
            lambda: str(v + rng.choice([-2, -1, 1, 2, 10, v])),
        )
    if kind == "frac":
        f = Fraction(rng.randint(1, 30), rng.randint(2, 16))
        if f.denominator == 1:
            f += Fraction(1, 2)
        forms = _frac_forms(f)
        return (
            forms[0],
            forms,
            lambda: _frac_forms(f + Fraction(rng.randint(1, 5), rng.randint(2, 9)))[0],
        )
    if kind == "sqrt":
        a, b = rng.randint(2, 6), rng.choice([2, 3, 5, 6, 7])
        forms = [
            rf"{a}\sqrt{{{b}}}",
            rf"\sqrt{{{a * a * b}}}",
            rf"{a} \sqrt {b}",
            rf"\sqrt{{{b}}}\cdot {a}",
        ]
        return forms[0], forms, lambda: rf"{rng.randint(2, 9)}\sqrt{{{rng.choice([2, 3, 5])}}}"
    if kind == "interval":
        lo, hi = rng.randint(-9, 3), rng.randint(4, 12)
        forms = [f"({lo}, {hi}]", rf"\left({lo},{hi}\right]", f"({lo},{hi}]"]
        return (
            forms[0],
            forms,
            lambda: rng.choice([f"[{lo}, {hi}]", f"({lo}, {hi})", f"({lo}, {hi + 1}]"]),
        )
    if kind == "set":
        vals = rng.sample(range(-5, 10), 3)
        fmt = lambda xs: r"\{" + ", ".join(map(str, xs)) + r"\}"  # noqa: E731
        forms = [fmt(sorted(vals)), fmt(vals[::-1]), fmt(sorted(vals)).replace(" ", "")]
        return forms[0], forms, lambda: fmt(sorted(vals[:2] + [rng.randint(10, 20)]))
    if kind == "func":  # logs / exponentials: only math-verify (sympy) can decide these
        a, b = rng.randint(2, 5), rng.randint(2, 5)
        forms = [rf"\ln {a * b}", rf"\ln {a} + \ln {b}", rf"\ln({a * b})"]
        return forms[0], forms, lambda: rf"\ln {a * b + rng.randint(1, 4)}"
    if kind == "complex":  # i is never a variable to the fast path: math-verify decides
        a, b = rng.randint(1, 9), rng.randint(2, 9)
        forms = [f"{a}+{b}i", f"{b}i+{a}", f"{a} + {b} i"]
        return forms[0], forms, lambda: rng.choice([f"{a}-{b}i", f"{a}+{b + 1}i", f"{a + 1}+{b}i"])
    if kind == "comb":  # binomials / factorials: the fast path does not read them, math-verify does
        n, k = rng.randint(6, 12), rng.randint(2, 4)
        value = math.comb(n, k)
        forms = [str(value), rf"\binom{{{n}}}{{{k}}}", rf"\frac{{{n}!}}{{{k}!{n - k}!}}"]
        return forms[0], forms, lambda: str(value + rng.choice([-n, n, k, value]))
    if kind == "line":  # equations of lines: only math-verify (sympy) decides these
        a, b = rng.randint(2, 9), rng.randint(1, 9)
        forms = [f"y={a}x+{b}", f"y={b}+{a}x", f"{a}x-y+{b}=0"]
        return (
            forms[0],
            forms,
            lambda: rng.choice([f"y={a}x-{b}", f"y={a + 1}x+{b}", f"y=-{a}x+{b}"]),
        )
    if kind == "ineq":  # inequalities vs intervals: only math-verify (sympy) can decide these
        lo, hi = rng.randint(-9, 0), rng.randint(1, 9)
        forms = [f"({lo}, {hi}]", rf"{lo} < x \le {hi}", rf"{lo}<x\leq {hi}"]
        return (
            forms[0],
            forms,
            lambda: rng.choice([rf"{lo} \le x < {hi}", rf"x > {lo}", rf"{lo} < x < {hi + 1}"]),
        )
    if kind == "matrix":  # the fast path does not read matrices: every new pair goes to math-verify
        m = [rng.randint(-5, 9) for _ in range(4)]
        mat = lambda env, xs: rf"\begin{{{env}}}{xs[0]}&{xs[1]}\\{xs[2]}&{xs[3]}\end{{{env}}}"  # noqa: E731
        forms = [mat("pmatrix", m), mat("bmatrix", m), mat("pmatrix", m).replace("&", " & ")]
        return forms[0], forms, lambda: mat("pmatrix", [m[0] + rng.randint(1, 3)] + m[1:])
    if kind == "expr":
        a, b = rng.randint(1, 9), rng.randint(1, 9)
        forms = [f"x^2+{a}x+{b}", f"x^{{2}} + {a}x + {b}", f"{b}+{a}x+x^2"]
        return forms[0], forms, lambda: f"x^2+{a + rng.randint(1, 3)}x+{b}"
    if kind == "text":
        if rng.random() < 0.5:
            w = rng.choice(CN_WORDS)
            return w, [w, rf"\text{{{w}}}"], lambda: rng.choice([x for x in CN_WORDS if x != w])
        w = rng.choice(WORDS)
        return (
            rf"\text{{{w}}}",
            [rf"\text{{{w}}}", w, rf"\text{{{w.lower()}}}"],
            lambda: rf"\text{{{rng.choice([x for x in WORDS if x != w])}}}",
        )
    # choice
    letter = rng.choice("ABCD")
    return (
        letter,
        [letter, rf"\text{{{letter}}}"],
        lambda: rng.choice([c for c in "ABCD" if c != letter]),
    )


def _response(answer: str | None, rng: random.Random) -> tuple[str, str | None]:
    """(response text, the intermediate boxed value if the response has one)."""
    lines = rng.choices(FILLER, k=rng.randint(10, 30))
    middle = None
    if rng.random() < 0.10:
        middle = str(rng.randint(100000, 999999))  # never a gold value
        lines.insert(rng.randint(0, len(lines)), rf"An intermediate value is $\boxed{{{middle}}}$.")
    if answer is None:  # truncated generation: only the intermediate box, if any, remains
        return "\n".join(lines), middle
    lines.append(
        rng.choice(
            [
                rf"Therefore, the final answer is $\boxed{{{answer}}}$.",
                rf"所以答案为 $\boxed{{{answer}}}$。",
                rf"$$\boxed{{{answer}}}$$",
            ]
        )
    )
    return "\n".join(lines), None


def make_dataset(n_questions: int, n_samples: int, seed: int, offset: int = 0):
    """Items for grade(), per-sample truth, and the judge's truth table {(question, answer): bool}."""
    rng = random.Random(seed)
    kinds, weights = zip(*KINDS)
    items, sample_truth, table = [], [], {}
    for qi in range(offset, offset + n_questions):
        kind = rng.choices(kinds, weights)[0]
        gold, forms, wrong = _value(kind, rng)
        question = f"Problem {qi} ({kind}): compute the requested quantity."
        acc = rng.betavariate(0.7, 0.7)
        distractors = list(dict.fromkeys(wrong() for _ in range(rng.randint(1, 4))))
        distractors = [d for d in distractors if d not in forms] or [forms[0] + "+1"]
        form_w = [0.7] + [0.3 / (len(forms) - 1)] * (len(forms) - 1)
        dist_w = [1 / (i + 1) ** 1.5 for i in range(len(distractors))]
        responses, truth = [], []
        for _ in range(n_samples):
            r = rng.random()
            if r < 0.03:
                answer, ok = None, False
            elif rng.random() < acc:
                answer, ok = rng.choices(forms, form_w)[0], True
            elif rng.random() < 0.04:  # a one-off wrong answer
                answer, ok = wrong(), False
                if answer in forms:
                    answer, ok = forms[0], True
            else:
                answer, ok = rng.choices(distractors, dist_w)[0], False
            text, middle = _response(answer, rng)
            responses.append(text)
            truth.append(ok)
            if answer is not None:
                table[(question, answer)] = ok
            elif middle is not None:  # extraction sees the intermediate box: a wrong answer
                table[(question, middle)] = False
            elif (shown := extract_answer(text).candidate) is not None:
                table[(question, shown)] = False  # a guess: the judge sees the last paragraph
        items.append(
            {
                "question": question,
                "gold": gold,
                "language": "cn" if any("\u4e00" <= ch <= "\u9fff" for ch in gold) else "en",
                "responses": responses,
            }
        )
        sample_truth.append(truth)
    return items, sample_truth, table


def bench_cascade(n_questions: int, n_samples: int, seed: int) -> dict:
    from judge_server import JudgeServer

    items, truth, table = make_dataset(n_questions, n_samples, seed)
    with JudgeServer(table) as srv, tempfile.TemporaryDirectory() as cache:
        policy = GradingPolicy(
            check="cascade",
            judge=JudgeConfig(urls=[srv.url], model="fake-72b", concurrency=8),
            cache_dir=cache,
            progress=False,
        )
        t0 = time.perf_counter()
        res = grade(items, policy)
        elapsed = time.perf_counter() - t0
        rerun = grade(items, policy)
        unknown = len(srv.unknown)
    mismatches = sum(c != t for cq, tq in zip(res.correct, truth) for c, t in zip(cq, tq))
    by_rule_wrong = sum(
        c != t
        for cq, tq, sq in zip(res.correct, truth, res.source)
        for c, t, s in zip(cq, tq, sq)
        if s == "rule"
    )
    c = res.counts
    return {
        "samples": c["samples"],
        "counts": c,
        "seconds": elapsed,
        "mismatches": mismatches,
        "rule_mismatches": by_rule_wrong,
        "unknown_prompts": unknown,
        "rerun_judge_calls": rerun.counts["judge_calls"],
        "judge_calls_per_sample": c["judge_calls"] / c["samples"],
    }


def bench_rules(
    n_questions: int, n_samples: int, seed: int, chunk: int, their_subsample: int
) -> dict:
    ours = 0.0
    total = checks = mv_calls = 0
    theirs_sample = []
    rng = random.Random(seed + 1)
    for start in range(0, n_questions, chunk):
        items, _, _ = make_dataset(
            min(chunk, n_questions - start), n_samples, seed + start, offset=start
        )
        t0 = time.perf_counter()
        res = grade(items, GradingPolicy(check="rules", progress=False))
        ours += time.perf_counter() - t0
        total += res.counts["samples"]
        checks += res.counts["rule_checks"]
        mv_calls += res.counts["rule_mv_calls"]
        if start == 0:
            flat = [(r, it["gold"]) for it in items for r in it["responses"]]
            theirs_sample = rng.sample(flat, min(their_subsample, len(flat)))
        del items, res
    # OpenCompass's rule path, per sample, on a subsample of the same predictions
    import logging

    logging.disable(logging.WARNING)
    from opencompass.datasets.math import MATHEvaluator, math_postprocess_v2

    evaluator = MATHEvaluator(version="v2")
    t0 = time.perf_counter()
    for response, gold in theirs_sample:
        evaluator.is_equiv(math_postprocess_v2(response), gold)
    theirs_per_sample = (time.perf_counter() - t0) / len(theirs_sample)
    return {
        "samples": total,
        "ours_seconds": ours,
        "rule_checks": checks,
        "mv_calls": mv_calls,
        "ours_per_sample_us": ours / total * 1e6,
        "theirs_per_sample_us": theirs_per_sample * 1e6,
        "theirs_subsample": len(theirs_sample),
        "theirs_seconds_scaled": theirs_per_sample * total,
        "speedup": theirs_per_sample * total / ours,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=48)
    ap.add_argument("--rule-questions", type=int, default=10000)
    ap.add_argument("--chunk", type=int, default=1000)
    ap.add_argument("--their-subsample", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()

    cas = bench_cascade(args.questions, args.samples, args.seed)
    c = cas["counts"]
    print(
        f"cascade: {cas['samples']} samples in {cas['seconds']:.1f} s; rule_decided={c['rule_decided']} "
        f"(no_answer={c['no_answer']}) judged_samples={c['judged_samples']} unjudged={c['unjudged']} "
        f"unique_pairs={c['unique_pairs']} judge_calls={c['judge_calls']} "
        f"rule_checks={c['rule_checks']} rule_mv_calls={c['rule_mv_calls']} rule_timeouts={c['rule_timeouts']}"
    )
    print(
        f"cascade: labels differing from the generator's truth: {cas['mismatches']} "
        f"(by rules: {cas['rule_mismatches']}); prompts the judge could not place: "
        f"{cas['unknown_prompts']}; judge calls on rerun: {cas['rerun_judge_calls']}"
    )
    rules = bench_rules(
        args.rule_questions, args.samples, args.seed, args.chunk, args.their_subsample
    )
    print(
        f"rules: {rules['samples']} predictions scored in {rules['ours_seconds']:.1f} s "
        f"({rules['ours_per_sample_us']:.1f} us/sample, {os.cpu_count()} CPUs; "
        f"{rules['rule_checks']} distinct checks, {rules['mv_calls']} needed math-verify); OpenCompass "
        f"math_postprocess_v2 + MATHEvaluator.is_equiv: {rules['theirs_per_sample_us']:.1f} us/sample "
        f"on {rules['theirs_subsample']} samples -> {rules['theirs_seconds_scaled']:.1f} s scaled"
    )
    print(
        f"RESULT judge_calls_per_sample={cas['judge_calls_per_sample']:.4f} "
        f"rule_scoring_speedup={rules['speedup']:.1f}"
    )


if __name__ == "__main__":
    main()
