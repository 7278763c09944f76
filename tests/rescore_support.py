"""Hand-built OpenCompass work dirs in the layout OpenCompass 0.5.4's own LiveMathBench
configs leave (tests of ``gpassk-oc rescore``; the bench builds its big one the same way).

``write_oc_workdir`` writes ``{work}/{ts}/configs/{ts}_1.py`` (the dumped config: plain
literals, classes as dotted strings), ``predictions/{model}/{abbr}.json`` (replica-major:
key ``r·Q + q`` is replica r of question q; optional shards) and, when labels are given,
OpenCompass's own ``results/{model}/{abbr}.json`` with its per-question ``correct`` lists
of 0/1 integers. Expected values in the tests come from how the replies were built, never
from the code under test.
"""

from __future__ import annotations

import json
import pprint
from collections.abc import Sequence
from pathlib import Path
from typing import Any

TS = "20250101_000000"
MODEL = "oc-model"
ABBR = "LiveMathBench_v202412"
LMB_EVALUATOR = "opencompass.datasets.livemathbench.livemathbench.LiveMathBenchEvaluator"
LMB_DATASET = "opencompass.datasets.livemathbench.livemathbench.LiveMathBenchDataset"

#: (split, language, question, gold): two splits × two languages, one question each…
QUESTIONS = [
    ("AMC", "en", "What is 7 + 5?", "12"),
    ("AMC", "en", "What is 6 times 7?", "42"),
    ("AMC", "cn", "计算 9 - 4。", "5"),
    ("CCEE", "en", "What is 100 / 4?", "25"),
    ("CCEE", "cn", "计算 3 的平方。", "9"),
]
SPLITS = ["AMC", "CCEE"]
LANGS = ["en", "cn"]


def prompt_of(question: str) -> str:
    """OpenCompass's LiveMathBench-style prompt around *question*."""
    return f"Solve the problem step by step. Put the answer in \\boxed{{}}.\n\n{question}"


def right(gold: str) -> str:
    return f"Adding it up carefully, the answer is \\boxed{{{gold}}}."


def wrong(gold: str) -> str:
    return f"After some work, the answer is \\boxed{{{int(gold) + 1}}}."


def dataset_cfg(
    n: int,
    ks: Sequence[int] | int,
    *,
    evaluator: dict[str, Any] | None = None,
    abbr: str = ABBR,
    splits: Sequence[str] = SPLITS,
    langs: Sequence[str] = LANGS,
) -> dict[str, Any]:
    return {
        "type": LMB_DATASET,
        "abbr": abbr,
        "path": "data/LiveMathBench",
        "version": "202412",
        "dataset_splits": list(splits),
        "dataset_languages": list(langs),
        "k": list(ks) if not isinstance(ks, int) else ks,
        "n": n,
        "reader_cfg": {"input_columns": ["prompt"], "output_column": "answer"},
        "eval_cfg": {
            "evaluator": evaluator or {"type": LMB_EVALUATOR, "model_name": "", "url": []}
        },
    }


def model_cfg(abbr: str = MODEL) -> dict[str, Any]:
    return {
        "type": "opencompass.models.OpenAISDK",
        "abbr": abbr,
        "path": "sim-model",
        "temperature": 0.7,
        "max_out_len": 512,
    }


def write_oc_workdir(
    work: Path,
    replies: Sequence[Sequence[str]],
    *,
    questions: Sequence[tuple[str, str, str, str]] = QUESTIONS,
    dataset: dict[str, Any] | None = None,
    labels: Sequence[Sequence[int]] | None = None,
    reported: dict[str, float] | None = None,
    shards: int = 1,
    ts: str = TS,
    extra_datasets: Sequence[dict[str, Any]] = (),
) -> Path:
    """An OpenCompass run dir under *work*; *replies*[q][r] is replica r of question q.
    Returns the run dir."""
    n = len(replies[0])
    dataset = dataset or dataset_cfg(n, [n])
    run = work / ts
    (run / "configs").mkdir(parents=True, exist_ok=True)
    config = {
        "models": [model_cfg()],
        "datasets": [dataset, *extra_datasets],
        "work_dir": str(work),
    }
    text = "".join(f"{k} = {pprint.pformat(v)}\n" for k, v in config.items())
    (run / "configs" / f"{ts}_1.py").write_text(text, encoding="utf-8")
    q = len(questions)
    entries = [
        {
            "origin_prompt": [{"role": "HUMAN", "prompt": prompt_of(questions[i][2])}],
            "prediction": replies[i][r],
            "gold": questions[i][3],
        }
        for r in range(n)
        for i in range(q)
    ]
    folder = run / "predictions" / MODEL
    folder.mkdir(parents=True, exist_ok=True)
    abbr = dataset["abbr"]
    if shards == 1:
        chunks = {f"{abbr}.json": entries}
    else:
        size = -(-len(entries) // shards)
        chunks = {f"{abbr}_{s}.json": entries[s * size : (s + 1) * size] for s in range(shards)}
    for name, chunk in chunks.items():
        data = {str(i): e for i, e in enumerate(chunk)}
        (folder / name).write_text(json.dumps(data, ensure_ascii=False, indent=4), encoding="utf-8")
    if labels is not None:
        write_oc_results(run, abbr, questions, replies, labels, reported or {})
    return run


def write_oc_results(
    run: Path,
    abbr: str,
    questions: Sequence[tuple[str, str, str, str]],
    replies: Sequence[Sequence[str]],
    labels: Sequence[Sequence[int]],
    reported: dict[str, float],
) -> Path:
    """OpenCompass's own results file: its metrics (*reported*) and per-question labels."""
    n = len(labels[0])
    details = [
        {
            "example_abbr": f"{abbr}_{i}",
            "pred": list(replies[i]),
            "ref": [questions[i][3]] * n,
            "correct": list(labels[i]),
        }
        for i in range(len(questions))
    ]
    data: dict[str, Any] = dict(reported)
    data.update({f"{abbr}/{k}": v for k, v in reported.items()})
    data["details"] = details
    path = run / "results" / MODEL / f"{abbr}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=4), encoding="utf-8")
    return path


def write_data(root: Path, questions: Sequence[tuple[str, str, str, str]] = QUESTIONS) -> Path:
    """The local LiveMathBench layout ``{root}/202412/{split}_{lang}.jsonl``."""
    files: dict[Path, list[str]] = {}
    for split, lang, question, gold in questions:
        record = {"question": question, "answer": gold, "question_type": "problem-solving"}
        files.setdefault(root / "202412" / f"{split}_{lang}.jsonl", []).append(
            json.dumps(record, ensure_ascii=False)
        )
    for path, lines in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under *folder* with its mtime and bytes (to prove nothing was written)."""
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    } | {str(p.relative_to(folder)) + "/": (0, b"") for p in folder.rglob("*") if p.is_dir()}
