"""Configs written by release 0.1.0 (tests/fixtures/configs_v0_1_0/) keep loading: mmengine
reads them, their evaluators build without the newer ``run_record`` kwarg, and the run
record is read from such a config as OpenCompass would dump it."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "configs_v0_1_0"
CONFIGS = sorted(FIXTURES.rglob("*.py"))


def test_there_are_fixture_configs():
    assert {p.parent.name for p in CONFIGS} == {"close", "demo", "nono1", "o1"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: f"{p.parent.name}/{p.name[:40]}")
def test_previous_release_config_loads_and_builds_its_evaluator(path):
    from mmengine.config import Config

    from gpassk_oc.core.runs.run_record import dataset_facts, model_facts
    from gpassk_oc.core.runs.run_spec import RunSpec
    from gpassk_oc.evaluators import GPassKEvaluator

    cfg = Config.fromfile(str(path))
    assert cfg.models and cfg.datasets
    for dataset in cfg.datasets:
        kwargs = dict(dataset["eval_cfg"]["evaluator"])
        assert kwargs.pop("type") in (GPassKEvaluator, "gpassk_oc.evaluators.GPassKEvaluator")
        assert "run_record" not in kwargs  # written before the record existed
        evaluator = GPassKEvaluator(**kwargs)
        assert evaluator.run_record is None  # the record comes from the work dir's dump
        facts = dataset_facts(dataset)
        spec = RunSpec.parse(dataset["k"], n=dataset["n"])  # the run spec of its k and n
        assert facts["dataset_version"] == "202412" and (spec.replication or 0) >= 1
    for model in cfg.models:
        facts = model_facts(model)
        assert facts["engine"] in ("turbomind", "openai-api")
        assert isinstance(facts["temperature"], float) and facts["max_out_len"] > 0
