"""The module paths that release 0.2.0 documented (CHANGELOG.md, 0.2.0 "Moved" table, "now"
column) and that moved again when the scoring folder was split by job: each old path
still gives the very same objects and warns with the new path. Written out by hand from
0.2.0's CHANGELOG, not read from the shims. (moved-paths: keep — the restructuring
script leaves this file's old paths alone.)"""

from __future__ import annotations

import importlib
import re
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
    "gpassk_oc.report.compare": ("gpassk_oc.report.commands.compare_command", []),
}


@pytest.mark.parametrize("old", sorted(OLD_PATHS_0_2))
def test_0_2_path_forwards_with_a_warning(old):
    new, documented = OLD_PATHS_0_2[old]
    assert_forwards(old, new, documented, since="0.3.0")


#: every module file release 0.2.0 shipped (its git tree, listed once at the release)
MODULES_0_2 = [
    line.removesuffix(".py").replace("/", ".")
    for line in (ROOT / "tests" / "fixtures" / "modules_v0_2_0.txt").read_text().split()
]


def _forwarded_to(path: Path) -> str | None:
    """The new module a shim file forwards to (None: not a shim)."""
    match = re.search(r'forward\(\s*__name__,\s*"([\w.]+)"', path.read_text())
    return match.group(1) if match else None


@pytest.mark.parametrize("old", MODULES_0_2)
def test_every_0_2_module_still_imports(old):
    """A module of 0.2.0 is still there, or a shim at its path forwards every public name
    of where it went, with the warning (documented or not: a user's import is a promise)."""
    path = ROOT.joinpath(*old.split(".")).with_suffix(".py")
    assert path.is_file(), f"{old}: no module and no shim at the 0.2.0 path"
    new = _forwarded_to(path)
    if new is None:
        importlib.import_module(old)
    else:  # a 0.1.0 shim (tests/test_api.py) says since 0.2.0, the ones made now 0.3.0
        since = "0.3.0" if 'since="0.3.0"' in path.read_text() else "0.2.0"
        assert_forwards(old, new, [], since=since)


def test_the_old_scoring_folder_holds_only_shims():
    folder = ROOT / "gpassk_oc" / "core" / "scoring"
    for path in folder.glob("*.py"):
        if path.stem != "__init__":
            assert _forwarded_to(path), path
