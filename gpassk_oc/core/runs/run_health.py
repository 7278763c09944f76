"""Run health: the ways a run goes wrong that look like "unstable model" (pure core).

Computed by the evaluator from the predictions into the results file's ``health`` section,
per run (``overall``) and per split × language group (``groups``)::

    {"max_out_len": 8192, "length_basis": "tokenizer" | "approximate" | "not checked",
     "overall": {"samples": 4800, "questions": 100,
                 "truncated": 12,           # thinking never closed OR length at max_out_len
                 "truncated_thinking": 10,  # found == "truncated"
                 "truncated_length": 3,
                 "empty": 0,                # reply empty or whitespace only
                 "identical_questions": 0,  # questions whose n replies are byte-identical
                 "duplicate_responses": 7,  # replies equal to an earlier reply of their question
                 "unjudged": 0,
                 "coverage": {"pass@1": [100, 100], "G-Pass@16": [98, 100]}},
     "groups": {"AMC/en": {...}, ...}}

``coverage`` is, per metric family (``G-Pass@k`` covers every τ and ``mG-Pass@k``), the
questions eligible for its mean (at least k judged samples) and all questions.

Length truncation counts a reply as cut when its token count reaches ``max_out_len``: with
the model's local tokenizer when the record names one (``length_basis='tokenizer'``), else
with :func:`approx_token_count` (``'approximate'``: one token per CJK character, one per
three other characters — it over-counts English prose, so it may flag replies a little
short of the budget; treat its figure as an upper estimate). Every figure is computed once
per distinct reply, so n identical replicas cost one count.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gpassk_oc.core.metrics.metric_keys import PASS_AT_1, group_name
from gpassk_oc.core.vocabulary import Found

__all__ = ["CHARS_PER_TOKEN", "LENGTH_BASES", "approx_token_count", "run_health"]

_CJK_RE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
#: Characters per token assumed for non-CJK text. BPE tokenizers average ~4 characters
#: per token on English prose and fewer on LaTeX/digits; 3 slightly over-counts.
CHARS_PER_TOKEN = 3.0
LENGTH_BASES = ("tokenizer", "approximate", "not checked")
#: the found value the grader writes for a reply whose thinking never closed
TRUNCATED = Found.TRUNCATED


def approx_token_count(text: str) -> int:
    """Approximate token count: one per CJK character, ceil(other chars / 3)."""
    if not text:
        return 0
    cjk = len(_CJK_RE.findall(text))
    return cjk + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN)


def _figures(
    members: np.ndarray,
    ids: np.ndarray,
    empty: np.ndarray,
    long: np.ndarray,
    thinking: np.ndarray,
    judged: np.ndarray,
    ks: Sequence[int],
) -> dict[str, Any]:
    """Figures of the questions *members* (rows of the q × n arrays)."""
    ids, empty, long, thinking = ids[members], empty[members], long[members], thinking[members]
    judged = judged[members]
    q, n = ids.shape
    distinct = np.array([len(set(row.tolist())) for row in ids], dtype=np.int64)
    per_question = judged.sum(axis=1)
    coverage = {PASS_AT_1: [int((per_question >= 1).sum()), q]}
    for k in ks:
        coverage[f"G-Pass@{k}"] = [int((per_question >= k).sum()), q]
    return {
        "samples": int(q * n),
        "questions": int(q),
        "truncated": int((thinking | long).sum()),
        "truncated_thinking": int(thinking.sum()),
        "truncated_length": int(long.sum()),
        "empty": int(empty.sum()),
        "identical_questions": int(((distinct == 1) & (n > 1)).sum()) if q else 0,
        "duplicate_responses": int((n - distinct).sum()) if q else 0,
        "unjudged": int((~judged).sum()),
        "coverage": coverage,
    }


def run_health(
    responses: Sequence[Sequence[str]],
    groups: Sequence[str],
    correct: Sequence[Sequence[bool | None]],
    ks: Sequence[int],
    *,
    found: Sequence[Sequence[str]] | None = None,
    max_out_len: int | None = None,
    count_tokens: Callable[[str], int] | None = None,
    length_truncation: bool | None = None,
) -> dict[str, Any]:
    """The ``health`` section for q questions of n replies each.

    *groups* names each question's split × language group; *found* (how each answer was
    located) marks unclosed thinking as ``'truncated'``; *count_tokens* is the model's
    tokenizer (None: :func:`approx_token_count`). *length_truncation*: None checks lengths
    when *max_out_len* is known, True demands it (ValueError naming the setting without
    it), False skips the check.
    """
    if length_truncation and max_out_len is None:
        raise ValueError(
            "length_truncation: needs the run's max_out_len (set max_out_len in the model "
            "config or run_record), or leave length_truncation unset"
        )
    check_length = max_out_len is not None and length_truncation is not False
    q = len(responses)
    n = len(responses[0]) if q else 0
    # one integer id per distinct reply: identity, emptiness and length are computed once each
    index: dict[str, int] = {}
    ids = np.array(
        [[index.setdefault(r, len(index)) for r in row] for row in responses], dtype=np.int64
    ).reshape(q, n)
    texts = list(index)
    empty_d = np.array([not t.strip() for t in texts], dtype=bool)
    if max_out_len is not None and check_length:
        counter = count_tokens or approx_token_count
        long_d = np.array([counter(t) >= max_out_len for t in texts], dtype=np.bool_)
    else:
        long_d = np.zeros(len(texts), dtype=bool)
    thinking = (
        np.array([[f == TRUNCATED for f in row] for row in found], dtype=bool).reshape(q, n)
        if found is not None
        else np.zeros((q, n), dtype=bool)
    )
    judged = np.array([[v is not None for v in row] for row in correct], dtype=bool).reshape(q, n)
    empty, long = empty_d[ids], long_d[ids]
    ks = [int(k) for k in dict.fromkeys(ks)]
    args = (ids, empty, long, thinking, judged, ks)
    names = np.array(list(groups))
    out: dict[str, Any] = {
        "max_out_len": max_out_len,
        "length_basis": (
            ("tokenizer" if count_tokens else "approximate") if check_length else "not checked"
        ),
        "overall": _figures(np.arange(q), *args),
        "groups": {
            name: _figures(np.flatnonzero(names == name), *args)
            for name in sorted(set(groups))
            if name
        },
    }
    return out


def group_names(splits: Sequence[str], languages: Sequence[str]) -> list[str]:
    """Each question's group name (as in result keys)."""
    return [group_name(s, lang) for s, lang in zip(splits, languages)]
