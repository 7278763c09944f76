"""``audit --wrong-share``: the share of each source's labels drawn from its "wrong"
verdicts. The expected splits are worked out by hand in each test (quota = size × weight /
total weight of the strata still open; floors, then the largest remainders)."""

from __future__ import annotations

import csv
import io
from collections import Counter

from gpassk_oc.report.auditing.audit_strata import allocate, verdict_weights
from tests.report_support import run_cli, workdir  # noqa: F401
from tests.test_audit import _add_sources


def _split(sizes: dict, total: int, share: float) -> dict:
    weights = verdict_weights(share)
    assert weights is not None
    return allocate(sizes, total, weights(list(sizes)))


def test_two_thirds_on_wrong_verdicts():
    # weights 1/3 and 2/3: quotas 33 and 66 of 99
    sizes = {("judge", True): 1000, ("judge", False): 1000}
    assert _split(sizes, 99, 2 / 3) == {("judge", True): 33, ("judge", False): 66}


def test_a_small_side_gives_all_it_has_and_the_rest_goes_to_the_other():
    # the "wrong" quota is 60 of 90 but only 20 exist: 20, and the other 70 on "correct"
    sizes = {("judge", True): 1000, ("judge", False): 20}
    assert _split(sizes, 90, 2 / 3) == {("judge", True): 70, ("judge", False): 20}


def test_each_source_splits_its_own_labels():
    # two sources, weights 1/3, 2/3 each (total weight 2): quotas 20 and 40 per source
    sizes = {(s, v): 500 for s in ("rule", "judge") for v in (True, False)}
    got = _split(sizes, 120, 2 / 3)
    assert got == {(s, v): 20 if v else 40 for s in ("rule", "judge") for v in (True, False)}


def test_an_even_share_is_the_even_split():
    assert verdict_weights(0.5) is None  # the unweighted split, as before the flag


def test_audit_sheet_with_wrong_share(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    _add_sources(root)
    out = tmp_path / "sheet.csv"
    code, _, err = run_cli(capsys, "audit", root, "--size", 90, "--wrong-share", 0.6667, "-o", out)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    counts = Counter((r["source"], r["verdict"]) for r in rows)
    # weights 0.3333 / 0.6667 over 4 strata (total 2): quotas 14.9985 and 30.0015; floors
    # 14 + 14 + 30 + 30 = 88, the 2 left to the larger remainders (the "correct" strata)
    assert counts == {
        (s, v): 15 if v == "correct" else 30
        for s in ("rule", "judge")
        for v in ("correct", "wrong")
    }


def test_wrong_share_outside_0_1_is_one_line_exit_2(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    for bad in ("1", "0", "-0.2"):
        code, out, err = run_cli(
            capsys, "audit", root, "--size", 10, "--wrong-share", bad, "-o", tmp_path / "s.csv"
        )
        lines = err.strip().splitlines()
        assert code == 2 and out == "" and len(lines) == 1, err
        assert "--wrong-share" in lines[0] and "between 0 and 1" in lines[0]
    assert not (tmp_path / "s.csv").exists()
