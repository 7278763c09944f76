"""Benchmark: ``gpassk-oc report --k`` with 20 values of k on 1,000 questions × n = 48.

Writes one results file (schema 2, with per-sample votes) of 1,000 questions and 48
samples each: per question a success rate p ~ Beta(0.7, 0.7), a few wrong answers with
Zipf-like popularity, and 5% of samples without an answer — so the vote profiles are
varied (most questions have a profile of their own, the expensive case for maj@k). Then
times the whole report in-process (read, group, every metric at every k with bootstrap
CIs at the default 10,000 resamples, markdown written to a file):

    gpassk-oc report DIR --k 1,2,3,4,5,6,8,10,12,14,16,20,24,28,32,36,40,44,46,48 --out FILE

The report's own tables run too (at k = 48, every split × language), as they do for a
user. Python start-up and imports are not timed (they are the same for every report).

Last line: ``RESULT report_20k_seconds=<median wall time of 3 runs>
report_20k_cpu_seconds=<median CPU time>`` (goal ≤ 2 s on 2 cores; the CPU time tells the
work apart from other load on a shared machine).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from gpassk_oc.cli import main as cli_main

QUESTIONS, N = 1000, 48
KS = "1,2,3,4,5,6,8,10,12,14,16,20,24,28,32,36,40,44,46,48"
MODEL = "bench-model_t0-7_p0-95_k-1_rp1-0_rs42_l8192"
DATASET = "LiveMathBench-v202412-k4_8_16-r1"


def write_results(root: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    details = []
    for i in range(QUESTIONS):
        p = rng.beta(0.7, 0.7)
        wrong = rng.integers(1, 8)  # distinct wrong answers of this question
        popularity = 1.0 / np.arange(1, wrong + 1) ** 1.2
        draws = []
        for _ in range(N):
            u = rng.random()
            if u < 0.05:
                draws.append(None)
            elif rng.random() < p:
                draws.append(0)
            else:
                draws.append(int(rng.choice(wrong, p=popularity / popularity.sum())) + 1)
        split, language = ("AMC", "CNMO", "CCEE", "WLPMC")[i % 4], ("en", "cn")[i % 2]
        details.append(
            {
                "index": i,
                "question_id": f"{split}_{language}_{i}",
                "split": split,
                "language": language,
                "question": f"problem {i}",
                "gold": "1",
                "extracted": [None if v is None else str(v + 1) for v in draws],
                "correct": [v == 0 for v in draws],
                "vote": draws,
                "vote_correct": 0 if 0 in draws else None,
            }
        )
    data = {
        "schema": "gpassk_oc.results/2",
        "run": {"n": N, "num_questions": QUESTIONS, "ks": [4, 8, 16], "check": "rules"},
        "details": details,
    }
    path = root / "20261123_000000" / "results" / MODEL / f"{DATASET}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_results(root)
        out = root / "report.md"
        times, cpu = [], []
        for _ in range(3):
            start, start_cpu = time.perf_counter(), time.process_time()
            code = cli_main(["report", str(root), "--k", KS, "--out", str(out)])
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            if code != 0:
                sys.exit(f"report failed with exit code {code}")
        text = out.read_text()
        section = text[text.index("## Any k") :]
        section = section[: section.find("\n## ")]
        rows = [line for line in section.splitlines() if line.startswith(f"| {MODEL} |")]
        print(f"any-k table rows: {len(rows)} (expected 20)")
        print(f"wall per run: {[f'{t:.2f}' for t in times]} s; CPU: {[f'{t:.2f}' for t in cpu]} s")
        if len(rows) != 20:
            sys.exit(f"the any-k table has {len(rows)} rows for {MODEL}, expected 20")
        print(rows[-1])
    # wall time is the goal's measure; CPU time shows it apart from other load on the machine
    print(
        f"RESULT report_20k_seconds={statistics.median(times):.2f} "
        f"report_20k_cpu_seconds={statistics.median(cpu):.2f}"
    )


if __name__ == "__main__":
    main()
