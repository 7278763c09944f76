"""Vote classes (the checker groups answers), the votes in the results file, and maj@k /
avg@n from the evaluator against k-subset enumeration."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest
from conftest import E2E_QUESTIONS
from evaluator_support import replicated, run
from oracles import brute_maj

from gpassk_oc.core.judging.voting import vote_classes
from gpassk_oc.core.runs.results_file import Results, ResultsError
from gpassk_oc.core.runs.run_scoring import ScoringInput, build_results
from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.evaluators import GPassKEvaluator


def test_equivalent_forms_share_a_vote_and_undecided_stay_apart():
    extracted = [
        ["1/2", "2^{-1}", r"\frac12", "3", "x=3", r"\text{blue}", r"\text{red}", None, "7"]
    ]
    correct = [[False] * 8 + [True]]
    found = [["boxed"] * 7 + ["none", "boxed"]]
    got = vote_classes(extracted, correct, found)
    v = got.votes[0]
    assert v[0] == v[1] == v[2] != v[3]  # one half, three ways
    assert v[3] == v[4]  # "x=3" against "3": the assigned value
    assert v[5] != v[6]  # two different words: undecided, never merged on a guess
    assert v[7] is None and v[8] == 0 and got.correct_class == [0]
    assert len({x for x in v if x is not None}) == 5
    assert got.counts["vote_checks"] >= 1


def test_unjudged_and_truncated_samples_cast_no_vote():
    got = vote_classes(
        [["5", "5", "6", "6"]],
        [[None, False, False, False]],
        [["boxed", "boxed", "truncated", "x"]],
    )
    assert got.votes == [[None, 1, None, 2]]
    assert got.correct_class == [None]


# labels: 0 = gold, 1 = one wrong value in two spellings, 2 = another wrong value, None = empty
PATTERNS = [
    [0, 0, 1, 1, 2, None],
    [0, 1, 1, 1, 2, 2],
    [0, 0, 0, 1, None, None],
    [1, 1, 2, 2, None, 0],
    [2, 2, 2, 2, 2, 2],
    [0, 0, 0, 0, 0, 0],
    [None, None, 1, 0, 2, 1],
    [0, 1, 2, None, 0, 1],
    [1, 0, 2, 0, 1, 2],
]


def predictions(test_set, n):
    q = len(test_set) // n
    out = []
    for row_index in range(len(test_set)):
        r, i = divmod(row_index, q)
        label = PATTERNS[i][r]
        if label == 0:
            out.append(f"so $\\boxed{{{test_set[row_index]['answer']}}}$")
        elif label == 1:  # the same wrong value, spelled two ways
            out.append(r"\boxed{\frac{1}{7777}}" if r % 2 else r"\boxed{1/7777}")
        elif label == 2:
            out.append(r"\boxed{-4242}")
        else:
            out.append("")
    return out


def test_evaluator_reports_exact_maj_and_avg(livemath_dir):
    n, ks = 6, [1, 2, 3, 5, 6]
    assert len(PATTERNS) == len(E2E_QUESTIONS)
    test_set = replicated(livemath_dir, n, ks)
    result = run(GPassKEvaluator(), test_set, predictions(test_set, n), ks, n)
    groups: dict[str, list[int]] = {"": list(range(len(PATTERNS)))}
    for i, (split, lang, *_) in enumerate(E2E_QUESTIONS):
        groups.setdefault(f"{split}/{lang}/", []).append(i)
    for prefix, members in groups.items():
        for k in ks:
            exact = sum(brute_maj(PATTERNS[i], k) for i in members) / len(members)
            assert result[f"{prefix}maj@{k}"] == float(exact * 100), (prefix, k)
        accuracy = Fraction(sum(PATTERNS[i].count(0) for i in members), n * len(members))
        assert result[f"{prefix}avg@{n}"] == float(accuracy * 100)
    detail = result["details"][0]
    assert detail["vote_correct"] == 0 and detail["vote"][5] is None
    assert detail["vote"][2] == detail["vote"][3] != detail["vote"][4]
    back = Results.from_json(result)
    assert back.questions[1].vote_profile() == (1, (3, 2), 0)
    assert back.to_json()["details"][0]["vote"] == detail["vote"]


def results_with_votes(vote, vote_correct, correct=(True, False, False, None)):
    q = {"index": 0, "question_id": "q", "extracted": ["1", "2", "2", "3"]}
    q.update(correct=list(correct), vote=vote, vote_correct=vote_correct)
    run_info = {"n": 4, "num_questions": 1, "ks": [2]}
    return {"schema": "gpassk_oc.results/2", "run": run_info, "details": [q]}


def test_reader_accepts_votes_and_builds_the_profile():
    data = results_with_votes([0, 1, 1, None], 0)
    got = Results.from_json(copy.deepcopy(data), "f.json").questions[0]
    assert got.vote == [0, 1, 1, None]
    assert got.vote_profile() == (1, (2,), 0)  # the unjudged sample is out


@pytest.mark.parametrize(
    "vote, mine, field",
    [
        ("0110", 0, "details[0].vote: need one entry per sample"),
        ([0, 1, 1], 0, "details[0].vote: need one entry per sample"),
        ([0, 1.5, 1, None], 0, "details[0].vote: entries must be class ids"),
        ([0, True, 1, None], 0, "details[0].vote: entries must be class ids"),
        ([0, -1, 1, None], 0, "details[0].vote: entries must be class ids"),
        ([0, 1, 1, None], "0", "details[0].vote_correct: need a class id"),
        ([0, 1, 1, 2], 0, "details[0].vote: an unjudged sample"),
        ([0, 0, 1, None], 0, "must hold exactly the samples whose verdict is true"),
        ([1, 0, 1, None], 0, "must hold exactly the samples whose verdict is true"),
        (None, 0, "details[0].vote_correct: given without"),
    ],
)
def test_reader_refuses_bad_votes_in_one_line(vote, mine, field):
    with pytest.raises(ResultsError) as exc:
        Results.from_json(results_with_votes(vote, mine), "f.json")
    message = str(exc.value)
    assert message.startswith("f.json: ") and field in message and "\n" not in message


def test_unjudged_samples_leave_the_vote_population():
    # one question, 6 samples, the last two unjudged
    extracted = [["1", "1", "7", "7", "8", "9"]]
    correct = [[True, True, False, False, None, None]]
    got = vote_classes(extracted, correct)
    assert got.votes == [[0, 0, 1, 1, None, None]]
    rows = [{"question_id": "q", "split": "AMC", "language": "en", "question": "?", "answer": "1"}]
    result = build_results(
        ScoringInput(
            spec=RunSpec.parse([2, 4]).at_n(6),
            rows=rows,
            extracted=extracted,
            correct=correct,
            votes=got.votes,
            vote_correct=got.correct_class,
        )
    )
    judged = [0, 0, 1, 1]  # the unjudged pair is out, as for G-Pass@k
    assert result["maj@2"] == float(brute_maj(judged, 2) * 100)
    assert result["maj@4"] == float(brute_maj(judged, 4) * 100)
    assert result["avg@6"] == 50.0 and result["AMC/en/maj@2"] == result["maj@2"]


def test_a_wrong_sample_with_a_correct_samples_answer_votes_for_nothing():
    # judge mode: the judge saw different paragraphs, so "4" is graded correct twice and
    # wrong twice; "2^{-1}" is wrong once while "1/2" is correct in another question
    extracted = [["4", "4", "4", "4", "7", "7", "7"], ["1/2", "2^{-1}", "2^{-1}", "3", None]]
    correct = [[True, True, False, False, False, False, False], [True, False, False, False, False]]
    found = [["fallback"] * 7, ["boxed"] * 4 + ["none"]]
    got = vote_classes(extracted, correct, found)
    assert got.votes == [[0, 0, None, None, 1, 1, 1], [0, None, None, 1, None]]
    assert got.counts["vote_inconsistent"] == 4  # the empty reply is not one of them
    # maj@k as if the two wrong "4"s abstained: the correct class never faces its own answer
    rows = [{"question_id": "q0", "split": "AMC", "language": "en", "question": "?", "answer": "4"}]
    result = build_results(
        ScoringInput(
            spec=RunSpec.parse([3]).at_n(7),
            rows=rows,
            extracted=extracted[:1],
            correct=correct[:1],
            votes=got.votes[:1],
            vote_correct=got.correct_class[:1],
        )
    )
    assert result["maj@3"] == float(brute_maj([0, 0, None, None, 1, 1, 1], 3) * 100)


class ScriptedPool:
    """A math-verify pool answering from a table, recording each batch it is sent."""

    def __init__(self, table):
        self.table, self.batches = table, []

    def check_many(self, pairs, timeout=None):
        self.batches.append(sorted(pairs))
        return [self.table.get(p, "undecided") for p in pairs]


def test_pairs_a_merge_brings_up_are_checked_not_split_silently(monkeypatch):
    # wrong answers a×4, b×3, c×2, d×1. The fast rules: d equals b, c and d differ from
    # a; everything else is open. Pass 1 makes b a class of its own (b-a open) and puts d
    # with b. Math-verify then says b equals a: b's class is gone, so d must now be checked
    # against c, a pair pass 1 never looked at.
    fast = {("b", "a"): None, ("c", "a"): "wrong", ("c", "b"): None, ("d", "a"): "wrong"}
    fast[("d", "b")] = "equal"
    monkeypatch.setattr("gpassk_oc.core.judging.voting.fast_check", lambda x, y: fast.get((x, y)))
    extracted = [list("aaaabbbccd")]
    correct = [[False] * 10]
    for d_c, d_joins_c, undecided in (("equal", True, 0), ("undecided", False, 1)):
        pool = ScriptedPool({("b", "a"): "equal", ("c", "b"): "wrong", ("d", "c"): d_c})
        got = vote_classes(extracted, correct, pool=pool)
        v = got.votes[0]
        assert v[0] == v[4] != v[7]  # b joined a; c stays apart
        assert (v[9] == v[7]) is d_joins_c and v[9] != v[0]
        assert pool.batches == [[("b", "a"), ("c", "b")], [("d", "c")]]
        assert got.counts["vote_mv_calls"] == 3 and got.counts["vote_undecided"] == undecided
    # no math-verify: the open pairs of the one pass are all counted, none merged
    got = vote_classes(extracted, correct, math_verify=False)
    assert got.counts["vote_undecided"] == 2 and got.counts["vote_mv_calls"] == 0
    assert len(set(got.votes[0])) == 3  # a; b with d; c (b-a open: apart)
