"""evalscope reviews (1.x): ``{work_dir}/{timestamp}/reviews/{model}/{dataset}_{subset}.jsonl``.

One line per sample: ``target``, ``messages`` (the prompt), ``sample_score`` with
``score.prediction`` (the reply), ``score.extracted_prediction`` and ``score.value``
(the metric values), ``sample_id``, ``group_id`` (the question) and ``generation_index``
(the repeat); the run's settings are in ``configs/task_config.yaml`` (``repeats``,
``generation_config``). Replies are put in ``generation_index`` order per ``group_id``.
evalscope grades with its own metric; where it is an accuracy (``acc``) each reply's
label is compared with ours.

Each reply's facts come from ``predictions/{model}/{same file}`` (by ``index``): the stop
reason (``choices[0].stop_reason``: ``max_tokens`` when the output limit cut it) and
``usage``; where that file is absent, the token counts of the review's own assistant
message (``perf_metrics``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpassk_oc.core.runs.reply_facts import ReplyFacts
from gpassk_oc.rescore.foreign import foreign_importer
from gpassk_oc.rescore.importer import ForeignQuestion, ForeignRun, ReplyCache, shared_replies
from gpassk_oc.rescore.importers._files import field_of, records
from gpassk_oc.rescore.source import RescoreError

__all__ = ["IMPORTER"]

NAME = "evalscope"


def recognise(folder: Path) -> list[Path]:
    """Every ``{timestamp}/reviews/{model}/*.jsonl`` beside a ``configs/`` folder under
    *folder* (by layout: a file of another evalscope version is recognised, then refused
    naming the field it lacks)."""
    return sorted(
        p for p in folder.rglob("reviews/*/*.jsonl") if (p.parents[2] / "configs").is_dir()
    )


def find_runs(folder: Path) -> tuple[list[Any], list[str]]:
    return [str(p) for p in recognise(folder)], []


def _config(run_dir: Path) -> dict[str, Any]:
    """``configs/task_config.yaml`` as data ({} when absent or unreadable)."""
    path = run_dir / "configs" / "task_config.yaml"
    try:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, ImportError, ValueError):
        return {}
    except Exception:  # yaml.YAMLError: a config we cannot read is not the run's samples
        return {}
    return data if isinstance(data, dict) else {}


def _prompt(messages: Any) -> str:
    """The last user turn's text ("" when it is not text, or there is none)."""
    if isinstance(messages, list):
        for m in reversed(messages):
            if isinstance(m, dict) and m.get("role") == "user":
                content = m.get("content")
                return content if isinstance(content, str) else ""
    return ""


def _count(data: Any, key: str) -> int | None:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _predicted(path: Path) -> dict[Any, ReplyFacts]:
    """Each sample's facts by ``index`` from the predictions file beside the reviews
    ({} when evalscope left none or it cannot be read: facts describe, never decide)."""
    file = path.parents[2] / "predictions" / path.parent.name / path.name
    out: dict[Any, ReplyFacts] = {}
    if not file.is_file():
        return out
    try:
        for _, record in records(file):
            output = record.get("model_output")
            output = output if isinstance(output, dict) else {}
            choices = output.get("choices")
            first = choices[0] if isinstance(choices, list) and choices else {}
            reason = first.get("stop_reason") if isinstance(first, dict) else None
            usage = output.get("usage")
            out[record.get("index")] = ReplyFacts(
                reason if isinstance(reason, str) and reason else None,
                _count(usage, "input_tokens"),
                _count(usage, "output_tokens"),
            )
    except RescoreError:
        return {}
    return out


def _review_facts(record: dict[str, Any]) -> ReplyFacts | None:
    """The token counts of a review line's last assistant message, None when absent."""
    messages = record.get("messages")
    said = (
        [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
        if (isinstance(messages, list))
        else []
    )
    perf = said[-1].get("perf_metrics") if said else None
    facts = ReplyFacts(None, _count(perf, "input_tokens"), _count(perf, "output_tokens"))
    return None if facts == ReplyFacts() else facts


def _sample(where: str, record: dict[str, Any]) -> tuple[Any, int, dict[str, Any]]:
    """(question key, repeat, fields) of one review line (once per sample: kept lean)."""
    sample_score = field_of(record, "sample_score", where, NAME)
    score: Any = sample_score.get("score") if isinstance(sample_score, dict) else None
    if not isinstance(score, dict) or "prediction" not in score:
        raise RescoreError(
            f"{where}: no sample_score.score.prediction (another evalscope version?)"
        )
    # group_id / generation_index: at the line's top level or in its sample_score
    group = record["group_id"] if "group_id" in record else sample_score.get("group_id")
    index = (
        record["generation_index"]
        if "generation_index" in record
        else sample_score.get("generation_index")
    )
    if group is None or not isinstance(index, int):
        raise RescoreError(f"{where}: no group_id / generation_index (another evalscope version?)")
    target = record.get("target")
    gold = target[0] if isinstance(target, list) and target else target
    value = score.get("value")
    acc = value.get("acc") if isinstance(value, dict) else None
    fields = {
        "reply": str(score.get("prediction") or ""),
        "gold": None if gold in (None, "") else str(gold),
        "question": _prompt(record.get("messages")),
        "label": None if not isinstance(acc, (int, float)) else acc >= 1,
        "facts": _review_facts(record),
    }
    return group, index, fields


def _questions(path: Path, n: int) -> list[ForeignQuestion]:
    grouped: dict[Any, dict[int, tuple[str, dict[str, Any]]]] = {}
    predicted = _predicted(path)
    for where, record in records(path):
        group, index, fields = _sample(where, record)
        fields["facts"] = predicted.get(record.get("index"), fields["facts"])
        if index in grouped.setdefault(group, {}) or index >= n:
            raise RescoreError(f"{where}: generation_index {index} repeated or beyond repeats={n}")
        grouped[group][index] = (where, fields)
    out = []
    made: ReplyCache = {}
    for group, by_index in grouped.items():
        ordered = [by_index[i] for i in sorted(by_index)]
        where, first = ordered[0]
        labels = [f["label"] for _, f in ordered]
        out.append(
            ForeignQuestion(
                question=first["question"],
                gold=first["gold"],
                replies=shared_replies(((f["reply"], f["facts"]) for _, f in ordered), made),
                where=where,
                question_id=str(group),
                labels=None if all(v is None for v in labels) else labels,
            )
        )
    if not out:
        raise RescoreError(f"{path}: no review lines")
    return out


def read_run(job: str) -> ForeignRun:
    path = Path(job)
    run_dir = path.parent.parent.parent  # {timestamp}/reviews/{model}/{file}
    config = _config(run_dir)
    gen = config.get("generation_config") or {}
    repeats = config.get("repeats")
    n = repeats if isinstance(repeats, int) and repeats > 0 else None
    questions = _questions(path, n or 1 << 30)
    n = n or max(len(q.replies) for q in questions)
    version, model = config.get("evalscope_version"), str(config.get("model") or path.parent.name)
    head = (NAME, version or None, model, path.stem, f"{NAME}_{run_dir.name}", n, questions)
    sampling: dict[str, Any] = {k: gen.get(k) for k in ("temperature", "top_p", "max_tokens")}
    return ForeignRun(*head, [path], **sampling)


IMPORTER = foreign_importer(NAME, recognise, find_runs, read_run)
