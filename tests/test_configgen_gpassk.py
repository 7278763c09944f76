"""GPassK-style templates (models/datasets built by the template, as upstream GPassK's
opencompass_config_templates did) are rewritten onto gpassk_oc's dataset and evaluator,
named by the documented convention, with headers saying what changed and why.

The templates below follow the upstream shape (read_base of OpenCompass's
livemathbench_gen, a TurboMind/OpenAISDK model list, livemathbench_dataset.update(...),
the evaluator's model_name/url); expected names are written out by hand.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gpassk_oc import configgen
from gpassk_oc.configgen import TemplateError, build
from gpassk_oc.configgen.gpassk import REWRITE_NOTES

SECRET = "sk-upstream-0123456789-do-not-leak"

TURBOMIND = """
from itertools import product
from mmengine.config import read_base

with read_base():
    from opencompass.configs.datasets.livemathbench.livemathbench_gen import livemathbench_datasets

from opencompass.models import TurboMindModelwithChatTemplate

k = [4, 8, 16]
n = 48
version = '202412'
temperatures = [0.5, 1.0]
max_out_len = 8192
top_p = 0.8
top_k = 50
repetition_penalty = 1.0
random_seed = 42
eval_urls = {urls}
eval_model_name = 'Qwen/Qwen2.5-72B-Instruct'
llm_infos = [
    ('Qwen/Qwen2.5-7B-Instruct', 4, 64),
    ('deepseek-ai/deepseek-math-7b-rl', 8, 32),
]
models = [
    dict(type=TurboMindModelwithChatTemplate,
         abbr=info[0].split('/')[-1] + f'_t{{t}}_p{{top_p}}_k{{top_k}}_rp{{repetition_penalty}}'
              f'_rs{{random_seed}}_l{{max_out_len}}',
         path=info[0], engine_config=dict(tp=info[1]),
         gen_config=dict(do_sample=t > 0.01, temperature=t, top_p=top_p, top_k=top_k,
                         repetition_penalty=repetition_penalty, random_seed=random_seed),
         backend='turbomind', max_out_len=max_out_len, batch_size=info[2],
         run_cfg=dict(num_gpus=info[1]))
    for info, t in product(llm_infos, temperatures)
]
livemathbench_dataset = livemathbench_datasets[0]
livemathbench_dataset.update(dict(
    k=k, n=n, dataset_splits=['CNMO', 'AMC'], dataset_languages=['en'], cot=True,
    version=version,
    abbr=f'LiveMathBench-v{{version}}_k{{"-".join(map(str, k))}}_n{{n}}'))
livemathbench_dataset['eval_cfg']['evaluator'].update(dict(
    model_name=eval_model_name, url=eval_urls))
livemathbench_dataset['infer_cfg']['inferencer'].update(dict(max_out_len=max_out_len))
datasets = [livemathbench_dataset]
"""

OPENAI = f"""
from mmengine.config import read_base

with read_base():
    from opencompass.configs.datasets.livemathbench.livemathbench_gen import livemathbench_datasets

from opencompass.models import OpenAISDK

k = [4, 8, 16]
n = 48
version = '202412'
temperatures = [1.0]
max_out_len = 8192
eval_urls = []
eval_model_name = 'Qwen/Qwen2.5-72B-Instruct'
models = [
    dict(abbr='o3-mini-2025-01-31' + f'_t{{t}}_l{{max_out_len}}', type=OpenAISDK,
         path='o3-mini-2025-01-31', key='{SECRET}', query_per_second=8, batch_size=8,
         retry=20, run_cfg=dict(num_gpus=0))
    for t in temperatures
] + [
    dict(abbr='Deepseek-R1' + f'_t{{t}}_l{{max_out_len}}', type=OpenAISDK,
         path='deepseek-reasoner', key='{SECRET}', openai_api_base='https://api.deepseek.com',
         tokenizer_path='gpt-4o-2024-05-13', temperature=t, query_per_second=2,
         batch_size=8, retry=20, run_cfg=dict(num_gpus=0))
    for t in temperatures
]
livemathbench_dataset = livemathbench_datasets[0]
livemathbench_dataset.update(dict(k=k, n=n, version=version))
livemathbench_dataset['eval_cfg']['evaluator'].update(dict(
    model_name=eval_model_name, url=eval_urls))
datasets = [livemathbench_dataset]
"""


def write(tmp_path: Path, body: str, name: str = "upstream.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_turbomind_template_gets_convention_names_and_our_classes(tmp_path):
    plan = build(write(tmp_path, TURBOMIND.format(urls="[]")))
    # the upstream template's splits (CNMO, AMC) and English only: '-CNMO-AMC-en' in the abbr
    tail = "_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-CNMO-AMC-en-k4_8_16-r3.py"
    assert [c.name for c in plan.configs] == [
        "Qwen2.5-7B-Instruct_t0-5_p0-8" + tail,
        "Qwen2.5-7B-Instruct_t1-0_p0-8" + tail,
        "deepseek-math-7b-rl_t0-5_p0-8" + tail,
        "deepseek-math-7b-rl_t1-0_p0-8" + tail,
    ]
    for config in plan.configs:
        (model,), (dataset,) = config.data["models"], config.data["datasets"]
        assert model["type"] == "opencompass.models.TurboMindModelwithChatTemplate"
        assert "random_seed" not in model["gen_config"]  # existing decision: not sent
        assert model["gen_config"]["do_sample"] is True
        assert dataset["type"] == "gpassk_oc.datasets.LiveMathBenchDataset"
        evaluator = dict(dataset["eval_cfg"]["evaluator"])
        record = evaluator.pop("run_record")  # the settings the results file records
        assert evaluator == {"type": "gpassk_oc.evaluators.GPassKEvaluator", "k": [4, 8, 16]}
        temperature = 0.5 if "_t0-5_" in config.name else 1.0
        assert (record["engine"], record["temperature"], record["top_p"]) == (
            "turbomind",
            temperature,
            0.8,
        )
        assert (record["seed"], record["max_out_len"]) == ("not sent", 8192)
        # replication 3 = n / max(k) is the run spec's (dataset k and n below), not recorded
        assert "replication" not in record
        assert record["model_abbr"] == model["abbr"]
        assert (dataset["k"], dataset["n"]) == ([4, 8, 16], 48)
        assert (dataset["dataset_splits"], dataset["dataset_languages"]) == (
            ["CNMO", "AMC"],
            ["en"],
        )
        assert dataset["path"] == "opencompass/LiveMathBench"  # upstream left path=''
        assert config.header[2 : 2 + len(REWRITE_NOTES)] == REWRITE_NOTES
        for phrase in (
            "LiveMathBenchEvaluator crashes",
            "IndexError",
            "random_seed",
            "judge=dict(urls, model)",
            "prompt='opencompass'",
        ):  # what changed and why, in the file
            assert phrase in config.text.split("\n\n")[0], phrase
    deepseek = plan.configs[2].data["models"][0]
    assert (deepseek["engine_config"]["tp"], deepseek["batch_size"]) == (8, 32)
    assert (
        "eval_model_name: 'Qwen/Qwen2.5-72B-Instruct' set but eval_urls is empty: "
        "rule-based checking (as in GPassK); set eval_urls to use the judge"
    ) in plan.notes


def test_judge_urls_become_judge_dict_and_names_carry_the_judge(tmp_path):
    plan = build(write(tmp_path, TURBOMIND.format(urls="['http://10.0.0.5:23333/v1/']")))
    config = plan.configs[0]
    assert config.name == (
        "Qwen2.5-7B-Instruct_t0-5_p0-8_k50_rp1-0_rs42_l8192"
        "@LiveMathBench-v202412-CNMO-AMC-en-k4_8_16-r3-judge-Qwen2-5-72B-Instruct.py"
    )
    assert config.data["datasets"][0]["eval_cfg"]["evaluator"]["judge"] == {
        "urls": ["http://10.0.0.5:23333/v1/"],
        "model": "Qwen/Qwen2.5-72B-Instruct",
        "prompt": "opencompass",
    }  # the judge prompt upstream's evaluator sends


def test_openai_template_becomes_api_models_without_keys(tmp_path, capsys):
    path = write(tmp_path, OPENAI)
    plan = build(path)
    assert [c.name for c in plan.configs] == [
        "o3-mini-2025-01-31_t1-0_p1-0_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3.py",
        "Deepseek-R1_t1-0_p1-0_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3.py",
    ]
    o3, r1 = (c.data["models"][0] for c in plan.configs)
    assert (o3["type"], o3["path"], o3["openai_api_base"], o3["key"]) == (
        "gpassk_oc.models.OpenAICompatible",
        "o3-mini-2025-01-31",
        "https://api.openai.com/v1/",
        "ENV",
    )
    assert (r1["path"], r1["openai_api_base"], r1["query_per_second"], r1["retry"]) == (
        "deepseek-reasoner",
        "https://api.deepseek.com",
        2,
        20,
    )
    assert "tokenizer_path" not in r1  # a tiktoken name would be downloaded
    for config in plan.configs:
        assert SECRET not in config.text
    assert "models[0]: key dropped (files never carry keys; export OPENAI_API_KEY)" in plan.notes
    assert "models[1]: tokenizer_path dropped (offline-safe token counts)" in plan.notes
    assert configgen.main(["-tc", str(path), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert SECRET not in err
    assert err.splitlines()[0] == (
        "note: upstream.py: GPassK-style template rewritten onto "
        "gpassk_oc's dataset and evaluator with convention names "
        "(see the file headers)"
    )


def test_unsupported_model_type_names_the_field(tmp_path):
    body = OPENAI.replace(
        "from opencompass.models import OpenAISDK",
        "from opencompass.models import HuggingFacewithChatTemplate as OpenAISDK",
    )
    with pytest.raises(TemplateError) as info:
        build(write(tmp_path, body))
    assert str(info.value) == (
        "models[0]: model type 'HuggingFacewithChatTemplate' is not "
        "supported in GPassK-style templates (TurboMind or OpenAISDK); "
        "use a grid template"
    )


def test_bad_values_in_gpassk_style_template_fail_like_grid_ones(tmp_path):
    body = TURBOMIND.format(urls="[]").replace("temperatures = [0.5, 1.0]", "temperatures = [70]")
    with pytest.raises(TemplateError) as info:
        build(write(tmp_path, body))
    assert str(info.value) == "temperatures: temperature 70 is not in [0, 2]"
