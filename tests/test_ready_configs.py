"""The ready dataset configs (``gpassk_oc/configs/livemathbench_*_gen.py``) come from one
builder and equal, as OpenCompass reads and dumps them, the hand-written literals release
0.1.0 shipped (kept verbatim in tests/fixtures/ready_configs_v0_1_0/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

OLD = Path(__file__).parent / "fixtures" / "ready_configs_v0_1_0"
NAMES = ["livemathbench_gen", "livemathbench_greedy_gen", "livemathbench_hard_gen"]


def _load(tmp_path: Path, source: str):
    """A user config importing *source* inside read_base(), as docs/plugin.md shows."""
    from mmengine.config import Config

    user = tmp_path / f"user_{abs(hash(source))}.py"
    user.write_text(
        "from mmengine.config import read_base\n\nwith read_base():\n"
        f"    from {source} import livemathbench_dataset, livemathbench_datasets\n\n"
        "datasets = livemathbench_datasets\n"
    )
    return Config.fromfile(str(user))


@pytest.mark.parametrize("name", NAMES)
def test_built_config_equals_the_former_literal(tmp_path, name):
    shutil.copy(OLD / f"{name}.py", tmp_path / f"old_{name}.py")
    old = _load(tmp_path, f".old_{name}")
    new = _load(tmp_path, f"gpassk_oc.configs.{name}")
    # the text OpenCompass dumps for its task subprocesses: types as dotted strings
    assert new.pretty_text == old.pretty_text
    assert new.to_dict() == old.to_dict()
    assert new.datasets == [new.livemathbench_dataset]
    # a type builds to the class, as an imported name in a literal config does
    from gpassk_oc.datasets import LiveMathBenchDataset
    from gpassk_oc.evaluators import GPassKEvaluator

    assert new.datasets[0]["type"] is LiveMathBenchDataset
    assert new.datasets[0]["eval_cfg"]["evaluator"]["type"] is GPassKEvaluator


def test_the_configs_hold_no_literal_copies():
    """Each file is one builder call (its settings), not another copy of the dict."""
    for name in NAMES:
        text = (Path(__file__).parents[1] / "gpassk_oc" / "configs" / f"{name}.py").read_text()
        assert text.count("livemathbench_dataset(") == 1 and "reader_cfg" not in text, name
