"""Answer checking, one import away (pure core): a stable facade over the modules that do it.

* :mod:`.reasoning` — a reasoning trace split at its last closing think tag;
* :mod:`.extraction` — the final answer of a response and how it was found;
* :mod:`.canonical` — canonical forms and cheap classifiers of answer kinds;
* :mod:`.numeric` — closed numeric values without sympy (explicit number systems);
* :mod:`.structures` — intervals, finite sets, matrices;
* :mod:`.forms` — other writings of one value (percent, degrees, units, …);
* :mod:`.symbolic` — answers with variables: identities at generic points;
* :mod:`.notation` — notations a question may prescribe (a decimal against a fraction);
* :mod:`.rules` — the rule check (``'equal'`` / ``'wrong'`` / ``'undecided'``);
* :mod:`.mv_pool` — math-verify in worker processes with a deadline.

The full rule list is the docstring of :mod:`gpassk_oc.core.answers.rules`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpassk_oc._lazy_names import lazy_names

#: public name -> the module that defines it; loaded on first use (PEP 562): the report's
#: worker processes read results files through :mod:`.arguments` and :mod:`.reasoning`
#: alone, and the checking modules (mpmath, math-verify's pool, …) cost each ~0.25 s
_API = {
    "as_choice": "gpassk_oc.core.answers.canonical",
    "as_rational": "gpassk_oc.core.answers.canonical",
    "as_text": "gpassk_oc.core.answers.canonical",
    "canonical_answer": "gpassk_oc.core.answers.canonical",
    "is_plain_math": "gpassk_oc.core.answers.canonical",
    "answers_equivalent": "gpassk_oc.core.answers.checking",
    "check_answer": "gpassk_oc.core.answers.checking",
    "check_answers": "gpassk_oc.core.answers.checking",
    "Extraction": "gpassk_oc.core.answers.extraction",
    "boxed_answers": "gpassk_oc.core.answers.extraction",
    "extract_answer": "gpassk_oc.core.answers.extraction",
    "extract_final_answer": "gpassk_oc.core.answers.extraction",
    "extract_reply": "gpassk_oc.core.answers.extraction",
    "MathVerifyPool": "gpassk_oc.core.answers.mv_pool",
    "default_pool": "gpassk_oc.core.answers.mv_pool",
    "Outcome": "gpassk_oc.core.answers.numeric",
    "numeric_value": "gpassk_oc.core.answers.numeric",
    "DEFAULT_THINK_TAGS": "gpassk_oc.core.answers.reasoning",
    "ReplyParts": "gpassk_oc.core.answers.reasoning",
    "ThinkTags": "gpassk_oc.core.answers.reasoning",
    "split_reply": "gpassk_oc.core.answers.reasoning",
    "fast_check": "gpassk_oc.core.answers.rules",
    "symbolic_check": "gpassk_oc.core.answers.rules",
    "text_check": "gpassk_oc.core.answers.rules",
}

if TYPE_CHECKING:  # the static view of what __getattr__ provides
    from gpassk_oc.core.answers.canonical import (
        as_choice,
        as_rational,
        as_text,
        canonical_answer,
        is_plain_math,
    )
    from gpassk_oc.core.answers.checking import answers_equivalent, check_answer, check_answers
    from gpassk_oc.core.answers.extraction import (
        Extraction,
        boxed_answers,
        extract_answer,
        extract_final_answer,
        extract_reply,
    )
    from gpassk_oc.core.answers.mv_pool import MathVerifyPool, default_pool
    from gpassk_oc.core.answers.numeric import Outcome, numeric_value
    from gpassk_oc.core.answers.reasoning import (
        DEFAULT_THINK_TAGS,
        ReplyParts,
        ThinkTags,
        split_reply,
    )
    from gpassk_oc.core.answers.rules import (
        fast_check,
        symbolic_check,
        text_check,
    )

__all__ = [
    "DEFAULT_THINK_TAGS",
    "Extraction",
    "MathVerifyPool",
    "Outcome",
    "answers_equivalent",
    "as_choice",
    "as_rational",
    "as_text",
    "boxed_answers",
    "canonical_answer",
    "check_answer",
    "check_answers",
    "default_pool",
    "extract_answer",
    "extract_final_answer",
    "extract_reply",
    "fast_check",
    "is_plain_math",
    "numeric_value",
    "ReplyParts",
    "split_reply",
    "symbolic_check",
    "text_check",
    "ThinkTags",
]


__getattr__, __dir__ = lazy_names(globals(), _API)
