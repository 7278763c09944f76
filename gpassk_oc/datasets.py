"""OpenCompass dataset adapter: ``gpassk_oc.datasets.LiveMathBenchDataset``.

Registered in OpenCompass's ``LOAD_DATASET`` as ``GPassKLiveMathBenchDataset`` (never
under OpenCompass's own ``LiveMathBenchDataset`` name, which the registry would silently
replace). In configs, import the class and use it as ``type``::

    from gpassk_oc.datasets import LiveMathBenchDataset
    dict(type=LiveMathBenchDataset, path='/data/LiveMathBench', version='202412',
         dataset_splits=['AMC', 'CCEE'], dataset_languages=['en', 'cn'], cot=True,
         k=[4, 8, 16], n=48, abbr='LiveMathBench-v202412-k4_8_16-r3',
         reader_cfg=dict(input_columns=['prompt'], output_column='answer'), ...)

All loading logic lives in :mod:`gpassk_oc.core.data.livemath_data`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpassk_oc._plugin import guarded_import, missing_name_hook
from gpassk_oc.core.data.livemath_data import COLUMNS, LiveMathDataError, load_records
from gpassk_oc.core.runs.run_spec import RunSpec, RunSpecError

try:
    from datasets import Dataset
    from opencompass.datasets.base import BaseDataset
    from opencompass.registry import LOAD_DATASET
except ImportError as _exc:  # surface the real cause in the task log (see _plugin)
    raise guarded_import(__name__, _exc) from _exc

__all__ = ["LiveMathBenchDataset", "LiveMathDataError", "REGISTRY_NAME"]

#: Name under which the class is registered in OpenCompass's LOAD_DATASET.
REGISTRY_NAME = "GPassKLiveMathBenchDataset"

_DEFAULT_READER_CFG = {"input_columns": ["prompt"], "output_column": "answer"}


@LOAD_DATASET.register_module(name=REGISTRY_NAME, force=False)
class LiveMathBenchDataset(BaseDataset):
    """LiveMathBench for OpenCompass, loaded strictly, with our own columns.

    Parameters are OpenCompass's (``path``, ``dataset_splits``, ``dataset_languages``,
    ``cot``, ``version``) plus BaseDataset's ``k``, ``n``, ``abbr``, ``reader_cfg``.
    Rows carry ``prompt`` (the model input), ``answer`` (gold), and ``split``,
    ``language``, ``question_type``, ``question``, ``question_id``, ``version``;
    BaseDataset then repeats the table n times and adds ``subdivision``/``idx``.
    Bad input raises :class:`~gpassk_oc.core.data.livemath_data.LiveMathDataError` at load.
    """

    def __init__(
        self,
        reader_cfg: dict[str, Any] | None = None,
        k: int | list[int] = 1,
        n: int = 1,
        **kwargs: Any,
    ) -> None:
        try:  # before loading: BaseDataset only asserts, after loading
            RunSpec.parse(k, n=n)
        except RunSpecError as exc:
            raise LiveMathDataError(str(exc)) from None
        super().__init__(reader_cfg=dict(reader_cfg or _DEFAULT_READER_CFG), k=k, n=n, **kwargs)

    @staticmethod
    def load(
        path: str = "opencompass/LiveMathBench",
        dataset_splits: Sequence[str] = ("CNMO", "CCEE", "AMC", "WLPMC"),
        dataset_languages: Sequence[str] = ("cn", "en"),
        cot: bool = True,
        version: str = "202412",
    ) -> Dataset:
        """Rows for every split × language, in that order (see core.livemath_data)."""
        records = load_records(
            path, list(dataset_splits), list(dataset_languages), cot=cot, version=str(version)
        )
        return Dataset.from_dict({col: [r[col] for r in records] for col in COLUMNS})


__getattr__ = missing_name_hook(__name__, __all__)
