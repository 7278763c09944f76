"""Benchmark: ``gpassk-oc report`` on a research grid — 240 runs × 280 questions × n = 48.

The work dir comes from :mod:`grid_workdir` (schema-valid, written through the evaluator's
own writer; ~1.7 MB per results file, ~400 MB in all) and is cached in ``--root`` (default
``/tmp/gpassk-grid-bench``; generating it takes a few minutes once).

Every measurement runs in a fresh process (``--child``), which reports its wall time and
peak RSS (``ru_maxrss``), and the largest sum of the resident memory of it and its worker
processes (sampled every 0.2 s): the report in markdown, JSON, CSV, and html with ``--plots`` and
the drill-down files, at 30, 60, 120 and 240 runs, and ``--k 1,2,4,8,16,32,48`` at 240.
"cold" is the first read of results files (no summary sidecars beside them yet: each file
is parsed in full and its sidecar written), with the default worker processes and, as the
reference, with ``--workers 1`` (one process); "warm" reads the sidecars. At the largest size every case runs ``--repeat`` times (default
3) and the median is kept. With
``--baseline REV`` the same commands also run on the code of git revision REV (extracted
with ``git archive``), at the sizes it can do in reasonable time, and the ratios are printed.

Goals (issue 25): report on 240 runs ≤ 10 s with intervals, ≤ 1 GB; cost linear in runs;
the html page ≤ 5 MB at 240 runs. Last line: ``RESULT ...`` with the 240-run numbers.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from provenance import header  # noqa: E402

SIZES = (30, 60, 120, 240)
KLIST = "1,2,4,8,16,32,48"


def child(argv: list[str]) -> None:
    """Run one report in this process; print {"seconds", "rss_mb", "code"} as JSON."""
    from gpassk_oc.cli import main as cli_main

    start = time.perf_counter()
    code = cli_main(["report", *argv])
    seconds = time.perf_counter() - start
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rss_mb": rss_mb, "code": code}))


def _group_rss_mb(group: int) -> float:
    """The resident memory of every process of process group *group*, summed (MB): read
    from /proc here, as starting ``ps`` this often would load the machine being measured."""
    import os

    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
            # fields after the command's closing parenthesis: state, ppid, pgrp, …
            if int(stat[stat.rindex(b")") + 2 :].split()[2]) != group:
                continue
            with open(f"/proc/{entry.name}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue  # the process ended meanwhile
    return total / 2**20


def measure(files: list[Path], extra: list[str], pythonpath: str | None = None) -> dict:
    """One report in a fresh process: its own figures, plus ``tree_mb``, the largest sum of
    the resident memory of the report and its worker processes (sampled every 0.2 s)."""
    import os

    env = None if pythonpath is None else {**os.environ, "PYTHONPATH": pythonpath}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", *map(str, files), *extra]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, start_new_session=True)
        tree_mb = 0.0
        while proc.poll() is None:
            tree_mb = max(tree_mb, _group_rss_mb(proc.pid))
            time.sleep(0.2)
        out.seek(0), err.seek(0)
        stdout, stderr = out.read(), err.read()
    lines = [x for x in stdout.splitlines() if x.startswith("{")]
    if proc.returncode != 0 or not lines:
        sys.exit(f"report failed: {' '.join(extra)}\n{stderr[-2000:]}")
    got: dict = json.loads(lines[-1])
    if got["code"] != 0:
        sys.exit(f"report exit {got['code']}: {' '.join(extra)}\n{stderr[-2000:]}")
    got["tree_mb"] = max(tree_mb, got["rss_mb"])
    return got


def drop_sidecars(files: list[Path]) -> None:
    from gpassk_oc.core.runs.results_summary import summary_path

    try:  # the drill-down sidecars too (a revision without them has none to drop)
        from gpassk_oc.core.runs.drill_fragment import drill_path
    except ImportError:
        drill_path = None
    for path in files:
        summary_path(path).unlink(missing_ok=True)
        if drill_path is not None:
            drill_path(path).unlink(missing_ok=True)


def baseline_tree(rev: str, into: Path, repo: Path = REPO) -> str:
    """The package of git revision *rev*, extracted under *into*; its PYTHONPATH."""
    data = subprocess.run(
        ["git", "-C", str(repo), "archive", rev, "gpassk_oc"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return str(into)


COLUMNS = ("markdown cold", "cold, 1 process", "markdown warm", "json", "csv", "html+plots")
TABLE = REPO / "docs" / "generated" / "bench-report-grid.md"


def grid_table(results: dict[tuple[str, int], dict], sizes: list[int]) -> str:
    """The measurements as a markdown table: seconds (wall) per format and size, peak RSS
    over the size's runs, the page's size, and the ``--k`` list at the largest size."""
    head = [
        "runs",
        *[f"{c} (s)" for c in COLUMNS],
        "peak RSS (MB)",
        "with workers (MB)",
        "page (MB)",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for size in sizes:
        got = [results.get((c, size)) for c in COLUMNS]
        rss = max(g["rss_mb"] for g in got if g)
        tree = max(g.get("tree_mb", 0) for g in got if g)
        page = results.get(("page", size), {}).get("mb")
        cells = [str(size), *[f"{g['seconds']:.1f}" if g else "–" for g in got], f"{rss:.0f}"]
        cells.append(f"{tree:.0f}")
        lines.append("| " + " | ".join(cells + [f"{page:.2f}" if page else "–"]) + " |")
    k = results.get((f"--k {KLIST}", max(sizes)))
    if k:
        lines.append(
            f"\nmarkdown with `--k {KLIST}` at {max(sizes)} runs: {k['seconds']:.1f} s, "
            f"{k['rss_mb']:.0f} MB peak RSS."
        )
    return "\n".join(lines)


def write_table(path: Path, table: str, sizes: list[int], repeat: int = 1) -> None:
    """*table* with the machine and revision it was measured on, for docs/benchmarks.md."""
    if str(path) == "-":
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    detail = f"sizes {sizes}; every figure is one fresh process (wall seconds)" + (
        f", at {max(sizes)} runs the median of {repeat}" if repeat > 1 else ""
    )
    path.write_text(
        "\n".join(header(__file__, None, detail)) + "\n" + table + "\n", encoding="utf-8"
    )
    print(f"wrote {path}")


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("/tmp/gpassk-grid-bench"))
    parser.add_argument("--baseline", default=None, metavar="REV")
    parser.add_argument("--baseline-runs", type=int, default=30)
    parser.add_argument("--repo", type=Path, default=REPO, help="git checkout for --baseline")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per case at the largest size (median kept)"
    )
    parser.add_argument(
        "--table",
        type=Path,
        default=TABLE,
        help="write the results table here (markdown; docs/benchmarks.md includes it); "
        "'-' for none",
    )
    args = parser.parse_args()
    from grid_workdir import write_workdir

    sizes = [int(s) for s in args.sizes.split(",")]
    start = time.perf_counter()
    files = list(write_workdir(args.root, runs=max(sizes)))
    total = sum(p.stat().st_size for p in files)
    print(
        f"work dir: {len(files)} runs, {total / 1e6:.0f} MB ({time.perf_counter() - start:.0f} s)"
    )
    results: dict[tuple[str, int], dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for size in sizes:
            subset = files[:size]
            cases = [
                ("cold, 1 process", ["--out", str(out / "r1.md"), "--workers", "1"]),
                ("markdown cold", ["--out", str(out / "r.md")]),
                ("markdown warm", ["--out", str(out / "r.md")]),
                ("json", ["--format", "json", "--out", str(out / "r.json")]),
                ("csv", ["--format", "csv", "--out", str(out / "r.csv")]),
                (
                    "html+plots",
                    [
                        "--format",
                        "html",
                        "--out",
                        str(out / f"p{size}.html"),
                        "--plots",
                        str(out / f"fig{size}"),
                    ],
                ),
            ]
            if size == max(sizes):
                cases.append((f"--k {KLIST}", ["--k", KLIST, "--out", str(out / "k.md")]))
            # the largest size, the goal's, is measured --repeat times (the median is kept:
            # a shared machine's page cache and neighbours move one run by ±30 %)
            repeat = args.repeat if size == max(sizes) else 1
            for name, extra in cases:
                runs = []
                for _ in range(repeat):
                    if "cold" in name:
                        drop_sidecars(subset)
                    runs.append(measure(subset, ["--force", *extra]))
                runs.sort(key=lambda r: r["seconds"])
                got = results[(name, size)] = runs[len(runs) // 2]
                spread = (
                    f"  (of {repeat}: {runs[0]['seconds']:.2f}–{runs[-1]['seconds']:.2f} s)"
                    if repeat > 1
                    else ""
                )
                print(
                    f"{size:4d} runs  {name:22s} {got['seconds']:6.2f} s  {got['rss_mb']:6.0f} MB"
                    + spread
                )
            page = out / f"p{size}.html"
            if not page.exists():
                continue
            drill = sum(p.stat().st_size for p in (out / f"p{size}_files").iterdir())
            results[("page", size)] = {"mb": page.stat().st_size / 1e6, "drill_mb": drill / 1e6}
            print(
                f"{size:4d} runs  page {page.stat().st_size / 1e6:.2f} MB, "
                f"drill-down files {drill / 1e6:.1f} MB"
            )
        if args.baseline:
            path = baseline_tree(args.baseline, out / "baseline", args.repo)
            size = args.baseline_runs
            for name, extra in [
                ("markdown", ["--out", str(out / "b.md")]),
                ("html", ["--format", "html", "--out", str(out / "b.html")]),
            ]:
                old = measure(files[:size], ["--force", *extra], path)
                new = results[("markdown warm" if name == "markdown" else "html+plots", size)]
                cold = results.get(("markdown cold", size))
                print(
                    f"baseline {args.baseline} {size} runs {name}: {old['seconds']:.2f} s "
                    f"{old['rss_mb']:.0f} MB; now {new['seconds']:.2f} s "
                    f"({old['seconds'] / new['seconds']:.1f}x faster"
                    + (
                        f", cold {old['seconds'] / cold['seconds']:.1f}x"
                        if cold and name == "markdown"
                        else ""
                    )
                    + f"), {new['rss_mb']:.0f} MB"
                )
            if (out / "b.html").exists():
                print(
                    f"baseline page at {size} runs: {(out / 'b.html').stat().st_size / 1e6:.2f} MB"
                )
    table = grid_table(results, sizes)
    print(table)
    if args.table is not None:
        write_table(args.table, table, sizes, args.repeat)
    top = max(sizes)
    per_run = {s: results[("markdown warm", s)]["seconds"] / s for s in sizes}
    print(
        "warm markdown seconds per run: "
        + ", ".join(f"{s}: {v * 1000:.1f} ms" for s, v in per_run.items())
    )
    one, many = results[("cold, 1 process", top)], results[("markdown cold", top)]
    print(
        f"first read at {top} runs: {many['seconds']:.1f} s with workers, {one['seconds']:.1f} s "
        f"in one process ({one['seconds'] / many['seconds']:.2f}x)"
    )
    print(
        f"RESULT report_{top}_cold_seconds={results[('markdown cold', top)]['seconds']:.2f} "
        f"report_{top}_warm_seconds={results[('markdown warm', top)]['seconds']:.2f} "
        f"html_{top}_seconds={results[('html+plots', top)]['seconds']:.2f} "
        f"peak_rss_mb={max(r.get('rss_mb', 0) for r in results.values()):.0f} "
        f"with_workers_mb={max(r.get('tree_mb', 0) for r in results.values()):.0f} "
        f"page_mb={results[('page', top)]['mb']:.2f}"
    )


if __name__ == "__main__":
    main()
