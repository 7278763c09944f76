"""maj@k against brute-force enumeration of every k-subset and against closed forms.

The oracles here never call gpassk_oc: they label samples (0 = the correct class, 1.. wrong
classes, None = no vote), enumerate subsets with itertools and add Fractions.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from oracles import brute_maj

from gpassk_oc.core.metrics.majority_vote import (
    FLOAT_EXACT_N_MAX,
    maj_at_k,
    maj_curve,
    maj_table,
    profile,
)


def labels_profile(labels: list[int | None]) -> tuple[int, tuple[int, ...], int]:
    sizes = [labels.count(c) for c in sorted({v for v in labels if v not in (None, 0)})]
    return labels.count(0), tuple(sorted(sizes, reverse=True)), labels.count(None)


def random_labels(rng: random.Random, n: int) -> list[int | None]:
    classes = rng.randint(1, 6)
    abstain = rng.choice([0.0, 0.15, 0.5])
    return [None if rng.random() < abstain else rng.randrange(classes) for _ in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_every_k_matches_brute_force_for_n_up_to_12(seed):
    rng = random.Random(seed)
    for _ in range(60):
        n = rng.randint(1, 12)
        labels = random_labels(rng, n)
        curve = maj_curve(labels_profile(labels), fractions=True)
        floats = maj_curve(labels_profile(labels))
        for k in range(1, n + 1):
            expected = brute_maj(labels, k)
            assert curve[k - 1] == expected, (labels, k)
            assert floats[k - 1] == float(expected)  # one correct rounding


def test_hand_cases():
    # [0, 0, 1, 1]: k = 2 draws {0,0}: win (1 of 6), {1,1}: lose, four {0,1}: tie 1/2
    assert maj_at_k((2, (2,), 0), 2, fractions=True) == Fraction(1 + 4 * Fraction(1, 2), 6)
    # everything abstains but one correct sample: k = 1 wins 1/3 of the time
    assert maj_at_k((1, (), 2), 1, fractions=True) == Fraction(1, 3)
    # no correct sample: never wins
    assert maj_curve((0, (3, 1), 1)) == [0.0] * 5


@pytest.mark.parametrize("prof", [(3, (2, 1), 1), (5, (), 0), (0, (4,), 2), (7, (7, 7), 3)])
def test_k1_is_the_share_of_correct_samples(prof):
    a, wrong, z = prof
    assert maj_at_k(prof, 1, fractions=True) == Fraction(a, a + sum(wrong) + z)


@pytest.mark.parametrize(
    "prof, expected",
    [
        ((5, (3, 2), 0), Fraction(1)),  # plurality
        ((3, (3, 1), 4), Fraction(1, 2)),  # tied with one class
        ((2, (2, 2, 1), 0), Fraction(1, 3)),  # tied with two
        ((2, (3,), 0), Fraction(0)),  # beaten
        ((0, (), 3), Fraction(0)),  # nobody votes
    ],
)
def test_maj_at_n_is_the_plain_vote(prof, expected):
    n = prof[0] + sum(prof[1]) + prof[2]
    assert maj_at_k(prof, n, fractions=True) == expected


def two_class_closed_form(a: int, b: int, z: int, k: int) -> Fraction:
    """One wrong class: P(X > Y) + ½·P(X = Y > 0), X, Y the draws of each class."""
    n = a + b + z
    total = Fraction(0)
    for x in range(1, min(a, k) + 1):
        for y in range(0, min(b, k - x) + 1):
            if y > x:
                continue
            ways = math.comb(a, x) * math.comb(b, y) * math.comb(z, k - x - y)
            total += Fraction(ways, 1 if y < x else 2)
    return total / math.comb(n, k)


@pytest.mark.parametrize("a, b, z", [(30, 25, 5), (20, 20, 20), (1, 59, 0)])
def test_python_int_path_above_the_float_bound(a, b, z):
    assert a + b + z > FLOAT_EXACT_N_MAX
    curve = maj_curve((a, (b,), z), fractions=True)
    for k in (1, 2, 7, 30, a + b + z):
        assert curve[k - 1] == two_class_closed_form(a, b, z, k)


@pytest.mark.parametrize("a, b, z", [(20, 15, 13), (24, 24, 0)])
def test_float_path_matches_the_closed_form_at_n_48(a, b, z):
    curve = maj_curve((a, (b,), z), fractions=True)
    for k in range(1, a + b + z + 1):
        assert curve[k - 1] == two_class_closed_form(a, b, z, k)


def test_profile_from_votes():
    assert profile([0, 1, None, 1, 2, 0, 0], 0) == (3, (2, 1), 1)
    assert profile([1, 1, None], None) == (0, (2,), 1)


def test_table_dedups_profiles_and_marks_unreachable_k():
    profs = [(2, (1,), 1), (1, (1,), 0), (2, (1,), 1)]
    table = maj_table(profs, [1, 2, 4])
    assert table.shape == (3, 3)
    assert np.isnan(table[1, 2]) and not np.isnan(table[0, 2])
    assert table[0].tolist() == table[2].tolist()
    assert table[1, 0] == 0.5


@pytest.mark.parametrize("bad", [(-1, (), 2), (0, (), 0), (1, (-2,), 0)])
def test_bad_profiles_fail(bad):
    with pytest.raises(ValueError):
        maj_curve(bad)


@pytest.mark.parametrize("k", [0, 5, True, 1.5])
def test_bad_k_fails(k):
    with pytest.raises(ValueError):
        maj_at_k((2, (1,), 1), k)


def test_judged_profile_leaves_unjudged_samples_out():
    """Class sizes counted by hand: the unjudged sample (verdict None) is out, an unjudged
    question has no profile, and a results file's vote_profile is the same profile."""
    from gpassk_oc.core.metrics.majority_vote import judged_profile
    from gpassk_oc.core.runs.results_file import QuestionResult

    votes = [1, 1, None, 2, 0, None, 3]
    verdicts = [False, False, None, False, True, False, False]
    assert judged_profile(votes, 0, verdicts) == (1, (2, 1, 1), 1)
    assert judged_profile(votes, None, verdicts) == (0, (2, 1, 1, 1), 1)
    assert judged_profile([0, 1], 0, [None, None]) is None
    extracted = [None if v is None else str(v) for v in votes]
    q = QuestionResult(0, "q", "AMC", "en", "", None, "0", extracted, verdicts, None, None)
    q = QuestionResult(**{**q.__dict__, "vote": votes, "vote_correct": 0})
    assert q.vote_profile() == (1, (2, 1, 1), 1)


def class_count_maj(a: int, wrong: tuple[int, ...], z: int, k: int) -> Fraction:
    """Oracle by vote counts: sum over every (x, y_1..y_r) of the ways to draw that many of
    each class (the rest from the abstentions) times the correct class's score."""
    n = a + sum(wrong) + z
    total = Fraction(0)
    for x in range(1, min(a, k) + 1):
        for ys in itertools.product(*(range(min(b, x) + 1) for b in wrong)):
            rest = k - x - sum(ys)
            if rest < 0 or rest > z:
                continue
            ways = math.comb(a, x) * math.comb(z, rest)
            for b, y in zip(wrong, ys):
                ways *= math.comb(b, y)
            total += Fraction(ways, 1 + sum(1 for y in ys if y == x))
    return total / math.comb(n, k)


@pytest.mark.parametrize(
    "prof", [(20, (25, 15), 10), (40, (20, 3), 9), (9, (9, 9, 9), 40), (30, (31, 1, 1), 2)]
)
def test_large_n_with_several_classes_matches_the_count_oracle(prof):
    """n = 70 (fields wider than 8 bytes), ties between several classes."""
    a, wrong, z = prof
    n = a + sum(wrong) + z
    curve = maj_curve(prof, fractions=True)
    floats = maj_curve(prof)
    for k in (1, 2, 9, 30, n - 1, n):
        expected = class_count_maj(a, wrong, z, k)
        assert curve[k - 1] == expected, k
        assert floats[k - 1] == float(expected)


def test_any_spelling_of_a_profile_gives_the_canonical_values():
    """Wrong sizes unsorted, with zeros, as a list, numpy integers: the same curve (the
    quick check for canonical tuples must not change what other spellings mean)."""
    canonical = maj_curve((3, (4, 2, 1), 2))
    for spelling in [
        (3, (1, 4, 2), 2),
        (3, (4, 0, 2, 1), 2),
        [3, [2, 1, 4], 2],
        (np.int64(3), (np.int64(4), 2, 1), np.int32(2)),
    ]:
        assert maj_curve(spelling) == canonical
    table = maj_table([(3, (1, 4, 2), 2), (3, (4, 2, 1), 2)], [1, 5, 13])  # n = 12
    assert table[:, :2].tolist() == [[canonical[0], canonical[4]]] * 2
    assert np.isnan(table[:, 2]).all()


@pytest.mark.parametrize("bad", [(1.0, (2,), 0), (True, (), 1), (1, (2.0,), 0), (1, (2,), False)])
def test_profiles_of_non_integers_fail(bad):
    with pytest.raises(ValueError):
        maj_curve(bad)
    with pytest.raises(ValueError):
        maj_table([bad], [1])
