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
    from gpassk_oc._aliases import ALIASES

    new, documented = OLD_PATHS_0_2[old]
    assert old in ALIASES
    assert_forwards(old, new, documented, since="0.3.0", removal="1.0.0")


#: every module file release 0.2.0 shipped (its git tree, listed once at the release)
MODULES_0_2 = [
    line.removesuffix(".py").replace("/", ".")
    for line in (ROOT / "tests" / "fixtures" / "modules_v0_2_0.txt").read_text().split()
]


def _forwarded_to(path: Path) -> str | None:
    """The new module a shim file forwards to (None: not a shim)."""
    match = re.search(r'forward\(\s*__name__,\s*"([\w.]+)"', path.read_text())
    return match.group(1) if match else None


#: 0.2.0 modules that were never documented and moved in 0.3.0: removed (CHANGELOG.md,
#: Unreleased, "Removed"), written out here from the 0.2.0 module list
REMOVED = {
    "gpassk_oc.recording",
    *(
        f"gpassk_oc.core.scoring.{m}"
        for m in (
            "beta_model file_kind health intervals known_rates majority planning record "
            "resampling scorer summary unbiased"
        ).split()
    ),
    *(f"gpassk_oc.core.uncertainty.{m}" for m in ("channel", "corrected", "ranks", "rates")),
    "gpassk_oc.configgen.command",
    "gpassk_oc.configgen.reasoning",
    "gpassk_oc.rescore.command",
    *(
        f"gpassk_oc.report.{m}"
        for m in (
            "audit audit_sheet cli collect compare_extras corrections corrections_out csvout "
            "drilldown health html jsonout markdown model page_assets plan plan_data "
            "plan_render published rescored sweep tables"
        ).split()
    ),
}


@pytest.mark.parametrize("old", MODULES_0_2)
def test_every_0_2_module_imports_or_is_listed_as_removed(old):
    """A module of 0.2.0 is still there, or an alias (or a shim file not yet in the table)
    forwards every public name of where it went, with the warning; an undocumented one
    that moved is gone (ModuleNotFoundError) and listed in the CHANGELOG."""
    from gpassk_oc._aliases import ALIASES

    path = ROOT.joinpath(*old.split(".")).with_suffix(".py")
    if old in REMOVED:
        assert not path.exists() and old not in ALIASES
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
        unreleased = (ROOT / "CHANGELOG.md").read_text().split("\n## ")[1]
        assert f"`{old}`" in unreleased
    elif old in ALIASES:
        alias = ALIASES[old]
        assert alias.new is not None
        assert_forwards(old, alias.new, [], since=alias.since)
    else:
        assert path.is_file(), f"{old}: no module, no alias and no shim at the 0.2.0 path"
        new = _forwarded_to(path)
        if new is None:
            importlib.import_module(old)
        else:
            since = "0.3.0" if 'since="0.3.0"' in path.read_text() else "0.2.0"
            assert_forwards(old, new, [], since=since, removal=None)


def test_the_old_scoring_folder_is_gone():
    assert not (ROOT / "gpassk_oc" / "core" / "scoring").exists()


#: report paths that 0.3.0 documented (its CHANGELOG's "now" column, docs/reports.md) and
#: that report/'s folders by job moved: written out by hand, not read from the table
OLD_PATHS_0_3 = {
    "gpassk_oc.report.compare_command": "gpassk_oc.report.commands.compare_command",
    "gpassk_oc.report.plots": "gpassk_oc.report.page.plots",
    "gpassk_oc.report.numbers": "gpassk_oc.report.data.numbers",
    "gpassk_oc.report.identity": "gpassk_oc.report.data.identity",
}


@pytest.mark.parametrize("old", sorted(OLD_PATHS_0_3))
def test_0_3_report_path_forwards_with_a_warning(old):
    documented = {"gpassk_oc.report.plots": ["write_all"]}.get(old, [])
    assert_forwards(old, OLD_PATHS_0_3[old], documented, since="0.4.0", removal="1.0.0")
