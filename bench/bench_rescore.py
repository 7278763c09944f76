"""Benchmark: ``gpassk-oc rescore`` with the rules on 240 runs × 280 questions × n = 48.

Writes an OpenCompass 0.5.4-style work dir (the layout OpenCompass's own LiveMathBench
configs leave: dumped config, replica-major predictions, OpenCompass's own results with
labels reused across replicas) holding 240 (model, dataset) runs of 280 questions and
48 samples each — 3,225,600 samples. Each reply is a short synthetic solution ending in a
boxed answer: the gold with probability p (per model and question), else one of a few
wrong numbers; 3% have no box and 2% are unfinished thoughts. Then times, in-process,

    gpassk-oc rescore WORK -o OUT

(read every prediction, grade every sample by the rules, maj@k classes, health, the
results file and the comparison with OpenCompass's values, written under OUT). Generating the work dir is not
timed; Python start-up and imports are not timed either.

``--tool`` names the tool whose files are written (the layout of its real files in
tests/fixtures/harnesses/, filled with the same synthetic replies) and times the same
command: ``evalscope`` reviews (``{ts}/reviews/{model}/*.jsonl``, one line per sample,
beside ``configs/task_config.yaml``); ``lm-eval`` ``--log_samples`` output (one
``{model}/samples_{task}_{date}.jsonl`` per run, one line per question with its 48 replies,
and its ``results_{date}.json``); ``lighteval`` details (one
``details/openai/{model}/{date}/details_{task}|0_{date}.parquet`` per run, one row per
question, and its results file). ``--table`` measures every tool and writes
docs/generated/bench-rescore.md (the figures docs/benchmarks.md shows).

Rescore grades the runs in worker processes, one per usable core; each distinct (answer,
gold) pair is checked once per process (the rules' cache), each distinct reply read once
per run.

Last line: ``RESULT rescore_seconds=<wall> rescore_cpu_seconds=<CPU> goal_ratio=<wall/45>``
(the slowest tool measured, scaled to 240 runs; goal ≤ 45 s on 2 cores: a ratio ≤ 1 meets
it). ``--runs R`` for a smaller work dir.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import redirect_stderr
from pathlib import Path

from provenance import header

from gpassk_oc.cli import main as cli_main

RUNS, QUESTIONS, N = 240, 280, 48
GOAL_SECONDS = 45.0
REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "docs" / "generated" / "bench-rescore.md"
DATE = "2026-11-27T00-00-00.000000"
TS = "20250101_000000"
ABBR = "LiveMathBench_v202412"
SPLITS, LANGS = ["CNMO", "CCEE", "AMC", "WLPMC"], ["cn", "en"]
EVALUATOR = "opencompass.datasets.livemathbench.livemathbench.LiveMathBenchEvaluator"


def _config(models: list[str]) -> str:
    dataset = {
        "type": "opencompass.datasets.livemathbench.livemathbench.LiveMathBenchDataset",
        "abbr": ABBR,
        "path": "data/LiveMathBench",
        "version": "202412",
        "dataset_splits": SPLITS,
        "dataset_languages": LANGS,
        "k": [4, 16],
        "n": N,
        "eval_cfg": {
            "evaluator": {"type": EVALUATOR, "model_name": "judge", "url": ["http://j/v1"]}
        },
    }
    model_list = [
        {"type": "opencompass.models.OpenAISDK", "abbr": m, "path": m, "temperature": 0.7}
        for m in models
    ]
    return f"models = {model_list!r}\ndatasets = [{dataset!r}]\n"


def _reply(rng: random.Random, gold: int, p: float) -> str:
    u = rng.random()
    if u < 0.02:
        return f"<think>Let me compute step by step. So far \\boxed{{{gold}}} but wait"
    if u < 0.05:
        return "I could not finish this problem in time."
    answer = gold if rng.random() < p else gold + rng.choice((1, 2, -1, 10))
    return f"<think>Work it out.</think>The computation gives the result \\boxed{{{answer}}}."


def write_workdir(work: Path, runs: int, seed: int = 0) -> int:
    """The work dir; returns the bytes of prediction files written."""
    rng = random.Random(seed)
    run = work / TS
    models = [f"model-{i:03d}" for i in range(runs)]
    (run / "configs").mkdir(parents=True)
    (run / "configs" / f"{TS}_1.py").write_text(_config(models))
    golds = [rng.randint(2, 10_000) for _ in range(QUESTIONS)]
    prompts = [
        json.dumps([{"role": "HUMAN", "prompt": f"Problem {q}: compute the value of item {q}."}])
        for q in range(QUESTIONS)
    ]
    written = 0
    for m in models:
        ps = [rng.betavariate(0.7, 0.7) for _ in range(QUESTIONS)]
        replies = [[_reply(rng, golds[q], ps[q]) for _ in range(N)] for q in range(QUESTIONS)]
        parts = [
            f'"{r * QUESTIONS + q}": {{"origin_prompt": {prompts[q]}, '
            f'"prediction": {json.dumps(replies[q][r])}, "gold": "{golds[q]}"}}'
            for r in range(N)
            for q in range(QUESTIONS)
        ]
        text = "{" + ", ".join(parts) + "}"
        folder = run / "predictions" / m
        folder.mkdir(parents=True)
        (folder / f"{ABBR}.json").write_text(text)
        written += len(text)
        # OpenCompass's judge path: replica 0's label on every replica
        labels = [[int(f"\\boxed{{{golds[q]}}}." in replies[q][0])] * N for q in range(QUESTIONS)]
        results = {
            "G-Pass@16_0.5": 50.0,
            "mG-Pass@16": 50.0,
            "details": [
                {"example_abbr": f"{ABBR}_{q}", "correct": labels[q]} for q in range(QUESTIONS)
            ],
        }
        (run / "results" / m).mkdir(parents=True)
        (run / "results" / m / f"{ABBR}.json").write_text(json.dumps(results))
    return written


def _draws(
    runs: int, seed: int
) -> Iterator[tuple[int, str, random.Random, list[int], list[float]]]:
    """Per run: its index, model name, the shared rng, the golds and its per-question p."""
    rng = random.Random(seed)
    golds = [rng.randint(2, 10_000) for _ in range(QUESTIONS)]
    for i in range(runs):
        yield i, f"model-{i:03d}", rng, golds, [rng.betavariate(0.7, 0.7) for _ in range(QUESTIONS)]


def write_lm_eval(folder: Path, runs: int, seed: int = 0) -> int:
    """lm-eval ``--log_samples`` output of *runs* models; returns the bytes written."""
    written = 0
    for _, model, rng, golds, ps in _draws(runs, seed):
        lines = []
        for q in range(QUESTIONS):
            replies = [_reply(rng, golds[q], ps[q]) for _ in range(N)]
            doc = {
                "question": f"Problem {q}: compute the value of item {q}.",
                "answer": str(golds[q]),
            }
            first = replies[0].rpartition("\\boxed{")[2].partition("}")[0]
            lines.append(
                json.dumps(
                    {
                        "doc_id": q,
                        "doc": doc,
                        "target": str(golds[q]),
                        "arguments": {},
                        "resps": [replies],
                        "filtered_resps": [first],
                        "filter": "boxed",
                        "metrics": ["exact_match"],
                        "exact_match": float(first == str(golds[q])),
                    }
                )
            )
        (folder / model).mkdir(parents=True)
        text = "\n".join(lines) + "\n"
        (folder / model / f"samples_lmb_{DATE}.jsonl").write_text(text)
        config = {
            "repeats": N,
            "generation_kwargs": {"temperature": 0.7, "max_gen_toks": 4096},
            "filter_list": [
                {"name": "boxed", "filter": [{"function": "regex"}, {"function": "take_first"}]}
            ],
        }
        results = {"results": {"lmb": {}}, "configs": {"lmb": config}, "model_name": model}
        (folder / model / f"results_{DATE}.json").write_text(json.dumps(results))
        written += len(text)
    return written


def write_evalscope(folder: Path, runs: int, seed: int = 0) -> int:
    """evalscope reviews of *runs* models (one line per sample); returns the bytes written."""
    written = 0
    for i, model, rng, golds, ps in _draws(runs, seed):
        run = folder / f"20261127_{i:06d}"
        (run / "configs").mkdir(parents=True)
        (run / "configs" / "task_config.yaml").write_text(f"model: {model}\nrepeats: {N}\n")
        lines = [
            json.dumps(
                {
                    "target": [str(golds[q])],
                    "messages": [{"role": "user", "content": f"Problem {q}: compute item {q}."}],
                    "sample_score": {
                        "score": {"value": {}, "prediction": _reply(rng, golds[q], ps[q])},
                        "group_id": q,
                        "generation_index": r,
                    },
                }
            )
            for q in range(QUESTIONS)
            for r in range(N)
        ]
        (run / "reviews" / model).mkdir(parents=True)
        text = "\n".join(lines) + "\n"
        (run / "reviews" / model / "general_qa_lmb.jsonl").write_text(text)
        written += len(text)
    return written


def write_lighteval(folder: Path, runs: int, seed: int = 0) -> int:
    """lighteval details of *runs* models (one parquet row per question with its 48
    replies, and its results file); returns the bytes of details written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    written = 0
    for _, model, rng, golds, ps in _draws(runs, seed):
        rows = []
        for q in range(QUESTIONS):
            replies = [_reply(rng, golds[q], ps[q]) for _ in range(N)]
            right = sum(f"\\boxed{{{golds[q]}}}." in r for r in replies)
            rows.append(
                {
                    "doc": {
                        "query": f"Problem {q}: compute the value of item {q}.",
                        "choices": [str(golds[q])],
                        "gold_index": 0,
                        "num_samples": N,
                    },
                    "metric": {f"pass@k:k=1&n={N}": right / N},
                    "model_response": {"text": replies},
                }
            )
        day = folder / "details" / "openai" / model / DATE
        day.mkdir(parents=True)
        path = day / f"details_lmb|0_{DATE}.parquet"
        pq.write_table(pa.Table.from_pylist(rows), path)
        written += path.stat().st_size
        results = folder / "results" / "openai" / model
        results.mkdir(parents=True)
        general = {"model_config": {"generation_parameters": {"temperature": 0.7}}}
        (results / f"results_{DATE}.json").write_text(
            json.dumps({"results": {"lmb|0": {}}, "config_general": general})
        )
    return written


#: --tool: the writer of each tool's files
WRITERS = {
    "opencompass": write_workdir,
    "lm-eval": write_lm_eval,
    "evalscope": write_evalscope,
    "lighteval": write_lighteval,
}


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the grading workers)."""
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(tool: str, runs: int) -> dict[str, float]:
    """Write *tool*'s files of *runs* runs, time ``rescore`` on them (wall and CPU seconds,
    workers included) and check it wrote one results file per run."""
    scratch = Path(tempfile.mkdtemp(prefix="gpassk-bench-rescore-"))
    try:
        start = time.monotonic()
        size = WRITERS[tool](scratch / "work", runs)
        print(
            f"{tool} work dir: {runs} runs × {QUESTIONS} questions × n={N} "
            f"({runs * QUESTIONS * N:,} samples, {size / 1e6:.0f} MB of predictions) "
            f"written in {time.monotonic() - start:.1f} s"
        )
        out = scratch / "out"
        wall, cpu = time.monotonic(), _cpu()
        log = io.StringIO()  # one summary line per run: kept out of BENCHMARKS.md
        with redirect_stderr(log):
            code = cli_main(["rescore", str(scratch / "work"), "-o", str(out)])
        wall, cpu = time.monotonic() - wall, _cpu() - cpu
        if code != 0:
            sys.exit(f"rescore failed with exit status {code}: {log.getvalue()[-2000:]}")
        print(f"rescore's log: {len(log.getvalue().splitlines())} lines, the last:")
        print(log.getvalue().splitlines()[-1][:300])
        files = sorted(out.glob("*/results/*/*.json"))
        if len(files) != runs:
            sys.exit(f"rescore wrote {len(files)} results files, expected {runs}")
        print(f"results files: {len(files)}; wall {wall:.1f} s, CPU {cpu:.1f} s (with workers)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"wall": wall, "cpu": cpu, "mb": size / 1e6}


def write_table(path: Path, runs: int, measured: dict[str, dict[str, float]]) -> None:
    """The measurements as docs/generated/bench-rescore.md (machine, revision, load)."""
    detail = (
        f"{runs} runs × {QUESTIONS} questions × n = {N} per tool; CPU seconds count the "
        "worker processes too (wall over CPU / cores: the machine was shared)"
    )
    lines = [
        *header(__file__, None, detail),
        "| tool | files (MB) | wall (s) | CPU (s) |",
        "|---|---|---|---|",
    ]
    for tool, m in measured.items():
        lines.append(f"| {tool} | {m['mb']:.0f} | {m['wall']:.1f} | {m['cpu']:.1f} |")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--tool", choices=tuple(WRITERS), default="opencompass")
    parser.add_argument(
        "--table", action="store_true", help=f"every tool, written to {TABLE.relative_to(REPO)}"
    )
    args = parser.parse_args()
    measured = {t: measure(t, args.runs) for t in (WRITERS if args.table else [args.tool])}
    if args.table:
        write_table(TABLE, args.runs, measured)
    # the slowest tool's figures, scaled to the full size
    worst = max(measured.values(), key=lambda m: m["wall"])
    scaled = worst["wall"] * RUNS / args.runs
    print(
        f"RESULT rescore_seconds={scaled:.1f} "
        f"rescore_cpu_seconds={worst['cpu'] * RUNS / args.runs:.1f} "
        f"goal_ratio={scaled / GOAL_SECONDS:.2f}"
    )


if __name__ == "__main__":
    main()
