# LiveMathBench v202412 (CNMO, CCEE, AMC, WLPMC × cn, en), greedy accuracy, k = 1, n = 1.
# An mmengine config file: import it inside read_base(); keep it literal (no calls).
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from gpassk_oc.datasets import LiveMathBenchDataset
from gpassk_oc.evaluators import GPassKEvaluator

livemathbench_dataset = dict(
    type=LiveMathBenchDataset,
    abbr="LiveMathBench-v202412-k1-r1",
    path="opencompass/LiveMathBench",
    version="202412",
    dataset_splits=["CNMO", "CCEE", "AMC", "WLPMC"],
    dataset_languages=["cn", "en"],
    cot=True,
    k=1,
    n=1,
    reader_cfg=dict(input_columns=["prompt"], output_column="answer"),
    infer_cfg=dict(
        prompt_template=dict(
            type=PromptTemplate, template=dict(round=[dict(role="HUMAN", prompt="{prompt}")])
        ),
        retriever=dict(type=ZeroRetriever),
        inferencer=dict(type=GenInferencer, max_out_len=8192),
    ),
    eval_cfg=dict(evaluator=dict(type=GPassKEvaluator)),
)

livemathbench_datasets = [livemathbench_dataset]
