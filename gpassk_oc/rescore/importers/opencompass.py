"""OpenCompass work dirs (``opencompass -w DIR``): LiveMathBench tasks re-graded from their
predictions, compared per sample with OpenCompass's own labels (:mod:`..reasons`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpassk_oc.rescore.importer import Importer, Scored
from gpassk_oc.rescore.questions import locate_questions
from gpassk_oc.rescore.reasons import build_sidecar
from gpassk_oc.rescore.regrade import Options, regrade
from gpassk_oc.rescore.reported import read_reported
from gpassk_oc.rescore.source import OCTask, find_tasks, read_predictions
from gpassk_oc.workdir import run_dirs

__all__ = ["IMPORTER"]


def recognise(folder: Path) -> list[Path]:
    """The run folders of an OpenCompass work dir: ``{timestamp}/`` with a dumped config
    ``configs/*.py`` or predictions ``predictions/{model}/*.json`` (evalscope's run folders
    also hold ``configs/`` and ``predictions/``, with YAML and JSONL)."""
    return [
        run
        for run in run_dirs(folder)
        if any(run.glob("configs/*.py")) or any(run.glob("predictions/*/*.json"))
    ]


def find_runs(folder: Path) -> tuple[list[Any], list[str]]:
    tasks, notes = find_tasks(folder)
    return list(tasks), notes


def rescore_run(task: OCTask, data: Path | None, opts: Options) -> Scored:
    samples = read_predictions(task)
    located = locate_questions(task, samples.first, data)
    regraded = regrade(task, samples, located.rows, opts)
    reported = read_reported(task.results, len(samples.prompts), task.n)
    return regraded.results, build_sidecar(task, located, regraded, reported)


IMPORTER = Importer("opencompass", recognise, find_runs, rescore_run)
