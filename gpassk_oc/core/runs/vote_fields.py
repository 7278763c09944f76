"""A results file's per-sample votes, read and checked (pure core; :mod:`.results_file`'s).

``vote`` holds one class id per sample (null: the sample voted for nothing), and
``vote_correct`` the id of the correct class: exactly the samples judged true vote for it,
and an unjudged sample (``correct`` null) has no vote. The check compares whole lists in
C: per sample in Python it was a tenth of a grid's first read.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any

__all__ = ["read_votes"]


def _class_id(value: Any) -> bool:
    """A class id: an integer >= 0 (JSON true/false are not ids)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def read_votes(
    d: Mapping[str, Any],
    correct: Sequence[bool | None],
    field_of: str,
    error: type[Exception] = ValueError,
) -> tuple[list[int | None] | None, int | None]:
    """``vote``/``vote_correct`` of one ``details`` entry checked against its verdicts
    *correct*; *error* with one line naming ``{field_of}.vote`` (or ``.vote_correct``)."""
    vote, mine = d.get("vote"), d.get("vote_correct")
    if vote is None:
        if mine is not None:
            raise error(f"{field_of}.vote_correct: given without a 'vote' list")
        return None, None
    if not isinstance(vote, list) or len(vote) != len(correct):
        raise error(f"{field_of}.vote: need one entry per sample ({len(correct)})")
    ids = [v for v in vote if v is not None] if None in vote else vote
    if not set(map(type, ids)) <= {int} or (ids and min(ids) < 0):  # bool is not int here
        raise error(f"{field_of}.vote: entries must be class ids (integers >= 0) or null")
    if mine is not None and not _class_id(mine):
        raise error(f"{field_of}.vote_correct: need a class id (integer >= 0) or null")
    if not _votes_agree(vote, mine, correct):
        _vote_error(vote, mine, correct, field_of, error)
    return list(vote), mine


def _votes_agree(vote: list[int | None], mine: int | None, correct: Sequence[Any]) -> bool:
    """Whether exactly the samples judged true vote for *mine* and no unjudged sample
    votes, compared list against list in C (the loop of :func:`_vote_error` per sample
    was a tenth of a grid's first read). *vote*: checked ints or None."""
    if len(vote) != len(correct):
        return False
    is_true = list(map(operator.is_, correct, repeat(True)))
    # v == mine for an int mine is `v is not None and v == mine`; no sample can vote None
    votes_mine = [False] * len(vote) if mine is None else list(map(operator.eq, vote, repeat(mine)))
    if is_true != votes_mine:
        return False
    if None not in correct:
        return True
    unjudged = map(operator.is_, correct, repeat(None))
    return not any(map(operator.and_, unjudged, map(operator.is_not, vote, repeat(None))))


def _vote_error(
    vote: Sequence[int | None],
    mine: int | None,
    correct: Sequence[Any],
    field_of: str,
    error: type[Exception],
) -> None:
    """Raise the error of the first sample whose vote disagrees with its verdict."""
    for v, verdict in zip(vote, correct):
        if verdict is None and v is not None:
            raise error(f"{field_of}.vote: an unjudged sample (correct null) has a vote")
        if (verdict is True) != (v is not None and v == mine):
            raise error(
                f"{field_of}.vote: the class vote_correct={mine!r} must hold exactly the "
                "samples whose verdict is true"
            )
