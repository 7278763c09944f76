"""Judge-reply postprocessors for OpenCompass (strict: the last ``\\boxed{}`` only).

* ``livemath_judge_postprocess`` (TEXT_POSTPROCESSORS ``gpassk_livemath_judge``):
  a judge reply → ``'yes'`` / ``'no'`` / ``''`` (unparseable);
* ``livemath_judge_dict_postprocess`` (DICT_POSTPROCESSORS
  ``gpassk_livemath_judge_dict``): the ``dict_postprocessor`` of OpenCompass's
  ``GenericLLMEvaluator``. It receives the judge outputs ``{"0": {"prediction":
  judge_reply, "gold": ..., ...}, ...}`` and returns per-sample ``correct``
  (True / False / None), which OpenCompass's own G-Pass@k computation reads; an
  unparseable verdict is None (OpenCompass then counts it as not correct).

Parsing lives in :func:`gpassk_oc.core.judging.verdict.parse_verdict`.
"""

from __future__ import annotations

from typing import Any

from gpassk_oc._plugin import guarded_import, missing_name_hook
from gpassk_oc.core.judging.verdict import parse_verdict
from gpassk_oc.core.metrics.metric_keys import ACCURACY

try:
    from opencompass.registry import DICT_POSTPROCESSORS, TEXT_POSTPROCESSORS
except ImportError as _exc:  # surface the real cause in the task log (see _plugin)
    raise guarded_import(__name__, _exc) from _exc

__all__ = ["livemath_judge_dict_postprocess", "livemath_judge_postprocess"]


@TEXT_POSTPROCESSORS.register_module(name="gpassk_livemath_judge", force=False)
def livemath_judge_postprocess(text: str | None, **_: Any) -> str:
    """``'yes'``, ``'no'``, or ``''`` when the reply has no parseable final verdict.

    Extra keyword arguments from a postprocessor config are ignored.
    """
    return parse_verdict(text if isinstance(text, str) else None) or ""


@DICT_POSTPROCESSORS.register_module(name="gpassk_livemath_judge_dict", force=False)
def livemath_judge_dict_postprocess(
    output: dict[str, Any], output_path: str = "", **_: Any
) -> dict[str, Any]:
    """GenericLLMEvaluator ``dict_postprocessor``: verdicts → accuracy + per-sample correct.

    Returns ``accuracy`` (percent of samples judged yes, unparseable counted as not
    correct, like OpenCompass), ``unparseable`` (count) and ``details`` as a list in
    sample order, each with ``verdict`` ('yes'/'no'/None), ``correct`` and the judge
    reply under ``judge_reply``.
    """
    keys = sorted(output, key=lambda key: int(key) if str(key).isdigit() else str(key))
    details: list[dict[str, Any]] = []
    for key in keys:
        entry = output[key] if isinstance(output[key], dict) else {"prediction": output[key]}
        reply = entry.get("prediction")
        verdict = parse_verdict(reply if isinstance(reply, str) else None)
        details.append(
            {
                "verdict": verdict,
                "correct": None if verdict is None else verdict == "yes",
                "judge_reply": reply,
                "gold": entry.get("gold"),
            }
        )
    yes = sum(1 for d in details if d["correct"] is True)
    return {
        ACCURACY: 100.0 * yes / len(details) if details else 0.0,
        "unparseable": sum(1 for d in details if d["verdict"] is None),
        "details": details,
    }


__getattr__ = missing_name_hook(__name__, __all__)
