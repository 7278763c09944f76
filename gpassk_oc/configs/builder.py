"""The one builder behind the ready LiveMathBench dataset configs.

``livemathbench_gen``, ``livemathbench_greedy_gen`` and ``livemathbench_hard_gen`` are
mmengine config files that differ only in the data they select; each calls
:func:`livemathbench_dataset` with its settings. mmengine turns a config file's ``import``
statements into lazy references that cannot be called, so the config files reach this
module through ``__import__``, and the classes are given as mmengine ``LazyObject``s: the
same objects mmengine makes of a config's own imports, so the config dumps and builds
exactly as the former hand-written literals did (``tests/test_ready_configs.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from mmengine.config.lazy import LazyObject

from gpassk_oc.core.data.naming import dataset_abbr
from gpassk_oc.core.runs.run_spec import RunSpec, parse_ks

#: where each class of a dataset config is imported from (as the literals wrote it)
_CLASSES = {
    "GenInferencer": "opencompass.openicl.icl_inferencer",
    "PromptTemplate": "opencompass.openicl.icl_prompt_template",
    "ZeroRetriever": "opencompass.openicl.icl_retriever",
    "LiveMathBenchDataset": "gpassk_oc.datasets",
    "GPassKEvaluator": "gpassk_oc.evaluators",
}


def _lazy(name: str) -> LazyObject:
    return LazyObject(_CLASSES[name], name, location=f"gpassk_oc.configs.builder ({name})")


def livemathbench_dataset(
    *,
    version: str,
    splits: Sequence[str],
    languages: Sequence[str],
    k: int | Sequence[int],
    replication: int,
    max_out_len: int,
    name: str = "LiveMathBench",
    path: str = "opencompass/LiveMathBench",
) -> dict:
    """One LiveMathBench dataset config: ``n = replication · max(k)`` samples per question,
    the abbr by :func:`gpassk_oc.core.data.naming.dataset_abbr`, chain-of-thought prompts.

    *k* is kept as given (an int or a list), since OpenCompass configs write both.
    """
    spec = RunSpec.of_replication(parse_ks(k), replication)  # n = replication · max(k)
    ks = list(spec.ks)
    return dict(
        type=_lazy("LiveMathBenchDataset"),
        abbr=dataset_abbr(version, ks, replication, name=name),
        path=path,
        version=version,
        dataset_splits=list(splits),
        dataset_languages=list(languages),
        cot=True,
        k=k if isinstance(k, int) else ks,
        n=spec.n,
        reader_cfg=dict(input_columns=["prompt"], output_column="answer"),
        infer_cfg=dict(
            prompt_template=dict(
                type=_lazy("PromptTemplate"),
                template=dict(round=[dict(role="HUMAN", prompt="{prompt}")]),
            ),
            retriever=dict(type=_lazy("ZeroRetriever")),
            inferencer=dict(type=_lazy("GenInferencer"), max_out_len=max_out_len),
        ),
        eval_cfg=dict(evaluator=dict(type=_lazy("GPassKEvaluator"))),
    )
