# LiveMathBench v202505 hard (en), G-Pass@{4,8,16}, n = 48.
# An mmengine config file: import it inside read_base(); keep it literal (no calls).
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from gpassk_oc.datasets import LiveMathBenchDataset
from gpassk_oc.evaluators import GPassKEvaluator

livemathbench_dataset = dict(
    type=LiveMathBenchDataset,
    abbr="LiveMathBench-Hard-v202505-k4_8_16-r3",
    path="opencompass/LiveMathBench",
    version="202505",
    dataset_splits=["hard"],
    dataset_languages=["en"],
    cot=True,
    k=[4, 8, 16],
    n=48,
    reader_cfg=dict(input_columns=["prompt"], output_column="answer"),
    infer_cfg=dict(
        prompt_template=dict(
            type=PromptTemplate, template=dict(round=[dict(role="HUMAN", prompt="{prompt}")])
        ),
        retriever=dict(type=ZeroRetriever),
        inferencer=dict(type=GenInferencer, max_out_len=32768),
    ),
    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator)),
)

livemathbench_datasets = [livemathbench_dataset]
