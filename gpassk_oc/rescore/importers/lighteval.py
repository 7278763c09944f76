"""lighteval details (0.13): ``{out}/details/{provider}/{model}/{date}/details_{task}|{shots}_{date}.parquet``.

One row per question: ``doc`` (``query``, ``choices``, ``gold_index``, ``num_samples``),
``model_response`` (``text``: the replies) and ``metric`` (the per-question values it
computed). Its G-Pass@k reads τ as a float and needs ``ceil(k·τ)`` correct, and divides by
the nominal n even where a question kept fewer replies (lighteval#771); both are named
where they change a number. Its per-question G-Pass values are averaged here into its own
overall numbers, shown beside ours.

``model_response.output_tokens`` (one list of token ids per reply, where the backend kept
them: transformers, vLLM, SGLang) gives each reply's output count and ``input_tokens`` the
prompt's; API backends leave both empty and no finish reason is recorded by any (its
``truncated_tokens_count`` counts prompt tokens cut, not the reply's).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from gpassk_oc.core.metrics.metric_keys import PASS_AT_1, g_pass_key, mg_pass_key
from gpassk_oc.core.runs.reply_facts import ReplyFacts
from gpassk_oc.rescore.foreign import default_ks, foreign_importer
from gpassk_oc.rescore.importer import ForeignQuestion, ForeignRun, ReplyCache, shared_replies
from gpassk_oc.rescore.importers._files import read_json
from gpassk_oc.rescore.source import RescoreError

__all__ = ["IMPORTER"]

NAME = "lighteval"
_FILE = re.compile(r"^details_(?P<task>.+?)(\|\d+)?_(?P<date>[\dT:.-]+)\.parquet$")
#: its G-Pass metric names: ``math_g-pass@4_0.5``, ``mmath_g-pass@4``; pass@1 as ``pass@k:k=1&n=8``
_METRIC = re.compile(r"^(?P<m>m?)math_g-pass@(?P<k>\d+)(_(?P<tau>[\d.]+))?$")
_PASS1 = re.compile(r"^pass@k:k=1(&n=\d+)?$")


def recognise(folder: Path) -> list[Path]:
    """Every ``details_*.parquet`` lighteval wrote under *folder*."""
    return sorted(p for p in folder.rglob("details_*.parquet") if _FILE.match(p.name))


def find_runs(folder: Path) -> tuple[list[Any], list[str]]:
    return [str(p) for p in recognise(folder)], []


def _table(path: Path) -> list[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    except ImportError:
        raise RescoreError(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from None
    except Exception as exc:  # pyarrow's ArrowInvalid & co: a cut or corrupt file
        raise RescoreError(f"{path}: not a readable parquet file ({exc})") from None


def _facts(response: dict[str, Any], replies: int) -> list[ReplyFacts | None]:
    """Each reply's token counts from the ids lighteval kept (None each where it kept none,
    or not one list per reply)."""
    ids, prompt = response.get("output_tokens"), response.get("input_tokens")
    if not isinstance(ids, list) or len(ids) != replies:
        return [None] * replies
    asked = len(prompt) if isinstance(prompt, list) and prompt else None
    return [ReplyFacts(None, asked, len(t)) if isinstance(t, list) else None for t in ids]


def _question(
    path: Path, i: int, row: dict[str, Any], made: ReplyCache
) -> tuple[ForeignQuestion, int]:
    where = f"{path}: row {i}"
    doc, response = row.get("doc"), row.get("model_response")
    if not isinstance(doc, dict) or not isinstance(response, dict):
        raise RescoreError(f"{where}: no 'doc' / 'model_response' (another lighteval version?)")
    texts = response.get("text")
    if not isinstance(texts, list):
        raise RescoreError(f"{where}: model_response.text is not a list of replies")
    choices, index = doc.get("choices") or [], doc.get("gold_index")
    if isinstance(index, list):
        index = index[0] if index else None
    gold = choices[index] if isinstance(index, int) and 0 <= index < len(choices) else None
    nominal = doc.get("num_samples")
    question = ForeignQuestion(
        question=str(doc.get("query") or ""),
        gold=None if gold is None else str(gold),
        replies=shared_replies(zip(map(str, texts), _facts(response, len(texts))), made),
        where=where,
    )
    return question, nominal if isinstance(nominal, int) and nominal > 0 else len(texts)


def _our_name(key: str) -> str | None:
    """lighteval's metric name as this package's, None for one it has no twin of."""
    if _PASS1.match(key):
        return PASS_AT_1
    match = _METRIC.match(key)
    if match is None:
        return None
    k, tau = int(match["k"]), match["tau"]
    return mg_pass_key(k) if match["m"] or tau is None else g_pass_key(k, Fraction(tau))


def _reported(path: Path, rows: list[dict[str, Any]]) -> dict[str, float]:
    """lighteval's own overall numbers (its results file, else the mean of its per-question
    values), in percent under this package's names."""
    sums: dict[str, list[float]] = {}
    for row in rows:
        for key, value in (row.get("metric") or {}).items():
            name = _our_name(str(key))
            if name and isinstance(value, (int, float)):
                sums.setdefault(name, []).append(float(value))
    out = {k: 100.0 * sum(v) / len(v) for k, v in sums.items()}
    for key, value in _results(path).get("results", {}).items():
        name = _our_name(str(key))
        if name and isinstance(value, (int, float)):
            out[name] = 100.0 * float(value)
    return out


def _results(path: Path) -> dict[str, Any]:
    """``{out}/results/{provider}/{model}/results_{date}.json`` of a details file ({} when
    lighteval left none), its task's entry flattened under ``results``."""
    match = _FILE.match(path.name)
    out = path.parents[4] if len(path.parents) > 4 else path.parent
    found = out / "results" / path.parents[2].name / path.parents[1].name
    file = found / f"results_{match['date'] if match else ''}.json"
    if not file.is_file():
        return {}
    data = read_json(file)
    tasks = data.get("results") or {}
    task = next((v for k, v in tasks.items() if k != "all" and isinstance(v, dict)), {})
    config = (data.get("config_general") or {}).get("model_config") or {}
    return {"results": task, "generation": config.get("generation_parameters") or {}}


def _float_tau(ks: tuple[int, ...]) -> int:
    """(k, τ) pairs of the default τs whose float ``ceil(k·τ)`` is not the exact count."""
    taus = (0.25, 0.5, 0.75, 1.0)
    return sum(math.ceil(k * t) != math.ceil(Fraction(t) * k) for k in ks for t in taus)


def read_run(job: str) -> ForeignRun:
    path = Path(job)
    match = _FILE.match(path.name)
    if match is None:
        raise RescoreError(f"{path}: not named details_{{task}}_{{date}}.parquet")
    rows = _table(path)
    if not rows:
        raise RescoreError(f"{path}: no rows")
    made: ReplyCache = {}
    read = [_question(path, i, row, made) for i, row in enumerate(rows)]
    questions = [q for q, _ in read]
    n = max(nominal for _, nominal in read)
    short = [q for q in questions if len(q.replies) < n]
    reasons: list[dict[str, Any]] = []
    if short:
        kept = sum(len(q.replies) for q in questions)
        reasons.append(
            {
                "kind": "nominal_n",
                "questions": len(short),
                "n": n,
                "samples": kept,
                "expected": n * len(questions),
            }
        )
    if cases := _float_tau(default_ks(n)):
        reasons.append({"kind": "float_tau", "cases": cases})
    model = path.parent.parent.name
    gen = _results(path).get("generation", {})
    head = (NAME, None, model, match["task"], f"{NAME}_{match['date']}", n, questions, [path])
    run = ForeignRun(*head, reported=_reported(path, rows), reasons=reasons)
    run.temperature, run.top_p = gen.get("temperature"), gen.get("top_p")
    run.max_tokens = gen.get("max_new_tokens")
    return run


IMPORTER = foreign_importer(NAME, recognise, find_runs, read_run)
