"""One owner of OpenCompass's work-dir layout (gpassk_oc/workdir.py): the path it gives is
the documented one, and no other package module spells the layout's folders."""

from __future__ import annotations

import re
from pathlib import Path

from gpassk_oc.workdir import CACHE_DIRNAME, default_cache_location, pair_of, results_file

PACKAGE = Path(__file__).resolve().parents[1] / "gpassk_oc"
#: a layout folder used as a path part: ``x / "results"``, ``name == "predictions"``, globs
SPELLED = re.compile(r'(/|==|!=|glob\()\s*"(results|predictions|logs|configs)"')
#: the demo's own output folder (configs it generates), not OpenCompass's layout
NOT_LAYOUT = {("demo/run.py", 'out / "configs"')}
#: importers of other harnesses: each owns its own tool's folder layout (evalscope's and
#: lighteval's also have folders named configs/ and results/), not OpenCompass's
OTHER_TOOLS = {"rescore/importers/evalscope.py", "rescore/importers/lighteval.py"}


def test_results_file_is_the_documented_path() -> None:
    assert results_file("w/20250101_000000", "m", "d") == Path("w/20250101_000000/results/m/d.json")


def test_an_eval_task_out_dir_names_its_pair() -> None:
    assert pair_of("w/20250101_000000/results/m/d") == ("m", "d")
    assert pair_of(None) == (None, None)


def test_the_judge_cache_sits_beside_the_timestamps(tmp_path: Path) -> None:
    out_dir = tmp_path / "w" / "20250101_000000" / "results" / "m" / "d"
    cache, task = default_cache_location(str(out_dir))
    assert (cache, task) == (tmp_path / "w" / ".gpassk_judge_cache", "m/d")
    assert CACHE_DIRNAME < "0"  # sorts before every timestamp (opencompass -r latest)


def test_no_other_module_spells_the_layout() -> None:
    hits = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "workdir.py" or rel.startswith("templates/") or rel in OTHER_TOOLS:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            match = SPELLED.search(line)
            if match and not any(rel == f and s in line for f, s in NOT_LAYOUT):
                hits.append(f"{rel}: {line.strip()}")
    assert hits == []
