"""lm-evaluation-harness ``--log_samples`` output (0.4.x).

``OUT/{model}/samples_{task}_{date}.jsonl``: one line per document and filter — ``doc_id``,
``doc``, ``target``, ``resps`` (one list of the task's ``repeats`` replies per request),
``filtered_resps``, ``filter`` and the metric's value (``exact_match``) — beside
``results_{date}.json`` (``model_name``, ``configs.{task}`` with ``repeats``,
``generation_kwargs`` and ``filter_list``, ``lm_eval_version``).

Its exact_match reduces the replies with a filter: ``take_first`` grades the first reply
only (a per-reply label for replica 0, compared with ours), ``majority_vote`` one vote.
Its own number is shown beside ``pass@1``, with the reasons it differs: the first-k filter,
and answers its ``\\boxed{}`` regex cut at a nested brace (``[^}]*`` stops inside
``\\frac{5}{12}``: the filtered answer has more ``{`` than ``}``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gpassk_oc.core.metrics.metric_keys import PASS_AT_1
from gpassk_oc.rescore.foreign import foreign_importer
from gpassk_oc.rescore.importer import ForeignQuestion, ForeignRun, ReplyCache, shared_replies
from gpassk_oc.rescore.importers._files import field_of, read_json, records
from gpassk_oc.rescore.source import RescoreError

__all__ = ["IMPORTER"]

NAME = "lm-eval"
_FILE = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d.:-]+)\.jsonl$")


def recognise(folder: Path) -> list[Path]:
    """Every ``samples_{task}_{date}.jsonl`` under *folder* (by name: a file of another
    lm-eval version is recognised, then refused naming the field it lacks)."""
    return sorted(p for p in folder.rglob("samples_*.jsonl") if _FILE.match(p.name))


def find_runs(folder: Path) -> tuple[list[Any], list[str]]:
    return [str(p) for p in recognise(folder)], []


def _settings(path: Path, task: str, date: str) -> dict[str, Any]:
    """Model, tool version and the task's config from ``results_{date}.json`` ({} when
    lm-eval left none beside the samples)."""
    results = path.parent / f"results_{date}.json"
    if not results.is_file():
        return {}
    data = read_json(results)
    config = (data.get("configs") or {}).get(task) or {}
    gen = config.get("generation_kwargs") or {}
    args = str((data.get("config") or {}).get("model_args") or "")
    named = dict(p.split("=", 1) for p in args.split(",") if "=" in p)
    filters = [
        str(step.get("function"))
        for entry in config.get("filter_list") or []
        for step in entry.get("filter") or []
    ]
    return {
        "model": data.get("model_name") or named.get("model"),
        "version": data.get("lm_eval_version"),
        "repeats": config.get("repeats"),
        "temperature": gen.get("temperature"),
        "top_p": gen.get("top_p"),
        "max_tokens": gen.get("max_gen_toks"),
        "filters": filters,
        "reported": (data.get("results") or {}).get(task) or {},
    }


def _docs(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """One line per document (the first filter's: every filter logs the same replies)."""
    seen: dict[Any, tuple[str, dict[str, Any]]] = {}
    for where, record in records(path):
        key = field_of(record, "doc_id", where, NAME)
        seen.setdefault(key, (where, record))
    if not seen:
        raise RescoreError(f"{path}: no sample lines")
    return list(seen.values())


def _question(
    where: str, record: dict[str, Any], n: int, first_only: bool, made: ReplyCache
) -> ForeignQuestion:
    resps = field_of(record, "resps", where, NAME)
    if not (isinstance(resps, list) and resps and isinstance(resps[0], list)):
        raise RescoreError(f"{where}: 'resps' is not a list of reply lists (another version?)")
    replies = [str(r) for r in resps[0]]
    if len(replies) != n:
        raise RescoreError(f"{where}: {len(replies)} replies in 'resps', the task declares {n}")
    doc: dict[str, Any] = record["doc"] if isinstance(record.get("doc"), dict) else {}
    gold = record.get("target", doc.get("answer"))
    score = record.get("exact_match")
    labels = None
    if first_only and isinstance(score, (int, float)):
        labels = [bool(score)] + [None] * (n - 1)
    return ForeignQuestion(
        question=str(doc.get("question") or doc.get("problem") or ""),
        gold=None if gold is None else str(gold),
        replies=shared_replies(((r, None) for r in replies), made),
        where=where,
        split=str(doc.get("split") or ""),
        language=str(doc.get("language") or ""),
        labels=labels,
    )


def _cut_braces(docs: list[tuple[str, dict[str, Any]]]) -> int:
    """Filtered answers with more ``{`` than ``}``: cut by a ``[^}]*`` regex."""
    cut = 0
    for _, record in docs:
        for answer in record.get("filtered_resps") or []:
            text = answer if isinstance(answer, str) else ""
            cut += int(text.count("{") > text.count("}"))
    return cut


def _reported(settings: dict[str, Any], docs: list[tuple[str, dict[str, Any]]]) -> dict[str, float]:
    """lm-eval's exact_match under the logged filter, in percent (its results file, else
    the mean of its lines)."""
    value = settings.get("reported", {}).get(f"exact_match,{docs[0][1].get('filter')}")
    if isinstance(value, (int, float)):
        return {PASS_AT_1: 100.0 * float(value)}
    scores = [r.get("exact_match") for _, r in docs]
    if not all(isinstance(s, (int, float)) for s in scores):
        return {}
    return {PASS_AT_1: 100.0 * sum(float(s or 0) for s in scores) / len(scores)}


def read_run(job: str) -> ForeignRun:
    path = Path(job)
    match = _FILE.match(path.name)
    if match is None:
        raise RescoreError(f"{path}: not named samples_{{task}}_{{date}}.jsonl")
    task, date = match["task"], match["date"]
    settings = _settings(path, task, date)
    docs = _docs(path)
    first = docs[0][1].get("resps")
    n = settings.get("repeats") or (len(first[0]) if isinstance(first, list) and first else 1)
    first_only = "take_first" in settings.get("filters", ())
    made: ReplyCache = {}
    questions = [_question(where, record, int(n), first_only, made) for where, record in docs]
    reasons: list[dict[str, Any]] = []
    if first_only and n > 1:
        reasons.append({"kind": "first_k_filter", "filter": "take_first", "used": 1, "n": n})
    if cut := _cut_braces(docs):
        reasons.append({"kind": "regex_cut_braces", "samples": cut})
    model = str(settings.get("model") or path.parent.name)
    head = (NAME, settings.get("version"), model, task, f"{NAME}_{date}", int(n), questions)
    sampling: dict[str, Any] = {k: settings.get(k) for k in ("temperature", "top_p", "max_tokens")}
    return ForeignRun(
        *head, [path], **sampling, reported=_reported(settings, docs), reasons=reasons
    )


IMPORTER = foreign_importer(NAME, recognise, find_runs, read_run)
