"""Strict parsing of a judge model's reply into yes / no / unparseable (pure core).

Two readers, chosen by the prompt the judge was given (:mod:`gpassk_oc.core.judging.judge`):
:func:`parse_verdict` for our own prompts and custom templates, and
:func:`parse_opencompass_verdict` for OpenCompass's LiveMathBench judge prompt.

:func:`parse_verdict` — the judge is asked to end with ``\\boxed{yes}`` or ``\\boxed{no}``:

* Only the **last** box counts (earlier boxes may quote the candidate's answer).
* Inside it we tolerate whitespace, case, trailing punctuation, doubled braces
  (``\\boxed{{yes}}``), any nesting of ``\\text{}``/``\\textbf{}``/``\\mathrm{}``/
  ``\\mathbf{}``, and the words ``yes/no``, ``true/false``, ``correct/incorrect``,
  Chinese ``是/否``, ``正确/错误``, ``对/错``, and the option letters ``A`` (= correct) /
  ``B`` (= incorrect) used by OpenCompass's generic judge template.
* Without any box, a reply that *is* a single verdict word (``yes``, ``No.``, ``是``) is
  accepted (small judges sometimes answer that way). Letters are not accepted outside a box.
* Anything else is unparseable (``None``): never "the first A or yes anywhere in the reply".

:func:`parse_opencompass_verdict` reads a reply exactly as OpenCompass's
``LiveMathBenchEvaluator`` does (``livemathbench.utils.extract_judge_label``: the content of
the last match of ``\\boxed{(.+?)}`` — lazy, so it stops at the first ``}``, and ``.``
does not cross a line break — scored correct only when it is exactly ``yes``), except that a
reply OpenCompass would score 0 *without* the judge having said no is unparseable here,
never a silent "wrong":

* ``yes`` exactly → ``'yes'`` (the only reading OpenCompass scores 1);
* ``no``, also with case, spaces, a full stop or a ``\\text{`` wrapper → ``'no'`` (OpenCompass
  scores 0 as well);
* no box, or any other content (``Yes``, ``\\text{yes}``, ``maybe``) → ``None``: OpenCompass
  scores it 0, but the judge did not say no, so the pair is retried and then unjudged.
"""

from __future__ import annotations

import re
from typing import Literal

from gpassk_oc.core.answers.extraction import boxed_answers

Verdict = Literal["yes", "no"]

_YES = {"yes", "y", "true", "correct", "是", "正确", "对", "a"}
_NO = {"no", "n", "false", "incorrect", "否", "错误", "错", "不正确", "b"}
_BARE_YES = {"yes", "是", "正确"}
_BARE_NO = {"no", "否", "错误", "不正确"}
_WRAPPER_RE = re.compile(r"^\\(?:text|textbf|textrm|mathrm|mathbf|mbox|texttt)\s*\{(.*)\}$", re.S)
_PUNCT = " \t\r\n.。!！:：,，;；'\"`*"
#: OpenCompass 0.5.4, opencompass/datasets/livemathbench/utils.py (extract_judge_label)
_OC_BOX_RE = re.compile(r"\\boxed{(.+?)}")
#: what may surround a "no" that OpenCompass also scores 0: wrappers, braces, space, stops
_OC_NO_NOISE_RE = re.compile(r"\\(?:text|textbf|textrm|mathrm|mathbf|mbox)\s*\{|[{}\s.。]")


def _normalise(token: str) -> str:
    previous = None
    while token != previous:  # unwrap {{yes}}, \text{Yes}, {\textbf{yes}} ... to a fixpoint
        previous = token
        token = token.strip().strip(_PUNCT)
        if token.startswith("{") and token.endswith("}"):
            token = token[1:-1]
        match = _WRAPPER_RE.match(token.strip())
        if match:
            token = match.group(1)
    return token.strip().lower()


def parse_verdict(reply: str | None) -> Verdict | None:
    """'yes', 'no', or None when the reply has no parseable final verdict."""
    if not reply:
        return None
    boxes = boxed_answers(reply)
    if not boxes:
        bare = _normalise(reply)
        if bare in _BARE_YES:
            return "yes"
        if bare in _BARE_NO:
            return "no"
        return None
    token = _normalise(boxes[-1])
    if token in _YES:
        return "yes"
    if token in _NO:
        return "no"
    return None


def opencompass_judge_label(reply: str | None) -> str | None:
    """The verdict text OpenCompass's LiveMathBench evaluator reads from *reply*: the content
    of the last ``\\boxed{(.+?)}`` match, or None. OpenCompass scores 1 iff it is ``'yes'``."""
    if isinstance(reply, str):
        matches = _OC_BOX_RE.findall(reply)
        if matches:
            return matches[-1]
    return None


def parse_opencompass_verdict(reply: str | None) -> Verdict | None:
    """'yes' / 'no' as OpenCompass reads a LiveMathBench judge reply; None where OpenCompass
    would score 0 although the judge did not say no (see the module docstring)."""
    label = opencompass_judge_label(reply)
    if label == "yes":
        return "yes"
    if label is not None and _OC_NO_NOISE_RE.sub("", label).lower() == "no":
        return "no"
    return None
