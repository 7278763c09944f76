"""The LiveMathBench tasks of an OpenCompass work dir and their predictions, as data.

What OpenCompass 0.5.4 leaves (layout owned by :mod:`gpassk_oc.workdir`): the dumped config
``{ts}/configs/*.py`` (model, dataset with ``k``/``n``/splits/languages/evaluator — classes
as dotted strings), ``{ts}/predictions/{model}/{abbr}.json`` (or shards ``{abbr}_0.json``…;
``tmp_*`` while inference runs) holding ``{"0": {"origin_prompt", "prediction", "gold"},
…}`` in replica-major order (entry ``r·Q + q`` is replica r of question q), and
``{ts}/results/{model}/{abbr}.json`` when the evaluation finished. Each reply's facts are
the server's where :class:`gpassk_oc.models.OpenAICompatible` wrote its sidecar
(:mod:`gpassk_oc.core.runs.reply_facts`), else its output tokens where OpenCompass counted
them (``res_length``, written with the inferencer's ``dump_res_length=True``).

Every refusal is a :class:`RescoreError`: one line naming the file and what is wrong.
Nothing here writes anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import methodcaller
from pathlib import Path
from typing import Any

from gpassk_oc.core.runs.reply_facts import ReplyFacts, read_sidecars, reply_key, sidecar_path
from gpassk_oc.core.runs.run_spec import RunSpec, RunSpecError
from gpassk_oc.rescore.json_text import loads
from gpassk_oc.workdir import (
    CONFIGS_DIR,
    PREDICTIONS_DIR,
    load_dumped_config,
    prediction_files,
    results_file,
    run_dirs,
)

__all__ = ["OCTask", "Prediction", "RescoreError", "Samples", "find_tasks", "read_predictions"]

#: OpenCompass evaluators whose verdicts come from an LLM judge (all or some samples)
JUDGE_EVALUATORS = ("GenericLLMEvaluator", "CascadeEvaluator")


class RescoreError(ValueError):
    """A work dir (or option) rescore cannot use; the message is one line naming the file."""


@dataclass(frozen=True)
class Prediction:
    """One sample as OpenCompass saved it."""

    prompt: str  # the prompt text (chat turns joined)
    reply: str
    gold: str


@dataclass(frozen=True)
class Samples:
    """A task's samples: the Q question prompts and golds, and the Q·n replies in
    OpenCompass's replica-major order (``replies[r·Q + q]`` is replica r of question q)."""

    prompts: list[str]
    golds: list[str]
    replies: list[str]
    #: each reply's facts, in the order of *replies* (empty: none recorded)
    facts: list[ReplyFacts | None] = field(default_factory=list)

    @property
    def first(self) -> list[Prediction]:
        """Replica 0 of every question."""
        return [Prediction(p, r, g) for p, r, g in zip(self.prompts, self.replies, self.golds)]


@dataclass
class OCTask:
    """One (model, LiveMathBench dataset) pair of one run dir."""

    run_dir: Path
    config_path: Path
    model: Mapping[str, Any]
    dataset: Mapping[str, Any]
    predictions: list[Path]
    results: Path | None
    notes: list[str] = field(default_factory=list)

    @property
    def model_abbr(self) -> str:
        return str(self.model.get("abbr") or "")

    @property
    def dataset_abbr(self) -> str:
        return str(self.dataset.get("abbr") or "")

    @property
    def name(self) -> str:
        """``{ts}/{model}/{abbr}``: how messages name the task."""
        return f"{self.run_dir.name}/{self.model_abbr}/{self.dataset_abbr}"

    @property
    def n(self) -> int:
        return _positive(self.dataset.get("n", 1), f"{self.config_path}: {self.dataset_abbr}.n")

    @property
    def spec(self) -> RunSpec:
        """The task's run spec from its dataset config (``k``, ``n``; the default τs),
        checked once; k = 1 when n = 1."""
        try:
            return RunSpec.parse(
                self.dataset.get("k", 1),
                n=self.n,
                where=f"{self.config_path}: {self.dataset_abbr}.",
            )
        except RunSpecError as exc:
            raise RescoreError(str(exc)) from None

    @property
    def evaluator(self) -> Mapping[str, Any]:
        cfg = self.dataset.get("eval_cfg")
        evaluator = cfg.get("evaluator") if isinstance(cfg, Mapping) else None
        return evaluator if isinstance(evaluator, Mapping) else {}

    @property
    def evaluator_name(self) -> str:
        """The evaluator's class name (the last part of its dotted type)."""
        return str(self.evaluator.get("type") or "?").rpartition(".")[2]

    @property
    def judge_configured(self) -> bool:
        """Whether OpenCompass's evaluator asked an LLM judge (LiveMathBenchEvaluator with a
        model name and URL, or a generic / cascade LLM evaluator)."""
        if self.evaluator_name in JUDGE_EVALUATORS:
            return True
        ev = self.evaluator
        return self.evaluator_name == "LiveMathBenchEvaluator" and bool(
            ev.get("model_name") and ev.get("url")
        )

    def strings(self, key: str) -> list[str]:
        """A list-of-strings field of the dataset config (``dataset_splits``…), [] if absent."""
        value = self.dataset.get(key)
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


def _positive(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RescoreError(f"{where}: need a positive integer, got {value!r}")
    return value


def _is_livemath(dataset: Mapping[str, Any]) -> bool:
    """A dataset whose class is LiveMathBench's (OpenCompass's, or this package's)."""
    return "livemathbench" in str(dataset.get("type") or "").rpartition(".")[2].lower()


@dataclass
class _Found:
    """What :func:`find_tasks` met walking the runs."""

    tasks: list[OCTask] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    in_progress: list[Path] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    configs: int = 0


def _task_of(run_dir: Path, config_path: Path, model: Any, dataset: Any, seen: _Found) -> None:
    """Add the task of one (model, dataset) pair of *run_dir*, or a note why it is skipped."""
    pair = (str(model.get("abbr")), str(dataset.get("abbr")))
    if not _is_livemath(dataset):
        seen.others.append(pair[1])
        return
    files, tmp = prediction_files(run_dir, *pair)
    where = f"{run_dir.name}/{pair[0]}/{pair[1]}"
    if tmp:
        seen.in_progress.extend(tmp)
        names = ", ".join(str(p) for p in tmp)
        seen.notes.append(f"{where}: inference unfinished ({names}); skipped")
        return
    if not files:
        seen.notes.append(f"{where}: no predictions (inference failed or never ran); skipped")
        return
    result = results_file(run_dir, *pair)
    found = result if result.is_file() else None
    seen.tasks.append(OCTask(run_dir, config_path, model, dataset, files, found))


def _nothing_found(work_dir: Path, runs: list[Path], seen: _Found) -> RescoreError:
    """Why *work_dir* has no task to rescore."""
    if seen.in_progress:
        return RescoreError(
            f"{seen.in_progress[0]}: the run is still in progress (or was interrupted): only "
            "tmp_ prediction files; rescore it once inference has finished"
        )
    if not seen.configs:
        return RescoreError(f"{runs[-1]}: no readable dumped config in {CONFIGS_DIR}/")
    if seen.others or not seen.notes:
        listed = ", ".join(sorted(set(seen.others))) or "none"
        return RescoreError(
            f"{work_dir}: no LiveMathBench task in its configs (datasets: {listed})"
        )
    return RescoreError(seen.notes[0].removesuffix("; skipped"))


def find_tasks(work_dir: Path) -> tuple[list[OCTask], list[str]]:
    """Every LiveMathBench task of *work_dir* with finished predictions, and one note per
    task skipped (inference unfinished or never ran). RescoreError when there is none."""
    runs = run_dirs(work_dir)
    if not runs:
        raise RescoreError(
            f"{work_dir}: not an OpenCompass work dir (no {{timestamp}}/{CONFIGS_DIR}/ or "
            f"{{timestamp}}/{PREDICTIONS_DIR}/ folder under it)"
        )
    seen = _Found()
    for run_dir in runs:
        config = load_dumped_config(run_dir)
        if config is None:
            seen.notes.append(f"{run_dir}: no readable dumped config in {CONFIGS_DIR}/; skipped")
            continue
        seen.configs += 1
        pairs: set[tuple[str, str]] = set()
        for model, dataset in config.pairs():
            pair = (str(model.get("abbr")), str(dataset.get("abbr")))
            if pair not in pairs:
                pairs.add(pair)
                _task_of(run_dir, config.path, model, dataset, seen)
    if seen.tasks:
        return seen.tasks, seen.notes
    raise _nothing_found(work_dir, runs, seen)


def _prompt_text(value: Any) -> str:
    """OpenCompass's ``origin_prompt``: a string, or chat turns whose prompts are joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [str(t.get("prompt", "")) if isinstance(t, Mapping) else str(t) for t in value]
        return "\n".join(parts)
    return "" if value is None else str(value)


def _entries(task: OCTask) -> tuple[list[Mapping[str, Any]], Path]:
    """The raw entries of every prediction file, in order, and the file each error names."""
    out: list[Mapping[str, Any]] = []
    for path in task.predictions:
        try:
            data = loads(path.read_bytes())
        except json.JSONDecodeError as exc:
            raise RescoreError(
                f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                "the file is cut or damaged (an interrupted write?)"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise RescoreError(f"{path}: unreadable ({exc})") from None
        if not isinstance(data, Mapping):
            raise RescoreError(f"{path}: need an object of numbered predictions")
        try:
            entries = [data[str(i)] for i in range(len(data))]
        except KeyError as exc:
            raise RescoreError(
                f'{path}: entry {exc}: missing; the keys must run "0".."{len(data) - 1}"'
            ) from None
        try:  # every entry an object with a prediction (a C-speed check of the common case)
            [e["prediction"] for e in entries]
        except (KeyError, TypeError, IndexError):
            bad = next(
                i
                for i, e in enumerate(entries)
                if not isinstance(e, Mapping) or "prediction" not in e
            )
            raise RescoreError(f'{path}: entry "{bad}": no "prediction"') from None
        out += entries
    return out, task.predictions[0]


def read_predictions(task: OCTask) -> Samples:
    """Every sample of *task* in OpenCompass's order (shards concatenated, as its eval task
    does), checked to be replica-major: entry ``r·Q + q`` has question q's prompt and gold.
    RescoreError naming the file for a cut, malformed or incomplete one."""
    entries, first = _entries(task)
    n = task.n
    if not entries or len(entries) % n:
        raise RescoreError(
            f"{first}: {len(entries)} predictions are not a whole number of "
            f"questions × n={n} (n from {task.config_path.name}); the file set is incomplete"
        )
    q = len(entries) // n
    prompt_of, gold_of = methodcaller("get", "origin_prompt"), methodcaller("get", "gold")
    base = (list(map(prompt_of, entries[:q])), list(map(gold_of, entries[:q])))
    for r in range(1, n):
        block = entries[r * q : (r + 1) * q]
        if (list(map(prompt_of, block)), list(map(gold_of, block))) != base:
            bad = next(
                i
                for i, e in enumerate(block)
                if (prompt_of(e), gold_of(e)) != (base[0][i], base[1][i])
            )
            raise RescoreError(
                f"{first}: not replica-major with n={n}: entry {r * q + bad} (replica {r}) is "
                f"not question {bad}'s prompt and gold"
            )
    replies = [e.get("prediction") for e in entries]
    return Samples(
        [_prompt_text(p) for p in base[0]],
        ["" if g is None else str(g) for g in base[1]],
        [x if isinstance(x, str) else str(x or "") for x in replies],
        _facts(task, entries),
    )


def _facts(task: OCTask, entries: list[Mapping[str, Any]]) -> list[ReplyFacts | None]:
    """Each entry's facts: the sidecar's by (prompt, reply), else ``res_length`` as its
    output count; [] when neither is recorded anywhere."""
    sent = read_sidecars(sidecar_path(p) for p in task.predictions)
    out: list[ReplyFacts | None] = []
    for e in entries:
        reply, length = e.get("prediction"), e.get("res_length")
        found = None
        if sent and isinstance(reply, str):
            found = sent.get(reply_key(e.get("origin_prompt"), reply))
        if found is None and isinstance(length, int) and not isinstance(length, bool):
            found = ReplyFacts(completion_tokens=length) if length >= 0 else None
        out.append(found)
    return out if any(f is not None for f in out) else []
