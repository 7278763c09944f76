"""The report of one fixed work dir, byte for byte, against files checked in.

The expected files under ``tests/fixtures/report_golden/`` were written by the code as it
stood BEFORE ``gpassk_oc/report/`` was reorganised by job (commit 2eb9458, issue 37), and
committed before that restructure: the test holds the restructured code to the old
output, not to itself. A change that is meant to change the output regenerates them in
the same commit and says why (``python tests/test_report_golden.py`` rewrites them).
Regenerated since: rows listed best first (issue 37, item 10; every file holds the same
lines as before but the caption that now says "the best first", only the rows' order
changed — checked when regenerating); then tables that say what they show (item 11: the
markdown ranks carry the rerun intervals their caption promises, the accounting and any-k
captions; CSV and JSON unchanged); then each JSON row's ``tokens`` list (issue 34: the
runs' output-token statistics, ``null`` for these files, which record no token counts;
nothing else changed); then six CSV columns ``tokens_*`` at the end of every line (issue
34: the same statistics, empty here; the lines without them are the old ones, checked);
then the page's script, whose drill-down shows each run's token statistics and each
sample's finish reason and output tokens where recorded (issue 34; only the inlined script
changed, the drill-down files did not: these files record no facts); then the page's
audit export, which writes a byte-order mark first so that Excel reads the sheet as UTF-8
(issue 35, item 7: one line of the inlined script; nothing else changed); then the rerun
intervals at n = 48 < 4k for k = 16 (issue 35, small tables and n = 2k: the unbiased
variances combined with the fitted Beta's, so every such interval is a little wider and
marked ``*``/``posterior``) and the legend's new ``*`` and ``[no width]`` text; in the
JSON only rerun bounds, SEs and statuses changed (checked field by field); then the corrected
table's flag (issue 35, clustered errors: ``corrected†`` in the header of every column
corrected with sample-level rates and a sentence on what † means under the table; only
corrected.md changed, its cells did not); then the rank
intervals, marginal at the level instead of Bonferroni within each row (issue 35, item 3:
only the benchmark rank intervals of the ranks table / CSV rank columns / JSON ranks
changed, narrower; the rerun ones and every other line are as before, checked), and the
ranks caption says the intervals are each row's own, not all rows' at once.
Then rerun intervals resting on fewer than 4 varying questions marked ``!``/``unreliable``
with the legend's line saying why (issue 35, item 4: 37 rerun statuses in the 6-question
split tables; in the JSON only ``status`` fields changed, checked; the page gains its note). Then the corrected
table's intervals (issue 35: they carry the error of the difficulty prior fitted to the
same questions, so most are wider; the values are unchanged, checked). Then rerun
intervals whose fitted Beta gives more than twice the shape-free grid prior's variance
marked ``+``/``wide`` with the legend's line saying why (issue 35, item 4: 2 statuses,
G-Pass@16_0.75 and G-Pass@16_0.5 in 6-question split tables at n = 48, went from
``posterior`` to ``wide``; in the JSON nothing else changed, checked; the page gains
the reason in those cells' tooltips, a note under the board and the class). Then the
'+' legend no longer tells a reader that n ≥ 4k gives an interval from the samples (a
question right in all or none of its samples has no unbiased variance at any n): it
points to the docs' section instead (legend text only). Then at n < 2k the larger of
the Beta's and the grid prior's summed variance (the legend says so; no value or bound of
these files changed, checked). Then the page's '+' note only under a board that shows
a '+' (report.html's script only). Then the fallback variances of metrics flat at both
ends (G-Pass@16_0.25, _0.5 and _0.75) from the grid prior instead of the Beta (issue 35,
item 4, ``Fallback.ends``): only those metrics' rerun bounds, SEs and statuses moved
(the 2 ``wide`` became ``posterior``), every other metric's cells are as before, checked;
the ``*`` legend names the grid fit for these metrics (legend text only). Then the page's
note explains '*' too where a shown cell carries it (report.html's script and page data).
Then the '!' legend and the page's '!' note name the second reason for the mark: n < 2k
for a metric that needs all k draws right (issue 35, item 4; legend text only: these
files have n = 48, so no status changed, checked). Then the corrected table's model
check: the llama-8b T=0.7 row's counts (drawn without verdict errors, corrected with
fp 5%, fn 10% stated) reject the correction's model, p < 0.01, so its six corrected
cells carry ``‡`` and the legend says why (only corrected.md changed; no value or bound).
Then the '!' legend and the page's '!' note name a third reason, and three intervals
carry it: more than 75% of a G-Pass@k_τ<1 interval's variance is the fitted prior's, not
the unbiased estimate (issue 35, item 4, ``Atoms.guessed``): G-Pass@16_0.5 and
G-Pass@16_0.75 (n = 48 < 4k) in three 6-question split tables went from ``posterior`` to
``unreliable`` (``*`` to ``!``); in the JSON and CSV only those three statuses changed,
checked; no value or bound moved. Then the markdown legend above the tables is a list,
one bullet per thing the tables show (layout, each interval kind, each mark, the three
reasons for ``!`` under it) instead of one paragraph: only the four markdown files'
heads changed (the same sentences), no table. Then the legend lists only the marks a cell
shows (issue 35, first reading): ``[n<2k]`` and ``[no width]``, which no cell of these
files shows, and the ``!`` reason "n < 2k", where every row has n = 48 ≥ 2k, left the four
markdown files' heads; nothing else changed. Then the page shows a cell without an
interval as ``[no width]`` with its note, as the markdown does (it was a bare value), and
its '!' note moved under the board beside the others, shown only where a cell carries
'!': report.html's script and one page-data key (``no_width_note``); no row data changed.
Then a benchmark interval of G-Pass@16_1.0 or mG-Pass@16 from fewer than 32 questions
(the 24- and 6-question tables) is marked '!' (status 'unreliable'), and the '!' legend
gains its reason: those cells, their CSV/JSON status, the legends and the page's '!'
tooltip text.
Then the ``[no width]`` note (page data) also names the other way a rerun interval has
none: every value the same for every plausible count (pass@k, fewer than k wrong).
Then an interval whose bounds round to one text at one decimal is printed with the
decimals (up to 4) that show its width (``[0.0, 0.0]`` cells became e.g. ``[0.00, 0.01]``),
and the legend's layout line says so; the page's tooltips likewise.
Then the page shows a rerun cell without an interval at n < 2k as ``[n<2k]`` with the
legend's reason, as the markdown does (it was a bare value): report.html's inlined script
and one page-data key (``short_note``); no row data changed (no cell here is n < 2k).
The page's drill-down gained a hint under "Export audit sheet (CSV)" pointing to
``audit -o SHEET.xlsx`` (a spreadsheet parses a CSV's cells): the script only.

The work dir is made here from fixed seeds (2 models × 2 temperatures, one greedy run
each, 2 splits × 2 languages), so the files need no OpenCompass run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from gpassk_oc.cli import main
from gpassk_oc.log import use_cli_format

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "fixtures" / "report_golden"

#: output name -> the report's flags (each also gets --resamples 500 and --out)
CASES = {
    "report.md": [],
    "report.csv": [],
    "report.json": [],
    "report.html": [],
    "sweep.md": ["--k", "4,8,16", "--interval", "both", "--tau", "0.5,1.0"],
    "corrected.md": ["--verdict-error", "fp=0.05,fn=0.1", "--interval", "both"],
    "plots.md": ["--plots", "out/figures"],
}


def make_workdir(root: Path) -> Path:
    """The fixed work dir (the same bytes on every call)."""
    sys.path.insert(0, str(HERE))
    from report_support import DATASET, GREEDY_DATASET, N, abbr, questions, write_run

    rng = np.random.default_rng(7)
    q = len(questions())
    truth = {"qwen-7b": rng.beta(1.2, 1, q), "llama-8b": rng.beta(0.6, 1.4, q)}
    for model, p in truth.items():
        for t in ("0-7", "1-0"):
            write_run(root, abbr(model, t), DATASET, rng.binomial(N, p), N, rng=rng)
        greedy = abbr(model, "0-0", top_p="1-0")
        write_run(
            root, greedy, GREEDY_DATASET, rng.binomial(1, p), 1, ts="20261122_051500", rng=rng
        )
    return root


def write_outputs(scratch: Path) -> dict[str, bytes]:
    """Every case's output (and the page's drill-down files) as {relative path: bytes},
    from the work dir made in *scratch*, named by relative paths (the JSON names files)."""
    make_workdir(scratch / "work")
    os.chdir(scratch)
    for name, flags in CASES.items():
        try:
            code = main(["report", "work", *flags, "--resamples", "500", "--out", f"out/{name}"])
        finally:
            use_cli_format(sys.__stderr__)
        assert code == 0, name
    return _files(scratch / "out", str(scratch.resolve()).encode())


def _files(folder: Path, scratch: bytes = b"SCRATCH") -> dict[str, bytes]:
    """{relative path: bytes} of *folder*'s files with the *scratch* folder's path (the
    JSON names results files by their absolute paths) written SCRATCH; without
    gpassk-oc's ownership records (they hold the time of writing) and the figures' PNGs
    (pixels, not the report)."""
    return {
        str(p.relative_to(folder)): p.read_bytes().replace(scratch, b"SCRATCH")
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".gpassk-oc-written.json" and p.suffix != ".png"
    }


def test_report_outputs_are_the_checked_in_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # write_outputs works from there
    got = write_outputs(tmp_path)
    want = _files(GOLDEN)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], f"{name} differs from tests/fixtures/report_golden/{name}"


if __name__ == "__main__":  # rewrite the expected files (only for a change meant to change them)
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        outputs = write_outputs(Path(scratch))
    shutil.rmtree(GOLDEN, ignore_errors=True)
    for name, data in outputs.items():
        (GOLDEN / name).parent.mkdir(parents=True, exist_ok=True)
        (GOLDEN / name).write_bytes(data)
    print(f"wrote {len(outputs)} files to {GOLDEN}")
