"""The module paths that release 0.2.0 documented (CHANGELOG.md, 0.2.0 "Moved" table, "now"
column) and that moved again when the scoring folder was split by job: each old path
still gives the very same objects and warns with the new path. Written out by hand from
0.2.0's CHANGELOG, not read from the shims. (moved-paths: keep — the restructuring
script leaves this file's old paths alone.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from moved_paths import assert_forwards

ROOT = Path(__file__).resolve().parents[1]

#: 0.2.0 path -> (path now, names the 0.2.0 docs showed from it)
OLD_PATHS_0_2 = {
    "gpassk_oc.core.scoring.metrics": (
        "gpassk_oc.core.metrics.gpass_exact",
        ["g_pass_at_k", "mg_pass_at_k", "pass_at_k", "g_pass_table"],
    ),
    "gpassk_oc.core.scoring.metric_names": (
        "gpassk_oc.core.metrics.metric_keys",
        ["parse_metric", "MetricSpec", "g_pass_key", "group_name", "result_key"],
    ),
    "gpassk_oc.core.scoring.results": (
        "gpassk_oc.core.runs.results_file",
        ["read_results", "Results", "RunInfo", "QuestionResult", "SCHEMA_VERSION"],
    ),
    "gpassk_oc.core.scoring.stats": (
        "gpassk_oc.core.uncertainty.metric_intervals",
        ["summarize", "compare", "atoms_of", "Estimate", "Difference"],
    ),
    "gpassk_oc.core.scoring.gpass_eval": ("gpassk_oc.core.runs.run_scoring", []),
    "gpassk_oc.report.compare": ("gpassk_oc.report.compare_command", []),
}


@pytest.mark.parametrize("old", sorted(OLD_PATHS_0_2))
def test_0_2_path_forwards_with_a_warning(old):
    new, documented = OLD_PATHS_0_2[old]
    assert_forwards(old, new, documented, since="0.3.0")


def test_0_2_paths_are_shims_and_the_old_folder_holds_nothing_else():
    folder = ROOT / "gpassk_oc" / "core" / "scoring"
    here = {f"gpassk_oc.core.scoring.{p.stem}" for p in folder.glob("*.py")} - {
        "gpassk_oc.core.scoring.__init__"
    }
    assert here == {p for p in OLD_PATHS_0_2 if p.startswith("gpassk_oc.core.scoring.")}
    for old in OLD_PATHS_0_2:
        path = ROOT.joinpath(*old.split(".")).with_suffix(".py")
        assert "from gpassk_oc._moved import forward" in path.read_text(), old
