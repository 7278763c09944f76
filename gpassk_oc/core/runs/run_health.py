"""Run health: the ways a run goes wrong that look like "unstable model" (pure core).

Computed by the evaluator from the predictions into the results file's ``health`` section,
per run (``overall``) and per split × language group (``groups``)::

    {"max_out_len": 8192,
     "length_basis": "finish_reason" | "tokenizer" | "approximate" | "not checked",
     "length_note": "...",                  # only when the server's finish reasons were not used
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

Length truncation is exact where the server said it: a reply whose finish reason is
``"length"`` (or an equivalent, :data:`~gpassk_oc.core.runs.reply_facts.LENGTH_REASONS`)
was cut, any other known reason was not (``length_basis='finish_reason'``, used when every
reply of the run has a known reason). Otherwise it counts a reply as cut when its token
count reaches ``max_out_len``: with the model's local tokenizer when the record names one (``length_basis='tokenizer'``), else
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
from gpassk_oc.core.runs.reply_facts import stopped_by_length
from gpassk_oc.core.vocabulary import Found

__all__ = ["CHARS_PER_TOKEN", "LENGTH_BASES", "approx_token_count", "run_health"]

_CJK_RE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
#: Characters per token assumed for non-CJK text. BPE tokenizers average ~4 characters
#: per token on English prose and fewer on LaTeX/digits; 3 slightly over-counts.
CHARS_PER_TOKEN = 3.0
LENGTH_BASES = ("finish_reason", "tokenizer", "approximate", "not checked")
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


def _reply_ids(responses: Sequence[Sequence[str]]) -> tuple[np.ndarray, list[str]]:
    """One integer id per distinct reply (q × n) and the distinct texts: identity,
    emptiness and length are then computed once per distinct reply."""
    q = len(responses)
    n = len(responses[0]) if q else 0
    index: dict[str, int] = {}
    ids = [[index.setdefault(r, len(index)) for r in row] for row in responses]
    return np.array(ids, dtype=np.int64).reshape(q, n), list(index)


def _by_reason(
    finish_reasons: Sequence[Sequence[str | None]] | None, shape: tuple[int, int]
) -> tuple[np.ndarray | None, str | None]:
    """(q × n "stopped by the length limit" flags, None) when the server gave a known
    finish reason for every reply; else (None, a note saying why the count falls back)."""
    if finish_reasons is None:
        return None, None
    flat = [r for row in finish_reasons for r in row]
    if len(flat) != shape[0] * shape[1]:
        raise ValueError(f"finish_reasons: need q={shape[0]} lists of n={shape[1]} entries")
    flags = [stopped_by_length(r) for r in flat]
    missing = sum(r is None for r in flat)
    unknown = sorted({r for r, f in zip(flat, flags) if r is not None and f is None})
    if missing or unknown:
        parts = [f"{missing} of {len(flat)} replies without a finish reason"] if missing else []
        if unknown:
            parts.append("unknown finish reasons " + ", ".join(repr(r) for r in unknown))
        return None, "the server's finish reasons not used: " + "; ".join(parts)
    return np.array(flags, dtype=bool).reshape(shape), None


def _length_check(
    ids: np.ndarray,
    texts: Sequence[str],
    max_out_len: int | None,
    count_tokens: Callable[[str], int] | None,
    length_truncation: bool | None,
    finish_reasons: Sequence[Sequence[str | None]] | None,
) -> tuple[np.ndarray, str, str | None]:
    """(q × n "cut by the length limit" flags, ``length_basis``, a fallback note or None):
    the server's finish reasons when every reply has a known one, else token counts
    against *max_out_len* (tokenizer or approximation), else nothing checked."""
    shape = (ids.shape[0], ids.shape[1])
    if length_truncation is False:
        return np.zeros(shape, dtype=bool), "not checked", None
    exact, note = _by_reason(finish_reasons, shape)
    if exact is not None:
        return exact, "finish_reason", None
    if length_truncation and max_out_len is None:
        raise ValueError(
            "length_truncation: needs the run's max_out_len (set max_out_len in the model "
            "config or run_record), or leave length_truncation unset"
        )
    if max_out_len is None:
        return np.zeros(shape, dtype=bool), "not checked", note
    counter = count_tokens or approx_token_count
    long_d = np.array([counter(t) >= max_out_len for t in texts], dtype=bool)
    return long_d[ids], ("tokenizer" if count_tokens else "approximate"), note


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
    finish_reasons: Sequence[Sequence[str | None]] | None = None,
) -> dict[str, Any]:
    """The ``health`` section for q questions of n replies each.

    *groups* names each question's split × language group; *found* (how each answer was
    located) marks unclosed thinking as ``'truncated'``; *finish_reasons* (q lists of n,
    None = not sent) are the server's: when every reply has a known one, length truncation
    is exactly the replies it stopped for length (``length_basis='finish_reason'``);
    otherwise lengths are counted with *count_tokens* (the model's tokenizer; None:
    :func:`approx_token_count`) and ``length_note`` says why the server's word was not used.
    *length_truncation*: None checks lengths when they can be, True demands it (ValueError
    naming the setting when neither finish reasons nor *max_out_len* allow it), False
    skips the check.
    """
    ids, texts = _reply_ids(responses)
    q, n = ids.shape
    long, basis, note = _length_check(
        ids, texts, max_out_len, count_tokens, length_truncation, finish_reasons
    )
    empty = np.array([not t.strip() for t in texts], dtype=bool)[ids]
    thinking = (
        np.array([[f == TRUNCATED for f in row] for row in found], dtype=bool).reshape(q, n)
        if found is not None
        else np.zeros((q, n), dtype=bool)
    )
    judged = np.array([[v is not None for v in row] for row in correct], dtype=bool).reshape(q, n)
    ks = [int(k) for k in dict.fromkeys(ks)]
    args = (ids, empty, long, thinking, judged, ks)
    names = np.array(list(groups))
    out: dict[str, Any] = {"max_out_len": max_out_len, "length_basis": basis}
    if note:
        out["length_note"] = note
    out["overall"] = _figures(np.arange(q), *args)
    out["groups"] = {
        name: _figures(np.flatnonzero(names == name), *args) for name in sorted(set(groups)) if name
    }
    return out


def group_names(splits: Sequence[str], languages: Sequence[str]) -> list[str]:
    """Each question's group name (as in result keys)."""
    return [group_name(s, lang) for s, lang in zip(splits, languages)]
