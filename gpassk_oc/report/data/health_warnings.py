"""Run-health warnings for ``gpassk-oc report`` and the demo: one line per problem that
crosses a threshold, naming the likely cause and the fix, read from the results file's
``health`` section (written by the evaluator, :mod:`gpassk_oc.core.runs.run_health`) and its
run record; plus configured (model, dataset) pairs of a work dir that have no results file
(:func:`gpassk_oc.workdir.missing_results`).

Thresholds (fractions of the run's samples or questions):

* identical replicas — at least :data:`IDENTICAL_SHARE` of the questions have all n replies
  byte-identical while the recorded temperature is above 0 (or unknown);
* truncated — at least :data:`TRUNCATED_SHARE` of the samples;
* empty replies — at least :data:`EMPTY_SHARE` of the samples;
* unjudged — any sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from gpassk_oc.core.runs.results_file import Results
from gpassk_oc.core.runs.results_summary import RunSummary
from gpassk_oc.core.runs.run_record import value_text
from gpassk_oc.workdir import CONFIGS_DIR, RESULTS_DIR, missing_results

__all__ = [
    "EMPTY_SHARE",
    "IDENTICAL_SHARE",
    "MARKER",
    "TRUNCATED_SHARE",
    "health_warnings",
    "missing_warnings",
]

#: half, not less: a confident model can give one short reply to an easy question every
#: time even at T > 0; an engine that ignores temperature repeats itself on nearly all
IDENTICAL_SHARE = Fraction(1, 2)
TRUNCATED_SHARE = Fraction(1, 10)
EMPTY_SHARE = Fraction(1, 20)
#: appended to a leaderboard row's model name when its runs have warnings
MARKER = " ⚠"


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.1f}%)" if whole else f"{part} of 0"


def _at_least(part: int, whole: int, share: Fraction) -> bool:
    return whole > 0 and part > 0 and Fraction(part, whole) >= share


def health_warnings(results: Results | RunSummary, where: str) -> list[str]:
    """Warnings of one results file (*where* names it: ``model/dataset``); [] when the file
    has no ``health`` section (written before schema 3)."""
    health = results.health
    if not health:
        return []
    overall: Mapping[str, Any] = health["overall"]
    get = lambda key: int(overall.get(key) or 0)  # noqa: E731
    samples, questions = get("samples"), get("questions")
    record = results.record
    temperature = record.temperature if record else None
    out = []
    sampled = not isinstance(temperature, (int, float)) or temperature > 0
    if sampled and _at_least(get("identical_questions"), questions, IDENTICAL_SHARE):
        out.append(
            f"{where}: {_share(get('identical_questions'), questions)} questions have all "
            f"{results.info.n} replies byte-identical ({_share(get('duplicate_responses'), samples)} "
            f"replies repeat an earlier one) at T={value_text(temperature)}: the engine "
            "ignores temperature or a fixed seed is sent; send sampling settings the engine "
            "honours (TurboMind: do_sample=True) and no fixed seed"
        )
    if _at_least(get("truncated"), samples, TRUNCATED_SHARE):
        basis = health.get("length_basis")
        how = "the server's finish reason" if basis == "finish_reason" else f"{basis} count"
        out.append(
            f"{where}: {_share(get('truncated'), samples)} samples truncated "
            f"({get('truncated_thinking')} thinking never closed, {get('truncated_length')} "
            f"reached max_out_len={health.get('max_out_len')} by {how}): raise "
            "max_out_len; G-Pass here measures the budget as much as the model"
        )
    if _at_least(get("empty"), samples, EMPTY_SHARE):
        out.append(
            f"{where}: {_share(get('empty'), samples)} replies are empty: the endpoint "
            "returned no content (a reasoning model that spent the budget thinking, a content "
            "filter, or an error page); read the inference log and check the served model"
        )
    if get("unjudged"):
        coverage = overall.get("coverage") or {}
        short = ", ".join(
            f"{metric} {pair[0]}/{pair[1]}"
            for metric, pair in coverage.items()
            if isinstance(pair, list) and len(pair) == 2 and pair[0] < pair[1]
        )
        out.append(
            f"{where}: {_share(get('unjudged'), samples)} samples unjudged (excluded from n"
            + (f"; questions covered: {short}" if short else "")
            + "): the judge was unreachable or unparseable; re-run the evaluation with the "
            "judge up (labels already got are cached)"
        )
    return out


def _run_dirs(paths: Iterable[str | Path]) -> list[Path]:
    """Every ``{ts}`` dir (one holding ``configs/``) at or under *paths*."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            path = path.parent
        if path.name == RESULTS_DIR:
            path = path.parent
        if not path.is_dir():
            continue
        if (path / CONFIGS_DIR).is_dir():
            found.append(path)
        else:
            found += sorted(p.parent for p in path.glob(f"*/{CONFIGS_DIR}") if p.is_dir())
    return list(dict.fromkeys(p.resolve() for p in found))


def missing_warnings(paths: Iterable[str | Path]) -> list[str]:
    """One line per configured (model, dataset) pair without a results file, in every work
    dir timestamp found under *paths* (see :func:`gpassk_oc.workdir.missing_results`)."""
    return [line for run_dir in _run_dirs(paths) for line in missing_results(run_dir)]
