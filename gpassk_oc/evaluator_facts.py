"""The server's facts about each reply, found for the evaluator (adapter helper of
``GPassKEvaluator``).

:class:`gpassk_oc.models.OpenAICompatible` writes them next to the predictions file
(:mod:`gpassk_oc.core.runs.reply_facts`); here the eval task's ``_out_dir``
(``{ts}/results/{model}/{dataset}``) leads to ``{ts}/predictions/{model}/`` and its
sidecars, and each sample is looked up by (its prompt as OpenCompass stored it, its
prediction). A run by another model class has no sidecar: every fact is then unknown and
run health falls back to counting lengths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpassk_oc.core.runs.reply_facts import ReplyFacts, read_sidecars, reply_key, sidecar_path
from gpassk_oc.core.runs.run_scoring import group_replicas
from gpassk_oc.workdir import pair_of, prediction_files, run_dir_of

__all__ = ["reply_facts_of"]


def reply_facts_of(
    out_dir: str | None,
    score_kwargs: Mapping[str, Any],
    n: int,
    question_ids: Sequence[str] | None,
) -> list[list[ReplyFacts | None]] | None:
    """Per question, each of its n samples' facts (None: unknown), grouped as the
    evaluator groups the predictions; None when the task has no sidecar or no prompts.
    *score_kwargs* are the evaluator's: ``predictions`` as stored (before any
    postprocessor) and ``origin_prompt``."""
    predictions = list(score_kwargs["predictions"])
    prompts = score_kwargs.get("origin_prompt")
    model, dataset = pair_of(out_dir)
    run_dir = run_dir_of(out_dir) if out_dir else None
    if run_dir is None or model is None or dataset is None or prompts is None:
        return None
    files, _ = prediction_files(run_dir, model, dataset)
    facts = read_sidecars(sidecar_path(f) for f in files)
    if not facts:
        return None

    def lookup(i: int) -> ReplyFacts | None:
        reply = predictions[i]
        return facts.get(reply_key(prompts[i], reply)) if isinstance(reply, str) else None

    grouped = group_replicas(list(range(len(predictions))), n, question_ids)
    return [[lookup(i) for i in row] for row in grouped]
