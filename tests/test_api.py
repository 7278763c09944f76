"""The stable Python API (``from gpassk_oc import ...``, docs/api.md) and the import paths
release 0.1.0 documented: each old path still gives the very same objects and warns
with the new path. The old paths are written out here from 0.1.0's README (its
"Metrics", "Answer checking", "Judge client" and "Python API" sections), not read
from the shims."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from moved_paths import assert_forwards

import gpassk_oc

ROOT = Path(__file__).resolve().parents[1]

#: 0.1.0 path -> (path now, names 0.1.0's README showed from it)
OLD_PATHS = {
    "gpassk_oc.metrics": (
        "gpassk_oc.core.metrics.gpass_exact",
        ["g_pass_at_k", "mg_pass_at_k", "pass_at_k", "g_pass_table"],
    ),
    "gpassk_oc.metric_names": (
        "gpassk_oc.core.metrics.metric_keys",
        ["parse_metric", "MetricSpec", "g_pass_key", "group_name", "result_key"],
    ),
    "gpassk_oc.compare": ("gpassk_oc.report.commands.compare_command", []),
    "gpassk_oc.core.grading": (
        "gpassk_oc.core.judging.grading",
        ["GradingPolicy", "UnjudgedError", "grade"],
    ),
    "gpassk_oc.core.judge": ("gpassk_oc.core.judging.judge", ["JudgeConfig"]),
    "gpassk_oc.core.judge_cache": ("gpassk_oc.core.judging.judge_cache", ["JudgeCache"]),
    "gpassk_oc.core.verdict": ("gpassk_oc.core.judging.verdict", ["parse_verdict"]),
    "gpassk_oc.core.results": (
        "gpassk_oc.core.runs.results_file",
        ["read_results", "Results", "RunInfo", "QuestionResult", "SCHEMA_VERSION"],
    ),
    "gpassk_oc.core.stats": (
        "gpassk_oc.core.uncertainty.metric_intervals",
        ["summarize", "compare", "atoms_of", "Estimate", "Difference"],
    ),
    "gpassk_oc.core.gpass_eval": ("gpassk_oc.core.runs.run_scoring", []),
    "gpassk_oc.core.naming": ("gpassk_oc.core.data.naming", ["dataset_abbr"]),
    "gpassk_oc.core.livemath_data": ("gpassk_oc.core.data.livemath_data", []),
    "gpassk_oc.core.extraction": ("gpassk_oc.core.answers.extraction", ["extract_answer"]),
    "gpassk_oc.core.canonical": ("gpassk_oc.core.answers.canonical", ["canonical_answer"]),
    "gpassk_oc.core.rules": ("gpassk_oc.core.answers.rules", ["fast_check"]),
    "gpassk_oc.core.forms": ("gpassk_oc.core.answers.forms", ["strip_decorations"]),
    "gpassk_oc.core.mv_pool": ("gpassk_oc.core.answers.mv_pool", ["MathVerifyPool"]),
    "gpassk_oc.core.numeric": ("gpassk_oc.core.answers.numeric", []),
    "gpassk_oc.core.structures": ("gpassk_oc.core.answers.structures", []),
}


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_old_path_forwards_with_a_warning(old):
    new, documented = OLD_PATHS[old]
    names = assert_forwards(old, new, documented, since="0.2.0")
    assert set(names) <= set(dir(importlib.import_module(old)))


def test_rules_names_that_moved_on_to_checking():
    from gpassk_oc.core.answers import checking

    with pytest.warns(DeprecationWarning, match="gpassk_oc.core.answers.checking"):
        from gpassk_oc.core.rules import answers_equivalent, check_answer, check_answers
    assert (check_answer, check_answers) == (checking.check_answer, checking.check_answers)
    assert answers_equivalent is checking.answers_equivalent


def test_every_documented_old_path_is_in_the_alias_table():
    from test_api_moved_0_2 import OLD_PATHS_0_2

    from gpassk_oc._aliases import ALIASES

    documented = set(OLD_PATHS) | set(OLD_PATHS_0_2)
    # (report/'s old paths are shim files until report/ is regrouped)
    assert {p for p in documented - set(ALIASES) if not p.startswith("gpassk_oc.report.")} == set()
    for old, alias in ALIASES.items():  # each entry points to a module that imports
        assert alias.new is None or importlib.import_module(alias.new), old
        assert alias.since < alias.removal, old
        # no file at an aliased path: the table is the only forwarding
        assert not (ROOT.joinpath(*old.split(".")).with_suffix(".py")).exists(), old
    # 16 old module files at core/'s top were shims; now there is at most one more module
    assert len(list((ROOT / "gpassk_oc" / "core").glob("*.py"))) <= 2


def test_an_old_path_warns_in_a_fresh_interpreter():
    """Python's default filters show the warning at the user's own line in __main__, with
    the new path and the removal release; importing the old module alone reads no name."""
    code = "import gpassk_oc.core.scoring.stats\nfrom gpassk_oc.metrics import g_pass_at_k\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if "Warning" in line]
    assert lines == [
        "<string>:2: DeprecationWarning: gpassk_oc.metrics is deprecated since gpassk_oc 0.2.0 "
        "and is removed in 1.0.0: import g_pass_at_k from gpassk_oc.core.metrics.gpass_exact"
    ]


def test_registry_resolves_an_old_dotted_path():
    """OpenCompass's registry imports a config's dotted type path with importlib."""
    from mmengine.registry import Registry

    from gpassk_oc.core.uncertainty.metric_intervals import summarize

    with pytest.warns(DeprecationWarning, match="removed in 1.0.0"):
        found = Registry("old paths").get("gpassk_oc.core.scoring.stats.summarize")
    assert found is summarize


@pytest.mark.parametrize(
    "removed", ["gpassk_oc.core.scoring.beta_model", "gpassk_oc.core.uncertainty.ranks"]
)
def test_an_undocumented_old_path_is_gone(removed):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(removed)


API = {
    "g_pass_at_k": "gpassk_oc.core.metrics.gpass_exact",
    "mg_pass_at_k": "gpassk_oc.core.metrics.gpass_exact",
    "pass_at_k": "gpassk_oc.core.metrics.gpass_exact",
    "maj_at_k": "gpassk_oc.core.metrics.majority_vote",
    "grade": "gpassk_oc.core.judging.grading",
    "GradingPolicy": "gpassk_oc.core.judging.grading",
    "JudgeConfig": "gpassk_oc.core.judging.judge",
    "read_results": "gpassk_oc.core.runs.results_file",
}


def test_public_api_names_are_the_core_objects():
    assert set(API) <= set(gpassk_oc.__all__)
    assert set(gpassk_oc.__all__) == {"__version__", *gpassk_oc._API}
    for name, home in {**gpassk_oc._API, **API}.items():
        assert getattr(gpassk_oc, name) is getattr(importlib.import_module(home), name), name
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new API never warns
        from gpassk_oc import g_pass_at_k, read_results  # noqa: F401
    with pytest.raises(AttributeError):
        gpassk_oc.no_such_name  # noqa: B018


def test_import_stays_light():
    code = (
        "import sys, gpassk_oc\n"
        "heavy = [m for m in ('numpy', 'scipy', 'opencompass', 'mmengine', 'torch') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def test_adapters_resolve_by_the_dotted_paths_configs_name():
    """What mmengine's Registry does with a config's 'gpassk_oc.evaluators.GPassKEvaluator'
    in a task subprocess: the package's lazy attributes must not get in the way (in this
    process: OpenCompass is imported once per test worker anyway)."""
    from mmengine.utils import get_object_from_string

    from gpassk_oc.datasets import LiveMathBenchDataset
    from gpassk_oc.evaluators import GPassKEvaluator

    assert get_object_from_string("gpassk_oc.evaluators.GPassKEvaluator") is GPassKEvaluator
    assert get_object_from_string("gpassk_oc.datasets.LiveMathBenchDataset") is LiveMathBenchDataset


def test_one_version_in_package_metadata_and_changelog():
    from setuptools.config.pyprojecttoml import read_configuration

    assert gpassk_oc.__version__ == "0.3.0"
    # what an install writes into the metadata: pyproject reads the package's string
    project = read_configuration(ROOT / "pyproject.toml", expand=True)["project"]
    assert project["version"] == gpassk_oc.__version__
    assert "version" in project["dynamic"]
    released = re.findall(r"^## \[?(\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert released[0] == gpassk_oc.__version__
