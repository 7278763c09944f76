"""The run record (core/runs/run_record.py), reading OpenCompass's dumped config
(gpassk_oc/workdir.py) and the evaluator's record sources (gpassk_oc/evaluator_record.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpassk_oc.core.runs.results_file import ResultsError, read_results
from gpassk_oc.core.runs.run_record import (
    NOT_SENT,
    RunRecord,
    dataset_facts,
    engine_kind,
    model_facts,
)
from gpassk_oc.evaluator_record import check_run_record, resolve_record
from gpassk_oc.workdir import find_pair, load_dumped_config, missing_results

# a config as OpenCompass 0.5.4 dumps it: nested dicts as dict(...) calls, classes as strings
DUMPED = """\
datasets=[
    dict(abbr='my-data',
        dataset_languages=['en'],
        dataset_splits=['AMC', 'CCEE'],
        eval_cfg=dict(evaluator=dict(type='gpassk_oc.evaluators.GPassKEvaluator')),
        k=[2, 4],
        n=12,
        type='gpassk_oc.datasets.LiveMathBenchDataset',
        version='202412'),
    ]
models=[
    dict(abbr='hot', path='org/My-Model', temperature=1.0, max_out_len=64,
        openai_extra_kwargs=dict(top_p=0.9), type='gpassk_oc.models.OpenAICompatible'),
    dict(abbr='tm', path='/m/Qwen', max_out_len=128,
        gen_config=dict(do_sample=False, temperature=0.7, top_k=50, random_seed=7),
        type='opencompass.models.TurboMindModelwithChatTemplate'),
    ]
work_dir='outputs/20260101_000000'
not_a_literal = some_call()
"""


def _run_dir(tmp_path: Path) -> Path:
    run_dir = tmp_path / "20260101_000000"
    (run_dir / "configs").mkdir(parents=True)
    (run_dir / "configs" / "20260101_000000_1.py").write_text(DUMPED)
    return run_dir


def test_dumped_config_gives_each_pairs_facts(tmp_path):
    config = load_dumped_config(_run_dir(tmp_path))
    assert config is not None and "not_a_literal" not in config.variables
    assert [(m["abbr"], d["abbr"]) for m, d in config.pairs()] == [
        ("hot", "my-data"),
        ("tm", "my-data"),
    ]
    model, dataset = find_pair(config, "hot", "my-data")
    facts = model_facts(model)
    assert (facts["engine"], facts["temperature"], facts["top_p"]) == ("openai-api", 1.0, 0.9)
    assert facts["top_k"] == facts["repetition_penalty"] == facts["seed"] == NOT_SENT
    assert (facts["max_out_len"], facts["model_path"]) == (64, "org/My-Model")
    # TurboMind with do_sample=False decodes greedily: temperature 0 whatever is written
    tm = model_facts(find_pair(config, "tm", "my-data")[0])
    assert (tm["engine"], tm["temperature"], tm["top_k"], tm["seed"]) == ("turbomind", 0.0, 50, 7)
    assert dataset_facts(dataset) == {
        "dataset_abbr": "my-data",
        "dataset_version": "202412",
        "splits": ["AMC", "CCEE"],
        "languages": ["en"],
    }  # k and n: the run spec's (replication = n / max(k) there)


def test_engine_kinds():
    assert engine_kind("opencompass.models.TurboMindModelwithChatTemplate") == "turbomind"
    assert engine_kind("opencompass.models.OpenAISDK") == "openai-api"
    assert engine_kind("opencompass.models.HuggingFacewithChatTemplate") == "other"


def test_evaluator_reads_the_dumped_config_for_a_hand_written_run(tmp_path):
    run_dir = _run_dir(tmp_path)
    out_dir = run_dir / "results" / "hot" / "my-data"
    record = resolve_record(None, str(out_dir), check="rules", judge=None)
    assert (record.model_abbr, record.temperature, record.source) == ("hot", 1.0, "work-dir config")
    # the k list, τ list and n are the run spec's (results-file ``run``), not the record's
    assert record.base_model == "My-Model"
    assert not {"ks", "thresholds", "n", "replication"} & set(record.to_json())
    # a run_record kwarg for another model (a grid's shared dataset) is not used
    other = check_run_record({"model_abbr": "cold", "temperature": 0.1})
    record = resolve_record(other, str(out_dir), check="rules", judge=None)
    assert record.temperature == 1.0
    mine = check_run_record({"model_abbr": "hot", "temperature": 0.25, "seed": NOT_SENT})
    record = resolve_record(mine, str(out_dir), check="rules", judge=None)
    assert (record.temperature, record.seed, record.source) == (0.25, NOT_SENT, "generator")
    # nowhere to read from: unknown, not guessed
    record = resolve_record(None, None, check="rules", judge=None)
    assert record.temperature is None and "temperature" in record.unknown()


@pytest.mark.parametrize(
    "kwarg, message",
    [
        ({"temperature": "hot"}, "run_record.temperature: need a number or 'not sent'"),
        ({"max_out_len": 1.5}, "run_record.max_out_len: need a non-negative integer"),
        ({"ks": [2]}, "run_record.ks: not a field the config sets"),
        ({"colour": 1}, "run_record.colour: not a field the config sets"),
    ],
)
def test_bad_run_record_kwarg_is_one_line(kwarg, message):
    with pytest.raises(ValueError) as info:
        check_run_record(kwarg)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_record_round_trips_and_bad_types_name_file_and_field(tmp_path):
    record = RunRecord("a", "d", temperature=0.5, seed=NOT_SENT, splits=("AMC",))
    assert RunRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    path = tmp_path / "r.json"
    data = {
        "schema": "gpassk_oc.results/3",
        "run": {"n": 2, "num_questions": 1, "ks": [2]},
        "details": [{"correct": [True, False]}],
        "record": {**record.to_json(), "engine": "vllm"},
    }
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError) as info:
        read_results(path)
    assert str(info.value) == (
        f"{path}: record.engine: need one of turbomind, openai-api, other or null, got 'vllm'"
    )
    data["record"]["engine"] = "turbomind"
    path.write_text(json.dumps(data))
    assert read_results(path).record.engine == "turbomind"


def test_missing_results_name_the_task_log(tmp_path):
    run_dir = _run_dir(tmp_path)
    (run_dir / "results" / "hot").mkdir(parents=True)
    (run_dir / "results" / "hot" / "my-data.json").write_text("{}")
    log = run_dir / "logs" / "infer" / "tm" / "my-data.out"
    log.parent.mkdir(parents=True)
    log.write_text("Traceback ...")
    (line,) = missing_results(run_dir)
    assert "configured tm/my-data has no results file (inference failed" in line
    assert line.endswith(f"see {log}")
    # predictions without results: the evaluation failed; its log is named
    (run_dir / "predictions" / "tm").mkdir(parents=True)
    (run_dir / "predictions" / "tm" / "my-data.json").write_text("{}")
    (line,) = missing_results(run_dir)
    assert "(evaluation failed" in line and str(run_dir / "logs" / "eval" / "tm") in line


def test_inferencer_budget_wins_and_odd_values_are_unknown():
    # OpenCompass's infer task uses the dataset inferencer's max_out_len when it sets one
    dataset = {"abbr": "d", "infer_cfg": {"inferencer": {"max_out_len": 256}}}
    model = {"abbr": "m", "type": "x.OpenAISDK", "max_out_len": 4096, "temperature": "{T}"}
    facts = {**model_facts(model), **dataset_facts(dataset)}
    assert facts["max_out_len"] == 256
    assert "max_out_len" not in dataset_facts({"abbr": "d"})
    # a value that is not a number is unknown, never a crash or a guess
    assert facts["temperature"] is None and RunRecord.from_json(facts).temperature is None
