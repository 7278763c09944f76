"""The demo's bundled problems: our own competition-style questions with verified answers.

Two splits (AMC-style counting/number theory, CCEE-style algebra/geometry), each question
in English and Chinese, written out in the LiveMathBench local layout by
:func:`write_dataset`. ``tests/test_demo_problems.py`` re-derives every answer by brute
force, independently of the strings below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple


class Problem(NamedTuple):
    split: str
    en: str
    cn: str
    answer: str
    question_type: str = "Fill-in-the-blank"


PROBLEMS: tuple[Problem, ...] = (
    Problem(
        "AMC",
        "How many positive integers $n \\le 100$ are divisible by 3 or by 5 but not by 15?",
        "不超过 100 的正整数中，能被 3 或 5 整除但不能被 15 整除的有多少个？",
        "41",
    ),
    Problem(
        "AMC",
        "What is the sum of all positive divisors of $360$?",
        "$360$ 的所有正约数之和是多少？",
        "1170",
    ),
    Problem(
        "AMC",
        "How many ordered pairs $(a, b)$ of positive integers satisfy $ab = 720$?",
        "满足 $ab = 720$ 的正整数有序对 $(a, b)$ 有多少个？",
        "30",
    ),
    Problem(
        "AMC",
        "Two fair six-sided dice are rolled. What is the probability that the sum is prime?",
        "掷两枚均匀的六面骰子，点数之和为质数的概率是多少？",
        "\\frac{5}{12}",
    ),
    Problem(
        "AMC",
        "What is the remainder when $2^{100}$ is divided by $7$?",
        "$2^{100}$ 除以 $7$ 的余数是多少？",
        "2",
    ),
    Problem("AMC", "How many zeros does $100!$ end with?", "$100!$ 的末尾有多少个连续的零？", "24"),
    Problem(
        "AMC",
        "What is the least positive integer $n$ such that $1000$ divides $n!$?",
        "使 $n!$ 能被 $1000$ 整除的最小正整数 $n$ 是多少？",
        "15",
    ),
    Problem(
        "AMC",
        "How many lattice points $(x, y)$ with integer coordinates satisfy $x^2 + y^2 \\le 10$?",
        "满足 $x^2 + y^2 \\le 10$ 的整点 $(x, y)$ 有多少个？",
        "37",
    ),
    Problem(
        "CCEE",
        "Find the maximum value of $f(x) = x^3 - 3x$ on the interval $[-2, 2]$.",
        "求函数 $f(x) = x^3 - 3x$ 在区间 $[-2, 2]$ 上的最大值。",
        "2",
    ),
    Problem(
        "CCEE",
        "An arithmetic sequence has first term $2$ and common difference $3$. "
        "Find the sum of its first $10$ terms.",
        "等差数列的首项为 $2$，公差为 $3$，求其前 $10$ 项的和。",
        "155",
    ),
    Problem(
        "CCEE",
        "A geometric sequence has first term $1$ and common ratio $2$. "
        "Find the sum of its first $8$ terms.",
        "等比数列的首项为 $1$，公比为 $2$，求其前 $8$ 项的和。",
        "255",
    ),
    Problem(
        "CCEE",
        "In how many ways can a committee of $3$ be chosen from $7$ people?",
        "从 $7$ 人中选出 $3$ 人组成小组，共有多少种选法？",
        "35",
    ),
    Problem(
        "CCEE",
        "Find the distance from the point $(1, 2)$ to the line $3x + 4y - 1 = 0$.",
        "求点 $(1, 2)$ 到直线 $3x + 4y - 1 = 0$ 的距离。",
        "2",
    ),
    Problem(
        "CCEE",
        "Find the value of $\\sin^2 15^\\circ + \\cos^2 75^\\circ$.",
        "求 $\\sin^2 15^\\circ + \\cos^2 75^\\circ$ 的值。",
        "\\frac{2-\\sqrt{3}}{2}",
    ),
    Problem(
        "CCEE",
        "Find the coefficient of $x^3$ in the expansion of $(1 + 2x)^5$.",
        "求 $(1 + 2x)^5$ 展开式中 $x^3$ 的系数。",
        "80",
    ),
    Problem(
        "CCEE",
        "Find the area of the triangle with vertices $(0, 0)$, $(4, 0)$ and $(1, 3)$.",
        "求以 $(0, 0)$、$(4, 0)$、$(1, 3)$ 为顶点的三角形的面积。",
        "6",
    ),
)

SPLITS: tuple[str, ...] = tuple(dict.fromkeys(p.split for p in PROBLEMS))
LANGUAGES: tuple[str, ...] = ("en", "cn")
VERSION = "202412"
_CN_TYPE = {"Fill-in-the-blank": "填空"}


def rows(split: str, language: str) -> list[dict]:
    """The JSONL rows of one ``{split}_{language}`` file."""
    return [
        {
            "question": p.en if language == "en" else p.cn,
            "answer": p.answer,
            "question_type": p.question_type if language == "en" else _CN_TYPE[p.question_type],
        }
        for p in PROBLEMS
        if p.split == split
    ]


def dataset_files(root: str | Path) -> dict[Path, bytes]:
    """``{root}/{VERSION}/{split}_{lang}.jsonl`` -> content, for every split × language."""
    folder = Path(root) / VERSION
    files = {}
    for split in SPLITS:
        for language in LANGUAGES:
            lines = [json.dumps(row, ensure_ascii=False) for row in rows(split, language)]
            files[folder / f"{split}_{language}.jsonl"] = ("\n".join(lines) + "\n").encode()
    return files


def write_dataset(root: str | Path) -> Path:
    """Write :func:`dataset_files`; a same-named file gpassk-oc did not write (or that was
    edited since) is left alone (:class:`gpassk_oc.ownership.Refused`, nothing written)."""
    from gpassk_oc.ownership import write_files

    write_files(dataset_files(root))
    return Path(root) / VERSION
