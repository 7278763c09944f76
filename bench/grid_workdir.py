"""A schema-valid synthetic work dir of a research grid, for ``bench_report_grid.py`` and
the page's browser test.

Shape (defaults): 20 models × 4 temperatures × 3 top_p = 240 runs, each 280 questions ×
n = 48 samples, one results file per run at
``{root}/{TS}/results/{model_abbr}/{DATASET}.json``. Every file goes through the
evaluator's own writer (:func:`gpassk_oc.core.runs.run_scoring.build_results`, with a
run record and run health), and is dumped the way OpenCompass dumps an evaluator's result
(``json.dump(..., ensure_ascii=False, indent=4)``), so its size is a real file's.

Per question a success rate p ~ Beta(a, b) that depends on the model and falls with the
temperature, a few wrong answers with Zipf-like popularity (vote classes for maj@k), 3%
of samples without an answer; replies are ~400-character texts so that ``health`` and the
file size are realistic (~1.7 MB per run).

The writer's exact maj@k takes ~5 s of CPU per run, so models share their samples in
:data:`DISTINCT` skill classes: model m reuses the samples of class ``m % DISTINCT`` at the
same temperature and top_p (its own run record replaces the record; every file is still
the writer's output). Rows of one class have equal numbers; the reading, grouping and
statistics cost the same as for 240 distinct runs.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from gpassk_oc.core.runs.run_health import group_names, run_health
from gpassk_oc.core.runs.run_record import RunRecord
from gpassk_oc.core.runs.run_scoring import ScoringInput, build_results
from gpassk_oc.core.runs.run_spec import RunSpec

TS = "20261125_000000"
DATASET = "LiveMathBench-v202412-k4_8_16_32-r48"
KS = [4, 8, 16, 32]
TEMPERATURES = (0.3, 0.6, 0.8, 1.0)
TOP_PS = (0.8, 0.95, 1.0)
DISTINCT = 5
SPLITS = [(s, lang) for s in ("AMC", "CNMO", "CCEE", "WLPMC") for lang in ("en", "cn")]


def grid(models: int = 20) -> list[tuple[str, float, float]]:
    """(model, temperature, top_p) of every run, in grid order."""
    return [(f"model-{m:02d}", t, p) for m in range(models) for t in TEMPERATURES for p in TOP_PS]


def model_abbr(model: str, temperature: float, top_p: float) -> str:
    return f"{model}_t{temperature:g}_p{top_p:g}".replace(".", "-")


def _questions(count: int) -> list[dict[str, str]]:
    rows = []
    for i in range(count):
        split, lang = SPLITS[i % len(SPLITS)]
        text = f"[{split}/{lang}] problem {i}: " + "Let x be a real number such that " * 6
        rows.append(
            {
                "question_id": f"{split}_{lang}_{i}",
                "split": split,
                "language": lang,
                "question_type": "short answer",
                "question": text + "find x.",
                "answer": str(i),
            }
        )
    return rows


def _samples(rng: np.random.Generator, p: float, n: int, gold: str) -> tuple[list, list, list]:
    """(extracted, correct, vote) of one question's n samples."""
    wrong = int(rng.integers(1, 6))
    popularity = 1.0 / np.arange(1, wrong + 1) ** 1.2
    popularity /= popularity.sum()
    extracted, correct, vote = [], [], []
    for u, hit, pick in zip(rng.random(n), rng.random(n) < p, rng.choice(wrong, n, p=popularity)):
        if u < 0.03:
            extracted.append(None)
            correct.append(False)
            vote.append(None)
        elif hit:
            extracted.append(gold)
            correct.append(True)
            vote.append(0)
        else:
            extracted.append(f"{gold}.{int(pick) + 1}")
            correct.append(False)
            vote.append(int(pick) + 1)
    return extracted, correct, vote


def results_dict(
    model: str, temperature: float, top_p: float, questions: int = 280, n: int = 48
) -> dict:
    """One run's result dict, built by the evaluator's writer."""
    index = int(model.rsplit("-", 1)[1]) % DISTINCT
    rng = np.random.default_rng([index, int(temperature * 100), int(top_p * 100)])
    rows = _questions(questions)
    skill = 0.3 + 0.6 * index / DISTINCT
    a, b = 2 * skill * (1.2 - 0.4 * temperature), 2 * (1 - skill) + 0.2
    extracted, correct, votes, vote_correct = [], [], [], []
    for row in rows:
        e, c, v = _samples(rng, float(rng.beta(a, b)), n, row["answer"])
        extracted.append(e)
        correct.append(c)
        votes.append(v)
        vote_correct.append(0 if any(c) else None)
    source = [["rule" if e is not None else "rule_undecided" for e in q] for q in extracted]
    found = [["boxed" if e is not None else "none" for e in q] for q in extracted]
    replies = [
        [
            f"Try {j}: we compute step by step. {'x = 1. ' * 60}\\boxed{{{e}}}"
            for j, e in enumerate(q)
        ]
        for q in extracted
    ]
    abbr = model_abbr(model, temperature, top_p)
    record = RunRecord(
        model_abbr=abbr,
        dataset_abbr=DATASET,
        model_path=f"/models/{model}",
        engine="turbomind",
        temperature=temperature,
        top_p=top_p,
        top_k=-1,
        repetition_penalty=1.0,
        seed=42,
        max_out_len=8192,
        dataset_version="202412",
        check="rules",
        source="generator",
    )
    ks = [k for k in KS if k <= n]  # a smaller grid (tests) keeps the ks it can reach
    health = run_health(
        replies,
        group_names([r["split"] for r in rows], [r["language"] for r in rows]),
        correct,
        ks,
        found=found,
    )
    samples = questions * n
    return build_results(
        ScoringInput(
            RunSpec.parse(ks).at_n(n),
            rows,
            extracted,
            correct,
            undecided_marked=True,
            source=source,
            found=found,
            accounting={"samples": samples, "rule_decided": samples, "no_answer": 0},
            check="rules",
            votes=votes,
            vote_correct=vote_correct,
            record=record,
            health=health,
        )
    )


def write_workdir(
    root: Path, models: int = 20, questions: int = 280, n: int = 48, runs: int | None = None
) -> Iterator[Path]:
    """Write the grid's results files under *root* (the first *runs* of the grid when
    given); yields each path. Files already there are kept (a cached work dir)."""
    shared: dict[tuple, Path] = {}  # skill class -> the file written first
    for model, temperature, top_p in grid(models)[:runs]:
        abbr = model_abbr(model, temperature, top_p)
        path = root / TS / "results" / abbr / f"{DATASET}.json"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            cls = (int(model.rsplit("-", 1)[1]) % DISTINCT, temperature, top_p)
            if cls in shared:
                data = json.loads(shared[cls].read_text(encoding="utf-8"))
            else:
                data = results_dict(model, temperature, top_p, questions, n)
            record = RunRecord.from_json(data["record"])
            data["record"] = dataclasses.replace(
                record, model_abbr=abbr, model_path=f"/models/{model}"
            ).to_json()
            tmp = path.with_suffix(".tmp")
            with tmp.open("w", encoding="utf-8") as fh:
                json.dump(data, fh, ensure_ascii=False, indent=4)  # as OpenCompass dumps it
            tmp.replace(path)
        shared.setdefault((int(model.rsplit("-", 1)[1]) % DISTINCT, temperature, top_p), path)
        yield path
