"""Every bundled demo answer is re-derived here by brute force, independently."""

import itertools
import json
import math
from fractions import Fraction

import pytest

from gpassk_oc.demo import problems as P
from gpassk_oc.ownership import MANIFEST


def _divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def _primes_upto(n):
    return {p for p in range(2, n + 1) if all(p % q for q in range(2, p))}


def _trailing_zeros(n):
    text = str(math.factorial(n))
    return len(text) - len(text.rstrip("0"))


xs = [i / 1000 for i in range(-2000, 2001)]
DERIVED = {
    "41": sum(1 for n in range(1, 101) if (n % 3 == 0 or n % 5 == 0) and n % 15),
    "1170": sum(_divisors(360)),
    "30": sum(1 for a in range(1, 721) if 720 % a == 0),
    "\\frac{5}{12}": Fraction(
        sum(1 for a, b in itertools.product(range(1, 7), repeat=2) if a + b in _primes_upto(12)), 36
    ),
    "2_mod": pow(2, 100, 7),
    "24": _trailing_zeros(100),
    "15": next(n for n in range(1, 100) if math.factorial(n) % 1000 == 0),
    "37": sum(1 for x in range(-4, 5) for y in range(-4, 5) if x * x + y * y <= 10),
    "2_max": round(max(x**3 - 3 * x for x in xs), 9),
    "155": sum(2 + 3 * i for i in range(10)),
    "255": sum(2**i for i in range(8)),
    "35": sum(1 for _ in itertools.combinations(range(7), 3)),
    "2_dist": abs(3 * 1 + 4 * 2 - 1) / math.hypot(3, 4),
    "trig": math.sin(math.radians(15)) ** 2 + math.cos(math.radians(75)) ** 2,
    "80": sum(1 for bits in itertools.product([0, 1], repeat=5) if sum(bits) == 3) * 2**3,
    "6": abs(4 * 3 - 0 * 1) / 2,
}


def _value(answer: str) -> float:
    if answer == "\\frac{5}{12}":
        return 5 / 12
    if answer == "\\frac{2-\\sqrt{3}}{2}":
        return (2 - math.sqrt(3)) / 2
    return float(answer)


EXPECTED = [
    DERIVED[k]
    for k in [
        "41",
        "1170",
        "30",
        "\\frac{5}{12}",
        "2_mod",
        "24",
        "15",
        "37",
        "2_max",
        "155",
        "255",
        "35",
        "2_dist",
        "trig",
        "80",
        "6",
    ]
]


@pytest.mark.parametrize("index", range(len(P.PROBLEMS)))
def test_answer_matches_brute_force(index):
    assert len(EXPECTED) == len(P.PROBLEMS)
    assert _value(P.PROBLEMS[index].answer) == pytest.approx(float(EXPECTED[index]), abs=1e-9)


def test_layout_has_two_splits_and_both_languages(tmp_path):
    folder = P.write_dataset(tmp_path)
    data = [p for p in folder.iterdir() if p.name != MANIFEST]  # the writer's own record
    files = sorted(p.name for p in data)
    assert files == sorted(f"{s}_{l}.jsonl" for s in P.SPLITS for l in P.LANGUAGES)
    assert len(P.SPLITS) >= 2
    for path in data:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert rows and all(r["question"] and r["answer"] for r in rows)
    en = [json.loads(l) for l in (folder / "AMC_en.jsonl").read_text().splitlines()]
    cn = [json.loads(l) for l in (folder / "AMC_cn.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["answer"] for r in en] == [r["answer"] for r in cn]
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in r["question"]) for r in cn)
