"""Every example of docs/api.md runs as printed (Python's doctest, from the repository
root, where the page's paths point). The printed values are the exact ones the page
derives by hand (93/130, 21/130, 25/26, ...); test_api_docs_values re-derives them here
from binomial counts, so the page and the code are each checked against arithmetic."""

from __future__ import annotations

import doctest
import re
from fractions import Fraction
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pycon_blocks(text: str) -> str:
    """The ```pycon blocks of a page, each ending in a blank line (doctest's end of output)."""
    return "\n\n".join(re.findall(r"^```pycon\n(.*?)^```$", text, re.M | re.S))


def test_api_page_examples_run_as_printed(monkeypatch):
    monkeypatch.chdir(ROOT)  # the page's paths are relative to the repository root
    page = ROOT / "docs" / "api.md"
    test = doctest.DocTestParser().get_doctest(
        _pycon_blocks(page.read_text()), {}, "docs/api.md", str(page), 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert len(test.examples) >= 20 and runner.failures == 0


def _tail(n: int, c: int, k: int, m: int) -> Fraction:
    """P(X >= m) for X ~ Hypergeometric(n, c, k), by counting."""
    return Fraction(sum(comb(c, j) * comb(n - c, k - j) for j in range(m, k + 1)), comb(n, k))


def test_api_docs_values():
    assert float(_tail(16, 8, 4, 2)) == 0.7153846153846154 and _tail(16, 8, 4, 2) == Fraction(
        93, 130
    )
    mg = Fraction(2, 4) * (_tail(16, 8, 4, 3) + _tail(16, 8, 4, 4))
    assert mg == Fraction(21, 130) and float(mg) == 0.16153846153846155
    assert 1 - Fraction(comb(8, 4), comb(16, 4)) == Fraction(25, 26)
    table_mean = (_tail(16, 8, 4, 4) + 1 + 0) / 3
    assert round(float(table_mean), 6) == 0.346154
    # maj@3 of votes [0, 0, 1, None] with class 0 correct: enumerate the four draws
    from itertools import combinations

    votes = [0, 0, 1, None]
    scores = []
    for draw in combinations(votes, 3):
        tally = {v: draw.count(v) for v in set(draw) if v is not None}
        top = max(tally.values())
        winners = [v for v, t in tally.items() if t == top]
        scores.append(Fraction(1, len(winners)) if 0 in winners else Fraction(0))
    assert sum(scores) / len(scores) == Fraction(3, 4)
    assert (Fraction(0 + 2 + 4 + 4, 16), (0 + _tail(4, 2, 2, 2) + 1 + 1) / 4) == (
        Fraction(5, 8),
        Fraction(13, 24),
    )
    assert float(Fraction(13, 24)) == 0.5416666666666666
