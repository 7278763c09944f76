"""Benchmark: ``gpassk-oc report --verdict-error`` on a research grid — 240 runs × 280
questions × n = 48 — against the code before its speed-up, measured in the same run.

    .venv/bin/python bench/bench_report_corrected.py                 # the table, into the docs
    .venv/bin/python bench/bench_report_corrected.py --sizes 30 --baseline-sizes 30 --table -

The corrected table re-reads each run's whole results file (the verdicts per source, the
vote classes for maj@k), fits the difficulty prior through the channel and checks the
model against a shape-free prior by a parametric bootstrap (docs/verdict-error-and-ranks.md,
"When the model does not fit"), per row. The work dir is :mod:`grid_workdir`'s (cached in
``--root``, shared with ``bench_report_grid``); summary sidecars are warm, so the figures
are the corrections' cost on top of the tables'. Each figure is one fresh process (wall
seconds, peak RSS), the median of ``--repeat`` at the largest size: with the default
worker processes and with ``--workers 1``; the plain report (no corrections) beside them;
``--baseline REV`` (default: the revision before the speed-up) at ``--baseline-sizes``.
The stated rates (2% / 8%) are not those of the synthetic runs, so the model check
rejects most rows: every bootstrap runs its 200 tables (the check's worst case).
Last, ``report --audit`` with a labelled sheet of 400 verdicts (5% of the labels disagree)
on every run of the work dir, and at the baseline: no goal, the ratio is printed.

Goal: at 240 runs, ≤ 20 s with the default workers on 2 cores, and at least 3× faster than
the baseline. Last line: ``RESULT …``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from bench_report_grid import baseline_tree, measure
from grid_workdir import write_workdir
from provenance import header

OUT = Path(__file__).resolve().parent.parent / "docs" / "generated" / "bench-report-corrected.md"
RATES = "fp=0.02,fn=0.08"
#: the last revision before the corrections' speed-up (issue 35's model check made the
#: corrected report at 240 runs take a minute)
BASELINE = "6e2380b"
GOAL_SECONDS, GOAL_RATIO = 20.0, 3.0
#: the audit case: verdicts labelled, and the share of labels that disagree with them
AUDITED, FLIPPED = 400, 0.05


def _median(files: list[Path], extra: list[str], repeat: int, path: str | None = None) -> dict:
    runs = sorted((measure(files, extra, path) for _ in range(repeat)), key=lambda r: r["seconds"])
    return runs[len(runs) // 2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("/tmp/gpassk-grid-bench"))
    parser.add_argument("--sizes", default="30,60,120,240")
    parser.add_argument("--baseline", default=BASELINE, metavar="REV")
    parser.add_argument("--baseline-sizes", default="30,240")
    parser.add_argument("--repeat", type=int, default=3, help="runs at the largest size")
    parser.add_argument("--table", default=str(OUT), help="markdown out; '-' for none")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    base_sizes = [int(s) for s in args.baseline_sizes.split(",") if s]
    files = list(write_workdir(args.root, runs=max(sizes + base_sizes)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # summary sidecars written once: every case below reads them warm
        measure(files, ["--force", "--out", str(Path(tmp) / "warm.md")])
        base = baseline_tree(args.baseline, Path(tmp) / "baseline") if base_sizes else None
        for size in sizes:
            repeat = args.repeat if size == max(sizes) else 1
            sub, out = files[:size], ["--force", "--out", str(Path(tmp) / "r.md")]
            got = {
                "plain": _median(sub, out, repeat),
                "corrected": _median(sub, [*out, "--verdict-error", RATES], repeat),
                "one process": _median(
                    sub, [*out, "--verdict-error", RATES, "--workers", "1"], repeat
                ),
            }
            if base is not None and size in base_sizes:
                got["baseline"] = _median(sub, [*out, "--verdict-error", RATES], 1, base)
            rows.append((size, got))
            print(size, {k: round(v["seconds"], 2) for k, v in got.items()}, flush=True)
        audited = _audit_case(args.root, Path(tmp), base)
    lines = _table(rows, args.baseline) + ["", _audit_line(audited, args.baseline)]
    print("\n".join(lines))
    if args.table != "-":
        detail = f"rates {RATES}; wall seconds, one fresh process each; baseline {args.baseline}"
        Path(args.table).write_text("\n".join([*header(__file__, None, detail), *lines]) + "\n")
    return _verdict(rows)


def _labelled_sheet(root: Path, tmp: Path) -> Path:
    """An audit sheet of the work dir (``gpassk-oc audit``, 400 verdicts), labelled as
    its verdicts say but for a seeded 5% that disagree (so both rates are above 0)."""
    import contextlib
    import csv
    import io
    import random

    from gpassk_oc.cli import main as cli_main

    sheet = tmp / "sheet.csv"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(["audit", str(root), "--size", str(AUDITED), "-o", str(sheet)])
    if code != 0:
        sys.exit(f"gpassk-oc audit failed: exit {code}")
    with sheet.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    rng = random.Random(35)
    for row in rows:
        right = (row["verdict"] == "correct") != (rng.random() < FLIPPED)
        row["label"] = "yes" if right else "no"
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return sheet


def _audit_case(root: Path, tmp: Path, base: str | None) -> dict:
    """``report --audit`` on every run of the work dir (the sheet names them all), now
    and (with *base*) at the baseline."""
    sheet = _labelled_sheet(root, tmp)
    every = sorted(root.rglob("results/*/*.json"))
    extra = ["--force", "--out", str(tmp / "a.md"), "--audit", str(sheet)]
    got = {"runs": len(every), "now": _median(every, extra, 1)}
    if base is not None:
        got["baseline"] = _median(every, extra, 1, base)
    print("audit", {k: v if k == "runs" else round(v["seconds"], 2) for k, v in got.items()})
    return got


def _audit_line(got: dict, baseline: str) -> str:
    line = f"`--audit` ({AUDITED} labels, {FLIPPED:.0%} of them disagreeing with the verdict) "
    line += f"on all {got['runs']} runs: {got['now']['seconds']:.1f} s with the default workers"
    if "baseline" in got:
        old = got["baseline"]["seconds"]
        line += f"; baseline `{baseline}` {old:.1f} s ({old / got['now']['seconds']:.1f}× faster)"
    return line + "."


def _table(rows: list[tuple[int, dict]], baseline: str) -> list[str]:
    head = "| runs | report (s) | with --verdict-error (s) | same, 1 process (s) | "
    head += f"baseline `{baseline}` (s) | faster | peak RSS (MB) |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    for size, got in rows:
        old = got.get("baseline")
        ratio = f"{old['seconds'] / got['corrected']['seconds']:.1f}×" if old else "–"
        cells = [str(size)] + [f"{got[k]['seconds']:.1f}" for k in ("plain", "corrected")]
        cells += [f"{got['one process']['seconds']:.1f}", f"{old['seconds']:.1f}" if old else "–"]
        cells += [ratio, f"{max(g['rss_mb'] for g in got.values()):.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _verdict(rows: list[tuple[int, dict]]) -> int:
    size, got = rows[-1]
    seconds = got["corrected"]["seconds"]
    ratio = got["baseline"]["seconds"] / seconds if "baseline" in got else float("nan")
    ok = seconds <= GOAL_SECONDS and (ratio != ratio or ratio >= GOAL_RATIO)
    print(f"goal {'met' if ok else 'NOT met'}: ≤ {GOAL_SECONDS:.0f} s and ≥ {GOAL_RATIO:.0f}×")
    print(f"RESULT corrected_{size}_seconds={seconds:.2f} baseline_ratio={ratio:.2f} ok={ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
