"""OpenCompass evaluator adapter: ``gpassk_oc.evaluators.GPassKEvaluator``.

Registered in ``ICL_EVALUATORS`` as ``GPassKEvaluator`` (OpenCompass has no such name).
It replaces ``BaseEvaluator.evaluate`` entirely: OpenCompass's own grouping keys
questions by ``subdivision`` + ``idx`` and groups per-subdivision rows by
``abbr.split('_')[0]``, which breaks on abbrs such as ``LiveMathBench-v202412-k4_8_16-r3``.
Here replicas are grouped by position (checked against ``question_id``) and every
metric comes from the exact core (:func:`gpassk_oc.metrics.g_pass_table`).

Config::

    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator))            # rules, k from dataset
    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator, k=[4, 16],
                                 thresholds=[0.0, 0.5, 1.0]))
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from ._plugin import guarded_import, missing_name_hook
from .core.answers import answers_equivalent, canonical_answer, extract_final_answer
from .core.gpass_eval import build_results, group_replicas
from .metrics import DEFAULT_THRESHOLDS, MG_MODES, as_fraction

try:
    import math_verify  # noqa: F401  (rule checking needs it: fail at import, not mid-run)
    from opencompass.openicl.icl_evaluator import BaseEvaluator
    from opencompass.registry import ICL_EVALUATORS
except ImportError as _exc:  # surface the real cause in the task log (see _plugin)
    raise guarded_import(__name__, _exc) from _exc

__all__ = ["CHECK_MODES", "GPassKEvaluator"]

#: Ways of deciding whether a sample is correct. Only 'rules' is implemented here; the
#: judge pipeline plugs into :meth:`GPassKEvaluator._grade`.
CHECK_MODES = ("rules", "judge", "cascade")


def _as_ks(k: Union[int, Sequence[int]]) -> List[int]:
    ks = list(k) if isinstance(k, (list, tuple)) else [k]
    if not ks or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in ks):
        raise ValueError(f"k must be a positive int or a list of them, got {k!r}")
    return [int(v) for v in ks]


@ICL_EVALUATORS.register_module(name="GPassKEvaluator", force=False)
class GPassKEvaluator(BaseEvaluator):
    """G-Pass@k / mG-Pass@k / pass@1 over n replicas, overall and per split × language.

    Args:
        k: ks to report; default: the dataset config's ``k``.
        thresholds: τ values for ``G-Pass@k_τ`` (floats, strings like ``"3/4"``).
        check: ``'rules'`` (extract the last ``\\boxed{}`` and compare with math-verify).
            ``'judge'`` and ``'cascade'`` are accepted names but not available in this
            build: they raise ValueError.
        judge, max_unjudged, cache_dir: stored for the judge pipeline.
        mg_mode: ``'documented'`` (paper/OpenCompass, default) or ``'integral'``.
        pred_postprocessor: OpenCompass postprocessor applied before extraction; leave
            it unset: extraction of ``\\boxed{}`` answers is done here.
    """

    def __init__(self, k: Optional[Union[int, List[int]]] = None,
                 thresholds: Sequence[Any] = (0.0, 0.25, 0.5, 0.75, 1.0),
                 check: str = "rules", judge: Optional[Dict[str, Any]] = None,
                 max_unjudged: Optional[Union[int, float]] = None,
                 cache_dir: Optional[str] = None, mg_mode: str = "documented",
                 pred_postprocessor: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(pred_postprocessor=pred_postprocessor)
        if check not in CHECK_MODES:
            raise ValueError(f"check must be one of {CHECK_MODES}, got {check!r}")
        if check != "rules":
            raise ValueError(
                f"GPassKEvaluator(check={check!r}) is not available in this build yet; "
                "use check='rules' (rule-based checking of the final \\boxed{} answer)")
        self.k = None if k is None else _as_ks(k)
        self.thresholds = tuple(as_fraction(t, "thresholds") for t in thresholds) \
            if thresholds is not None else DEFAULT_THRESHOLDS
        if not self.thresholds:
            raise ValueError("thresholds must name at least one τ")
        self.check = check
        self.judge = judge
        self.max_unjudged = max_unjudged
        self.cache_dir = cache_dir
        if mg_mode not in MG_MODES:
            raise ValueError(f"mg_mode must be one of {MG_MODES}, got {mg_mode!r}")
        self.mg_mode = mg_mode

    # ----------------------------------------------------------------- grading
    def _grade(self, questions: Sequence[str], golds: Sequence[str],
               extracted: Sequence[Sequence[Optional[str]]],
               languages: Sequence[str]) -> List[List[Optional[bool]]]:
        """One verdict per sample: True / False / None (unjudged). Rules: math-verify.

        Answers are deduplicated per question by canonical form first, so each distinct
        answer is verified once.
        """
        verdicts: List[List[Optional[bool]]] = []
        for gold, answers in zip(golds, extracted):
            seen: Dict[str, bool] = {}
            row: List[Optional[bool]] = []
            for answer in answers:
                if answer is None:
                    row.append(False)
                    continue
                key = canonical_answer(answer)
                if key not in seen:
                    seen[key] = answers_equivalent(answer, gold)
                row.append(seen[key])
            verdicts.append(row)
        return verdicts

    # ----------------------------------------------------------------- OpenCompass API
    def evaluate(self, k: Union[int, List[int]], n: int, original_dataset: Any,
                 **score_kwargs: Any) -> Dict[str, Any]:
        """Called once by OpenCompass's eval task with all q·n predictions."""
        predictions = list(score_kwargs["predictions"])
        test_set = score_kwargs.get("test_set")
        if test_set is None:
            test_set = original_dataset
        references = score_kwargs.get("references")
        n = int(n)
        if len(predictions) != len(test_set):
            raise ValueError(f"{len(predictions)} predictions for {len(test_set)} rows")
        ks = [1] if n == 1 else (self.k or _as_ks(k))
        if max(ks) > n:
            raise ValueError(f"max(k)={max(ks)} exceeds n={n} samples per question")
        if self.pred_postprocessor:
            predictions = self.pred_postprocess(predictions)

        columns = set(test_set.column_names)
        size = len(test_set) // n if n else 0
        if "question_id" in columns:
            ids = [str(v) for v in test_set["question_id"]]
        elif "idx" in columns:  # a foreign dataset: BaseDataset's per-replica row index
            ids = [str(v) for v in test_set["idx"]]
        else:
            ids = None
        grouped = group_replicas(predictions, n, ids)
        first = test_set.select(range(size))

        def column(name: str, default: Any) -> List[Any]:
            return list(first[name]) if name in columns else [default] * size

        golds = column("answer", None)
        if any(g is None for g in golds) and references is not None:
            golds = list(references[:size])
        rows = [
            {"question_id": qid, "split": split, "language": lang, "question_type": qtype,
             "question": question, "answer": gold}
            for qid, split, lang, qtype, question, gold in zip(
                ids[:size] if ids else [str(i) for i in range(size)],
                column("split", "all"), column("language", "unknown"),
                column("question_type", ""), column("question", ""), golds)
        ]
        extracted = [[extract_final_answer(p if isinstance(p, str) else str(p or ""))
                      for p in preds] for preds in grouped]
        correct = self._grade([r["question"] for r in rows], [str(g) for g in golds],
                              extracted, [r["language"] for r in rows])
        return build_results(n=n, ks=ks, rows=rows, extracted=extracted, correct=correct,
                             thresholds=self.thresholds, mg_mode=self.mg_mode)

    def score(self, predictions: List[Any], references: List[Any],
              test_set: Any = None) -> Dict[str, Any]:
        """Per-sample rule check (usable as a CascadeEvaluator rule evaluator).

        Returns ``accuracy`` in percent and ``details`` with ``pred`` (extracted answer),
        ``answer`` (gold) and ``correct`` per sample.
        """
        if len(predictions) != len(references):
            return {"error": "predictions and references have different length"}
        extracted = [[extract_final_answer(p if isinstance(p, str) else str(p or ""))]
                     for p in predictions]
        golds = [str(r) for r in references]
        questions = list(test_set["question"]) if test_set is not None and \
            "question" in test_set.column_names else [""] * len(golds)
        verdicts = self._grade(questions, golds, extracted, [""] * len(golds))
        details = [{"pred": e[0], "answer": g, "correct": bool(v[0])}
                   for e, g, v in zip(extracted, golds, verdicts)]
        accuracy = 100.0 * sum(d["correct"] for d in details) / max(len(details), 1)
        return {"accuracy": accuracy, "details": details}


__getattr__ = missing_name_hook(__name__, __all__)
