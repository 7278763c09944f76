"""Shared helpers and fixtures of test_report.py, tests/test_compare.py, tests/test_report_options.py, tests/test_report_runs.py (registered in conftest.py)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gpassk_oc.cli import main
from gpassk_oc.core.data.naming import parse_dataset_abbr, parse_model_abbr
from gpassk_oc.log import use_cli_format

N = 48


KS = [4, 8, 16]


DATASET = "LiveMathBench-v202412-k4_8_16-r3"


GREEDY_DATASET = "LiveMathBench-v202412-k1-r1"


SPLITS = [("AMC", "en"), ("AMC", "cn"), ("CNMO", "en"), ("CNMO", "cn")]


PER_SPLIT = 6


TS = "20261122_031500"


def oracle_g(n: int, c: int, k: int, tau: Fraction) -> Fraction:
    m = max(math.ceil(tau * k), 1)
    return sum(
        (Fraction(math.comb(c, j) * math.comb(n - c, k - j)) for j in range(m, min(c, k) + 1)),
        Fraction(0),
    ) / math.comb(n, k)


def oracle(key: str, n: int, c: int) -> Fraction:
    if key.startswith("G-Pass@"):
        k, tau = key[len("G-Pass@") :].split("_")
        return oracle_g(n, c, int(k), Fraction(tau))
    k = int(key.split("@")[1])
    if key.startswith("mG-Pass@"):
        return Fraction(2, k) * sum(
            oracle_g(n, c, k, Fraction(i, k)) for i in range(k // 2 + 1, k + 1)
        )
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))  # pass@k


def oracle_mean(key: str, pairs) -> float:
    pairs = list(pairs)
    return float(100 * sum(oracle(key, n, c) for n, c in pairs) / len(pairs))


def questions():
    return [
        (split, lang, i, f"[{split}/{lang}] problem {i}: compute x.")
        for split, lang in SPLITS
        for i in range(PER_SPLIT)
    ]


def write_run(
    root: Path,
    model: str,
    dataset: str,
    cs,
    n: int,
    *,
    ts: str = TS,
    qs=None,
    rng=None,
    unjudged: int = 0,
    details: bool = True,
    top: dict | None = None,
    record: bool = True,
) -> Path:
    """One results JSON following the evaluator contract: schema 3 with a run record when
    *record* and the abbrs follow the naming convention (the test data is described by its
    names; the report under test reads only the record), else schema 1 (no record)."""
    rng = rng or np.random.default_rng(0)
    qs = qs or questions()
    out = root / ts / "results" / model / f"{dataset}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for (split, lang, index, text), c in zip(qs, cs):
        correct: list = [True] * int(c) + [False] * (n - int(c))
        rng.shuffle(correct)
        correct += [None] * unjudged  # unjudged samples are excluded from n
        rows.append(
            {
                "index": index,
                "split": split,
                "language": lang,
                "question_type": "short",
                "question": text,
                "gold": "1",
                "extracted": ["1"] * len(correct),
                "correct": correct,
                "c": int(c),
                "n": n,
            }
        )
    data = {
        "n": n + unjudged,
        "num_questions": len(qs),
        "ks": KS if n > 1 else [1],
        "unjudged": unjudged * len(qs),
        **(top or {}),
    }
    if details:
        data["details"] = rows
    facts = record_for(model, dataset) if record else None
    if facts is not None:
        data = {
            "schema": "gpassk_oc.results/3",
            **(top or {}),
            "run": {k: data[k] for k in ("n", "num_questions", "ks")},
            "accounting": {"unjudged": data["unjudged"]},
            "record": facts,
            **({"details": rows} if details else {}),
        }
    out.write_text(json.dumps(data))
    return out


def record_for(model: str, dataset: str) -> dict | None:
    """The run record a convention-named run would carry (None for other names)."""
    m, d = parse_model_abbr(model), parse_dataset_abbr(dataset)
    if m is None or d is None:
        return None
    return {
        "model_abbr": model,
        "dataset_abbr": dataset,
        "model_path": f"org/{m.model}",
        "engine": "openai-api",
        "temperature": m.temperature,
        "top_p": m.top_p,
        "top_k": m.top_k,
        "repetition_penalty": m.repetition_penalty,
        "seed": m.seed,
        "max_out_len": m.max_out_len,
        "dataset_version": d.version,
        "ks": list(d.ks),
        "replication": d.replication,
        "n": d.n,
        "source": "generator",
    }


def abbr(model: str, t: str, seed: int = 42, top_p: str = "0-95") -> str:
    return f"{model}_t{t}_p{top_p}_k-1_rp1-0_rs{seed}_l8192"


@pytest.fixture()
def workdir(tmp_path):
    """2 models × 2 temperatures + one greedy run per model, 2 splits × 2 languages."""
    rng = np.random.default_rng(7)
    q = len(questions())
    truth = {"qwen-7b": rng.beta(1.2, 1, q), "llama-8b": rng.beta(0.6, 1.4, q)}
    cs = {}
    for model, p in truth.items():
        for t in ("0-7", "1-0"):
            cs[abbr(model, t)] = rng.binomial(N, p)
            write_run(tmp_path, abbr(model, t), DATASET, cs[abbr(model, t)], N, rng=rng)
        greedy = abbr(model, "0-0", top_p="1-0")
        cs[greedy] = rng.binomial(1, p)
        write_run(tmp_path, greedy, GREEDY_DATASET, cs[greedy], 1, ts="20261122_051500", rng=rng)
    return tmp_path, cs


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    finally:  # the CLI's log sink is this test's captured stderr: do not leave it behind
        use_cli_format(sys.__stderr__)
    out, err = capsys.readouterr()
    return code, out, err


def report_json(capsys, *argv, greedy: bool = False) -> tuple[list[dict], str]:
    """The JSON rows (sampled rows only unless *greedy*) and stderr."""
    code, out, err = run_cli(capsys, "report", *argv, "--format", "json", "--resamples", "500")
    assert code == 0, err
    return [r for r in json.loads(out) if greedy or not r["greedy"]], err


def compare_rerun(capsys, root: Path, counts_a, counts_b, n: int, key: str) -> tuple[str, str, str]:
    """Two runs of these counts on the same questions, compared on *key*: the rerun
    interval's JSON status, the markdown row of *key* and the whole markdown."""
    a, b = abbr("a", "0-7"), abbr("b", "0-7")
    write_run(root, a, DATASET, counts_a, n, qs=questions()[: len(counts_a)])
    write_run(root, b, DATASET, counts_b, n, qs=questions()[: len(counts_b)])
    path_b = next(root.glob(f"*/results/{b}/{DATASET}.json"))
    args = ["compare", root, path_b, "--model-a", a, "--metrics", key, "--resamples", "200"]
    code, out, err = run_cli(capsys, *args, "--format", "json")
    assert code == 0, err
    status = json.loads(out)["metrics"][key]["rerun"]["status"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    return status, next(line for line in out.splitlines() if line.startswith(f"| {key} ")), out


def quick_bench(script: str, out: Path) -> subprocess.CompletedProcess:
    """Run ``bench/<script> --quick --table --out OUT`` from the repository, as the docs
    print it (bench/ imports gpassk_oc from this checkout through PYTHONPATH)."""
    root = Path(__file__).resolve().parents[1]
    return subprocess.run(
        [sys.executable, f"bench/{script}", "--quick", "--table", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=120,
    )


def quick_table(script: str, tmp: Path, result: str) -> str:
    """:func:`quick_bench` of *script*, checked: exit 0, the last line starting with
    *result*, the table written with its generated-by header; returns the table."""
    out = tmp / "table.md"
    proc = quick_bench(script, out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith(result), proc.stdout[-500:]
    table = out.read_text(encoding="utf-8")
    assert table.startswith(f"<!-- generated by bench/{script}")
    return table


class LegendReport:
    """The few attributes :func:`gpassk_oc.report.data.tables.legend` reads, for tests of
    the legend's wording alone: k = 8, no cell marked, mG-Pass@8 the sort metric (at
    k = 8 every headline metric is its own, so no merged column)."""

    level, n_boot, seed, k = 0.95, 200, 0, 8
    cells: dict = {}

    def __init__(self, interval: str = "rerun", n_boot: int = 200) -> None:
        self.interval, self.n_boot = interval, n_boot

    def sort_spec(self):
        from gpassk_oc.core.metrics.registry import parse_metric

        return parse_metric("mG-Pass@8")

    def same_metric_notes(self) -> list[str]:
        return []
