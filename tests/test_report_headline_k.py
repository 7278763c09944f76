"""The headline k (issue 25): without ``--k`` the tables use the largest declared k below
n — at k = n every question has n < 2k and every rerun interval would be approximate —;
a k the user asks for is used as asked."""

from __future__ import annotations

import pytest
from report_support import DATASET, KS, abbr, questions, run_cli, write_run


@pytest.mark.parametrize("n", [48, 16, 9])
def test_default_k_is_the_largest_declared_k_below_n(tmp_path, capsys, n):
    cs = [j % (n + 1) for j in range(len(questions()))]
    write_run(tmp_path, abbr("qwen-7b", "0-7"), DATASET, cs, n)
    expected = max(k for k in KS if k < n)  # KS = [4, 8, 16]: 16, 8, 8
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "0")
    assert code == 0, err
    assert out.startswith(f"# G-Pass@{expected} report")
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "0", "--k", "4")
    assert code == 0 and out.startswith("# G-Pass@4 report"), err
